#include "experiments/reproductions/repro_eagle_support.hpp"

#include "experiments/cli/workload_setup.hpp"
#include "models/system_spec.hpp"

namespace experiments {

Paper004Deployment paper004_deployment(const ReproduceContext& ctx, const std::string& model,
                                       double ffn_bytes_per_weight) {
  const auto& reg = *ctx.registry;
  Paper004Deployment d;
  // Maverick's BF16 weights (~800 GB) exceed 8 x 80 GB: on one H100 host it runs from Meta's FP8
  // checkpoint (memory fit says so: `eagle --system eagle-8xh100-nvlink --model llama-4-maverick`).
  const std::string deployed = model == "llama-4-maverick" ? model + "@fp8" : model;
  d.workload = make_workload(reg, deployed, kPaper004Draft);
  d.workload.algorithm =
      std::make_shared<models::AlgorithmSpec>(search::eagle_head_for_target(*d.workload.algorithm, d.workload.target));
  const auto system = models::load_system(reg.path("systems", kPaper004System), reg);
  d.costs = search::make_system_eagle_costs(system, d.workload, ctx.engine, ffn_bytes_per_weight);
  d.inputs = system.config_files();  // the system with its hardware, stacks and links
  d.inputs.insert(d.inputs.end(), {reg.path("models", model), reg.path("algorithms", kPaper004Draft)});
  return d;
}

}  // namespace experiments
