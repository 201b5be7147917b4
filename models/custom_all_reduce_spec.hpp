#pragma once
// vLLM's custom all-reduce (configs/collectives/vllm-custom-all-reduce.yaml): the sizes and
// limits of its rules. The rules themselves (which groups may use it, which kernel runs) are
// sim/system/collective_choice.cpp; the numbers they compare with are here, each cited.
#include <string>
#include <vector>

namespace models {

// The one-stage (one-shot) kernel on a fully NVLink-connected group of at most
// `max_world_size` ranks for inputs below `bytes`; the two-stage kernel above.
struct OneStageLimit {
  int max_world_size = 0;
  double bytes = 0;
};

struct CustomAllReduceSpec {
  std::string name;
  std::string source_file;
  std::vector<int> world_sizes;        // group sizes the kernels are built for
  double max_bytes = 0;                // inputs of this size and larger go to NCCL
  double alignment_bytes = 0;          // input sizes must be a multiple of this
  std::vector<OneStageLimit> one_stage;  // ascending max_world_size

  bool supports_world_size(int n) const;
  // The one-stage limit for a group of n ranks (0 when none applies: always two-stage).
  double one_stage_below_bytes(int n) const;
};

CustomAllReduceSpec load_custom_all_reduce(const std::string& path);

}  // namespace models
