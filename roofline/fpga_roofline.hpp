#pragma once
// Analytic FPGA engine: per decoder layer, weights stream over all channels while KV traffic
// crosses a few channels, and the matrix engine runs the layer's GEMMs and attention; double
// buffering overlaps the two, so a layer takes max(memory, compute) plus a fixed fill/drain
// overhead, plus the time memory idles once the prefetch buffers are full (compute-bound
// projections in front of a long KV stream). sim/ models the same board cycle by cycle and is
// the reference (README); the two agree within 2 % on every board.
#include "models/latency_engine.hpp"

namespace roofline {

// Cycle counts of the matrix engine and SFU for one op (shared with the sim so both engines
// use the same tiling rules).
struct FpgaOpWork {
  double matrix_cycles = 0;     // matrix engine busy cycles
  double sfu_cycles = 0;        // SFU busy cycles
  double weight_bytes = 0;      // streamed on the weight channels
  double kv_bytes = 0;          // KV reads (after the cross-attention factor) + writes
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
