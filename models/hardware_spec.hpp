#pragma once
// Typed hardware descriptions, parsed and validated from configs/hardware/<name>.yaml.
// Units are in the field names, as in the YAML keys.
#include <any>
#include <optional>
#include <string>

#include "models/host_spec.hpp"
#include "models/software_stack.hpp"

namespace models {

class YamlReader;  // models/yaml_reader.hpp

enum class MemoryType { hbm, ddr4, gddr6x, ddr5 };
std::string to_string(MemoryType type);

// A share of the off-chip channels: `channels` of FpgaSpec::channels, each at `efficiency` of its
// peak bandwidth.
struct FpgaChannelGroup {
  int channels = 0;
  double efficiency = 0;
};

// FlightLLM-like accelerator: per SLR a matrix engine (MM mode for x > 1, MV mode for x = 1),
// an SFU, DMA engines and on-chip buffers; HBM pseudo-channels or DDR channels off-chip.
struct FpgaSpec {
  double clock_mhz = 0;
  int slrs = 0;
  // Matrix engine parallelism per SLR, MACs per cycle = m * k * n.
  int mm_m = 0, mm_k = 0, mm_n = 0;  // MM mode (x > 1): n = tokens per pass
  int mv_m = 0, mv_k = 0;            // MV mode (x = 1)
  int sfu_lanes = 0;                 // SFU elements per cycle per SLR
  // Off-chip memory.
  MemoryType memory_type = MemoryType::hbm;
  double bandwidth_gbs = 0;          // whole device, all channels
  // Off-chip memory the design keeps weights and KV caches in (HBM, and DDR on boards that have
  // both; the model streams every byte at bandwidth_gbs, as paper 000's simulator does).
  double memory_capacity_gib = 0;
  int channels = 0;                  // HBM pseudo-channels or DDR channels
  int burst_bytes = 0;               // bytes per burst on one channel
  // Which channels carry each tensor class, at what fraction of a channel's peak (paper 000's
  // accelerator, as its authors' simulator maps it): weights are striped over every channel
  // and stream at the same-channel efficiency; activation loads (KV cache, attention scores,
  // operator inputs) and stores go over a few channels, loads at the lower cross-channel
  // efficiency. Loads of both groups share one DMA stream; stores have their own.
  FpgaChannelGroup weights;
  FpgaChannelGroup activation_loads;
  FpgaChannelGroup stores;
  // On-chip buffers: weight chunks stream into weight_buffer_kib / weight_chunk_kib slots and
  // KV chunks into kv_buffer_kib / kv_chunk_kib slots (at least two each: double buffering),
  // so each DMA queue can run that far ahead of the compute that consumes it.
  double weight_buffer_kib = 0;
  double weight_chunk_kib = 0;
  double kv_buffer_kib = 0;
  double kv_chunk_kib = 0;
  // Optional calibration knobs (YAML `calibration:`), neutral by default; the shipped boards
  // set none (the structure above replaced them).
  double attention_efficiency = 1;       // matrix-engine utilisation on QK^T / PV
  int layer_overhead_cycles = 0;         // per-layer fill/drain not hidden by streaming
  // Reads of the target KV per KV head in a cross-attention, capped per op at the GQA group size
  // (heads / kv_heads): a head group cannot read its K/V more often than it has query heads.
  double cross_attention_kv_read_factor = 1;

