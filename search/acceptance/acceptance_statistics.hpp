#pragma once
// Acceptance statistics files and the process bands fitted to them.
//
// A statistics file (YAML) lists what has been measured about one draft / target / task and how
// the acceptance process should be fitted to it:
//
//   name: duodecoding-llama68m-llama2-7b
//   start: {alpha_easy: 0.6, alpha_hard: 0.02, easy_share: 0.85, confidence: calibrated}
//   free: [alpha_easy, alpha_hard, easy_share]
//   open: {persistence: [0.5, 0.6, 0.7, 0.8, 0.9]}   # optional: a band over what the data leave open
//                                                    # (several parameters: a fit per grid point)
//   tolerance: 0.03                                    # a fit is consistent when every residual is within
//   derivative_step: 0.05                              # optional (wide for simulated statistics)
//   borrowed: {easy_share: "paper 003's band"}         # optional: parameters held at `start`, and why
//   statistics:
//     - {kind: chain_tpc, length: 3, value: 3.49, source: "paper 004 Table 1"}
//     - {kind: dp_tree_share, ..., value: 1, fitted: false, tolerance: 0.1}  # checked, not fitted
//
// A row may set `weight` (its residual's), `fitted: false` (checked on every fit but not
// minimised: for statistics that move in steps) and `tolerance` (its own, instead of the file's).
//
// Statistic kinds register themselves (one file + one line, like engines and scenarios): built
// in are chain_tpc (length), tree_tpc (tree: list of rank paths such as "0 1"), top_k_hit (k,
// optional depth) and mean_acceptance (optional depth); scenarios add the statistics their own
// algorithm produces (DuoDecoding's check confusion, search/scenarios/duodecoding).
//
// A process band (YAML, written by `specdse fit --statistics`) holds every fit consistent with
// the statistics, one per value of the open parameters, with its residual; scenarios run each
// member and report the low / high of their results.
#include <functional>
#include <string>
#include <vector>

#include "models/yaml_reader.hpp"
#include "search/acceptance/process_fit.hpp"

namespace search {

// Builds the prediction of one statistic row (its kind-specific keys already allowed).
using StatisticBuilder = std::function<std::function<double(const AcceptanceProcess&)>(const models::YamlReader& row)>;

// A statistic's value where its kind bounds it (a share in [0, 1], a chain's tokens per call in
// [1, length + 1]): InputError naming the row's `value` otherwise. A kind's builder calls it, so a
// value outside what the statistic can be is refused before the fit, not left to its tolerance.
double statistic_value_in(const models::YamlReader& row, double lo, double hi, const std::string& why);

struct StatisticKindRegistration {
  StatisticKindRegistration(std::string kind, std::vector<std::string> keys, std::string help, StatisticBuilder build);
};
std::vector<std::string> statistic_kinds();

struct StatisticsFile {
  std::string path, name;
  ProcessFitSpec spec;            // start, free, statistics, derivative step
  // Parameters the statistics leave open, each with its values: one fit per point of their
  // grid (the first parameter varies slowest). Empty: one fit.
  std::vector<std::string> open_parameters;
  std::vector<std::vector<double>> open_values;
  std::size_t open_points() const;
  double tolerance = 0.03;
  // Statistic i's consistency tolerance: its own, else the file's.
  double tolerance_of(std::size_t i) const;
  // Parameters held at `start` because the statistics cannot fix them, each with where its value
  // comes from ("easy_share = 0.8 borrowed (...)"): `borrowed: {easy_share: "..."}` in the file.
  std::vector<std::string> borrowed;
};
StatisticsFile read_statistics_file(const std::string& path);

struct ProcessBandMember {
  AcceptanceProcessParams params;
  double max_abs_residual = 0;
};

struct ProcessBand {
  std::string name, fitted_to;           // the statistics file's name and what it holds
  std::vector<std::string> statistics;   // labels
  std::vector<ProcessBandMember> members;  // consistent fits, in the open parameters' grid order
  std::vector<std::string> left_open;
  std::vector<std::string> borrowed;      // parameters not fitted but borrowed, with their source
  // The fit scenarios quote: with one open parameter the middle member; with several (a grid)
  // the member at every open parameter's middle value among the members (the upper one of an
  // even count), or the nearest to that point in units of each parameter's spread.
  const ProcessBandMember& central() const;
  // The fits other than the central one, in band order (scenarios rerun them for low / high).
  std::vector<const ProcessBandMember*> others() const {
    std::vector<const ProcessBandMember*> out;
    for (const auto& m : members)
      if (&m != &central()) out.push_back(&m);
    return out;
  }
  // "process band NAME: N fits to FILE": the acceptance cell of a row drawn from it.
  std::string column() const;
};

struct StatisticsFitReport {
  ProcessBand band;
  std::vector<ProcessFitResult> fits;      // every fit, consistent or not
  std::vector<bool> consistent;
};

// Fits the file's statistics (once, or once per open value); InputError when no fit is within
// the tolerance. `progress` (may be empty) is told each fit as it finishes.
StatisticsFitReport fit_statistics(const StatisticsFile& file,
                                   const std::function<void(std::size_t done, std::size_t total)>& progress = {});

std::string format_process_band(const ProcessBand& band, const std::string& comment);
ProcessBand read_process_band(const std::string& path);
// A band by path, by file name (<config_dir>/acceptance/processes/NAME.yaml) or by the `name:`
// a band file declares (what outputs print); InputError naming the shipped bands otherwise.
// `option` (e.g. "--acceptance") leads the error when given.
ProcessBand resolve_process_band(const std::string& name_or_path, const std::string& config_dir,
                                 const std::string& option = "");

}  // namespace search
