#include "sim/fpga/fpga_sim_engine.hpp"


#include "models/engine_registry.hpp"

#include <algorithm>

#include "sim/fpga/fpga_accelerator.hpp"
#include "sim/fpga/fpga_program_builder.hpp"

namespace sim {

FpgaSimEngine::FpgaSimEngine(models::HardwareSpec hw, SimMode mode) : hw_(std::move(hw)), mode_(mode) {}

std::unique_ptr<models::LatencyEngine> make_fpga_sim_engine(const models::HardwareSpec& hw, SimMode mode) {
  return std::make_unique<FpgaSimEngine>(hw, mode);
}

namespace {
// The memo key: the fields the program builder reads, as raw bytes (formatting them as text
// took a tenth of a sim design point's time). Exact: equal keys mean bit-identical fields.
template <typename T>
void append_bytes(std::string& key, const T& value) {
  key.append(reinterpret_cast<const char*>(&value), sizeof value);
}
std::string group_key(const std::vector<models::Op>& ops, int tokens, int layers) {
  std::string key;
  key.reserve(ops.size() * 112 + 16);
  append_bytes(key, tokens);
  append_bytes(key, layers);
  for (const auto& op : ops) {
    append_bytes(key, op.name.size());
    key += op.name;
    append_bytes(key, int(op.kind));
    for (std::int64_t v : {op.m, op.n, op.k, op.batch, op.heads, op.kv_heads}) append_bytes(key, v);
    for (double v : {op.weight_bytes, op.kv_read_bytes, op.kv_write_bytes, op.activation_load_bytes,
                     op.activation_store_bytes, op.sfu_elements})
      append_bytes(key, v);
    append_bytes(key, op.cross_attention);
  }
  return key;
}
}  // namespace

std::shared_ptr<const FpgaSimEngine::GroupResult> FpgaSimEngine::simulate(const std::vector<models::Op>& ops,
                                                                          int tokens, int layers,
                                                                          bool detailed) const {
  const std::string key = group_key(ops, tokens, layers);
  {
    std::lock_guard<std::mutex> lock(memo_mutex_);
    auto it = memo_.find(key);
    if (it != memo_.end() && (it->second->detailed || !detailed)) return it->second;
  }
  auto r = std::make_shared<GroupResult>();
  // Layer i prefetches KV for layer i + 1, so layers are not independent: simulate them all.
  // Without a breakdown only the cycle count is kept, so the event-driven model runs the compact
  // program (one template layer; the layers are implicit shifted copies of it, never stored).
  const ProgramForm form = detailed || mode_ != SimMode::event_driven ? ProgramForm::full : ProgramForm::compact;
  // Programs not kept reuse one buffer per thread (see build_fpga_program).
  thread_local std::vector<Instruction> recycled;
  r->program = build_fpga_program(*hw_.fpga, ops, tokens, layers, form, detailed ? nullptr : &recycled);
  r->schedule = run_on_systemc(r->program, mode_, LayerFastForward::exact,
                               detailed ? ScheduleTimes::every_instruction : ScheduleTimes::total_only);
  r->cycles = r->schedule.total_cycles;
  r->detailed = detailed;
  if (!detailed) {
    recycled = std::move(r->program.instructions);
    r->program = Program{};
    r->schedule = Schedule{};
  }
  std::lock_guard<std::mutex> lock(memo_mutex_);
  ++simulations_;
  memo_[key] = r;
  return r;
}

models::StepCost FpgaSimEngine::step(const models::StepGraph& g, bool breakdown) const {
  const double hz = hw_.fpga->clock_mhz * 1e6;
  models::StepCost cost;
  // Each group (all layers together, then the tail) is costed as one overlapped block.
  models::for_each_op_group(g, [&](const std::vector<models::Op>& ops, int count, bool is_layer) {
    const char* label = is_layer ? "(layer)" : "(tail)";
    if (ops.empty() || count == 0) return;
    const std::shared_ptr<const GroupResult> result = simulate(ops, g.tokens, count, breakdown);
    const GroupResult& r = *result;
    cost.cycles += r.cycles;
    if (!breakdown) return;
    // Per-op figures of the window's last layer (the steady state). An op's cycles are those
    // by which it pushed that layer's finish time beyond every earlier op of the layer.
    const int last = r.program.layers / 2;  // mid-step: a layer with a predecessor and a successor
    const auto finish = r.schedule.layer_finish(r.program);
    const std::size_t nops = r.program.op_names.size();
    // Busy cycles per op and unit. The matrix engine and the SFU run side by side, so an op's
    // (and the layer's) compute time is the busier unit's, as in the analytic engine
    // (roofline/fpga_roofline): max, not sum, so that compute never exceeds the wall time.
    // Memory time is the busier stream's, loads or stores (they run side by side).
    std::vector<long long> end(nops, 0), matrix(nops, 0), sfu(nops, 0), memory(nops, 0), stores(nops, 0);
    long long sync_cycles = 0;
    for (std::size_t i = 0; i < r.program.instructions.size(); ++i) {
      const Instruction& in = r.program.instructions[i];
      if (in.layer != last) continue;
      if (in.op < 0) { sync_cycles += in.cycles; continue; }
      end[in.op] = std::max(end[in.op], r.schedule.finish[i]);
      if (in.unit == Unit::matrix) matrix[in.op] += in.cycles;
      else if (in.unit == Unit::sfu) sfu[in.op] += in.cycles;
      else if (in.unit == Unit::memory) memory[in.op] += in.cycles;
      else stores[in.op] += in.cycles;
    }
    long long frontier = last > 0 ? finish[last - 1] : 0;
    for (std::size_t k = 0; k < nops; ++k) {
      const models::Op& op = ops[k];
      models::OpCost c;
      c.op = op.name;
      c.count = count;
      c.cycles = std::max(0LL, end[k] - frontier);
      frontier = std::max(frontier, end[k]);
      c.seconds = c.cycles / hz;
      c.compute_s = std::max(matrix[k], sfu[k]) / hz;
      c.memory_s = std::max(memory[k], stores[k]) / hz;
      c.stall_s = std::max(0.0, c.seconds - std::max(c.compute_s, c.memory_s));
      const double busy = std::max(c.compute_s, c.memory_s);
      c.compute_utilisation = busy > 0 ? op.flops / busy / hw_.peak_flops() : 0;
      c.memory_utilisation = busy > 0 ? (op.weight_bytes + op.kv_read_bytes + op.kv_write_bytes +
                                         op.activation_load_bytes + op.activation_store_bytes) / busy /
                                            hw_.peak_bandwidth_bytes() : 0;
      cost.ops.push_back(c);
    }
    models::OpCost total;
    total.op = label;
    total.count = count;
    total.cycles = last > 0 ? finish[last] - finish[last - 1] : finish[last];
    total.seconds = total.cycles / hz;
    long long matrix_total = 0, sfu_total = 0, load_total = 0, store_total = 0;
    for (std::size_t k = 0; k < nops; ++k) {
      matrix_total += matrix[k];
      sfu_total += sfu[k];
      load_total += memory[k];
      store_total += stores[k];
    }
    total.memory_s = std::max(load_total, store_total) / hz;
    total.compute_s = std::max(matrix_total, sfu_total) / hz;
    // Time neither unit hid: the per-layer sync and whatever the buffers could not overlap.
    total.stall_s = std::max(sync_cycles / hz, total.seconds - std::max(total.compute_s, total.memory_s));
    cost.ops.push_back(total);
  });
  cost.seconds = cost.cycles / hz;
  return cost;
}

namespace {
const models::EngineRegistration fpga_event_driven("sim", "fpga", [](const models::HardwareSpec& hw) {
  return make_fpga_sim_engine(hw, SimMode::event_driven);
});
const models::EngineRegistration fpga_clocked("sim-clocked", "fpga", [](const models::HardwareSpec& hw) {
  return make_fpga_sim_engine(hw, SimMode::clocked);
});
}  // namespace

}  // namespace sim
