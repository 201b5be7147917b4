#pragma once
// `specdse plan --workload FILE`: the workload plan weighs the schemes for, in one YAML file
// instead of flags (experiments/workloads/ holds examples):
//
//   description: "summaries of long reports"    # optional, free text
//   context: 4096          # tokens of context: one value, or a list for a mix ...
//   context_weights: [3, 1]  # ... with the share of tokens decoded at each (optional)
//   batch: 1               # sequences decoded together, or
//   request_rate_per_s: 4  # requests arriving a second (plan picks each candidate's batch) ...
//   output_tokens: 256     # ... each decoding this many tokens
//   rank_by: tbt           # tbt, throughput or ttft
//   task: govreport        # whose measured acceptance (tree SD) to use
//   alpha: 0.8             # per-token acceptance of draft models, or
//   acceptance: BAND       # an acceptance process band (specdse fit --statistics ... --out), or
//   statistics: FILE       # published acceptance statistics, fitted here to such a band
//   targets:
//     tbt_ms: 25           # time between tokens at most
//     ttft_ms: 800         # time to first token at most
//     memory_headroom_gib: 4   # device memory left free on every device at least
//     percentile: 90       # TBT and TTFT checked at this percentile of the mix (default 99)
//
// Every key is optional; an unknown or repeated key is an error naming the file and the key.
#include <cstddef>
#include <functional>
#include <optional>
#include <string>
#include <vector>

namespace search {

// The most contexts a mix may hold: every context reruns every scheme (a 64-bin histogram of
// prompt lengths is finer than any published mix; 20000 contexts would run for most of an hour).
constexpr std::size_t kMaxMixContexts = 64;

struct PlanWorkload {
  std::string file;
  std::vector<long long> contexts;    // empty: not given
  std::vector<double> context_weights;
  std::optional<int> batch;
  std::optional<double> request_rate_per_s;
  std::optional<int> output_tokens;
  std::optional<std::string> rank_by;
  std::optional<std::string> task;
  std::optional<double> alpha;
  std::optional<std::string> acceptance;
  std::optional<std::string> statistics;  // a statistics file (relative paths: to the workload file)
  std::optional<double> tbt_limit_ms, ttft_limit_ms, memory_headroom_gib, slo_percentile;
};

// Reads and validates a workload file (InputError naming the file, key and value).
PlanWorkload read_plan_workload(const std::string& path);

// The acceptance process band fitted to a statistics file (specdse fit --statistics), written
// once to the system's temporary folder under a name derived from the file's content and the
// build's commit, and reused while it is there; returns the band's path. `progress` is told each fit as it finishes.
std::string band_for_statistics(const std::string& statistics_path,
                                const std::function<void(std::size_t, std::size_t)>& progress);

}  // namespace search
