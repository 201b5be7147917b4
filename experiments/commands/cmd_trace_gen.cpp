// specdse trace-gen: a seeded synthetic acceptance trace (DESIGN.md contract 3) from a
// positional model: rank k of any node accepted with probability p_k, optionally decaying
// with depth and drifting over time.
#include <fmt/format.h>

#include <iostream>

#include "experiments/cli/cli_common.hpp"
#include "experiments/cli/heartbeat.hpp"
#include "models/config_error.hpp"
#include "search/trees/path_counts.hpp"
#include "search/acceptance/trace_generator.hpp"
#include "search/work_bound.hpp"

namespace experiments {
namespace {

struct TraceGenArgs {
  std::string acceptance, drift_to, output, format;
  double depth_decay = 1.0;
  long long lines = 0, drift_period = 0;
  unsigned long long seed = 0;
  int max_depth = 64;
};

int run_trace_gen(const TraceGenArgs& a) {
  search::PositionalModel model;
  model.acceptance = search::parse_acceptance_vector("--acceptance-vector", a.acceptance);
  model.depth_decay = a.depth_decay;
  if (!a.drift_to.empty()) model.drift_to = search::parse_acceptance_vector("--drift-to", a.drift_to);
  model.drift_period_lines = a.drift_period;
  model.max_depth = a.max_depth;
  // Said under the flags' names here; validate() names the model's fields (Python's keywords).
  if (!model.drift_to.empty() && model.drift_to.size() != model.acceptance.size())
    models::throw_input_error("command line", "--drift-to",
                              fmt::format("{} probabilities (as many as --acceptance-vector)", model.acceptance.size()),
                              std::to_string(model.drift_to.size()));
  model.validate("command line");
  if (a.lines < 0) models::throw_input_error("command line", "--lines", "a count >= 0", std::to_string(a.lines));
  search::require_work_within("trace-gen", "--lines", double(a.lines), search::kMaxTraceLines, "lines",
                              "write several traces with other --seed values");

  if (a.output.empty() || a.output == "-") {
    search::write_synthetic_trace(std::cout, model, a.seed, a.lines);
    return 0;
  }
  // Streamed to the file (its target checked by write_file_atomic before a line is drawn), counted
  // on the way: a trace of 10^8 lines never sits in memory.
  search::PathCounts counts;
  {
    const Heartbeat beat("trace-gen");
    write_file_atomic(a.output, [&](std::ostream& out) {
      counts = search::PathCounts();  // a retried write starts over
      search::write_synthetic_trace(out, model, a.seed, a.lines, [&](const search::RankPath& p) { counts.add(p); });
    });
  }
  // Summary of what was written: the sample against the model's expectation.
  Table t({"trace", "lines", "seed", "distinct_nodes", "mean_accepted_tokens", "model_mean_accepted_tokens"});
  t.add_row({a.output, integer(counts.lines()), integer(std::int64_t(a.seed)),
             integer(std::int64_t(counts.node_count()) - 1), num(counts.mean_accepted_length()),
             model.drift_to.empty() ? num(model.expected_accepted_length()) : text("")});
  if (!model.drift_to.empty()) t.set_footer("model_mean_accepted_tokens left empty: a drifting model has no single mean");
  print_table(t, a.format);
  return 0;
}

const RegisterCommand trace_gen_registration{
    "trace-gen",
    "Seeded synthetic acceptance trace (one accepted rank path per line) from a positional model",
    [](CLI::App& sub, const GlobalOptions&) -> CommandRunner {
      auto a = std::make_shared<TraceGenArgs>();
      sub.add_option("--acceptance-vector", a->acceptance,
                     "p_k: probability that a node's k-th ranked child is accepted, e.g. 0.6,0.1,0.05 (sum <= 1)")
          ->required();
      sub.add_option("--depth-decay", a->depth_decay, "p_k at depth d is p_k * decay^(d-1); in (0, 1]")
          ->default_val(1.0);
      sub.add_option("--drift-to", a->drift_to,
                     "Acceptance vector the model drifts to (linearly over the trace, or see --drift-period)");
      sub.add_option("--drift-period", a->drift_period,
                     "Lines per back-and-forth drift cycle (0: one linear drift over the whole trace)")
          ->default_val(0)
          ->needs("--drift-to");  // a period of no drift would be ignored
      sub.add_option("--max-depth", a->max_depth, "Longest accepted path (draft tokens)")->default_val(64);
      sub.add_option("--lines", a->lines, "Iterations (trace lines) to generate")->required();
      sub.add_option("--seed", a->seed, "Random seed (same seed and model: byte-identical trace)")->default_val(0)->check(integer_in(0, kMaxSeed));
      sub.add_option("--output,-o", a->output,
                     "Write the trace to this file and print a summary table (default: trace to stdout)");
      add_format_option(sub, a->format);
      return [a] { return run_trace_gen(*a); };
    },
    60};

}  // namespace
}  // namespace experiments
