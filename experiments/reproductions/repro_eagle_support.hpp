#pragma once
// Shared by the paper-004 reproductions (repro_eagle_*.cpp): the paper's deployment (Llama
// target and its EAGLE head, tensor parallel over the 8x H100 NVLink host on the system
// timeline) as a dispatcher cost model.
#include <memory>
#include <string>

#include "experiments/reproductions/reproduction.hpp"
#include "search/scenarios/eagle_dispatcher/eagle_dispatcher.hpp"

namespace experiments {

// Paper 004's host: configs/systems/eagle-8xh100-nvlink.yaml.
inline const char* kPaper004System = "eagle-8xh100-nvlink";

struct Paper004Deployment {
  models::Workload workload;  // target + EAGLE head shaped as the target's layer
  std::unique_ptr<search::EagleCostModel> costs;
  std::vector<std::string> inputs;  // config files used
};

// Paper 004's final draft (§2.3): three dense decoder layers. Its acceptance (the positional
// model's level, paper 004 Table 1 "EAGLE (Ours)") was measured with this draft, so its cost
// must be this draft's too.
inline constexpr const char* kPaper004Draft = "eagle-dense3-chain";

// Paper 004's speculation length, 3: "the time to generate three tokens (corresponding to
// speculation length in our experiments)" (Table 2's caption); Table 1's and Fig. 8's TPC are
// measured at it. The paper-004 reproductions search trees no deeper (the dispatcher's own
// defaults, for users, go to depth 4 for full trees and 6 for pruned ones).
inline constexpr int kPaper004SpeculationLength = 3;
inline void limit_to_paper004_speculation_length(search::EagleDispatchOptions& o) {
  o.max_full_depth = kPaper004SpeculationLength;
  o.pruned_max_depth = kPaper004SpeculationLength;
}

// `model` on the paper's 8x H100 system with the paper's draft shaped as the target's layers
// (its FFN stored at ffn_bytes_per_weight when > 0).
Paper004Deployment paper004_deployment(const ReproduceContext& ctx, const std::string& model,
                                       double ffn_bytes_per_weight = 0);

}  // namespace experiments
