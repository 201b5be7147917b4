#include "search/scenarios/eagle_dispatcher/eagle_costs.hpp"

#include <fmt/format.h>

#include <algorithm>

#include "models/config_error.hpp"
#include "models/drafts/draft_builder.hpp"
#include "sim/system/memory_fit.hpp"
#include "search/scenarios/eagle_dispatcher/eagle_dispatcher.hpp"
#include "sim/system/system_costs.hpp"
#include "sim/system/system_step.hpp"

namespace search {

namespace {

std::string status_of(const sim::DeviceMemory& m) { return sim::fit_status(m); }

class EngineCosts : public EagleCostModel {
 public:
  // The GPU as a one-device system on the cost layer (sim::SystemCosts): every forward through its
  // one memo, on the named engine (kernels only: the caller gives the hardware with the bare stack;
  // `st` is the stack the head runs under, for its host time and memory reserve).
  EngineCosts(const models::HardwareSpec& hw, const std::string& engine, models::Workload w, models::SoftwareStack st,
              double ffn_bytes)
      : costs_(models::single_device_system(hw), engine), engine_(costs_.engine(0)),
        deployed_(models::single_device_system(with_stack(hw, st)), engine), w_(std::move(w)), stack_(std::move(st)),
        host_(hw.host), ffn_bytes_(ffn_bytes) {}
  std::string where() const override { return engine_.hardware().name; }
  const models::Workload& workload() const override { return w_; }
  EagleForwardCost verify(int x, int batch, long long context) const override {
    models::Workload w = w_;
    w.batch = batch;
    const models::StepGraph g = models::verify_graph(engine_, w, x, context);
    return {costs_.step_s(0, g), 0.0, g.total_weight_bytes(), g.total_kv_read_bytes()};
  }
  EagleForwardCost draft_pass(int width, int batch, long long context) const override {
    if (!w_.algorithm) throw models::InputError("eagle dispatcher: a draft (--draft) is required");
    models::StepGraph g = models::build_draft_pass_graph(*w_.algorithm, w_.target, width, context, batch);
    if (ffn_bytes_ > 0) sim::quantise_head_ffn(g, ffn_bytes_);
    return {costs_.step_s(0, g), 0.0, 0.0, 0.0};
  }
  double host_s(int forwards, double device_s, int sequences, double per_sequence_us) const override {
    return eagle_host_seconds(stack_, host_, forwards, device_s, sequences, per_sequence_us);
  }
  const models::HostSpec& host() const override { return host_; }
  std::string memory_status(int x, int batch, long long context) const override {
    sim::MemoryQuery mq;
    mq.batch = batch;
    mq.step_tokens = x;
    mq.kv_tokens = context + x;
    sim::DraftHead head;  // the head whole on the GPU
    head.algorithm = w_.algorithm.get();
    head.device = 0;
    return status_of(deployed_.memory(w_.target, nullptr, mq, std::nullopt, head).front());
  }

