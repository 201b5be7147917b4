#include "experiments/cli/policy_trace.hpp"

#include <fmt/format.h>

#include "models/config_error.hpp"
#include "search/acceptance/acceptance_statistics.hpp"
#include "search/acceptance/process_chain_trace.hpp"

namespace experiments {

PolicyTrace policy_trace(const PolicyTraceSource& s) {
  const int given = int(!s.trace.empty()) + int(!s.synthetic.empty()) + int(!s.acceptance.empty());
  if (given != 1)
    throw models::InputError(fmt::format("policies: expected exactly one of {} FILE, {} SPEC and {} BAND, got {}",
                                         s.trace_option, s.synthetic_option, s.acceptance_option,
                                         given == 0 ? "none" : "several"));
  if (s.iterations != -1 && s.acceptance.empty())
    throw models::InputError(fmt::format("{}: applies to {} BAND (a file or synthetic segments set their own length)",
                                         s.iterations_option, s.acceptance_option));
  PolicyTrace out;
  if (!s.trace.empty()) {
    out.trace = search::read_chain_trace(s.trace);
    out.description = "chain trace " + s.trace;
  } else if (!s.synthetic.empty()) {
    out.trace = search::generate_chain_trace(search::parse_chain_segments(s.synthetic_option, s.synthetic), s.seed);
    out.description = fmt::format("synthetic chain trace {} {} seed {}", s.synthetic_option, s.synthetic, s.seed);
  } else {
    const long long iterations = s.iterations == -1 ? PolicyTraceSource::kDefaultIterations : s.iterations;
    if (iterations < 1 || iterations > 10'000'000)
      throw models::InputError(fmt::format("{}: expected 1..10000000 iterations, got {}", s.iterations_option, iterations));
    const search::ProcessBand band = search::resolve_process_band(s.acceptance, s.config_dir, s.acceptance_option);
    const search::AcceptanceProcess process(band.central().params, band.name);
    out.trace = search::generate_process_chain_trace(process, iterations, s.seed);
    out.description = fmt::format("chain trace of the acceptance process {} (central of {} fits to {}: {}), {} "
                                  "iterations, seed {}",
                                  band.name, band.members.size(), band.fitted_to, band.central().params.describe(),
                                  iterations, s.seed);
  }
  return out;
}

}  // namespace experiments
