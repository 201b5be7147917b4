#pragma once
// How much one command or scenario run computes. List flags multiply (contexts x lengths x
// batches), and a grid past these bounds would run for minutes with nothing to show: it is
// refused up front, naming the factors, and pointed at a sweep spec (which journals, resumes and
// runs on threads). Each bound keeps its run to seconds on a 2-core machine (docs/cli.md lists
// them with the measured rates).
#include <string>

namespace search {

// Rows of `specdse latency`: x values x contexts x batches (~100 000 rows/s on the roofline engine).
constexpr double kMaxLatencyRows = 1e6;
// Windows timed by chain-sd: contexts x gammas x batches (~10 000/s).
constexpr double kMaxChainSdPoints = 1e5;
// Dispatcher searches of eagle-dispatcher: contexts x batches (~4 ms each).
constexpr double kMaxEagleDispatches = 4096;
// Verification lengths tree-sd / optimize evaluates: contexts x batches x x-max (~7 000/s).
constexpr double kMaxTreeSdEvaluations = 2.5e5;
// Contexts of `specdse window` in engine mode (~3 ms each).
constexpr double kMaxWindowContexts = 1e4;
// Rows `specdse window` prints (or scans, with --map): cases (cost ratios or contexts) x
// acceptances x (gamma-max + 1), each a geometric series of up to gamma-max terms.
constexpr double kMaxWindowRows = 1e6;
// Lines `specdse trace-gen` writes (~4 million lines/s; 10^8 lines are a few GB).
constexpr double kMaxTraceLines = 1e8;
// Floating-point operations `golden` runs on this host's cores (kernels x runs x rounds): real
// kernels, ~36 GFLOP/s on a 2-core machine, so about a minute (the default grid: 0.22 x 10^12).
constexpr double kMaxGoldenFlops = 2e12;
// Requests `serve` simulates over every rate and method (~40 us each when the queue grows).
constexpr double kMaxServedRequests = 1e6;

// What to do instead of a grid past its bound, for a grid a sweep spec can hold.
inline const char* const kSplitTheGrid =
    "split the grid or run it as a sweep spec (specdse sweep: journalled, resumable, threaded)";

// models::InputError "<what>: <factors> = <amount> <unit>, more than the <bound> one run computes;
// <advice>" when amount > bound.
void require_work_within(const std::string& what, const std::string& factors, double amount, double bound,
                         const std::string& unit, const std::string& advice = kSplitTheGrid);

}  // namespace search
