#pragma once
// The chain trace the window policies replay (`specdse policies`, `specdse.policies`), from exactly
// one source: a trace file, synthetic segments, or the acceptance process (the central fit of a
// process band, specdse fit --statistics ... --out BAND), which makes acceptance come in the
// stretches the band's statistics imply.
#include <cstdint>
#include <string>

#include "search/acceptance/chain_trace.hpp"

namespace experiments {

struct PolicyTraceSource {
  std::string trace, synthetic, acceptance;  // exactly one non-empty
  long long iterations = -1;                 // with acceptance: iterations generated (-1: not given, kDefaultIterations)
  static constexpr long long kDefaultIterations = 4000;
  std::uint64_t seed = 1;
  std::string config_dir;                    // resolves a band's name
  // The option names the errors use (CLI: --trace ..., Python: trace ...).
  std::string trace_option = "--trace", synthetic_option = "--synthetic", acceptance_option = "--acceptance",
              iterations_option = "--iterations";
};

// The trace and a description of its source (for the footer and a written trace's header).
struct PolicyTrace {
  search::ChainTrace trace;
  std::string description;
};

// InputError for zero or several sources, a bad band or a bad iteration count.
PolicyTrace policy_trace(const PolicyTraceSource& source);

}  // namespace experiments
