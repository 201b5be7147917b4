#pragma once
// Paper 002's testbed, shared by the SpecPipe reproductions (repro_specpipe_fig10/11/16.cpp): its
// two systems, target and draft, the pruning cost it measured, the (w, k) it picked, the context
// and seed every reproduction holds fixed, the hit curves they all fit the same way, and SpecPipe's
// parameters on the testbed's stages.
#include <fmt/format.h>

#include <cstdint>
#include <string>
#include <utility>
#include <vector>

#include "experiments/reproductions/reproduction.hpp"
#include "models/config_registry.hpp"
#include "search/scenarios/specpipe/hit_curve.hpp"
#include "search/scenarios/specpipe/level_accuracy.hpp"
#include "search/scenarios/specpipe/specpipe_acceptance.hpp"
#include "search/scenarios/specpipe/specpipe_scenario.hpp"

namespace experiments::paper002 {

// §4.1: eight RTX 3090 over PCIe with an L40 for the draft; §4.3: two servers (4x RTX 3090 and
// 4x RTX 4090) over 10 GbE.
inline constexpr const char* kSingleServer = "specpipe-8x3090-pcie";
inline constexpr const char* kTwoServers = "specpipe-2srv-3090-4090-eth";
inline constexpr const char* kTarget = "llama-3.1-70b";
inline constexpr const char* kDraft = "llama-3.2-1b";
// Paper 002 does not state its prompts' lengths: the reproductions hold the context at 1024.
inline constexpr long long kContext = 1024;
inline constexpr double kPruneS = 5e-3;              // §4.2: pruning takes about 5 ms per step
inline constexpr int kWidth = 64, kCandidates = 16;  // §4.1: the (w, k) the paper picks
inline constexpr std::uint64_t kSeed = 1;            // hit draws

// What every run holds fixed, for the notes: "N tokens, seed S, context C, pruning P ms per step".
inline std::string run_note(long long tokens) {
  return fmt::format("{} tokens, seed {}, context {}, pruning {} ms per step", tokens, kSeed, kContext, kPruneS * 1e3);
}

// The testbed `system` with every device on `engine`.
inline search::specpipe::TimingSetup setup(const models::ConfigRegistry& reg, const std::string& system,
                                           const std::string& engine) {
  return search::specpipe::make_setup(reg, system, kTarget, kDraft, engine, kContext, kPruneS);
}

// The stored hit points (paper 002 Fig. 7) and the curves fitted to them, the 1B curve's slope
// calibrated to the stated level accuracy (>95 %, search/scenarios/specpipe/level_accuracy.hpp),
// as `specdse specpipe` does by default.
struct HitCurves {
  std::string points, levels;  // the files, listed in the reproductions' inputs
  search::specpipe::HitFit fit;
};
inline HitCurves hit_curves(const models::ConfigRegistry& reg) {
  HitCurves h;
  h.points = search::specpipe::default_hit_points(reg);
  h.levels = reg.dir() + "/acceptance/specpipe_level_accuracy.csv";
  const auto points = search::specpipe::load_hit_points(h.points);
  h.fit = search::specpipe::calibrate_level_accuracy(search::specpipe::fit_hit_curves(points, "hit curve fit"), points,
                                                     search::specpipe::load_level_accuracy(h.levels),
                                                     search::specpipe::DraftConfidence::calibrated);
  return h;
}

// The draft's acceptance as `specdse specpipe` draws it by default: the acceptance process band
// fitted to paper 002's statistics (configs/acceptance/processes/specpipe-paper002.yaml); its
// central fit drives the rows.
struct ProcessRanks {
  std::string band_file;
  search::specpipe::SpecPipeAcceptance acceptance;
  std::vector<std::string> inputs;  // for a reproduction's inputs: the target's, the draft's and the band file
};
inline ProcessRanks process_ranks(const models::ConfigRegistry& reg) {
  search::specpipe::SpecPipeAcceptanceRequest rq;
  rq.draft = kDraft;
  rq.max_k = 32;
  rq.seed = kSeed;
  rq.config_dir = reg.dir();
  const std::string band_file = reg.dir() + "/acceptance/processes/" + search::specpipe::kPaper002Band + ".yaml";
  return {band_file, search::specpipe::specpipe_acceptance(rq),
          {reg.path("models", kTarget), reg.path("models", kDraft), band_file}};
}

// A reproduction that draws from `process`: its title, with the process's input files listed first.
inline ReproductionResult result_drawing_from(const ProcessRanks& process, std::string title) {
  ReproductionResult res;
  res.title = std::move(title);
  res.inputs = process.inputs;
  return res;
}

// SpecPipe with tree width `width` and `candidates` per bottom node over the stages of `timer`,
// `tokens` per run, drawing hits from the reproductions' seed.
inline search::specpipe::SpecPipeParams specpipe_params(const search::specpipe::StageTimer& timer, int width,
                                                        int candidates, long long tokens) {
  return {timer.stages(), width, candidates, tokens, kSeed};
}

}  // namespace experiments::paper002
