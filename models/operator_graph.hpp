#pragma once
// Per-step operator graphs. A step is `layer_count` repetitions of one decoder layer's ops
// (all layers have the same shape, which lets engines cost or simulate a layer once and
// memoise it) followed by tail ops (final norm, LM head). Every op carries its GEMM shape,
// FLOPs and bytes so the analytic and simulated engines can be compared op by op.
//
// Layering: operator graphs are the lower layer; draft builders (models/drafts/) build on them
// (models/graph_parts.hpp) and the draft pass of an algorithm (build_draft_pass_graph) is declared with
// them in models/drafts/draft_builder.hpp. Nothing here includes or calls the drafts.
#include <cstdint>
#include <string>
#include <vector>

#include "models/model_spec.hpp"

namespace models {

enum class OpKind {
  gemm,          // weight GEMM / GEMV: M tokens x N outputs x K inputs
  attention_qk,  // scores: per (batch, head) M queries x N keys x K head_dim, reads K cache
  attention_pv,  // context: per (batch, head) M queries x N head_dim x K keys, reads V cache
  softmax,       // SFU, two passes (max/sum, normalise)
  norm,          // RMSNorm / LayerNorm, SFU, two passes
  elementwise,   // activation (SiLU * up), residual adds: SFU, one pass
};
std::string to_string(OpKind kind);

enum class MaskKind { causal, tree };

struct Op {
  std::string name;
  OpKind kind = OpKind::gemm;
  std::int64_t m = 0, n = 0, k = 0;  // GEMM-like shape (per batch item for attention)
  std::int64_t batch = 1;            // independent GEMMs (batch * heads for attention)
  double flops = 0;
  double weight_bytes = 0;           // streamed weights
  double kv_read_bytes = 0;          // KV-cache bytes read from off-chip memory
  double kv_write_bytes = 0;         // new K/V written back
  double activation_bytes = 0;       // activations read + written (GPU / CPU cache traffic)
  // The same activations as off-chip loads and stores, for designs that keep activations in
  // off-chip memory between operators (paper 000's FPGA accelerator): an op loads its inputs
  // (attention: Q, the step's own K/V and, for PV, the scores QK^T stored) and stores its
  // outputs (attention: QK^T stores the scores). The softmax is applied on chip as PV loads the
  // scores, so it moves nothing. New K/V written to the cache are kv_write_bytes, not here.
  double activation_load_bytes = 0;
  double activation_store_bytes = 0;
  // Quantised weights (models/weight_format.hpp): weights a CPU decodes to fp32 before its FMAs,
  // once per op, and the SIMD lane-operations each takes. CPU engines charge them on the compute
  // side; GPU and FPGA engines ignore them.
  double dequant_weights = 0;
  double dequant_ops_per_weight = 0;
  double sfu_elements = 0;           // elements through the SFU per pass
  int sfu_passes = 0;
  std::int64_t heads = 0;            // attention: query heads
  std::int64_t kv_heads = 0;         // attention: distinct K/V heads (GQA groups)
  std::int64_t cached_keys = 0;      // attention: keys already in the cache (L)
  std::int64_t new_keys = 0;         // attention: keys added by this step (x)
  MaskKind mask = MaskKind::causal;
  // Cross-attention over another model's cache (LongSpec draft): engines may read it per
  // query head instead of per KV head (see FpgaSpec::cross_attention_kv_read_factor).
  bool cross_attention = false;
};

// Tensor widths of the model a step runs: what a software stack's extra kernels move
// (SoftwareStack::layer_kernels). 0: not known (a graph built without them: the extra kernels
// cost their launches only).
struct LayerWidths {
  std::int64_t hidden = 0, q = 0, kv = 0, ffn = 0, vocab = 0, heads = 0, kv_heads = 0;
  double element_bytes = 0;  // bytes of one activation element
};

struct StepGraph {
  std::string label;            // e.g. "verify llama-3.1-8b-instruct x=13 L=1024"
  std::vector<Op> layer_ops;    // one decoder layer
  int layer_count = 0;
  std::vector<Op> tail_ops;     // after the last layer
  int tokens = 0;               // x (or the draft pass width) per sequence
  int batch = 1;
  std::int64_t context = 0;
  LayerWidths widths;
  // False for a pass inside a step another graph carries, such as an EAGLE head's drafting
  // passes: see carries_step_work.
  bool step_work = true;
  // True for a draft head's pass (DraftBuilder::pass_graph of a head attached to its target): the
  // stack's proposer pays its host work per pass (SoftwareStack::per_draft_pass_host_us) before
  // the pass's kernels.
  bool draft_pass = false;
  // True where the run samples its next token (temperature, top-k, top-p) instead of taking the
  // argmax: the stack's sampler kernels (SoftwareStack::sampled_step_kernels) join the step's.
  bool sampled = false;
  // True for a slice of a step whose per-step host work and CUDA-graph launch the timeline
  // charges once, as a host task of its own (a tensor-parallel step: sim/system/system_step.cpp):
  // the slice's launches pay neither, though the slice with the model's tail still runs the
  // step's own kernels.
  bool step_host_apart = false;
  // Share of the stack's per-layer host work each of the graph's layers pays: 1 for whole layers,
  // 0.5 for a tensor-parallel half-layer slice (an attention or MLP half).
  double layer_host_share = 1.0;

  // Whether the graph pays its step's own host work and kernels (a stack's per_step_host_us and
  // extra_kernels.per_step), once per step: not a pass marked as inside a step (step_work), nor a
  // graph without the model's tail (a pipeline stage before the last, a tensor-parallel slice).
  bool carries_step_work() const { return step_work && !tail_ops.empty(); }

  double total_flops() const;
  double total_weight_bytes() const;
  double total_kv_read_bytes() const;
};

// Everything about a step that any engine's time depends on (every op's shape, bytes and kind,
// the layer count, tokens, batch, context, widths and whether it carries its step's work; not the
// label), as a byte string: equal fingerprints time the same on every engine. The key of the
// cost layer's one memo (sim::SystemCosts::step_s) and of the SystemC GPU engine's.
std::string graph_fingerprint(const StepGraph& graph);

// The walk every engine makes over a step: fn(ops, count, is_layer) for the layer's ops
// (count = layer_count) and then the tail's (count = 1), so engines cost a layer once.
template <class Fn>
void for_each_op_group(const StepGraph& graph, Fn&& fn) {
  fn(graph.layer_ops, graph.layer_count, true);
  fn(graph.tail_ops, 1, false);
}

struct StepShape {
  int tokens = 1;               // x
  std::int64_t context = 0;     // L, tokens already in the KV cache
  int batch = 1;
  MaskKind mask = MaskKind::causal;
  bool include_lm_head = true;
};

// A weight GEMM op (M tokens x N outputs x K inputs) with its FLOPs and bytes: the one
// factory the graph builders and the golden kernels share. `dequant_ops_per_weight` > 0 marks
// its N x K weights for dequantisation (ModelSpec::dequant_ops_per_weight()).
Op make_gemm_op(const std::string& name, std::int64_t m, std::int64_t n, std::int64_t k,
                double weight_bytes_per_element, double activation_bytes_per_element,
                double dequant_ops_per_weight = 0);

// Target verification (or plain decoding) step.
StepGraph build_verify_graph(const ModelSpec& model, const StepShape& shape);

}  // namespace models
