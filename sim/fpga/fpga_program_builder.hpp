#pragma once
// Lowers an op group (one decoder layer, repeated `layers` times, or the tail) onto the
// FlightLLM-like accelerator's instruction stream:
// - weights stream in weight_chunk_kib chunks into weight_buffer_kib / weight_chunk_kib slots,
//   activation loads (operator inputs, the KV cache, attention scores) in kv_chunk_kib chunks
//   into kv_buffer_kib / kv_chunk_kib slots: the load of chunk g waits until the compute that
//   consumed chunk g - slots has finished, so each queue runs at most a buffer ahead (the
//   activation queue into the next layer's attention);
// - attention runs chunk by chunk: QK^T (matrix) stores its scores, softmax (SFU), PV (matrix)
//   loads them back with its V chunk, software-pipelined so the SFU overlaps the matrix engine;
// - an op's first compute waits for the previous op's last compute (activation dependency);
// - outputs and new K/V leave through the store port after the compute that made them;
// - every layer starts with layer_overhead_cycles on the memory controller (optional
//   calibration, 0 on the shipped boards: the instruction then takes one cycle and only marks
//   the layer boundary).
// A DMA transfer lasts the cycles its busiest channel needs for its bursts at the efficiency
// of its tensor class's channel group (memory.tensor_mapping in the board YAML).
#include <vector>

#include "models/hardware_spec.hpp"
#include "models/operator_graph.hpp"
#include "sim/fpga/instruction_program.hpp"

namespace sim {

// full: every layer stored; compact: one template layer, the layers implicit shifted copies of
// it (Program::compact, for the event-driven model when no schedule is wanted).
enum class ProgramForm { full, compact };

// `recycled` (optional): a vector whose capacity the program's instructions reuse (the sim
// engine hands back each finished program's: a fresh ~0.3 MB vector per step cost page faults).
Program build_fpga_program(const models::FpgaSpec& f, const std::vector<models::Op>& ops, int tokens,
                           int layers = 1, ProgramForm form = ProgramForm::full,
                           std::vector<Instruction>* recycled = nullptr);

long long dma_cycles(const models::FpgaSpec& f, double bytes, int channels, double efficiency);

}  // namespace sim
