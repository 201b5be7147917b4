#pragma once
// The software that runs a model on a device (configs/stacks/<name>.yaml): the host-side
// costs a serving stack adds around the kernels. An eager PyTorch/Transformers loop pays a
// Python + framework dispatch per kernel and per layer; a CUDA-graph engine (vLLM-like)
// replays a captured step with one launch; llama.cpp pays a graph build per step and a thread
// barrier per op. Each figure's source is stated in its YAML (a published profile or a
// measurement), never fitted to a paper's end result.
#include <optional>
#include <string>
#include <vector>

#include "models/custom_all_reduce_spec.hpp"
#include "models/host_spec.hpp"
#include "models/nccl_spec.hpp"

namespace models {

// What an extra kernel of a stack moves: a tensor of the step, in activation elements.
enum class StackTensor {
  hidden,          // batch x tokens rows of the hidden width
  q,               // batch x tokens rows of heads x head_dim (the query projection)
  kv,              // batch x tokens rows of kv_heads x head_dim (one of K or V)
  ffn,             // batch x tokens rows of the MLP's intermediate width
  vocab,           // batch x tokens rows of the vocabulary (logits)
  attention_mask,  // tokens x (heads / kv_heads) query rows x (context + tokens) keys, shared by the batch
  kv_cache,        // batch x (context + tokens) rows of kv_heads x head_dim: one layer's whole K (or V) cache
  // batch x (context + tokens) rows of heads x head_dim: one layer's K (or V) cache repeated to
  // every query head (an eager attention's repeat_kv under grouped-query attention)
  kv_cache_heads,
  // batch x heads x tokens x (context + tokens): an eager attention's score matrix
  attention_scores,
};
std::string to_string(StackTensor t);

// Kernels a stack launches beyond the fused set the GPU kernel model lowers each op to (an eager
// PyTorch step's unfused rotary embedding, separate SiLU and multiply, residual adds, KV-cache
// copies, ...). Memory-bound: `kernels` launches that together read and write `passes` times
// the tensor (passes 0: launch only).
struct StackKernel {
  std::string name;
  int kernels = 1;
  StackTensor tensor = StackTensor::hidden;
  double passes = 0;
  // Only in steps whose attention takes a mask (x > 1 tokens per sequence: PyTorch's SDPA turns
  // the boolean mask into an additive bias and re-lays out the packed queries).
  bool masked_attention_only = false;
  // Only for models at least this wide (hidden size; 0: every model). cuBLAS picks split-K GEMMs,
  // each followed by a reduction kernel, by shape: the measured Hugging Face decode steps launch
  // five per layer at hidden size 4096 and one at 2048 and 768.
  int min_hidden_size = 0;
  // Only for grouped-query attention (fewer KV heads than query heads): repeat_kv copies nothing
  // when every query head has its own.
  bool grouped_kv_only = false;
};

// How a stack moves a tensor between two GPUs of one host that have no peer access: accelerate's
// hooks (device_map="auto") call a synchronous `tensor.to(device)`, which CUDA stages through a
// host buffer, and the host thread waits for it. Measured as fixed + bytes x per-byte on a lent
// GPU (the stack's YAML names the file); GPUs with peer access, and stacks without this entry,
// send over the system's links (NCCL).
struct StagedDeviceCopy {
  double fixed_us = 0;
  double ns_per_byte = 0;
  // The fixed part is the host's (the call, the synchronisation), so `host` scales it; the
  // per-byte part is the PCIe and host-memory path's, which a faster core does not move.
  double seconds(double bytes, const HostSpec& host) const {
    return host.host_us(fixed_us) * 1e-6 + bytes * ns_per_byte * 1e-9;
  }
};

struct SoftwareStack {
  std::string name = "bare";      // "bare": no host costs (the kernels alone)
  std::string source_file;
  std::string description;
  double kernel_launch_host_us = 0;  // host time to issue one kernel (eager dispatch)
  double per_layer_host_us = 0;      // framework work per decoder layer (module calls, hooks)
  double per_step_host_us = 0;       // per forward step: sampling, bookkeeping, input prep
  // Per sequence of the step's batch, on top of per_step_host_us: the work a serving engine does
  // for each running request every step (scheduling, input preparation, output processing), which
  // grows with the batch (vLLM V0: about 20 ms a step at batch 200, vllm-project/vllm#6801). Paid
  // once per step whatever its tokens per sequence, so a speculative step spreads it over its
  // accepted tokens. 0 in every shipped stack (no published figure for them); a sensitivity input.
  double per_sequence_host_us = 0;
  // The step's host work for `sequences` sequences: per_step_host_us + per_sequence_host_us each.
  double step_host_us(int sequences) const { return per_step_host_us + per_sequence_host_us * sequences; }
  // The same with another per-sequence figure in place of the stack's (a sensitivity study's).
  double step_host_us(int sequences, double per_sequence_us) const {
    return per_step_host_us + per_sequence_us * sequences;
  }
  // Per pass of a draft head (a graph with draft_pass set), before its kernels and in series with
  // them: the host work a serving engine's proposer does around each head forward (vLLM's
  // EagleProposer rebuilds the attention metadata, positions and slot mapping and takes the
  // argmax once per draft token). 0 unless the stack's YAML gives a source.
  double per_draft_pass_host_us = 0;
  bool cuda_graphs = false;          // a captured step: one graph launch instead of per-kernel launches
  double graph_launch_host_us = 0;   // host time to launch a captured step
  // The host's per-step work (sampling, bookkeeping) runs while the GPU executes the step's
  // captured graphs (paper 004 §3.3: CPU work split from GPU work and overlapped with it), so a
  // step costs the longer of the two paths, not their sum. false: host work in series. GPU
  // devices only: a CPU device runs its host work on its own cores.
  bool host_overlaps_device = false;
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
  // YAML `extra_kernels: {per_layer: [...], per_step: [...]}`: launched after each decoder
  // layer's kernels and once after the step's tail (sim/gpu/gpu_launch_plan.hpp). Empty for
  // stacks that run the fused set (vLLM, llama.cpp, "bare").
  std::vector<StackKernel> layer_kernels;
  std::vector<StackKernel> step_kernels;
  // The kernels a sampled step's logits processors and sampler launch beyond a greedy step's
  // (YAML extra_kernels.per_step_sampled): charged with step_kernels where the graph is sampled.
  std::vector<StackKernel> sampled_step_kernels;
  // YAML `staged_device_copy: {fixed_us, ns_per_byte}`: see StagedDeviceCopy.
  std::optional<StagedDeviceCopy> staged_device_copy;
  // One process drives every GPU the model is spread over (accelerate's device_map), so they
  // must share a host: a placement with stages in two hosts cannot run under the stack.
  bool single_host_process = false;
};

// Reads a stack config. The files it names under `collectives:` and `custom_all_reduce:` are
// looked up in the collectives/ folder of the config tree the stack file sits in
// (<configs>/stacks/NAME.yaml -> <configs>/collectives/).
SoftwareStack load_software_stack(const std::string& path);

}  // namespace models
