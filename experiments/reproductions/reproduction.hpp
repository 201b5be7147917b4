#pragma once
// Paper reproductions (`specdse reproduce NAME`). Each is one file (repro_*.cpp) that registers
// itself, computes a table from the project's configs and data, and may ask for a plot. The
// reproduce command writes <out>/<name>/: <name>.csv, <name>.md, manifest.txt, plots.
#include <functional>
#include <string>
#include <vector>

#include "experiments/output/table.hpp"
#include "models/config_registry.hpp"

namespace experiments {

struct ReproduceContext {
  const models::ConfigRegistry* registry = nullptr;
  std::string engine = "roofline";
  std::string out_dir;       // <out>/<name>
  bool quiet = false;        // no progress on stderr
};

struct PlotRequest {
  std::string script;        // path of a Python script under experiments/plots
  std::vector<std::string> args;
};

struct ReproductionResult {
  std::string title;
  Table table{{}};
  std::string notes;                 // Markdown shown under the table
  std::vector<std::string> inputs;   // files the numbers came from
  std::vector<std::pair<std::string, Table>> extra_csvs;  // file name -> table
  // Plots with their own script or arguments. Left empty, a reproduction gets its conventional
  // plot (reproduction_plots).
  std::vector<PlotRequest> plots;
};

struct Reproduction {
  std::string name;
  std::string description;
  std::function<ReproductionResult(const ReproduceContext&)> run;
  int order = 100;
  // One of the longest reproductions (`specdse bench` lists each one's time; on the sim engine
  // regimes takes several times the next longest): `reproduce all` hands these to its worker
  // processes first, so that none starts last and holds up the end (longest-first scheduling).
  // Printed order and files do not depend on it.
  bool long_running = false;
};

// Every registered reproduction, by name (a second registration of a name is an error:
// models/registry.hpp).
std::vector<Reproduction> reproduction_table();

// The order in which `reproduce all`'s worker processes start `chosen`: the long-running ones
// first, then the rest, each group in the order given (indices into `chosen`).
std::vector<std::size_t> start_order(const std::vector<const Reproduction*>& chosen);

struct RegisterReproduction {
  RegisterReproduction(std::string name, std::string description,
                       std::function<ReproductionResult(const ReproduceContext&)> run, int order = 100,
                       bool long_running = false);
};

}  // namespace experiments
