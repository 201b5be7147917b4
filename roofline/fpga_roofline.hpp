#pragma once
// Analytic FPGA engine: per decoder layer, the load stream reads weights over their channel
// group and activations (KV cache, scores, operator inputs) over theirs, the store stream
// writes outputs over its own, and the matrix engine and SFU run the layer's work; double
// buffering overlaps them, so a layer takes max(loads, stores, compute) plus an optional
// fill/drain overhead, plus the time loads idle once the prefetch buffers are full
// (compute-bound projections in front of a long KV stream). The channel groups are the board's
// memory.tensor_mapping (models/hardware_spec.hpp). sim/ models the same board cycle by cycle
// and is the reference (docs/fpga-model.md, "sim vs roofline").
#include "models/latency_engine.hpp"

namespace roofline {

// Cycle counts of the matrix engine and SFU for one op (shared with the sim so both engines
// use the same tiling rules).
struct FpgaOpWork {
  double matrix_cycles = 0;     // matrix engine busy cycles
  double sfu_cycles = 0;        // SFU busy cycles
  double weight_bytes = 0;      // loaded over the weight channels
  double kv_read_bytes = 0;     // KV-cache reads, after the cross-attention factor
  double load_bytes = 0;        // loaded over the activation channels: kv_read_bytes +
                                // activation loads
  double store_bytes = 0;       // stored over the store channels: new K/V + activation stores
};
FpgaOpWork fpga_op_work(const models::FpgaSpec& f, const models::Op& op, int tokens);

// How many times an op reads its KV bytes: 1, or for a cross-attention the board's
// cross_attention_kv_read_factor capped at the op's GQA group size (1 for multi-head attention).
double fpga_kv_read_factor(const models::FpgaSpec& f, const models::Op& op);

class FpgaRooflineEngine : public models::LatencyEngine {
 public:
  explicit FpgaRooflineEngine(models::HardwareSpec hw);
  std::string name() const override { return "roofline"; }
  const models::HardwareSpec& hardware() const override { return hw_; }
  models::StepCost step(const models::StepGraph& graph, bool breakdown) const override;

 private:
  models::HardwareSpec hw_;
};

}  // namespace roofline