 private:
  static models::HardwareSpec with_stack(models::HardwareSpec hw, const models::SoftwareStack& stack) {
    hw.stack = stack;
    return hw;
  }
  sim::SystemCosts costs_;
  const models::LatencyEngine& engine_;  // costs_'s view of the GPU (builds the step graphs)
  // The GPU with the stack the head runs under: what its memory fit reserves (the costs above time
  // kernels only; the dispatcher adds the stack's host time).
  sim::SystemCosts deployed_;
  models::Workload w_;
  models::SoftwareStack stack_;
  models::HostSpec host_;  // the GPU's host: runs stack_'s host work
  double ffn_bytes_ = 0;
};

// A system: every verify and head pass is a whole system step on the timeline (tensor-parallel
// slices, collectives) over the system's cost layer without host work (the dispatcher adds the
// host time per decode step); the cost layer keeps each step (SystemCosts::system_step_times).
class SystemStepCosts : public EagleCostModel {
 public:
  SystemStepCosts(models::SystemSpec s, models::Workload w, const std::string& engine, double ffn_bytes)
      : s_(validated(std::move(s), w.target)), w_(std::move(w)), costs_(sim::without_host_work(s_), engine),
        deployed_(s_, engine), ffn_bytes_(ffn_bytes) {
    stack_ = s_.devices[std::size_t(s_.stages.front().devices.front())].hardware.stack;
    host_ = s_.devices[std::size_t(s_.stages.front().devices.front())].hardware.host;
  }
  std::string where() const override { return s_.name; }
  const models::Workload& workload() const override { return w_; }
  EagleForwardCost verify(int x, int batch, long long context) const override {
    sim::SystemQuery q = query(batch, context);
    q.x = x;
    const sim::SystemStepTimes st = costs_.system_step_times(q);
    return {st.step_s, st.lead_wait_s, st.rank_weight_bytes, st.rank_kv_read_bytes};
  }
  EagleForwardCost draft_pass(int width, int batch, long long context) const override {
    if (!w_.algorithm) throw models::InputError("eagle dispatcher: a draft (--draft) is required");
    sim::SystemQuery q = query(batch, context);
    q.head = w_.algorithm;
    q.head_pass_widths = {width};
    q.head_ffn_bytes_per_weight = ffn_bytes_;
    q.verify = false;
    const sim::SystemStepTimes st = costs_.system_step_times(q);
    return {st.head_s, st.lead_wait_s, 0.0, 0.0};
  }
  double host_s(int forwards, double device_s, int sequences, double per_sequence_us) const override {
    return eagle_host_seconds(stack_, host_, forwards, device_s, sequences, per_sequence_us);
  }
  const models::HostSpec& host() const override { return host_; }
  std::string memory_status(int x, int batch, long long context) const override {
    sim::MemoryQuery mq;
    mq.batch = batch;
    mq.step_tokens = x;
    mq.kv_tokens = s_.memory.kv_tokens > 0 ? s_.memory.kv_tokens : context + x;
    mq.parameter_rule = s_.memory.parameter_rule;
    // The head sits with the first stage's group (tensor parallel, 1/tp per rank) or whole on the
    // system's draft device.
    sim::DraftHead head;
    head.algorithm = w_.algorithm.get();
    head.shard_with_first_stage = true;
    const auto devices = deployed_.memory(w_.target, nullptr, mq, std::nullopt, head);
    for (const auto& d : devices)
      if (!d.fits()) return status_of(d);
    return status_of(devices.front());
  }

 private:
  // The system with its placement resolved for the target (stages' layers), before the cost
  // layers are built from it.
  static models::SystemSpec validated(models::SystemSpec s, const models::ModelSpec& target) {
    s.validate_placement(target);
    return s;
  }
  sim::SystemQuery query(int batch, long long context) const {
    sim::SystemQuery q;
    q.target = w_.target;
    q.context = context;
    q.batch = batch;
    return q;
  }
  models::SystemSpec s_;
  models::Workload w_;
  sim::SystemCosts costs_;  // the system without host work
  sim::SystemCosts deployed_;  // the system with its stacks: what its memory fit reserves
  models::SoftwareStack stack_;
  models::HostSpec host_;  // the lead device's host: runs stack_'s host work
  double ffn_bytes_ = 0;
};

}  // namespace

models::AlgorithmSpec eagle_head_for_target(const models::AlgorithmSpec& a, const models::ModelSpec& t) {
  const auto& builder = models::draft_builder(a.draft.kind, a.name);
  if (!builder.has_own_layer_shape())
    throw models::InputError(
        fmt::format("eagle dispatcher: '{}' is not an EAGLE head (a draft with a decoder layer of its own)", a.name));
  models::AlgorithmSpec h = a;
  h.draft = builder.reshaped_for(a.draft, t);
  return h;
}

std::unique_ptr<EagleCostModel> make_engine_eagle_costs(const models::HardwareSpec& hw, const std::string& engine,
                                                        models::Workload w, models::SoftwareStack stack,
                                                        double head_ffn_bytes_per_weight) {
  return std::make_unique<EngineCosts>(hw, engine, std::move(w), std::move(stack), head_ffn_bytes_per_weight);
}

std::unique_ptr<EagleCostModel> make_engine_eagle_costs(const models::LatencyEngine& engine, models::Workload w,
                                                        models::SoftwareStack stack, double head_ffn_bytes_per_weight) {
  return make_engine_eagle_costs(engine.hardware(), engine.name(), std::move(w), std::move(stack),
                                 head_ffn_bytes_per_weight);
}

std::unique_ptr<EagleCostModel> make_system_eagle_costs(models::SystemSpec system, models::Workload w,
                                                        std::string engine, double head_ffn_bytes_per_weight) {
  return std::make_unique<SystemStepCosts>(std::move(system), std::move(w), engine, head_ffn_bytes_per_weight);
}

}  // namespace search
