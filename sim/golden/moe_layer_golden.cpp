#include "sim/golden/moe_layer_golden.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <fstream>
#include <map>
#include <regex>

#include "models/config_error.hpp"
#include "models/graph_parts.hpp"
#include "models/input_file.hpp"
#include "sim/golden/measured_csv.hpp"
#include "sim/gpu/gpu_kernel_model.hpp"

namespace sim {

namespace {

constexpr const char* kHeader =
    "date,gpu,torch,model,tokens,routing,component,path,experts_impl,experts_touched,max_tokens_per_expert,median_us";
constexpr int kColumns = 12;  // the header's columns read here (later ones: rounds, bytes, notes)

// The component an op of the model's MoE MLP belongs to (its name, as append_moe_mlp_touching
// writes it), in the measurement's words.
std::string component_of(const std::string& op) {
  if (op == "router") return "router";
  if (op == "router_topk") return "routing";
  if (op == "experts_permute") return "permute";
  if (op == "experts_combine") return "combine";
  if (op.rfind("shared_", 0) == 0) return "shared";
  return "experts";
}

// The Zipf exponent cuda/moe_layer_kernels.py writes into its header ("zipf exponent 1.0").
double header_zipf_exponent(const std::string& csv_path, bool& found) {
  std::ifstream in = models::open_input_file(csv_path, "measured CSV");
  static const std::regex pattern("zipf exponent ([0-9.]+)");
  std::string line;
  std::smatch m;
  while (std::getline(in, line)) {
    if (line.empty() || line[0] != '#') break;
    if (std::regex_search(line, m, pattern)) {
      found = true;
      return std::stod(m[1].str());
    }
  }
  found = false;
  return 0;
}

}  // namespace

bool is_moe_layer_csv(const std::string& csv_path) {
  return measured_header_starts(csv_path, "date,gpu,torch,model,tokens,routing,component,path");
}

MoeLayerGolden compare_moe_layer(const std::string& csv_path, const models::HardwareSpec& gpu,
                                 const std::function<models::ModelSpec(const std::string&)>& model_of) {
  if (!gpu.gpu) throw models::InputError(fmt::format("--hw: '{}' is not a GPU; --measured compares GPU kernels", gpu.name));
  const GpuKernelModel kernel_model(*gpu.gpu);
  MoeLayerGolden out;
  bool exponent_found = false;
  out.zipf_exponent = header_zipf_exponent(csv_path, exponent_found);
  std::map<std::string, models::ModelSpec> models_seen;
  static const std::vector<std::string> components = {"router", "routing", "permute", "experts",
                                                       "combine", "shared", "layer", "weight_read"};
  for_each_measured_record(csv_path, kHeader, [&](const std::vector<std::string>& f, const std::string& text, int line) {
    auto fail = [&](const std::string& field, const std::string& expected) {
      throw models::InputError(fmt::format("{}:{}: {}: expected {}, got '{}'", csv_path, line, field, expected, text));
    };
    if (f.size() < std::size_t(kColumns)) fail("record", fmt::format("at least {} fields ({})", kColumns, kHeader));
    if (f[7] != "graph") return;  // eager rows carry the host's launches: not a device-time comparison
    MoeLayerGoldenRow r;
    r.model = f[3];
    r.routing = f[5];
    r.component = f[6];
    r.experts_impl = f[8];
    try {
      r.tokens = std::stoi(f[4]);
      r.experts_touched = std::stoi(f[9]);
      r.measured_s = std::stod(f[11]) * 1e-6;
    } catch (const std::exception&) {
      fail("tokens, experts_touched, median_us", "numbers");
    }
    if (r.tokens < 1 || r.tokens > (1 << 20)) fail("tokens", "an integer in 1..2^20");
    if (!(r.measured_s > 0) || !std::isfinite(r.measured_s)) fail("median_us", "a time > 0");
    if (r.routing != "uniform" && r.routing != "zipf") fail("routing", "uniform or zipf");
    if (std::find(components.begin(), components.end(), r.component) == components.end())
      fail("component", "router, routing, permute, experts, combine, shared, layer or weight_read");
    if (r.component == "weight_read") return;  // a bandwidth probe, no op of the layer
    if (r.routing == "zipf" && !exponent_found)
      throw models::InputError(fmt::format("{}: zipf rows but no 'zipf exponent S' in the header's comments", csv_path));
    auto it = models_seen.find(r.model);
    if (it == models_seen.end()) it = models_seen.emplace(r.model, model_of(r.model)).first;
    const models::ModelSpec& m = it->second;
    if (!m.is_moe()) fail("model", fmt::format("a MoE model ('{}' has no experts)", r.model));
    if (r.experts_touched < 1 || r.experts_touched > std::min(m.num_experts, r.tokens * m.experts_per_token))
      fail("experts_touched", fmt::format("1..min(num_experts {}, tokens x top-k)", m.num_experts));
    models::ExpertRouting law;
    law.zipf_exponent = r.routing == "zipf" ? out.zipf_exponent : 0.0;
    r.expected_touched = models::expected_distinct_experts(m.num_experts, m.experts_per_token, r.tokens, law);

    std::vector<models::Op> ops;
    models::graph_parts::append_moe_mlp_touching(ops, models::graph_parts::shape_of(m), r.tokens, r.experts_touched);
    std::vector<GpuKernel> kernels;
    for (const auto& op : ops) {
      if (r.component != "layer" && component_of(op.name) != r.component) continue;
      for (auto& k : kernel_model.kernels_for(op, 1)) kernels.push_back(std::move(k));
    }
    r.kernels = int(kernels.size());
    r.predicted_s = kernel_model.seconds(kernels);
    out.rows.push_back(std::move(r));
  });
  if (out.rows.empty()) throw models::InputError(fmt::format("{}: no graph-replay rows to compare", csv_path));
  return out;
}

}  // namespace sim
