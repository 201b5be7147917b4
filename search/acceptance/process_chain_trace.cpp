#include "search/acceptance/process_chain_trace.hpp"

#include <fmt/format.h>

#include "models/config_error.hpp"

namespace search {

ChainTrace generate_process_chain_trace(const AcceptanceProcess& process, long long iterations, std::uint64_t seed) {
  if (iterations < 1)
    throw models::InputError(fmt::format("{}: a chain trace needs at least 1 iteration, got {}", process.source(), iterations));
  AcceptanceSampler sampler(process, 2, seed);
  ChainTrace trace;
  trace.source = "acceptance process " + process.source();
  trace.iterations.reserve(std::size_t(iterations));
  for (long long i = 0; i < iterations; ++i) {
    ChainIteration it;
    // Draft depth k + 1 for the k-th token after the iteration's start; the alpha cap (< 1 or not)
    // is bounded by the run cap.
    while (it.matched < kMaxProcessRun && sampler.next(it.matched + 1).accepted) ++it.matched;
    trace.iterations.push_back(std::move(it));
  }
  return trace;
}

}  // namespace search
