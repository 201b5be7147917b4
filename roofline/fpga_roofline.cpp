#include "roofline/fpga_roofline.hpp"

#include "models/config_error.hpp"
#include "models/engine_registry.hpp"

#include <algorithm>
#include <cmath>

namespace roofline {

using models::Op;
using models::OpKind;

double fpga_kv_read_factor(const models::FpgaSpec& f, const Op& op) {
  if (!op.cross_attention) return 1.0;
  const double group = op.heads > 0 && op.kv_heads > 0 ? double(op.heads) / double(op.kv_heads) : 1.0;
  return std::min(f.cross_attention_kv_read_factor, group);
}

FpgaOpWork fpga_op_work(const models::FpgaSpec& f, const Op& op, int tokens) {
  FpgaOpWork w;
  w.weight_bytes = op.weight_bytes;
  w.kv_read_bytes = op.kv_read_bytes * fpga_kv_read_factor(f, op);
  w.load_bytes = w.kv_read_bytes + op.activation_load_bytes;
  w.store_bytes = op.kv_write_bytes + op.activation_store_bytes;
  const double macs = op.flops / 2.0;
  switch (op.kind) {
    case OpKind::gemm: {
      // MV mode at x = 1; in MM mode the n token lanes share each m x k weight tile and take
      // consecutive (tile, token) pairs, so only the weight dimensions are tile-quantised.
      const bool mv = tokens == 1;
      const double m = mv ? f.mv_m : f.mm_m, k = mv ? f.mv_k : f.mm_k, n = mv ? 1 : f.mm_n;
      const double tiles = std::ceil(double(op.n) / m) * std::ceil(double(op.k) / k);
      w.matrix_cycles = std::ceil(tiles * double(op.m) / (n * f.slrs));
      break;
    }
    case OpKind::attention_qk:
    case OpKind::attention_pv: {
      const double per_cycle = (tokens == 1 ? f.macs_per_cycle_mv() : f.macs_per_cycle_mm()) *
                               f.attention_efficiency;
      w.matrix_cycles = std::ceil(macs / per_cycle);
      break;
    }
    case OpKind::softmax:
    case OpKind::norm:
    case OpKind::elementwise:
      w.sfu_cycles = std::ceil(op.sfu_elements * op.sfu_passes / (double(f.sfu_lanes) * f.slrs));
      break;
  }
  return w;
}

FpgaRooflineEngine::FpgaRooflineEngine(models::HardwareSpec hw) : hw_(std::move(hw)) {
  // A spec built in code (not through the YAML loader) could leave a channel group empty.
  const models::FpgaSpec& f = *hw_.fpga;
  for (const models::FpgaChannelGroup* g : {&f.weights, &f.activation_loads, &f.stores})
    if (!(f.group_bandwidth_gbs(*g) > 0))
      throw models::InputError(hw_.name + ": every memory.tensor_mapping group needs channels and an efficiency > 0");
}

models::StepCost FpgaRooflineEngine::step(const models::StepGraph& g, bool breakdown) const {
  const models::FpgaSpec& f = *hw_.fpga;
  const double hz = f.clock_mhz * 1e6;
  const double weight_bw = f.group_bandwidth_gbs(f.weights) * 1e9;
  const double load_bw = f.group_bandwidth_gbs(f.activation_loads) * 1e9;
  const double store_bw = f.group_bandwidth_gbs(f.stores) * 1e9;
  models::StepCost cost;

  // One fused group (a layer, or the tail). Loads are one serial stream (weights, the
  // attention's KV chunks and scores, operator inputs), stores another, and double buffering
  // overlaps both with compute, so a group takes max(loads, stores, compute) plus the optional
  // fill/drain overhead -- as long as the prefetch buffers can hold what the loads would fetch
  // ahead. They cannot when the projections are compute-bound and the attention's KV stream is
  // long: while the projections compute, loads can run ahead only by a KV buffer of the next
  // attention's KV and a weight buffer of weights, and then idle. That idle time is added to
  // the load side (buffer-capacity stall; the sim shows the same effect instruction by
  // instruction).
  models::for_each_op_group(g, [&](const std::vector<Op>& ops, int count, bool is_layer) {
    const char* label = is_layer ? "(layer)" : "(tail)";
    if (ops.empty() || count == 0) return;
    double load_s = 0, store_s = 0, bytes = 0, flops = 0;
    // Phase split for the stall term: ops that stream weights (projections, with their norms
    // and activations) against the attention ops that stream KV. The layer's matrix and SFU
    // cycles are the sums of the two phases'.
    double weight_phase_memory = 0, kv_phase_memory = 0;
    // The activation buffer holds the weight phase's operator inputs (one slot per chunk) beside
    // the KV chunks prefetched for the attention; of the attention's loads only the KV cache can
    // be prefetched (its scores come back after their store).
    double input_slots = 0, kv_prefetchable_s = 0;
    double weight_phase_matrix = 0, weight_phase_sfu = 0, kv_phase_matrix = 0, kv_phase_sfu = 0;
    for (const Op& op : ops) {
      const FpgaOpWork w = fpga_op_work(f, op, g.tokens);
      const double op_load = w.weight_bytes / weight_bw + w.load_bytes / load_bw;
      const double op_store = w.store_bytes / store_bw;
      load_s += op_load;
      store_s += op_store;
      bytes += w.weight_bytes + w.load_bytes + w.store_bytes;
      flops += op.flops;
      const double op_compute = std::max(w.matrix_cycles, w.sfu_cycles) / hz;
      const bool kv_phase = w.weight_bytes == 0 && op.kind != OpKind::norm && op.kind != OpKind::elementwise;
      (kv_phase ? kv_phase_memory : weight_phase_memory) += op_load;
      if (kv_phase) kv_prefetchable_s += w.kv_read_bytes / load_bw;
      else input_slots += std::ceil(w.load_bytes / (f.kv_chunk_kib * 1024));
      (kv_phase ? kv_phase_matrix : weight_phase_matrix) += w.matrix_cycles;
      (kv_phase ? kv_phase_sfu : weight_phase_sfu) += w.sfu_cycles;
      if (breakdown) {
        models::OpCost c;
        c.op = op.name;
        c.count = count;
        c.compute_s = op_compute;
        c.memory_s = std::max(op_load, op_store);
        c.seconds = std::max(c.compute_s, c.memory_s);
        c.compute_utilisation = c.seconds > 0 ? op.flops / c.seconds / hw_.peak_flops() : 0;
        c.memory_utilisation = c.seconds > 0 ? (w.weight_bytes + w.load_bytes + w.store_bytes) / c.seconds /
                                                   hw_.peak_bandwidth_bytes() : 0;
        cost.ops.push_back(c);
      }
    }
    // The SFU overlaps the matrix engine, in the whole layer as within a phase.
    const double compute_s =
        std::max(weight_phase_matrix + kv_phase_matrix, weight_phase_sfu + kv_phase_sfu) / hz;
    const double overhead_s = f.layer_overhead_cycles / hz;
    const double weight_phase_compute = std::max(weight_phase_matrix, weight_phase_sfu) / hz;
    const double kv_phase_compute = std::max(kv_phase_matrix, kv_phase_sfu) / hz;
    // What the loads can fetch ahead while the other phase computes: the buffer's worth of the
    // next phase's data (no more than that phase loads).
    const double kv_slots = std::floor(f.kv_buffer_kib / f.kv_chunk_kib);
    const double kv_lead_s =
        std::min(std::max(0.0, kv_slots - input_slots) * f.kv_chunk_kib * 1024 / load_bw, kv_prefetchable_s);
    const double weight_lead_s = std::min(f.weight_buffer_kib * 1024 / weight_bw, weight_phase_memory);
    const double buffer_stall_s =
        std::max(0.0, weight_phase_compute - weight_phase_memory - kv_lead_s - weight_lead_s) +
        std::max(0.0, kv_phase_compute - kv_phase_memory - weight_lead_s);
    const double memory_s = std::max(load_s, store_s);
    const double t = std::max({load_s + buffer_stall_s, store_s, compute_s}) + overhead_s;
    cost.seconds += t * count;
    if (breakdown) {
      models::OpCost c;
      c.op = label;
      c.count = count;
      c.seconds = t;
      c.compute_s = compute_s;
      c.memory_s = memory_s;
      c.stall_s = t - std::max(memory_s, compute_s);
      c.compute_utilisation = flops / t / hw_.peak_flops();
      c.memory_utilisation = bytes / t / hw_.peak_bandwidth_bytes();
      cost.ops.push_back(c);
    }
  });
  cost.cycles = std::llround(cost.seconds * hz);
  return cost;
}

namespace {
const models::EngineRegistration fpga_roofline_registration("roofline", "fpga",
                                            [](const models::HardwareSpec& hw) {
                                              return std::make_unique<FpgaRooflineEngine>(hw);
                                            });
}  // namespace

}  // namespace roofline
