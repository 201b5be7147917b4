#include "experiments/cli/window_acceptance.hpp"

#include <fmt/format.h>

#include <memory>

#include "models/config_error.hpp"
#include "search/acceptance/acceptance_statistics.hpp"

namespace experiments {

WindowAcceptances window_acceptances(const std::vector<double>& alphas, const std::string& band_name,
                                     const std::string& config_dir, const std::string& alpha_option,
                                     const std::string& band_option) {
  if (alphas.empty() == band_name.empty())
    throw models::InputError(fmt::format("window: expected exactly one of {} (independent accuracies) and {} BAND, got {}",
                                         alpha_option, band_option, alphas.empty() ? "neither" : "both"));
  WindowAcceptances out;
  if (!alphas.empty()) {
    for (double a : alphas) {
      search::require_accuracy(alpha_option, a);
      out.cases.push_back({a, "", [a](int g) { return search::chain_expected_tokens(a, g); }});
    }
    return out;
  }
  const search::ProcessBand band = search::resolve_process_band(band_name, config_dir, band_option);
  out.from_band = true;
  out.band_note = fmt::format("acceptance process {}: {} fits to {}", band.name, band.members.size(), band.fitted_to);
  const std::size_t n = band.members.size();
  for (std::size_t i = 0; i < n; ++i) {
    const auto& m = band.members[i];
    auto process = std::make_shared<search::AcceptanceProcess>(m.params, band.name);
    // Every parameter the band leaves open, with this fit's value: "(persistence=0.7 lower_rank_share=0.3)".
    std::string open;
    for (const auto& name : band.left_open)
      open += fmt::format("{}{}={:.6g}", open.empty() ? " (" : " ", name, search::process_parameter(m.params, name));
    if (!open.empty()) open += ")";
    out.cases.push_back({0, fmt::format("{} fit {} of {}{}{}", band.name, i + 1, n, open, &m == &band.central() ? " [central]" : ""),
                         [process](int g) { return process->chain_tpc(g); }});
  }
  return out;
}

}  // namespace experiments
