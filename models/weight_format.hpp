#pragma once
// Named storage formats of a model's weights (fp32, fp16, bf16 and llama.cpp's GGUF quants):
// how many bits one weight takes in memory, block scales included, and what it costs a CPU to
// turn it back into an fp32 SIMD lane before the FMA. Paper 003 runs its Llama-68m draft on a
// 16-core Xeon in GGUF Q5_K_M; a model YAML's optional `weight_format:` key or a registry name
// `MODEL@FORMAT` (e.g. `llama-68m@q5_k_m`) selects one.
#include <string>
#include <vector>

namespace models {

struct WeightFormat {
  std::string name;               // lower case, as written in configs: "q5_k_m"
  double bits_per_weight = 0;     // stored bits per weight including block scales / mins
  // SIMD lane-operations per weight to dequantise it into an fp32 lane (one lane of one vector
  // instruction on the FMA ports; a 16-lane instruction over 16 weights is 1 per weight). The
  // weight is decoded once per op and reused for all tokens of the op (a tiled kernel keeps the
  // decoded block in registers / L1), so the cost scales with the op's weights, not its FLOPs.
  double dequant_ops_per_weight = 0;
  std::string source;             // where bits_per_weight comes from

  double bytes_per_weight() const { return bits_per_weight / 8.0; }
};

// Every known format, in a fixed order.
const std::vector<WeightFormat>& weight_formats();
// The format called `name` (case-insensitive). Unknown names throw InputError naming `where`
// (file and key, or the CLI value), the value and the known formats.
const WeightFormat& weight_format(const std::string& name, const std::string& where);
std::vector<std::string> weight_format_names();

}  // namespace models