  double macs_per_cycle_mm() const { return double(slrs) * mm_m * mm_k * mm_n; }
  double macs_per_cycle_mv() const { return double(slrs) * mv_m * mv_k; }
  double channel_bandwidth_gbs() const { return bandwidth_gbs / channels; }
  double group_bandwidth_gbs(const FpgaChannelGroup& g) const {
    return channel_bandwidth_gbs() * g.channels * g.efficiency;
  }
};

struct GpuSpec {
  int sms = 0;
  double clock_mhz = 0;
  double tensor_tflops_fp16 = 0;   // dense FP16/BF16 tensor-core peak
  double memory_bandwidth_gbs = 0;
  double memory_capacity_gib = 0;
  double l2_mib = 0;
  MemoryType memory_type = MemoryType::hbm;
  double memory_efficiency = 0;    // achievable fraction of peak bandwidth (streaming)
  double tensor_efficiency = 0;    // achievable fraction of tensor peak on a full wave (GEMMs)
  // The same for the attention kernels' QK^T and PV MMAs (online softmax between them); the
  // YAML key is optional and defaults to tensor_efficiency.
  double attention_tensor_efficiency = 0;
  // Fixed costs per kernel, measured apart: `kernel_overhead_us` is what every kernel
  // of a step costs beyond its work when it follows the previous one on the stream (dependent
  // launch, drain), as in a CUDA-graph replay; `gemm_ramp_us` is what a GEMM adds to that (its
  // weight stream's ramp-up and the tile tail); `isolated_launch_us` is what one kernel timed
  // alone from an idle GPU adds on top (launch latency, event timing): only goldens of single
  // kernels pay it. The host's launch cost is the software stack's (stack kernel_launch_host_us).
  double kernel_overhead_us = 0;
  double gemm_ramp_us = 0;
  double isolated_launch_us = 0;
  int cta_tile_m = 0, cta_tile_n = 0;  // largest CTA tile of the GEMM kernels
  // Per-SM resource limits (YAML `sm:`, vendor compute-capability tables): how many CTAs of a
  // kernel can be resident on one SM at once (occupancy), and so how CTAs of concurrent
  // kernels compete for SMs.
  int sm_max_threads = 0;            // resident threads per SM
  int sm_registers = 0;              // 32-bit registers per SM
  double sm_shared_memory_kib = 0;   // shared memory per SM
  int sm_max_ctas = 0;               // resident CTAs per SM
  // Whether the driver lets two such GPUs address each other's memory over PCIe
  // (cudaDeviceCanAccessPeer): NCCL then runs peer-to-peer over PCIe, else it stages through
  // host memory. Peer access over NVLink comes with the link (an nvlink link in the system).
  bool pcie_peer_to_peer = false;
};

struct CpuSpec {
  int cores = 0;
  double clock_ghz = 0;
  double simd_flops_per_cycle = 0;  // per core, FP32 (FMA = 2 flops per lane)
  double dram_bandwidth_gbs = 0;
  double l2_kib_per_core = 0;
  double l3_mib = 0;
  double compute_efficiency = 0;
  double memory_efficiency = 0;
  double op_overhead_us = 0;        // fork/join of one parallel op (calibration, optional)
  // GEMMs with M > 1 first pack the weights into panels (BLAS-style: Eigen) at this rate, then
  // run their kernel over the panels, one after the other on each thread (calibration,
  // optional, measured by calibrate-host). 0: no packing pass; a GEMM streams its weights at
  // the DRAM rate while it computes, as a GEMV does (llama.cpp's kernels).
  double gemm_stream_bandwidth_gbs = 0;
  // Weight rows of at most this many elements are packed whole into one depth panel that stays
  // in L2 until the kernel reads it (Eigen's blocking keeps kc = K there); longer rows are cut
  // into slices whose panels spill to L3. 0: one packing rate for every row length.
  std::int64_t gemm_short_rows_max_k = 0;
  // The packing rate of those short rows (calibration, optional, with the key above).
  double gemm_short_rows_stream_bandwidth_gbs = 0;
  // Attention (QK^T, its softmax, PV: one small product per (sequence, head)) runs at this share
  // of the SIMD peak; 0: compute_efficiency (calibration, optional, measured by calibrate-host
  // on a probe shape outside the golden set).
  double attention_compute_efficiency = 0;
  // Where a head's problem has several query rows (a tree or a chain verified at once), the rows
  // after the first run at this share of the SIMD peak: the first row's products wait on the
  // head's keys and values from memory, the others find them in cache. 0: every row at the
  // attention rate above (calibration, optional, with attention_compute_efficiency; measured by
  // calibrate-host on a 16-row probe beside the one-row one).
  double attention_extra_row_compute_efficiency = 0;
  // Beyond those FLOPs, each later row's product with each key costs this much in each of QK^T
  // and PV on its core (the small-product overhead per score: writing it, the loop around a
  // head-sized dot product), so a narrow head's later rows run below the rate above (calibration,
  // optional, with attention_extra_row_compute_efficiency; measured by calibrate-host from 16-row
  // probes of two head sizes). 0: none.
  double attention_extra_row_score_ns = 0;
  int threads = 0;
  double memory_capacity_gib = 0;   // DRAM capacity; 0: not stated (memory fit not checked)
};

struct HardwareSpec {
  std::string name;
  std::string source_file;
  std::string description;
  // The device kind (`kind:`, models/device_kind.hpp): a registered name such as "fpga", "gpu"
  // or "cpu". Its loader fills one parameter block below and its functions give the peaks.
  std::string kind;
  // Whether the target's LM head runs in the verification step on this device. Paper 000's
  // FPGA simulator times decoder layers only (see the board YAMLs for the evidence).
  bool verify_includes_lm_head = true;
  std::optional<FpgaSpec> fpga;
  std::optional<GpuSpec> gpu;
  std::optional<CpuSpec> cpu;
  // The parameter block of a kind that has none of the above (a new kind keeps its own struct
  // here; its loader stores it and its functions std::any_cast it back).
  std::any kind_parameters;
  // The software that runs models on this device (host overheads, runtime memory). "bare"
  // unless a system placement or --stack names one; engines that model host costs read it.
  SoftwareStack stack;
  // The host CPU that runs the stack's host work (models/host_spec.hpp): the reference host
  // unless a system's device entry or --host names another. Its factor scales every host figure
  // of whichever stack the device runs (its own, a baseline's or a method's).
  HostSpec host;

  // The registered kind's answers (models/device_kind.hpp).
  double peak_flops() const;           // dense 16-bit (FPGA, GPU) or FP32 SIMD (CPU) FLOP/s
  double peak_bandwidth_bytes() const; // bytes/s
  double memory_capacity_bytes() const; // device memory; 0 when the config does not state it
  bool pcie_peer_to_peer() const;      // peer memory access between two such devices over PCIe
  // The kind's capabilities (models::DeviceKind has what each means).
  bool concurrent_streams() const;
  bool runs_gpu_serving_stacks() const;
  bool host_processor() const;
  std::string default_stack() const;
  bool charges_software_stack() const;
};

HardwareSpec load_hardware(const std::string& path);
// The same from a document in memory (source_file: the reader's file name).
HardwareSpec load_hardware(const YamlReader& config);

}  // namespace models
