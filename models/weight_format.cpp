#include "models/weight_format.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cctype>

#include "models/closest_name.hpp"
#include "models/config_error.hpp"

namespace models {

namespace {

// Dequantisation costs count AVX-512 instructions per 16 weights (= lane-operations per
// weight) of a dequantise-to-fp32 kernel: unpack the packed bits, widen to 32-bit lanes, convert
// to fp32, apply the block scale (and min / offset) with one FMA. They are estimates from the
// instruction sequences, not measurements; the integer-dot kernels llama.cpp also has
// (activations quantised to 8 bits) need fewer, so for quantised formats these are upper bounds.
//
// Unpacking 4-bit nibbles: one AND for the low nibbles and a shift + AND for the high ones per
// 32 weights (16 bytes) = 1.5 per 16 weights.
constexpr double kNibbleUnpack = 1.5;
constexpr double kWiden = 1;     // vpmovsxbd / vpmovzxbd: bytes to 32-bit lanes
constexpr double kConvert = 1;   // vcvtdq2ps: int32 to fp32
constexpr double kScale = 1;     // vfmadd / vmulps: block scale (and min or offset folded in)
// A fifth / sixth bit from the high-bit plane: shift, AND, OR per 16 weights.
constexpr double kHighBits = 3;
// K-quants' 6-bit sub-block scales and mins (12 bytes per 256 weights) are decoded once per 32
// weights: about 8 instructions per 32 weights, 0.25 per weight.
constexpr double kSubBlockScales = 0.25;

constexpr double kQ4kCost = kNibbleUnpack + kWiden + kConvert + kScale + kSubBlockScales;  // 4.75
constexpr double kQ5kCost = kQ4kCost + kHighBits;                                           // 7.75
constexpr double kQ6kCost = kNibbleUnpack + kHighBits + kWiden + kConvert + kScale;          // 7.5

// Stored bits of the k-quant blocks (ggml-quants.h, 256 weights per super-block):
// block_q4_K = 2 fp16 (d, dmin) + 12 B scales + 128 B nibbles = 144 B -> 4.5 bits;
// block_q5_K = block_q4_K + 32 B high bits = 176 B -> 5.5 bits;
// block_q6_K = 128 B low nibbles + 64 B high bits + 16 int8 scales + fp16 d = 210 B -> 6.5625.
constexpr double kQ4kBits = 144.0 * 8 / 256;
constexpr double kQ5kBits = 176.0 * 8 / 256;
constexpr double kQ6kBits = 210.0 * 8 / 256;

// The _M mixes keep some tensors (half of attn_v / ffn_down, and the output matrix) in Q6_K and
// the rest in the base k-quant. The Q6_K share f follows from the published mix size:
// bits = f * q6k + (1 - f) * base; the dequantisation cost is mixed with the same weights.
constexpr double q6k_share(double mix_bits, double base_bits) {
  return (mix_bits - base_bits) / (kQ6kBits - base_bits);
}
constexpr double mixed_cost(double mix_bits, double base_bits, double base_cost) {
  return q6k_share(mix_bits, base_bits) * kQ6kCost + (1 - q6k_share(mix_bits, base_bits)) * base_cost;
}
// llama.cpp examples/quantize/README.md, "Llama 2 7B" table of bits per weight (BPW):
// Q4_K_M 4.84, Q5_K_M 5.68 (13B: 4.83 / 5.67, 70B: 4.80 / 5.65). Small models whose output
// matrix is a large share of the weights (Llama-68m) are somewhat above these figures.
constexpr double kQ4kmBits = 4.84;
constexpr double kQ5kmBits = 5.68;

}  // namespace

const std::vector<WeightFormat>& weight_formats() {
  static const std::vector<WeightFormat> formats = {
      {"fp32", 32, 0, "IEEE binary32; the FMAs read it directly"},
      {"fp16", 16, 1, "IEEE binary16; one vcvtph2ps per 16 weights"},
      {"bf16", 16, 2, "bfloat16; vpmovzxwd + vpslld 16 per 16 weights"},
      {"q8_0", 8.5, kWiden + kConvert + kScale,
       "ggml block_q8_0: 32 int8 + one fp16 scale per 32 weights = 34 B -> 8.5 bits"},
      {"q4_0", 4.5, kNibbleUnpack + kWiden + kConvert + kScale,
       "ggml block_q4_0: 16 B nibbles + one fp16 scale per 32 weights = 18 B -> 4.5 bits"},
      // GPU formats of paper 004 Table 2's draft FFN (a CPU would decode them like q8_0 / q4_0).
      {"fp8", 8, kWiden + kConvert + kScale, "OCP FP8 E4M3 (H100 tensor cores), one scale per tensor: 8 bits"},
      {"int4", 4.125, kNibbleUnpack + kWiden + kConvert + kScale,
       "W4A16 group-wise INT4 (GPTQ/AWQ layout): 4-bit weights + one 16-bit scale per 128 = 4.125 bits"},
      {"q4_k", kQ4kBits, kQ4kCost, "ggml block_q4_K: 144 B per 256 weights -> 4.5 bits"},
      {"q5_k", kQ5kBits, kQ5kCost, "ggml block_q5_K: 176 B per 256 weights -> 5.5 bits"},
      {"q6_k", kQ6kBits, kQ6kCost, "ggml block_q6_K: 210 B per 256 weights -> 6.5625 bits"},
      {"q4_k_m", kQ4kmBits, mixed_cost(kQ4kmBits, kQ4kBits, kQ4kCost),
       "llama.cpp examples/quantize/README.md, Llama 2 7B: Q4_K_M 4.84 BPW (Q4_K + Q6_K mix)"},
      {"q5_k_m", kQ5kmBits, mixed_cost(kQ5kmBits, kQ5kBits, kQ5kCost),
       "llama.cpp examples/quantize/README.md, Llama 2 7B: Q5_K_M 5.68 BPW (Q5_K + Q6_K mix)"},
  };
  return formats;
}

std::vector<std::string> weight_format_names() {
  std::vector<std::string> names;
  for (const auto& f : weight_formats()) names.push_back(f.name);
  return names;
}

const WeightFormat& weight_format(const std::string& name, const std::string& where) {
  const std::string key = lower_case(name);
  for (const auto& f : weight_formats())
    if (f.name == key) return f;
  throw InputError(fmt::format("{}: unknown weight format '{}'; known formats: {}", where, name,
                               fmt::join(weight_format_names(), ", ")));
}

}  // namespace models
