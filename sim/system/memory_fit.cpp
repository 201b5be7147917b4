#include "sim/system/memory_fit.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>

#include "models/config_error.hpp"
#include "models/drafts/draft_builder.hpp"

namespace sim {

namespace {

constexpr double kGiB = 1024.0 * 1024.0 * 1024.0;
// Logits are produced in FP32 by the LM head (as Transformers and vLLM do) before sampling.
constexpr double kLogitBytes = 4.0;
// Live activation tensors of one decoder layer at its peak: the residual stream, the normed
// input and attention output (3 x hidden) plus the gated MLP's gate and up outputs
// (2 x intermediate); earlier layers' activations are freed as the step proceeds.
constexpr double kResidualCopies = 3.0, kMlpCopies = 2.0;

double layer_parameters(const models::ModelSpec& m, const std::string& rule) {
  if (rule == "dense-attention") {
    // Paper 002 §4.5: N_layer = 4 d^2 + 3 d f (attention counted as four d x d projections). The
    // rule replaces the attention only: a mixture-of-experts layer keeps every expert (and its
    // router), which the dense formula's 3 d f would leave out.
    const double d = m.hidden_size, f = m.intermediate_size;
    const double dense_mlp = (m.mlp == models::MlpKind::gated ? 3.0 : 2.0) * d * f;
    if (!m.is_moe()) return 4.0 * d * d + dense_mlp;
    const double q = double(m.attention_heads) * m.head_dim, kv = double(m.kv_heads) * m.head_dim;
    const double attention = d * q + 2 * d * kv + q * d, norms = 2 * d;
    return 4.0 * d * d + (m.layer_parameters() - attention - norms);
  }
  return m.layer_parameters();
}

}  // namespace

std::string format_gib(double bytes) { return fmt::format("{:.2f} GiB", bytes / kGiB); }

MemoryNeed model_share_memory(const models::ModelSpec& m, const ModelShare& share, const MemoryQuery& q) {
  MemoryNeed need;
  const int layers = std::max(0, share.last_layer - share.first_layer + 1);
  const double tp = std::max(1, share.tensor_parallel);
  const double wbytes = m.weight_bytes_per_param();
  need.weights_bytes = layers * layer_parameters(m, q.parameter_rule) / tp * wbytes;
  // Embedding and LM head are vocabulary-parallel under tensor parallelism.
  if (share.embedding) need.weights_bytes += m.embedding_parameters() / tp * wbytes;
  if (share.lm_head) need.weights_bytes += (m.tied_embeddings && share.embedding ? 0.0 : m.embedding_parameters() / tp * wbytes) + m.hidden_size * wbytes;
  // K and V of each KV head the device holds (a KV head is replicated when there are fewer
  // KV heads than tensor-parallel ranks).
  const double kv_heads = std::ceil(double(m.kv_heads) / tp);
  need.kv_bytes = double(q.batch) * double(q.kv_tokens) * layers * 2.0 * kv_heads * m.head_dim * m.activation_bytes();
  const double tokens = double(q.batch) * q.step_tokens;
  if (layers > 0)
    need.activation_bytes = tokens * (kResidualCopies * m.hidden_size + kMlpCopies * m.intermediate_size / tp) *
                            m.activation_bytes();
  const double logit_tokens = q.lm_head_tokens >= 0 ? double(q.lm_head_tokens) : tokens;
  if (share.lm_head) need.activation_bytes += logit_tokens * m.vocab_size / tp * kLogitBytes;
  return need;
}

std::vector<DeviceMemory> system_memory(const models::SystemSpec& s, const models::ModelSpec& target,
                                        const models::ModelSpec* draft, const MemoryQuery& q) {
  std::vector<DeviceMemory> out(s.devices.size());
  for (std::size_t i = 0; i < s.devices.size(); ++i) {
    out[i].device = s.devices[i].name;
    out[i].capacity_bytes = s.devices[i].hardware.memory_capacity_bytes();
  }
  auto add = [](DeviceMemory& d, const MemoryNeed& n, const std::string& role) {
    d.need += n;
    d.roles += (d.roles.empty() ? "" : " + ") + role;
  };
  for (std::size_t k = 0; k < s.stages.size(); ++k) {
    const auto& st = s.stages[k];
    ModelShare share;
    share.first_layer = st.first_layer;
    share.last_layer = st.last_layer;
    share.tensor_parallel = int(st.devices.size());
    share.embedding = k == 0;
    share.lm_head = k + 1 == s.stages.size();
    std::string role = fmt::format("target layers {}-{}", st.first_layer, st.last_layer);
    if (share.tensor_parallel > 1) role += fmt::format(" (1/{} TP shard)", share.tensor_parallel);
    if (share.embedding) role += " + embedding";
    if (share.lm_head) role += " + LM head";
    const MemoryNeed need = model_share_memory(target, share, q);
    for (int d : st.devices) add(out[std::size_t(d)], need, role);
  }
  if (draft && s.draft_device >= 0) {
    ModelShare share;
    share.last_layer = draft->layers - 1;
    share.embedding = share.lm_head = true;
    MemoryQuery dq = q;
    dq.parameter_rule = "exact";
    add(out[std::size_t(s.draft_device)], model_share_memory(*draft, share, dq), "draft " + draft->name);
  }
  for (std::size_t i = 0; i < s.devices.size(); ++i)
    if (!out[i].roles.empty()) out[i].need.runtime_bytes = s.devices[i].hardware.stack.runtime_reserve_gib * kGiB;
  return out;
}

void add_draft_head_memory(std::vector<DeviceMemory>& devices, const models::SystemSpec& s,
                           const models::ModelSpec& target, const DraftHead& head, const MemoryQuery& q,
                           std::optional<double> weight_bytes) {
  if (!head.algorithm) return;
  const int device = head.device >= 0 ? head.device : s.draft_or_lead_device();
  const std::vector<int> ranks = head.shard_with_first_stage ? s.head_ranks(device) : std::vector<int>{device};
  const std::string role = head.role.empty() ? "draft head " + head.algorithm->name : head.role;
  for (int d : ranks) {
    DeviceMemory& m = devices.at(std::size_t(d));
    m.need += draft_head_memory(*head.algorithm, target, q.batch, q.kv_tokens, int(ranks.size()), weight_bytes);
    if (m.roles.empty()) m.need.runtime_bytes = s.devices[std::size_t(d)].hardware.stack.runtime_reserve_gib * kGiB;
    m.roles += (m.roles.empty() ? "" : " + ") + role;
  }
}

std::string fit_status(const DeviceMemory& d) {
  if (d.capacity_bytes <= 0) return "unchecked";
  if (d.fits()) return "ok";
  return fmt::format("infeasible: needs {} of {}", format_gib(d.need.total()), format_gib(d.capacity_bytes));
}

DeviceMemory device_memory(const models::HardwareSpec& hw, const models::ModelSpec& model, const MemoryQuery& q,
                           const models::ModelSpec* draft) {
  DeviceMemory d;
  d.device = hw.name;
  d.capacity_bytes = hw.memory_capacity_bytes();
  ModelShare whole;
  whole.last_layer = model.layers - 1;
  whole.embedding = whole.lm_head = true;
  d.need = model_share_memory(model, whole, q);
  d.roles = model.name;
  if (draft) {
    d.need += model_share_memory(*draft, ModelShare{0, draft->layers - 1, 1, true, true}, q);
    d.roles += " + draft " + draft->name;
  }
  d.need.runtime_bytes = hw.stack.runtime_reserve_gib * kGiB;
  return d;
}

namespace {

[[noreturn]] void throw_infeasible(const DeviceMemory& d, const models::HardwareSpec& hw, const MemoryQuery& q) {
  throw models::InfeasibleError(fmt::format(
      "infeasible: {} on {} needs {} (weights {}, KV cache {} for batch {} x {} tokens, activations {}) "
      "but the device has {}",
      d.roles, hw.name, format_gib(d.need.total()), format_gib(d.need.weights_bytes), format_gib(d.need.kv_bytes),
      q.batch, q.kv_tokens, format_gib(d.need.activation_bytes), format_gib(d.capacity_bytes)));
}

}  // namespace

double draft_head_weight_bytes(const models::AlgorithmSpec& a, const models::ModelSpec& target) {
  const models::DraftBuilder& builder = models::draft_builder(a.draft.kind, a.name);
  if (a.draft.model || !builder.is_attached_head()) return 0;
  return builder.weight_bytes(a, target);
}

MemoryNeed draft_head_memory(const models::AlgorithmSpec& a, const models::ModelSpec& target, int batch,
                             long long kv_tokens, int tp, std::optional<double> weight_bytes) {
  MemoryNeed n;
  const models::DraftSpec& d = a.draft;
  const models::DraftBuilder& builder = models::draft_builder(d.kind, a.name);
  if (d.model || !builder.is_attached_head()) return n;
  tp = std::max(1, tp);
  n.weights_bytes = (weight_bytes ? *weight_bytes : builder.weight_bytes(a, target)) / tp;
  n.kv_bytes = builder.kv_cache_bytes(d, target, batch, kv_tokens, tp);
  return n;
}

DeviceMemory require_workload_fit(const models::HardwareSpec& hw, const models::ModelSpec& target,
                                  const models::AlgorithmSpec* algorithm, const MemoryQuery& q) {
  if (!algorithm || algorithm->draft.model) return require_fit(hw, target, q, algorithm ? &*algorithm->draft.model : nullptr);
  DeviceMemory d = device_memory(hw, target, q);
  d.need += draft_head_memory(*algorithm, target, q.batch, q.kv_tokens);
  d.roles += " + draft head " + algorithm->name;
  if (!d.fits())
    throw_infeasible(d, hw, q);
  return d;
}

DeviceMemory require_fit(const models::HardwareSpec& hw, const models::ModelSpec& model, const MemoryQuery& q,
                         const models::ModelSpec* draft) {
  const DeviceMemory d = device_memory(hw, model, q, draft);
  if (!d.fits())
    throw_infeasible(d, hw, q);
  return d;
}

}  // namespace sim
