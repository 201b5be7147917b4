#pragma once
// The DuoDecoding scenario end to end: hardware-aware budget from the engines, DuoDecoding,
// SpS and AD planned over the same acceptance stream and laid on the same timeline, TTFT, and
// the budget sweep (paper 003 Table 3's shape).
#include <cstdint>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "models/config_registry.hpp"
#include "search/scenarios/duodecoding/duo_timeline.hpp"

namespace search::duodecoding {

// Top-k probabilities the calibrated generator lists per position (the dynamic rule's cap is 4).
inline constexpr int kGeneratorTopK = 8;

struct DuoRequest {
  DuoPlacement placement;
  DuoCosts costs = DuoCosts::constant(1, 1);
  int draft_vocab = 0;
  PositionStream stream = PositionStream::calibrated(0.5, 4, 1);
  int budget = 0;              // 0: the hardware-aware budget
  SequencePolicy policy;
  long long tokens = 1024;
  int sps_gamma = 0;           // 0: paper 001's best window for the stream's acceptance
  int sps_gamma_max = 32;      // search range of that window
  int prompt = 256;            // TTFT prompt tokens
  // SpS's own placement and costs when its draft runs elsewhere than DuoDecoding's (paper 003's
  // SpS baseline drafts on the GPU with Transformers); unset: the same draft device.
  std::optional<DuoPlacement> sps_placement;
  std::optional<DuoCosts> sps_costs;
  // SpS's draft model as the config registry names it (NAME, NAME@FORMAT or a path).
  std::string sps_draft;
  // Why SpS drafts where it does when that is not the default (the draft does not fit beside the
  // target); empty otherwise. The scenario's footer says it.
  std::string sps_note;
};

struct DuoReport {
  double cost_coefficient = 0;
  int hardware_budget = 0;
  int budget = 0;
  int sps_gamma = 0;
  ScenarioRun ad, sps, duo;
  TtftResult ttft;
};

// What names select (the CLI, the scenario registry and the reproductions share it).
struct DuoNames {
  std::string system, model, draft, engine = "roofline", draft_device;
  // SpS's draft device; empty: the target's (conventional SpS, paper 003's baseline).
  std::string sps_draft_device;
  // SpS's draft model; empty: DuoDecoding's, without its quantised format when it drafts beside
  // the target (the GPU runs it in the target's precision).
  std::string sps_draft;
  int prompt = 256;
  long long tokens = 1024;
};

// Paper 003's testbed (§4.1): Llama-2-7B (FP16) on an A800 with Transformers, Llama-68M in
// llama.cpp's Q5_K_M on the host's 16-core Xeon, PCIe 4.0 (configs/systems/duodecoding-a800-xeon).
DuoNames paper003_testbed(const std::string& engine = "roofline");

// Placement, engine costs and draft vocabulary from names. Decode steps start at context
// `prompt` and grow with the generated tokens; the budget and SpS's window are chosen once at
// prompt + tokens / 2, the mean KV length over the generation.
DuoRequest make_duo_request(const models::ConfigRegistry& reg, const DuoNames& n);

const DuoPlacement& sps_placement(const DuoRequest& q);
const DuoCosts& sps_costs(const DuoRequest& q);
int resolve_sps_gamma(const DuoRequest& q);

DuoReport run_duo_scenario(const DuoRequest& q);

// DuoDecoding with one sequence at each budget (paper 003 Table 3 fixes one sequence "to isolate
// the impact of drafting budget adjustments").
std::vector<std::pair<int, ScenarioRun>> budget_sweep(const DuoRequest& q, const std::vector<int>& budgets);

// The budget of a sweep with the highest tokens/s (ties: the smaller budget).
int best_budget(const std::vector<std::pair<int, ScenarioRun>>& sweep);

// Option parsing shared by `specdse duo` and the scenario registry: "auto" (0: hardware-aware)
// or N in [1, 4096]; "dynamic" or "static:N" (1 <= N <= 64). InputError naming the option.
int parse_budget(const std::string& text);
SequencePolicy parse_sequences(const std::string& text, int max_sequences);

}  // namespace search::duodecoding
