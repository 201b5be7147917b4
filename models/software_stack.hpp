#pragma once
// The software that runs a model on a device (configs/stacks/<name>.yaml): the host-side
// costs a serving stack adds around the kernels. An eager PyTorch/Transformers loop pays a
// Python + framework dispatch per kernel and per layer; a CUDA-graph engine (vLLM-like)
// replays a captured step with one launch; llama.cpp pays a graph build per step and a thread
// barrier per op. Each figure's source is stated in its YAML (a published profile or a
// measurement), never fitted to a paper's end result.
#include <optional>
#include <string>

#include "models/custom_all_reduce_spec.hpp"
#include "models/nccl_spec.hpp"

namespace models {

struct SoftwareStack {
  std::string name = "bare";      // "bare": no host costs (the kernels alone)
  std::string source_file;
  std::string description;
  double kernel_launch_host_us = 0;  // host time to issue one kernel (eager dispatch)
  double per_layer_host_us = 0;      // framework work per decoder layer (module calls, hooks)
  double per_step_host_us = 0;       // per forward step: sampling, bookkeeping, input prep
  bool cuda_graphs = false;          // a captured step: one graph launch instead of per-kernel launches
  double graph_launch_host_us = 0;   // host time to launch a captured step
  double runtime_reserve_gib = 0;    // device memory the runtime keeps (CUDA context, allocator pools)
  // Device time of packing a batch of ragged sequences (different tree levels per request) into
  // one step without fused kernels, as a multiple of the step's compute; applies to steps of two
  // or more sequences with different token counts (SpecPipe-DB). 0: batching is free.
  double ragged_batch_overhead_ratio = 0;
  // The collective library the stack's tensor-parallel collectives call (YAML `collectives:`, a
  // name in configs/collectives/); none: the collectives are plain sends at the links' own
  // figures (the bare kernels, as for "bare").
  std::optional<NcclSpec> collectives;
  // vLLM's custom all-reduce, used where its rules allow it (YAML `custom_all_reduce:`); none:
  // every all-reduce goes to the collective library.
  std::optional<CustomAllReduceSpec> custom_all_reduce;
};

// Reads a stack config. The files it names under `collectives:` and `custom_all_reduce:` are
// looked up in the collectives/ folder of the config tree the stack file sits in
// (<configs>/stacks/NAME.yaml -> <configs>/collectives/).
SoftwareStack load_software_stack(const std::string& path);

}  // namespace models
