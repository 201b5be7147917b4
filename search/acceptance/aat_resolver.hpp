#pragma once
// Where AAT(x) comes from, chosen by the caller (the tree-sd scenario's parameters, which are
// `specdse optimize`'s flags and Python's keywords; a sweep's points) and named in its output:
//   - measured points from the acceptance CSV (--data, default <config dir>/acceptance/
//     aat_measurements.csv), selected by the workload's own model / algorithm / task names or by
//     another workload's (--aat-from MODEL/ALGORITHM/TASK, e.g. for a new model with no
//     measurements of its own), fitted with Ceres;
//   - a per-token acceptance probability for a chain (--alpha A): a chain of x - 1 draft tokens,
//     each accepted with probability A independently until the first rejection, accepts
//     sum_{i=1}^{x-1} A^i tokens on average, so AAT(x) = (1 - A^x) / (1 - A) (derived, not fitted);
//   - an acceptance trace (--trace F, DESIGN.md contract 3): AAT(x) of the chain 0, 0 0, ... for
//     chain algorithms, of the prior-score tree of x - 1 nodes (paper 000 §III-C) for tree ones;
//   - an acceptance process band (--acceptance BAND, DESIGN.md "Acceptance process"): the band's
//     central process, AAT(x) of its chain of x - 1 tokens or of its best-first tree of x - 1
//     nodes (exact expectations, no fit of measured points).
#include <optional>
#include <string>
#include <vector>

#include "models/algorithm_spec.hpp"
#include "models/config_registry.hpp"
#include "search/acceptance/acceptance_data.hpp"
#include "search/optimizer.hpp"

namespace search {

struct AcceptanceOptions {
  std::string data;          // --data: acceptance CSV
  std::string aat_from;      // --aat-from MODEL/ALGORITHM/TASK
  double alpha = -1;         // --alpha; < 0: not given
  std::string trace;         // --trace: acceptance trace file
  std::string source_table;  // --source-table: only rows from this source table
  std::string process;       // --acceptance: a process band (name or file)
};

// The same exclusions for options set another way (the Python module): InputError naming both.
void check_acceptance_options(const AcceptanceOptions& o);

// The acceptance CSV: --data when given, else <registry dir>/acceptance/aat_measurements.csv
// (so --config-dir and $SPECDSE_CONFIG_DIR both choose it).
std::string acceptance_csv_path(const models::ConfigRegistry& reg, const std::string& data_option);

// The measurement names a workload's AAT is looked up under: the model config's own `name`
// (not the path it was given as), the algorithm name and the task.
struct AatKey {
  std::string model, algorithm, task;
};

struct ResolvedAat {
  AatSource source;
  std::string description;  // shown in the output's aat_source column
  // Measured data: the source tables whose rows the fit used, " + "-joined (several when no
  // --source-table picks one: the fit pools them); empty for --alpha and --trace.
  std::string source_tables;
};

// AAT(x) for x = 1..x_max from the chosen source, one context at a time (the CSV or trace is
// read once). `own` is the workload's key; `algorithm` decides chain vs tree for traces.
class AatResolver {
 public:
  AatResolver(const models::ConfigRegistry& reg, AcceptanceOptions options, AatKey own,
              const models::AlgorithmSpec* algorithm, int x_max);
  ResolvedAat at(long long context) const;
  // The key measured data is looked up under (own, or --aat-from's).
  const AatKey& key() const { return key_; }
  // With --aat-from naming another model, algorithm or task than the workload's own: "measured
  // for M/A/T, not the workload's M'/A'/T' (another target model, ...)"; empty otherwise.
  std::string borrowed() const;

 private:
  AcceptanceOptions o_;
  AatKey key_;
  AatKey own_;  // the workload's own key
  int x_max_ = 128;
  std::string csv_;
  std::optional<AcceptanceData> data_;
  std::vector<double> trace_aat_;  // trace or process: AAT at x = n + 1
  std::string trace_what_;
};

// AAT of a chain of x - 1 draft tokens each accepted with probability alpha, x >= 1.
double geometric_chain_aat(double alpha, int x);

struct AatSelection {
  std::string algorithm, model, task;
  std::string source_table;  // empty: any
};

// The measured AAT at `context`; between two measured contexts, interpolated (AatSource::note says
// so); InputError below the smallest or above the largest measured context, or with no data.
AatSource aat_source(const AcceptanceData& data, const AatSelection& sel,
                             long long context);

// AAT at `context` between two measured contexts' sources: at each x measured at both, linear in
// ln(context); the fit through those points, the lower context's tree shapes, and the note.
AatSource interpolated_aat_source(const AatSource& lo, const AatSource& hi, long long lo_context,
                                          long long hi_context, long long context, const std::string& what);

}  // namespace search
