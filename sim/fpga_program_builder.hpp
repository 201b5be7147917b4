#pragma once
// Lowers an op group onto the FlightLLM-like accelerator's instruction stream:
// - weights stream in chunks of half the weight buffer (double buffering: the load of chunk g
//   waits until the compute that used buffer slot g mod 2, chunk g - 2, has finished);
// - KV reads stream in chunks of half the activation buffer over the KV channels;
// - attention is processed chunk by chunk: QK^T on the matrix engine, softmax on the SFU, PV
//   on the matrix engine, so the SFU overlaps with the matrix engine (online softmax);
// - an op's first compute waits for the previous op's compute (activation dependency);
// - new K/V are stored by a separate store DMA after the projection that made them;
// - every group starts with a SYNC of layer_overhead_cycles (fill/drain, instruction fetch).
// DMA transfers are split over the channel group in bursts; a transfer's duration is the
// cycles the busiest channel needs for its bursts at the access pattern's efficiency.
#include <vector>

#include "models/hardware_spec.hpp"
#include "models/operator_graph.hpp"
#include "sim/instruction_program.hpp"

namespace sim {

Program build_fpga_program(const models::FpgaSpec& f, const std::vector<models::Op>& ops, int tokens);

// Cycles one DMA transfer takes: `bytes` spread in bursts over `channels`, each channel moving
// bytes_per_cycle(channel) * efficiency.
long long dma_cycles(const models::FpgaSpec& f, double bytes, int channels, double efficiency);

}  // namespace sim
