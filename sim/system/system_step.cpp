#include "sim/system/system_step.hpp"

#include <optional>

#include <fmt/format.h>

#include <algorithm>
#include <map>
#include <memory>
#include <tuple>

#include "models/config_error.hpp"
#include "models/drafts/draft_builder.hpp"
#include "sim/system/collectives.hpp"

namespace sim {

namespace {

// Bytes the draft sends per drafted token: token id and position (int32 each); the tree mask
// adds one bit per (token, token) pair.
constexpr double kTokenBytes = 8.0;
// Bytes per verified token sent back to the draft (int32 id).
constexpr double kVerifiedTokenBytes = 4.0;
// Bytes of one candidate a sharded head's rank all-gathers: token id (int32) and score (fp32).
constexpr double kCandidateBytes = 8.0;

bool ends_with(const std::string& s, const std::string& tail) {
  return s.size() >= tail.size() && s.compare(s.size() - tail.size(), tail.size(), tail) == 0;
}

// The decoder layers of one repeating unit of a graph's layer_ops (one layer for most models;
// Llama 4 Maverick: a dense and a MoE layer), each starting at its attention norm.
std::vector<std::vector<models::Op>> unit_layers(const std::vector<models::Op>& ops) {
  std::vector<std::vector<models::Op>> out;
  for (const auto& op : ops) {
    if (out.empty() || ends_with(op.name, "attn_norm")) out.emplace_back();
    out.back().push_back(op);
  }
  return out;
}

// Tensor-parallel slices of a run of ops (Megatron-style): each ends where the activations are
// all-reduced, after a row-parallel projection: the attention output projection, the MLP's
// down projection (end of a layer) and an EAGLE head's input fc.
std::vector<std::vector<models::Op>> tp_slices(const std::vector<models::Op>& ops) {
  std::vector<std::vector<models::Op>> out(1);
  for (std::size_t i = 0; i < ops.size(); ++i) {
    if (i > 0 && ends_with(ops[i].name, "attn_norm") && !out.back().empty()) out.emplace_back();
    out.back().push_back(ops[i]);
    if ((ends_with(ops[i].name, "o_proj") || ops[i].name == "feature_fc") && i + 1 < ops.size()) out.emplace_back();
  }
  return out;
}

// One rank's share of an EAGLE head: heads, KV heads, MLP width and draft vocabulary divided by
// tp (its QKV and gate/up column-parallel, o/down row-parallel, the input fc row-parallel).
models::AlgorithmSpec shard_head(const models::AlgorithmSpec& a, int tp, const std::string& where) {
  if (tp <= 1) return a;
  models::AlgorithmSpec s = a;
  models::DraftSpec& d = s.draft;
  if (d.attention_heads % tp != 0 || d.intermediate_size % tp != 0)
    throw models::InputError(fmt::format("{}: tensor_parallel: {} does not divide the {} head's {} attention heads and {} MLP width",
                                         where, tp, a.name, d.attention_heads, d.intermediate_size));
  d.attention_heads /= tp;
  d.kv_heads = std::max(1, d.kv_heads / tp);
  d.intermediate_size /= tp;
  d.draft_vocab_size = (d.draft_vocab_size + tp - 1) / tp;
  return s;
}

}  // namespace

void quantise_head_ffn(models::StepGraph& graph, double bytes_per_weight) {
  for (auto& op : graph.layer_ops)
    if (op.kind == models::OpKind::gemm && (ends_with(op.name, "gate_up_proj") || ends_with(op.name, "down_proj")))
      op.weight_bytes = double(op.n) * double(op.k) * bytes_per_weight;
}

models::ModelSpec tensor_parallel_shard(const models::ModelSpec& m, int tp, const std::string& where) {
  if (tp <= 1) return m;
  if (m.attention_heads % tp != 0 || m.intermediate_size % tp != 0 || m.moe_intermediate_size % tp != 0)
    throw models::InputError(fmt::format(
        "{}: tensor_parallel: {} does not divide {}'s {} attention heads, {} MLP width and {} expert width", where, tp,
        m.name, m.attention_heads, m.intermediate_size, m.moe_intermediate_size));
  models::ModelSpec s = m;
  s.attention_heads = m.attention_heads / tp;
  s.kv_heads = std::max(1, m.kv_heads / tp);
  s.intermediate_size = m.intermediate_size / tp;
  s.moe_intermediate_size = m.moe_intermediate_size / tp;
  s.vocab_size = (m.vocab_size + tp - 1) / tp;
  return s;
}

models::SystemSpec without_host_work(models::SystemSpec system) {
  for (auto& d : system.devices) {
    models::SoftwareStack& st = d.hardware.stack;
    st.kernel_launch_host_us = st.per_layer_host_us = st.per_step_host_us = st.per_sequence_host_us =
        st.graph_launch_host_us = st.per_draft_pass_host_us = 0;
  }
  return system;
}

SystemStep simulate_system_step(const models::SystemSpec& system, const SystemQuery& query, const std::string& engine) {
  const SystemCosts costs(system, engine);
  return simulate_system_step(costs, query);
}

int SystemCosts::step_name_index(const std::string& a, const std::string& b, const std::string& c) const {
  for (std::size_t i = 0; i < step_names_.size(); ++i)
    if (std::get<0>(step_names_[i]) == a && std::get<1>(step_names_[i]) == b && std::get<2>(step_names_[i]) == c)
      return int(i);
  step_names_.emplace_back(a, b, c);
  return int(step_names_.size() - 1);
}

SystemStepTimes SystemCosts::system_step_times(const SystemQuery& query) const {
  StepKey key;
  {
    std::lock_guard<std::mutex> lock(step_mutex_);
    const auto& t = query.target;
    key = StepKey{step_name_index(t.name, t.source_file, t.weight_format),
                  query.draft ? step_name_index(query.draft->name, query.draft->source_file, query.draft->weight_format)
                              : -1,
                  query.x,
                  query.context,
                  query.batch,
                  query.head ? step_name_index(query.head->name, query.head->source_file, "(head)") : -1,
                  head_shape(query.head.get()),
                  query.head_ffn_bytes_per_weight,
                  query.verify,
                  query.prefill,
                  query.head_pass_widths};
    if (auto it = system_step_memo_.find(key); it != system_step_memo_.end()) return it->second;
  }
  SystemQuery q = query;
  q.task_names = false;  // only the times are kept
  const SystemStep st = simulate_system_step(*this, q);
  const SystemStepTimes times{st.step_s,      st.target_s,        st.head_s,
                              st.lead_compute_s, st.lead_wait_s, st.rank_weight_bytes,
                              st.rank_kv_read_bytes, st.stage_period_s};
  std::lock_guard<std::mutex> lock(step_mutex_);
  return system_step_memo_.emplace(std::move(key), times).first->second;
}

long long SystemCosts::system_steps() const {
  std::lock_guard<std::mutex> lock(step_mutex_);
  return long(system_step_memo_.size());
}

SystemStep simulate_system_step(const SystemCosts& costs, const SystemQuery& q) {
  if (q.x < 1 || q.batch < 1 || q.context < 0)
    throw models::InputError(fmt::format("system step: x ({}) and batch ({}) must be >= 1 and context ({}) >= 0",
                                         q.x, q.batch, q.context));
  std::optional<models::SystemSpec> placed_copy;  // only where the placement changes
  const models::SystemSpec& s = costs.system().placed(q.target, placed_copy);
  if (s.stages.empty()) throw models::InputError(fmt::format("{}: placement.target: no stages", s.source_file));
  if (q.draft && s.draft_device < 0)
    throw models::InputError(fmt::format("{}: placement.draft: a draft model was given but the system places no draft", s.source_file));

  if (q.head && !models::draft_builder(q.head->draft.kind, q.head->name).has_own_layer_shape())
    throw models::InputError(fmt::format("system step: '{}' is not an EAGLE head (draft type eagle3)", q.head->name));
  for (int w : q.head_pass_widths)
    if (w < 1) throw models::InputError(fmt::format("system step: head pass width must be >= 1, got {}", w));
  if (!q.verify && (!q.head || q.head_pass_widths.empty()))
    throw models::InputError("system step: nothing to run (no verification and no head passes)");

  SystemStep out;
  TaskGraph& g = out.graph;
  g.set_named(q.task_names);
  {
    // Room for the step's tasks up front: a tensor-parallel stage puts a compute per rank and an
    // all-reduce of at most 2 N^2 sends (every algorithm's count) after each half of each layer,
    // ~10^4 tasks at N = 8, and growing the vector task by task copied them over and over.
    std::size_t estimate = 16;
    for (const auto& st : s.stages) {
      const std::size_t n = st.devices.size(), layers = std::size_t(std::max(1, st.last_layer - st.first_layer + 1));
      estimate += n > 1 ? layers * 2 * (n + 2 * n * n) : 4;
    }
    g.reserve_tasks(estimate);
  }
  std::vector<int> device_resource(s.devices.size());
  for (std::size_t i = 0; i < s.devices.size(); ++i)
    device_resource[i] = g.add_resource({s.devices[i].name, ResourceKind::device_stream, s.devices[i].name});
  const LaneResources lanes = add_lane_resources(g, s);

  // Device times through the deployment's one memo. A tensor-parallel stage is costed per
  // half-layer slice: the stack's per-step work (and a CUDA graph's one launch: the whole step,
  // collectives included, is one graph) happens once per step, as a host task before the device's
  // first slice (step_host_task), and each slice pays half a layer's per-layer host work.
  auto seconds_on = [&](int d, const models::StepGraph& graph) { return costs.step_s(d, graph); };
  auto slice_seconds_on = [&](int d, models::StepGraph graph) {
    graph.step_host_apart = true;
    graph.layer_host_share = 0.5;
    return costs.step_s(d, graph);
  };
  std::vector<int> host_resource(s.devices.size(), -1), overlapped_host_resource(s.devices.size(), -1);
  auto step_host_task = [&](int d, std::vector<int> deps) {
    const models::SoftwareStack& st = s.devices[std::size_t(d)].hardware.stack;
    const models::HostSpec& host = s.devices[std::size_t(d)].hardware.host;
    const std::string& name = s.devices[std::size_t(d)].name;
    if (host_resource[std::size_t(d)] < 0)
      host_resource[std::size_t(d)] = g.add_resource({"host:" + name, ResourceKind::host, name});
    const double launch_s = st.cuda_graphs ? host.host_us(st.graph_launch_host_us) * 1e-6 : 0.0;
    TimelineTask t;
    t.name = "step host work (" + st.name + ")";
    t.category = "host";
    t.resource = host_resource[std::size_t(d)];
    const double step_host_s = host.host_us(st.step_host_us(q.batch)) * 1e-6;
    t.busy_s = (st.host_overlaps_device ? 0.0 : step_host_s) + launch_s;
    t.deps = std::move(deps);
    const int series = g.add_task(std::move(t));
    if (st.host_overlaps_device && step_host_s > 0) {
      // The step's CPU work runs beside the device's (paper 004 §3.3), on a lane of its own: it
      // ends the step only where it outlasts the device's work.
      if (overlapped_host_resource[std::size_t(d)] < 0)
        overlapped_host_resource[std::size_t(d)] =
            g.add_resource({"host (beside the GPU):" + name, ResourceKind::host, name});
      TimelineTask o;
      o.name = "step host work beside the device (" + st.name + ")";
      o.category = "host";
      o.resource = overlapped_host_resource[std::size_t(d)];
      o.busy_s = step_host_s;
      o.deps = {series};
      g.add_task(std::move(o));
    }
    return series;
  };
  // A compute task on device d after task `after` (-1: at once).
  auto compute = [&](int d, const std::string& name, const std::string& category, double seconds, int after) {
    TimelineTask t;
    t.name = name;
    t.category = category;
    t.resource = device_resource[std::size_t(d)];
    t.busy_s = seconds;
    return after < 0 ? g.add_task(std::move(t)) : g.add_task(std::move(t), {after});
  };

  models::StepShape shape;
  shape.tokens = q.x;
  shape.context = q.context;
  shape.batch = q.batch;
  shape.mask = q.x > 1 && !q.prefill ? models::MaskKind::tree : models::MaskKind::causal;

  // Draft: one pass over the x tokens it proposes (a standalone draft model), then the tokens
  // travel to the first stage.
  std::vector<int> start_deps;
  // Each stage's tasks, as [first, end) ranges of task indices (tasks are numbered as added): the
  // span of each is its hold on the step (SystemStep::stage_period_s).
  std::vector<std::pair<int, int>> stage_tasks;
  int stage0_begin = -1;  // the first stage's first task when a draft or head runs on it first
  // A draft's or head's tasks outside the first stage's run, with the device they run on: on a
  // device of a stage they lengthen that stage's hold (the two take turns), else they hold their
  // device apart.
  struct OwnWork {
    int device, begin, end;
  };
  std::vector<OwnWork> own_work;
  if (q.draft) {
    const int draft_begin = int(g.task_count());
    const int d = s.draft_device;
    models::StepShape ds = shape;
    ds.include_lm_head = true;
    const double td = seconds_on(d, models::build_verify_graph(*q.draft, ds));
    const int draft_task = compute(d, "draft " + q.draft->name, "draft", td, -1);
    const int first = s.stages.front().devices.front();
    if (first != d) {
      const double bytes = double(q.batch) * q.x * (kTokenBytes + q.x / 8.0);
      start_deps.push_back(add_routed_send(g, s, lanes, d, first, bytes, {draft_task}, "draft tokens -> stage 0"));
    } else {
      start_deps.push_back(draft_task);
    }
    // On a device of its own the draft holds that device apart; on the first stage's lead it holds
    // the first stage (taking turns with it).
    if (first != d) own_work.push_back({d, draft_begin, int(g.task_count())});
    else stage0_begin = draft_begin;
  }

  auto deps_of = [](int t) { return t < 0 ? std::vector<int>{} : std::vector<int>{t}; };
  // Collectives: the choice per (operation, group, size), made once (a TP step issues thousands
  // of calls of a few shapes), and every call logged for the report.
  std::vector<CollectiveCall> calls;
  std::map<std::tuple<bool, std::vector<int>, double>, CollectiveChoice> choices;
  auto collective = [&](bool all_reduce, const std::vector<int>& group, double bytes, const std::vector<int>& ready,
                        const std::string& label) {
    auto key = std::make_tuple(all_reduce, group, bytes);
    auto it = choices.find(key);
    if (it == choices.end())
      it = choices.emplace(key, all_reduce ? choose_all_reduce(s, group, bytes) : choose_all_gather(s, group, bytes)).first;
    return add_collective(g, s, lanes, it->second, all_reduce, group, bytes, ready, label, &calls);
  };
  // One forward over a tensor-parallel group: each slice on every rank, then an all-reduce of
  // `ar_bytes`; `have` holds per rank the task after which its input is ready (-1: at once).
  auto tp_forward = [&](const std::vector<int>& group, std::vector<int> have, const std::vector<double>& slice_s,
                        double ar_bytes, const std::string& label, const std::string& category, int& first_task) {
    for (std::size_t k = 0; k < slice_s.size(); ++k) {
      std::vector<int> done(group.size());
      for (std::size_t r = 0; r < group.size(); ++r) {
        done[r] = compute(group[r], g.named() ? fmt::format("{} slice {}", label, k) : std::string(), category,
                          slice_s[k], have[r]);
        if (first_task < 0) first_task = done[r];
      }
      have = collective(true, group, ar_bytes, done, label);
    }
    return have;
  };
  auto slice_seconds = [&](int d, const std::vector<models::Op>& ops, const models::StepGraph& like) {
    models::StepGraph part = like;
    part.tail_ops.clear();
    part.layer_ops = ops;
    part.layer_count = 1;
    return slice_seconds_on(d, std::move(part));
  };

  // EAGLE head: its passes, one after another (each needs the previous level's tokens).
  std::vector<int> stage0_ready;  // per rank of stage 0 when the head ran on that group
  int head_first = -1, head_last = -1;
  if (q.head && !q.head_pass_widths.empty()) {
    const int head_tasks_begin = int(g.task_count());
    const auto& first_group = s.stages.front().devices;
    const int dd = s.draft_or_lead_device();
    const std::vector<int> group = s.head_ranks(dd);
    const bool on_group = group == first_group;  // with the target's first stage, not a device of its own
    const int tp = int(group.size());
    const models::AlgorithmSpec shard = shard_head(*q.head, tp, s.source_file + ": placement (EAGLE head)");
    std::vector<int> have(group.size(), start_deps.empty() ? -1 : start_deps.front());
    int first_head = -1;
    for (std::size_t p = 0; p < q.head_pass_widths.size(); ++p) {
      const int w = q.head_pass_widths[p];
      models::StepGraph hg = models::build_draft_pass_graph(shard, q.target, w, q.context, q.batch);
      // Inside the step the target's verify carries (as SystemCosts::head_pass_s): no per-step
      // host work or step kernels of its own.
      hg.step_work = false;
      if (q.head_ffn_bytes_per_weight > 0) quantise_head_ffn(hg, q.head_ffn_bytes_per_weight);
      for (auto& op : hg.layer_ops)
        if (op.name == "feature_fc" && tp > 1) {  // row-parallel: 1/tp of its input and weights
          op.k /= tp;
          op.flops /= tp;
          op.weight_bytes /= tp;
          op.dequant_weights /= tp;
        }
      const std::string label = fmt::format("head pass {} (width {})", p + 1, w);
      if (tp == 1) {
        const double t = seconds_on(dd, hg);
        have[0] = compute(dd, label, "draft", t, have[0]);
        if (first_head < 0) first_head = have[0];
        continue;
      }
      // The proposer's host work is paid once per pass, before the pass's first slice.
      std::vector<double> slice_s;
      models::StepGraph later_slice = hg;
      later_slice.draft_pass = false;
      for (const auto& ops : tp_slices(hg.layer_ops))
        slice_s.push_back(slice_seconds(dd, ops, slice_s.empty() ? hg : later_slice));
      const double ar_bytes = double(q.batch) * w * q.head->draft.hidden_size * q.target.activation_bytes();
      have = tp_forward(group, have, slice_s, ar_bytes, label, "draft", first_head);
      models::StepGraph tail = later_slice;
      tail.layer_ops.clear();
      tail.layer_count = 0;
      const double t_tail = slice_seconds_on(dd, std::move(tail));
      for (int r = 0; r < tp; ++r)
        have[std::size_t(r)] = compute(group[std::size_t(r)], label + " lm_head (vocab shard)", "draft", t_tail,
                                       have[std::size_t(r)]);
      have = collective(false, group, double(q.batch) * w * kHeadCandidates * kCandidateBytes * tp, have,
                        label + " candidates");
    }
    head_first = first_head;
    head_last = have[0];
    if (on_group) {
      stage0_ready = have;
      start_deps = {have[0]};
      if (stage0_begin < 0) stage0_begin = head_tasks_begin;
    } else if (dd != first_group.front()) {
      const double bytes = double(q.batch) * q.x * (kTokenBytes + q.x / 8.0);
      start_deps = {add_routed_send(g, s, lanes, dd, first_group.front(), bytes, {have[0]}, "head tokens -> stage 0")};
      own_work.push_back({dd, head_tasks_begin, int(g.task_count())});
    } else {
      start_deps = {have[0]};
      if (stage0_begin < 0) stage0_begin = head_tasks_begin;
    }
  }

  const double activation_bytes = double(q.batch) * q.x * q.target.hidden_size * q.target.activation_bytes();
  std::vector<int> prev_done = start_deps;  // tasks after which the next stage's input is on its rank 0
  int first_target_task = -1, last_stage_task = -1;
  for (std::size_t k = 0; q.verify && k < s.stages.size(); ++k) {
    const auto& st = s.stages[k];
    const int tp = int(st.devices.size());
    const bool last = k + 1 == s.stages.size();
    const std::string where = fmt::format("{}: placement.target stage {}", s.source_file, k);
    const models::ModelSpec shard = tensor_parallel_shard(q.target, tp, where);
    const int layers = st.last_layer - st.first_layer + 1;
    const int lead = st.devices.front();
    models::StepShape ss = shape;
    ss.include_lm_head = last && !q.prefill && s.devices[std::size_t(lead)].hardware.verify_includes_lm_head;
    models::StepGraph graph = models::build_verify_graph(shard, ss);
    if (!last) graph.tail_ops.clear();
    const std::string label = fmt::format("stage {} layers {}-{}", k, st.first_layer, st.last_layer);
    const int stage_begin = k == 0 && stage0_begin >= 0 ? stage0_begin : int(g.task_count());

    // Stage input: rank 0 has it after prev_done; other ranks receive it from rank 0.
    std::vector<int> ready(static_cast<std::size_t>(tp));
    if (k == 0 && !stage0_ready.empty()) {
      ready = stage0_ready;  // the head ran on this group: every rank has the tokens
    } else if (prev_done.empty()) {
      for (int r = 0; r < tp; ++r) ready[std::size_t(r)] = -1;
    } else {
      // Rank 0 has the input; it is passed along the group's ring to the other ranks.
      ready[0] = prev_done.front();
      for (int r = 1; r < tp; ++r)
        ready[std::size_t(r)] = add_send(g, s, lanes, st.devices[std::size_t(r - 1)], st.devices[std::size_t(r)],
                                         activation_bytes, {ready[std::size_t(r - 1)]},
                                         label + " input -> rank " + std::to_string(r));
    }
    // The graph's layer_ops are one repeating unit of `unit.size()` layers (layer l is the unit's
    // layer l mod size: Maverick's odd layers are MoE), and layer_count counts units.
    const auto unit = unit_layers(graph.layer_ops);
    const int unit_size = std::max<int>(1, int(unit.size()));
    if (k == 0) {
      // Per rank over this stage's layers (the graph counts the whole model's units).
      const double share = double(layers) / double(q.target.layers);
      double tail_w = 0, tail_kv = 0;
      for (const auto& op : graph.tail_ops) tail_w += op.weight_bytes, tail_kv += op.kv_read_bytes;
      out.rank_weight_bytes = (graph.total_weight_bytes() - tail_w) * share + tail_w;
      out.rank_kv_read_bytes = (graph.total_kv_read_bytes() - tail_kv) * share + tail_kv;
    }

    if (tp == 1) {
      if (layers % unit_size != 0 || st.first_layer % unit_size != 0)
        throw models::InputError(fmt::format("{}: layers {}-{} split {}'s repeating unit of {} layers (moe_layer_step)",
                                             where, st.first_layer, st.last_layer, q.target.name, unit_size));
      graph.layer_count = layers / unit_size;
      const double t = seconds_on(lead, graph);
      const int task = compute(lead, label, "compute", t, ready[0]);
      if (first_target_task < 0) first_target_task = task;
      prev_done = {task};
      last_stage_task = task;
    } else {
      // Per layer of the unit: its attention half (up to the output projection) and MLP half,
      // each followed by an all-reduce of the activations over the group. The slices' engines
      // charge the stack's per-layer and per-kernel host work (half a layer each); its per-step
      // work is the host task below, once per step.
      std::vector<std::vector<double>> slice_s;
      for (const auto& layer_ops : unit) {
        slice_s.emplace_back();
        for (const auto& ops : tp_slices(layer_ops)) slice_s.back().push_back(slice_seconds(lead, ops, graph));
      }
      double t_tail = 0;
      if (!graph.tail_ops.empty()) {
        models::StepGraph tail = graph;
        tail.layer_ops.clear();
        tail.layer_count = 0;
        t_tail = slice_seconds_on(lead, std::move(tail));
      }
      std::vector<int> have = ready;
      // The stack's per-step host work (and a CUDA graph's one launch), on both engines.
      for (int r = 0; r < tp; ++r)
        have[std::size_t(r)] = step_host_task(st.devices[std::size_t(r)], deps_of(have[std::size_t(r)]));
      // Every repeating unit of layers after the first two is the one before it shifted, task for
      // task (the same slices and collectives, waiting on the unit before as that one waited on
      // its own predecessor): an unnamed graph copies the second unit (TaskGraph::repeat_tasks)
      // instead of building each again, and the timeline skips the periods whose state repeats.
      // A named graph builds every layer (its tasks are named by layer).
      const int copied_units = g.named() ? 0 : std::max(0, layers / unit_size - 2);
      const int built_to = st.last_layer - copied_units * unit_size;  // built through this layer
      int unit_first_task = -1;
      std::size_t unit_first_call = 0;
      for (int l = st.first_layer; l <= built_to; ++l) {
        if (l == built_to - unit_size + 1) {
          unit_first_task = int(g.task_count());
          unit_first_call = calls.size();
        }
        have = tp_forward(st.devices, have, slice_s[std::size_t(l % unit_size)], activation_bytes,
                          g.named() ? fmt::format("layer {}", l) : std::string(), "compute", first_target_task);
      }
      if (copied_units > 0) {
        const int period = int(g.task_count()) - unit_first_task;
        g.repeat_tasks(period, copied_units);
        // The copies' collective calls, as the layers would have logged them.
        const std::size_t unit_calls = calls.size() - unit_first_call;
        for (int m = 1; m <= copied_units; ++m)
          for (std::size_t c = 0; c < unit_calls; ++c) {
            CollectiveCall call = calls[unit_first_call + c];
            call.first_task += m * period;
            call.end_task += m * period;
            calls.push_back(std::move(call));
          }
        for (int& t : have) t += copied_units * period;
      }
      if (t_tail > 0)
        for (int r = 0; r < tp; ++r)
          have[std::size_t(r)] = compute(st.devices[std::size_t(r)], "lm_head (vocab shard)", "compute", t_tail,
                                         have[std::size_t(r)]);
      prev_done = {have[0]};
      last_stage_task = have[0];
    }
    if (!last) {
      const int next_lead = s.stages[k + 1].devices.front();
      prev_done = {add_routed_send(g, s, lanes, lead, next_lead, activation_bytes, prev_done,
                            fmt::format("activations stage {} -> {}", k, k + 1))};
    }
    stage_tasks.emplace_back(stage_begin, int(g.task_count()));
  }
  if (q.verify && q.draft && s.draft_device != s.stages.back().devices.front())
    add_routed_send(g, s, lanes, s.stages.back().devices.front(), s.draft_device,
             double(q.batch) * q.x * kVerifiedTokenBytes, {last_stage_task}, "verified tokens -> draft");

  out.run = run_timeline(g);
  out.step_s = out.run.makespan_s;
  auto span_of = [&](int begin, int end) {
    if (begin >= end) return 0.0;
    double first = out.run.start_s[std::size_t(begin)], last = out.run.end_s[std::size_t(begin)];
    for (int t = begin + 1; t < end; ++t) {
      first = std::min(first, out.run.start_s[std::size_t(t)]);
      last = std::max(last, out.run.end_s[std::size_t(t)]);
    }
    return last - first;
  };
  std::vector<double> hold(stage_tasks.size(), 0.0);
  for (std::size_t k = 0; k < stage_tasks.size(); ++k) hold[k] = span_of(stage_tasks[k].first, stage_tasks[k].second);
  for (const OwnWork& w : own_work) {
    const double span = span_of(w.begin, w.end);
    bool on_stage = false;
    for (std::size_t k = 0; k < stage_tasks.size() && k < s.stages.size() && !on_stage; ++k) {
      const auto& devices = s.stages[k].devices;
      if (std::find(devices.begin(), devices.end(), w.device) != devices.end()) {
        hold[k] += span;
        on_stage = true;
      }
    }
    if (!on_stage) out.stage_period_s = std::max(out.stage_period_s, span);
  }
  for (double h : hold) out.stage_period_s = std::max(out.stage_period_s, h);
  if (q.verify)
    out.target_s = out.run.end_s[std::size_t(last_stage_task)] - out.run.start_s[std::size_t(first_target_task)];
  if (head_first >= 0) out.head_s = out.run.end_s[std::size_t(head_last)] - out.run.start_s[std::size_t(head_first)];
  {
    const int lead = s.stages.front().devices.front();
    out.lead_compute_s = out.run.resource_busy_s[std::size_t(device_resource[std::size_t(lead)])];
    const double host =
        host_resource[std::size_t(lead)] < 0 ? 0.0 : out.run.resource_busy_s[std::size_t(host_resource[std::size_t(lead)])];
    out.lead_wait_s = std::max(0.0, out.step_s - out.lead_compute_s - host);
  }

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
    d.host = s.devices[i].hardware.host.name;
    d.memory = memory[i];
    d.role = memory[i].roles.empty() ? "idle" : memory[i].roles;
    d.busy_s = out.run.resource_busy_s[std::size_t(device_resource[i])];
    out.feasible = out.feasible && memory[i].fits();
    out.devices.push_back(d);
  }
  // Collectives per shape, in the order of their first call.
  for (const CollectiveCall& c : calls) {
    std::vector<std::string> names;
    for (int r : c.ranks) names.push_back(s.devices[std::size_t(r)].name);
    const std::string label = c.choice.label(), transport = to_string(c.choice.transport);
    auto it = std::find_if(out.collectives.begin(), out.collectives.end(), [&](const CollectiveStep& x) {
      return x.op == c.op && x.ranks == names && x.bytes == c.bytes && x.algorithm == label && x.transport == transport;
    });
    if (it == out.collectives.end()) {
      CollectiveStep cs;
      cs.op = c.op;
      cs.ranks = names;
      cs.bytes = c.bytes;
      cs.algorithm = label;
      cs.transport = transport;
      cs.custom_declined = c.choice.custom_declined;
      out.collectives.push_back(std::move(cs));
      it = out.collectives.end() - 1;
    }
    double first = 0, last = 0;
    for (int t = c.first_task; t < c.end_task; ++t) {
      const double a = out.run.start_s[std::size_t(t)], b = out.run.end_s[std::size_t(t)];
      first = t == c.first_task ? a : std::min(first, a);
      last = t == c.first_task ? b : std::max(last, b);
    }
    ++it->calls;
    it->busy_s += last - first;
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
