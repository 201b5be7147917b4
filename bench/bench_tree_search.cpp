// Tree search speed: a 1,000,000-line acceptance trace, every tree for x = 2..128 by
// every method (prior-score, width-first, depth-first) with its AAT. Target: under 2 s.
//   build/bench_tree_search [--benchmark_filter=...]
#include <benchmark/benchmark.h>

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <string>
#include <unistd.h>

#include "search/trees/path_counts.hpp"
#include "search/trees/token_tree.hpp"
#include "search/acceptance/trace_generator.hpp"
#include "search/trees/tree_search.hpp"

namespace {

constexpr int kLines = 1000000;
constexpr int kXMax = 128;

// The trace is written once per process (generation is not what is measured) and removed at
// exit; the path is a namespace-scope object so it outlives the remover below.
std::string g_trace_path;

const std::string& trace_file() {
  if (g_trace_path.empty()) {
    const char* tmp = std::getenv("TMPDIR");
    g_trace_path = std::string(tmp ? tmp : "/tmp") + "/specdse_bench_trace_" + std::to_string(::getpid()) + ".txt";
    search::PositionalModel m;
    m.acceptance = {0.55, 0.12, 0.06, 0.035, 0.02, 0.012, 0.008, 0.005};
    m.depth_decay = 0.97;
    std::ofstream out(g_trace_path);
    search::write_synthetic_trace(out, m, 1, kLines);
  }
  return g_trace_path;
}

struct RemoveTrace {
  ~RemoveTrace() {
    if (!g_trace_path.empty()) std::remove(g_trace_path.c_str());
  }
};

// Everything `specdse tree-search` does for the table: stream and fold the trace, rank, build
// every tree of every method and measure its AAT.
void BM_AllTreesFromTraceFile(benchmark::State& state) {
  const std::string& path = trace_file();
  const auto shape = search::TokenTree::from_widths({4, 16, 16, 16, 16, 16});
  for (auto _ : state) {
    const auto counts = search::PathCounts::from_trace_file(path);
    double checksum = 0;
    for (const auto& ranking : {search::prior_score_ranking(counts, kXMax - 1), search::width_first_ranking(shape),
                                search::depth_first_ranking(shape)}) {
      for (int x = 2; x <= std::min(kXMax, ranking.size() + 1); ++x)
        checksum += search::tree_aat(ranking.tree(x - 1), counts);
    }
    benchmark::DoNotOptimize(checksum);
    state.counters["lines"] = double(counts.lines());
  }
}
BENCHMARK(BM_AllTreesFromTraceFile)->Unit(benchmark::kMillisecond)->Iterations(3);

// Only reading and folding the trace (the part that grows with the trace).
void BM_FoldTrace(benchmark::State& state) {
  const std::string& path = trace_file();
  for (auto _ : state) {
    const auto counts = search::PathCounts::from_trace_file(path);
    benchmark::DoNotOptimize(counts.node_count());
  }
}
BENCHMARK(BM_FoldTrace)->Unit(benchmark::kMillisecond)->Iterations(3);

// Only the search on the folded trace: rankings and nested AAT for all x.
void BM_RankAndNestedAat(benchmark::State& state) {
  const auto counts = search::PathCounts::from_trace_file(trace_file());
  const auto shape = search::TokenTree::from_widths({4, 16, 16, 16, 16, 16});
  for (auto _ : state) {
    double checksum = 0;
    for (const auto& ranking : {search::prior_score_ranking(counts, kXMax - 1), search::width_first_ranking(shape),
                                search::depth_first_ranking(shape)})
      checksum += search::nested_aat(ranking, counts).back();
    benchmark::DoNotOptimize(checksum);
  }
}
BENCHMARK(BM_RankAndNestedAat)->Unit(benchmark::kMillisecond)->Iterations(5);

const RemoveTrace remove_trace_at_exit;

}  // namespace

BENCHMARK_MAIN();
