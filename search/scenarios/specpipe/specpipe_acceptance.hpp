#pragma once
// Where SpecPipe's (and SpecInfer's static tree's) hits come from, chosen once per scenario run:
//  - the acceptance process (search/acceptance), every scenario's default source: a band of fits
//    to the draft / target pair's published statistics. The rows run the band's central member;
//    the best configuration and the static tree also run every other member, for a low / high.
//    Paper 002's pair (Llama-3.2-1B drafting for a 70B Llama) has the band specpipe-paper002,
//    fitted to its top-32 hit, its 8B draft's top-1 (a bound for the 1B) and its stated level
//    accuracy;
//  - the hit curve (hit_curve.hpp) through paper 002 Fig. 7's points, for drafts without a band,
//    on request (--acceptance hit-curve), or when one of its own inputs is given (--hit-points,
//    --hit-curve, --level-accuracy, --confidence);
//  - a fixed hit rate, or a probability trace, which replace both.
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "search/scenarios/specpipe/speculative_tree.hpp"

namespace search::specpipe {

// The shipped band for paper 002's pair, and the draft it was fitted for.
inline constexpr const char* kPaper002Band = "specpipe-paper002";
inline constexpr const char* kPaper002Draft = "llama-3.2-1b";
// The target the band and the hit curves were measured against (paper 002 Fig. 7, §3.3.1).
inline constexpr const char* kPaper002Target = "llama-3.1-70b";

struct SpecPipeAcceptanceRequest {
  std::string acceptance = "auto";  // auto, hit-curve, or a band's name or path
  std::string draft;                // the draft model's name
  std::string target;               // the target model's name (acceptance measured for another is borrowed)
  std::string hit_points, hit_curve, level_accuracy;  // the hit curve's inputs (empty: defaults)
  std::string confidence = "auto";  // the hit curve's draft confidence: auto (calibrated), calibrated, constant
  std::optional<double> hit_rate;   // a fixed hit rate
  std::string trace;                // a probability trace
  int max_k = 16;                   // candidates the rank models list
  int trace_k = 16;                 // candidates a trace must list (the largest k asked for)
  std::uint64_t seed = 1;
  std::string config_dir;
};

struct SpecPipeAcceptance {
  RankModel central;                 // the rows' ranks
  std::vector<RankModel> others;     // the band's other members (empty: no band)
  std::optional<AcceptanceProcess> process;  // the rows' process (the band's central fit), if any
  std::string description;           // for the footer
  std::string column;                // the `acceptance` cell of every row drawing from it
  // "measured against llama-3.1-70b, not TARGET" where the default source (the band or the hit
  // curve) was measured for another target than the request's; empty otherwise. The column
  // and the description then start with "borrowed (THIS): ".
  std::string borrowed;
};

// InputError naming the option for a bad source (unknown band, two sources at once, ...).
SpecPipeAcceptance specpipe_acceptance(const SpecPipeAcceptanceRequest& request);

}  // namespace search::specpipe
