#include "sim/system/system_costs.hpp"

#include <optional>

#include <fmt/format.h>

#include "models/config_error.hpp"
#include "models/drafts/draft_builder.hpp"
#include "models/engine_registry.hpp"
#include "sim/gpu/gpu_streams.hpp"
#include "models/system_route.hpp"
#include "sim/system/routes.hpp"

namespace sim {

namespace {

// A device's engine seen through the deployment's memo: step() is SystemCosts::step_s unless a
// breakdown is asked for.
class MemoisedEngine final : public models::LatencyEngine {
 public:
  MemoisedEngine(const SystemCosts& costs, int device, const models::LatencyEngine& bare)
      : costs_(costs), device_(device), bare_(bare) {}
  std::string name() const override { return bare_.name(); }
  const models::HardwareSpec& hardware() const override { return bare_.hardware(); }
  models::StepCost step(const models::StepGraph& graph, bool breakdown) const override {
    if (breakdown) return bare_.step(graph, true);
    models::StepCost c;
    c.seconds = costs_.step_s(device_, graph);
    return c;
  }
  bool verify_time_non_decreasing_in_x() const override { return bare_.verify_time_non_decreasing_in_x(); }

 private:
  const SystemCosts& costs_;
  int device_;
  const models::LatencyEngine& bare_;
};

bool same_class(const models::SystemDevice& a, const models::SystemDevice& b) {
  return a.group == b.group && a.hardware.name == b.hardware.name && a.hardware.kind == b.hardware.kind &&
         a.hardware.source_file == b.hardware.source_file && a.hardware.stack.name == b.hardware.stack.name &&
         a.hardware.stack.source_file == b.hardware.stack.source_file && a.hardware.host.name == b.hardware.host.name &&
         a.hardware.host.source_file == b.hardware.host.source_file &&
         a.hardware.host.dispatch_time_scale == b.hardware.host.dispatch_time_scale;
}

}  // namespace

SystemCosts::SystemCosts(models::SystemSpec system, std::string engine)
    : system_(std::move(system)), engine_(std::move(engine)), engines_(system_.devices.size()),
      views_(system_.devices.size()) {
  const auto& devs = system_.devices;
  for (std::size_t d = 0; d < devs.size(); ++d) {
    std::size_t c = 0;
    while (c < d && !same_class(devs[c], devs[d])) ++c;
    device_class_.push_back(int(c));
  }
}

int SystemCosts::device_class(int device) const {
  if (device < 0 || device >= int(system_.devices.size()))
    throw models::InputError(fmt::format("{}: no device #{} (the system has {})", system_.name, device,
                                         system_.devices.size()));
  return device_class_[std::size_t(device)];
}

std::unique_ptr<SystemCosts> deploy_device(const models::HardwareSpec& hw, const std::string& engine) {
  return std::make_unique<SystemCosts>(models::single_device_system(hw), engine);
}

const models::LatencyEngine& SystemCosts::engine(int device) const {
  std::lock_guard<std::mutex> lock(mutex_);
  const int c = device_class(device);
  auto& view = views_[std::size_t(c)];
  if (!view) view = std::make_unique<MemoisedEngine>(*this, c, engine_unlocked(c));
  return *view;
}

const models::LatencyEngine& SystemCosts::engine_unlocked(int device) const {
  const int c = device_class(device);
  auto& e = engines_[std::size_t(c)];
  if (!e) e = models::make_engine(engine_, system_.devices[std::size_t(c)].hardware);
  return *e;
}

int SystemCosts::add_model(const models::ModelSpec& model) {
  std::lock_guard<std::mutex> lock(mutex_);
  for (std::size_t i = 0; i < models_.size(); ++i)
    if (models_[i]->name == model.name && models_[i]->source_file == model.source_file) return int(i);
  models_.push_back(std::make_unique<const models::ModelSpec>(model));
  return int(models_.size() - 1);
}

double SystemCosts::forward_s(int device, int model_id, const ForwardShape& shape) const {
  std::lock_guard<std::mutex> lock(mutex_);
  return forward_unlocked(device, model_id, shape);
}

double SystemCosts::forward_unlocked(int device, int model_id, const ForwardShape& shape) const {
  const Key key{device_class(device), model_id, shape.tokens, shape.context, shape.batch, int(shape.mask), shape.include_lm_head};
  if (auto it = forward_index_.find(key); it != forward_index_.end()) return it->second;
  const double t = step_unlocked(device, models::build_verify_graph(model(model_id), shape));
  forward_index_.emplace(key, t);
  return t;
}

double SystemCosts::stage_s(int device, int model_id, const ForwardShape& shape, int layers, bool with_tail) const {
  std::lock_guard<std::mutex> lock(mutex_);
  const auto key = std::make_tuple(device_class(device), model_id, shape.tokens, (long long)shape.context, shape.batch,
                                   int(shape.mask), shape.include_lm_head, layers, with_tail);
  if (auto it = stage_index_.find(key); it != stage_index_.end()) return it->second;
  // The model's verify graph cut to the stage: its layers only, the tail on the last stage alone.
  models::StepGraph g = models::build_verify_graph(model(model_id), shape);
  if (!with_tail) g.tail_ops.clear();
  g.layer_count = layers;
  const double t = step_unlocked(device, g);
  stage_index_.emplace(key, t);
  return t;
}

int SystemCosts::add_head(const models::AlgorithmSpec& head, const models::ModelSpec& target) {
  const int target_id = add_model(target);
  std::lock_guard<std::mutex> lock(mutex_);
  for (std::size_t i = 0; i < heads_.size(); ++i)
    if (heads_[i].head->name == head.name && heads_[i].head->source_file == head.source_file &&
        heads_[i].target == target_id)
      return int(i);
  heads_.push_back({std::make_unique<const models::AlgorithmSpec>(head), target_id});
  return int(heads_.size() - 1);
}

double SystemCosts::head_pass_s(int device, int head_id, int width, int batch, long long context) const {
  std::lock_guard<std::mutex> lock(mutex_);
  const auto key = std::make_tuple(device_class(device), head_id, width, batch, context);
  if (auto it = head_index_.find(key); it != head_index_.end()) return it->second;
  const Head& h = heads_.at(std::size_t(head_id));
  const auto& builder = models::draft_builder(h.head->draft.kind, h.head->source_file);
  models::StepGraph g = builder.pass_graph(*h.head, model(h.target), width, context, batch);
  // The head drafts inside the step the target's verify pass carries: its passes pay no per-step
  // host work of their own (EAGLE's loop runs once per step).
  g.step_work = false;
  const double t = step_unlocked(device, g);
  head_index_.emplace(key, t);
  return t;
}

double SystemCosts::step_s(int device, const models::StepGraph& graph) const {
  std::lock_guard<std::mutex> lock(mutex_);
  return step_unlocked(device, graph);
}

double SystemCosts::step_unlocked(int device, const models::StepGraph& graph) const {
  auto key = std::make_pair(device_class(device), models::graph_fingerprint(graph));
  if (auto it = memo_.find(key); it != memo_.end()) return it->second;
  const double t = engine_unlocked(device).step(graph).seconds;
  ++evaluations_;
  memo_.emplace(std::move(key), t);
  return t;
}

std::vector<double> SystemCosts::concurrent_s(int device, const std::vector<Work>& works) const {
  std::pair<int, std::vector<WorkKey>> key{device_class(device), {}};
  for (const auto& w : works) {
    if (w.repeats < 1)
      throw models::InputError(fmt::format("{}: co-located work of model #{}: repeats: expected >= 1, got {}",
                                           system_.name, w.model_id, w.repeats));
    const auto& f = w.shape;
    key.second.emplace_back(w.model_id, f.tokens, f.context, f.batch, int(f.mask), f.include_lm_head, w.repeats);
  }
  std::lock_guard<std::mutex> lock(mutex_);
  if (auto it = concurrent_memo_.find(key); it != concurrent_memo_.end()) return it->second;
  engine_unlocked(device);  // checks the device index
  const models::HardwareSpec& hw = system_.devices[std::size_t(device)].hardware;
  std::vector<double> ends;
  if (hw.concurrent_streams()) {
    std::vector<GpuStreamWork> streams;
    for (std::size_t i = 0; i < works.size(); ++i)
      streams.push_back({"stream " + std::to_string(i), models::build_verify_graph(model(works[i].model_id), works[i].shape), 0.0,
                         works[i].repeats});
    for (const auto& r : run_gpu_streams(hw, streams, SimMode::event_driven)) ends.push_back(r.end_s);
    ++evaluations_;
  } else {
    // No multi-stream model for this kind: one stream after the other, in the order given.
    double t = 0;
    for (const auto& w : works) ends.push_back(t += w.repeats * forward_unlocked(device, w.model_id, w.shape));
  }
  concurrent_memo_.emplace(std::move(key), ends);
  return ends;
}

double SystemCosts::transfer_s(int a, int b, double bytes) const {
  if (a == b) return 0;
  // A direct link is the route (one hop of hops_transfer_s), costed without a search or a list.
  if (const auto* l = system_.link_between(a, b)) return l->spec.transfer_s(bytes);
  // A relayed route (chain-sd's draft on a host reached through another device): its links are
  // searched once (route_links), then the one transfer rule (hops_transfer_s) costs the bytes.
  std::vector<const models::LinkSpec*> hops;
  {
    std::lock_guard<std::mutex> lock(mutex_);
    auto it = route_memo_.find({a, b});
    if (it == route_memo_.end()) it = route_memo_.emplace(std::make_pair(a, b), route_links(system_, a, b)).first;
    hops = it->second;
  }
  return hops_transfer_s(hops, bytes);
}

long long SystemCosts::evaluations() const {
  std::lock_guard<std::mutex> lock(mutex_);
  return evaluations_;
}

std::vector<DeviceMemory> SystemCosts::memory(const models::ModelSpec& target, const models::ModelSpec* draft,
                                             const MemoryQuery& q, std::optional<int> draft_device,
                                             const DraftHead& head) const {
  // The stages' layers for this target (a system of even stages splits whatever it is given; a
  // one-device deployment is such a system): the cost layer may be built before it knows the model.
  // A copy only where the placement changes: most calls ask about the system as it stands.
  std::optional<models::SystemSpec> copy;
  const models::SystemSpec* placed = &system_.placed(target, copy);
  if (draft_device && *draft_device != system_.draft_device) {
    device_class(*draft_device);  // InputError for a device the system lacks
    if (!copy) copy.emplace(system_);  // the system itself was placed already
    copy->draft_device = *draft_device;
    placed = &*copy;
  }
  std::vector<DeviceMemory> out = system_memory(*placed, target, draft, q);
  if (head.algorithm) {
    if (head.device >= 0) device_class(head.device);  // InputError for a device the system lacks
    add_draft_head_memory(out, *placed, target, head, q, head_weight_bytes(*head.algorithm, target));
  }
  return out;
}

SystemCosts::HeadShape SystemCosts::head_shape(const models::AlgorithmSpec* head) {
  if (!head) return {};
  const models::DraftSpec& d = head->draft;
  return {d.hidden_size, d.intermediate_size, d.attention_heads, d.kv_heads, d.head_dim, d.qkv_input_factor,
          d.fused_feature_layers, d.draft_vocab_size, d.decoder_layers, d.self_attention_window_tokens,
          d.mtp_modules};
}

double SystemCosts::head_weight_bytes(const models::AlgorithmSpec& head, const models::ModelSpec& target) const {
  HeadWeightKey key;
  {
    std::lock_guard<std::mutex> lock(step_mutex_);
    key = {step_name_index(head.name, head.source_file, "(head)"),
           step_name_index(target.name, target.source_file, target.weight_format), head_shape(&head)};
    if (auto it = head_weight_memo_.find(key); it != head_weight_memo_.end()) return it->second;
  }
  const double bytes = draft_head_weight_bytes(head, target);
  std::lock_guard<std::mutex> lock(step_mutex_);
  return head_weight_memo_.emplace(key, bytes).first->second;
}

DeviceMemory SystemCosts::device_memory(int device, const models::ModelSpec& model, const MemoryQuery& q,
                                        const models::ModelSpec* draft) const {
  device_class(device);
  return sim::device_memory(system_.devices[std::size_t(device)].hardware, model, q, draft);
}

DeviceMemory SystemCosts::require_workload_fit(int device, const models::ModelSpec& target,
                                               const models::AlgorithmSpec* algorithm, const MemoryQuery& q) const {
  device_class(device);
  return sim::require_workload_fit(system_.devices[std::size_t(device)].hardware, target, algorithm, q);
}

}  // namespace sim
