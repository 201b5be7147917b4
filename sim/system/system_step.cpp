#include "sim/system/system_step.hpp"

#include <fmt/format.h>

#include <map>
#include <memory>

#include "models/config_error.hpp"
#include "models/engine_registry.hpp"
#include "models/operator_graph.hpp"
#include "sim/system/collectives.hpp"

namespace sim {

namespace {

// Bytes the draft sends per drafted token: token id and position (int32 each); the tree mask
// adds one bit per (token, token) pair.
constexpr double kTokenBytes = 8.0;
// Bytes per verified token sent back to the draft (int32 id).
constexpr double kVerifiedTokenBytes = 4.0;

}  // namespace

models::ModelSpec tensor_parallel_shard(const models::ModelSpec& m, int tp, const std::string& where) {
  if (tp <= 1) return m;
  if (m.attention_heads % tp != 0 || m.intermediate_size % tp != 0)
    throw models::InputError(fmt::format("{}: tensor_parallel: {} does not divide {}'s {} attention heads and {} MLP width",
                                         where, tp, m.name, m.attention_heads, m.intermediate_size));
  models::ModelSpec s = m;
  s.attention_heads = m.attention_heads / tp;
  s.kv_heads = std::max(1, m.kv_heads / tp);
  s.intermediate_size = m.intermediate_size / tp;
  s.vocab_size = (m.vocab_size + tp - 1) / tp;
  return s;
}

SystemStep simulate_system_step(models::SystemSpec s, const SystemQuery& q) {
  if (q.x < 1 || q.batch < 1 || q.context < 0)
    throw models::InputError(fmt::format("system step: x ({}) and batch ({}) must be >= 1 and context ({}) >= 0",
                                         q.x, q.batch, q.context));
  s.validate_placement(q.target);
  if (s.stages.empty()) throw models::InputError(fmt::format("{}: placement.target: no stages", s.source_file));
  if (q.draft && s.draft_device < 0)
    throw models::InputError(fmt::format("{}: placement.draft: a draft model was given but the system places no draft", s.source_file));

  SystemStep out;
  TaskGraph& g = out.graph;
  std::vector<int> device_resource(s.devices.size());
  for (std::size_t i = 0; i < s.devices.size(); ++i)
    device_resource[i] = g.add_resource({s.devices[i].name, ResourceKind::device_stream, s.devices[i].name});
  LaneResources lanes;
  for (const auto& lane : s.lanes) lanes.resource_of_lane.push_back(g.add_resource({lane, ResourceKind::link, "links"}));

  // One engine per device (its hardware and software stack), built once.
  std::map<int, std::unique_ptr<models::LatencyEngine>> engines;
  auto engine_of = [&](int d) -> const models::LatencyEngine& {
    auto& e = engines[d];
    if (!e) e = models::make_engine(q.engine, s.devices[std::size_t(d)].hardware);
    return *e;
  };
  // A tensor-parallel stage is costed per half-layer slice; the stack's per-step work (and a
  // CUDA graph's one launch: the whole step, collectives included, is one graph) happens once
  // per step, as a host task before the device's first slice, and each slice is half a layer.
  std::map<int, std::unique_ptr<models::LatencyEngine>> slice_engines;
  auto slice_engine_of = [&](int d) -> const models::LatencyEngine& {
    auto& e = slice_engines[d];
    if (!e) {
      models::HardwareSpec hw = s.devices[std::size_t(d)].hardware;
      hw.stack.per_step_host_us = 0;
      hw.stack.graph_launch_host_us = 0;
      hw.stack.per_layer_host_us /= 2;
      e = models::make_engine(q.engine, hw);
    }
    return *e;
  };
  std::vector<int> host_resource(s.devices.size(), -1);
  auto step_host_task = [&](int d, std::vector<int> deps) {
    const models::SoftwareStack& st = s.devices[std::size_t(d)].hardware.stack;
    if (host_resource[std::size_t(d)] < 0)
      host_resource[std::size_t(d)] =
          g.add_resource({"host:" + s.devices[std::size_t(d)].name, ResourceKind::host, s.devices[std::size_t(d)].name});
    TimelineTask t;
    t.name = "step host work (" + st.name + ")";
    t.category = "host";
    t.resource = host_resource[std::size_t(d)];
    t.busy_s = (st.per_step_host_us + (st.cuda_graphs ? st.graph_launch_host_us : 0.0)) * 1e-6;
    t.deps = std::move(deps);
    return g.add_task(std::move(t));
  };
  auto compute = [&](int d, const std::string& name, const std::string& category, double seconds,
                     std::vector<int> deps) {
    TimelineTask t;
    t.name = name;
    t.category = category;
    t.resource = device_resource[std::size_t(d)];
    t.busy_s = seconds;
    t.deps = std::move(deps);
    return g.add_task(std::move(t));
  };

  models::StepShape shape;
  shape.tokens = q.x;
  shape.context = q.context;
  shape.batch = q.batch;
  shape.mask = q.x > 1 ? models::MaskKind::tree : models::MaskKind::causal;

  // Draft: one pass over the x tokens it proposes (a standalone draft model), then the tokens
  // travel to the first stage.
  std::vector<int> start_deps;
  if (q.draft) {
    const int d = s.draft_device;
    models::StepShape ds = shape;
    ds.include_lm_head = true;
    const double td = engine_of(d).step(models::build_verify_graph(*q.draft, ds)).seconds;
    const int draft_task = compute(d, "draft " + q.draft->name, "draft", td, {});
    const int first = s.stages.front().devices.front();
    if (first != d) {
      const double bytes = double(q.batch) * q.x * (kTokenBytes + q.x / 8.0);
      start_deps.push_back(add_send(g, s, lanes, d, first, bytes, {draft_task}, "draft tokens -> stage 0"));
    } else {
      start_deps.push_back(draft_task);
    }
  }

  const double activation_bytes = double(q.batch) * q.x * q.target.hidden_size * q.target.activation_bytes();
  std::vector<int> prev_done = start_deps;  // tasks after which the next stage's input is on its rank 0
  int first_target_task = -1, last_stage_task = -1;
  for (std::size_t k = 0; k < s.stages.size(); ++k) {
    const auto& st = s.stages[k];
    const int tp = int(st.devices.size());
    const bool last = k + 1 == s.stages.size();
    const std::string where = fmt::format("{}: placement.target stage {}", s.source_file, k);
    const models::ModelSpec shard = tensor_parallel_shard(q.target, tp, where);
    const int layers = st.last_layer - st.first_layer + 1;
    const int lead = st.devices.front();
    models::StepShape ss = shape;
    ss.include_lm_head = last && s.devices[std::size_t(lead)].hardware.verify_includes_lm_head;
    models::StepGraph graph = models::build_verify_graph(shard, ss);
    if (!last) graph.tail_ops.clear();
    const std::string label = fmt::format("stage {} layers {}-{}", k, st.first_layer, st.last_layer);

    // Stage input: rank 0 has it after prev_done; other ranks receive it from rank 0.
    std::vector<int> ready(static_cast<std::size_t>(tp));
    if (prev_done.empty()) {
      for (int r = 0; r < tp; ++r) ready[std::size_t(r)] = -1;
    } else {
      // Rank 0 has the input; it is passed along the group's ring to the other ranks.
      ready[0] = prev_done.front();
      for (int r = 1; r < tp; ++r)
        ready[std::size_t(r)] = add_send(g, s, lanes, st.devices[std::size_t(r - 1)], st.devices[std::size_t(r)],
                                         activation_bytes, {ready[std::size_t(r - 1)]},
                                         label + " input -> rank " + std::to_string(r));
    }
    auto deps_of = [](int t) { return t < 0 ? std::vector<int>{} : std::vector<int>{t}; };

    if (tp == 1) {
      graph.layer_count = layers;
      const double t = engine_of(lead).step(graph).seconds;
      const int task = compute(lead, label, "compute", t, deps_of(ready[0]));
      if (first_target_task < 0) first_target_task = task;
      prev_done = {task};
      last_stage_task = task;
    } else {
      // Attention half (up to the output projection) and MLP half of one layer, each followed
      // by an all-reduce of the activations over the group.
      models::StepGraph attn = graph, mlp = graph;
      attn.tail_ops.clear();
      mlp.tail_ops.clear();
      attn.layer_count = mlp.layer_count = 1;
      std::size_t split = 0;
      while (split < graph.layer_ops.size() && graph.layer_ops[split].name != "o_proj") ++split;
      split = std::min(split + 1, graph.layer_ops.size());
      attn.layer_ops.assign(graph.layer_ops.begin(), graph.layer_ops.begin() + long(split));
      mlp.layer_ops.assign(graph.layer_ops.begin() + long(split), graph.layer_ops.end());
      // The roofline engine ignores stacks, so its slices are the bare kernels either way.
      const double t_attn = slice_engine_of(lead).step(attn).seconds;
      const double t_mlp = slice_engine_of(lead).step(mlp).seconds;
      double t_tail = 0;
      if (!graph.tail_ops.empty()) {
        models::StepGraph tail = graph;
        tail.layer_ops.clear();
        tail.layer_count = 0;
        t_tail = slice_engine_of(lead).step(tail).seconds;
      }
      std::vector<int> have = ready;
      // Only the sim engines model host costs (the analytic engine times kernels alone).
      if (q.engine != "roofline")
        for (int r = 0; r < tp; ++r)
          have[std::size_t(r)] = step_host_task(st.devices[std::size_t(r)], deps_of(have[std::size_t(r)]));
      for (int l = st.first_layer; l <= st.last_layer; ++l) {
        for (int half = 0; half < 2; ++half) {
          std::vector<int> done(static_cast<std::size_t>(tp));
          for (int r = 0; r < tp; ++r) {
            const int d = st.devices[std::size_t(r)];
            done[std::size_t(r)] = compute(d, fmt::format("layer {} {}", l, half ? "mlp" : "attention"), "compute",
                                           half ? t_mlp : t_attn, deps_of(have[std::size_t(r)]));
            if (first_target_task < 0) first_target_task = done[std::size_t(r)];
          }
          have = add_ring_all_reduce(g, s, lanes, st.devices, activation_bytes, done,
                                     fmt::format("layer {} {}", l, half ? "mlp" : "attention"));
        }
      }
      if (t_tail > 0)
        for (int r = 0; r < tp; ++r)
          have[std::size_t(r)] = compute(st.devices[std::size_t(r)], "lm_head (vocab shard)", "compute", t_tail,
                                         deps_of(have[std::size_t(r)]));
      prev_done = {have[0]};
      last_stage_task = have[0];
    }
    if (!last) {
      const int next_lead = s.stages[k + 1].devices.front();
      prev_done = {add_send(g, s, lanes, lead, next_lead, activation_bytes, prev_done,
                            fmt::format("activations stage {} -> {}", k, k + 1))};
    }
  }
  if (q.draft && s.draft_device != s.stages.back().devices.front())
    add_send(g, s, lanes, s.stages.back().devices.front(), s.draft_device,
             double(q.batch) * q.x * kVerifiedTokenBytes, {last_stage_task}, "verified tokens -> draft");

  out.run = run_timeline(g);
  out.step_s = out.run.makespan_s;
  out.target_s = out.run.end_s[std::size_t(last_stage_task)] - out.run.start_s[std::size_t(first_target_task)];

  // Reports per device and lane.
  MemoryQuery mq;
  mq.batch = q.batch;
  mq.step_tokens = q.x;
  mq.kv_tokens = s.memory.kv_tokens > 0 ? s.memory.kv_tokens : q.context + q.x;
  mq.parameter_rule = s.memory.parameter_rule;
  const auto memory = system_memory(s, q.target, q.draft ? &*q.draft : nullptr, mq);
  for (std::size_t i = 0; i < s.devices.size(); ++i) {
    DeviceStep d;
    d.device = s.devices[i].name;
    d.hardware = s.devices[i].hardware.name;
    d.stack = s.devices[i].hardware.stack.name;
    d.memory = memory[i];
    d.role = memory[i].roles.empty() ? "idle" : memory[i].roles;
    d.busy_s = out.run.resource_busy_s[std::size_t(device_resource[i])];
    out.feasible = out.feasible && memory[i].fits();
    out.devices.push_back(d);
  }
  // Traffic per resource in one pass over the tasks (a TP step has tens of thousands).
  std::vector<double> bytes_of(g.resources().size(), 0.0);
  std::vector<long long> messages_of(g.resources().size(), 0);
  for (const auto& t : g.tasks()) {
    bytes_of[std::size_t(t.resource)] += t.bytes;
    ++messages_of[std::size_t(t.resource)];
  }
  for (std::size_t l = 0; l < s.lanes.size(); ++l) {
    LaneStep ls;
    ls.lane = s.lanes[l];
    ls.link = ls.lane.substr(0, ls.lane.find(':'));
    const std::size_t r = std::size_t(lanes.resource_of_lane[l]);
    ls.busy_s = out.run.resource_busy_s[r];
    ls.bytes = bytes_of[r];
    ls.messages = messages_of[r];
    out.lanes.push_back(ls);
  }
  return out;
}

}  // namespace sim
