#include "sim/golden/hf_overlap_golden.hpp"

#include <fmt/format.h>

#include <cmath>

#include "models/config_error.hpp"
#include "models/latency_engine.hpp"
#include "sim/golden/gpu_generate_golden.hpp"
#include "sim/golden/measured_csv.hpp"

namespace sim {

namespace {

constexpr const char* kOverlapHeader =
    "model,width,layers,hidden,batch,context,new_tokens,kernels_per_token,device_busy_per_token_s,"
    "sync_wait_per_token_s,per_token_s";
// The harness's narrow width (cuda/hf_host_device_overlap.py): small enough that every kernel is
// a few microseconds of GPU time, far below the host's launch cost.
constexpr int kNarrowHidden = 256;

}  // namespace

models::ModelSpec narrow_probe_model(int layers) {
  models::ModelSpec m;
  m.name = fmt::format("narrow-{}l", layers);
  m.source_file = "cuda/hf_host_device_overlap.py (narrow)";
  m.layers = layers;
  m.hidden_size = kNarrowHidden;
  m.intermediate_size = 2 * kNarrowHidden;
  m.attention_heads = 4;
  m.kv_heads = 1;
  m.head_dim = 64;
  m.vocab_size = 128256;  // Llama-3's, as the 8B's and the 1B's: the same logits work per token
  m.tied_embeddings = false;
  return m;
}

bool is_overlap_csv(const std::string& csv_path) { return measured_header_starts(csv_path, "model,width,layers"); }

std::vector<OverlapGoldenRow> compare_gpu_host_device_overlap(const std::string& csv_path,
                                                              const models::HardwareSpec& gpu,
                                                              const models::SoftwareStack& stack,
                                                              const models::ConfigRegistry& registry) {
  const GenerateTokenTimer timer(gpu, stack);
  std::vector<OverlapGoldenRow> rows;
  for_each_measured_record(csv_path, kOverlapHeader, [&](const std::vector<std::string>& f, const std::string& text, int line_no) {
    if (f.size() != 11)
      throw models::InputError(fmt::format("{}:{}: expected {}, got '{}'", csv_path, line_no, kOverlapHeader, text));
    if (f[10] == "oom" || f[10] == "error") return;
    if (f[1] != "narrow" && f[1] != "wide")
      throw models::InputError(fmt::format("{}:{}: width: expected narrow or wide, got '{}'", csv_path, line_no, f[1]));
    OverlapGoldenRow row;
    int hidden = 0;
    try {
      row.model = f[0];
      row.narrow = f[1] == "narrow";
      row.layers = std::stoi(f[2]);
      hidden = std::stoi(f[3]);
      row.batch = std::stoi(f[4]);
      row.context = std::stoll(f[5]);
      row.new_tokens = std::stoi(f[6]);
      row.measured_kernels = std::stod(f[7]);
      row.measured_busy_s = f[8] == "nan" ? -1 : std::stod(f[8]);
      row.measured_s = std::stod(f[10]);
    } catch (const std::exception&) {
      throw models::InputError(fmt::format("{}:{}: expected numbers in layers, hidden, batch, context, new_tokens, "
                                           "kernels_per_token, device_busy_per_token_s, per_token_s, got '{}'",
                                           csv_path, line_no, text));
    }
    if (row.layers < 1 || row.batch < 1 || row.context < 0 || row.new_tokens < 1 || !(row.measured_s > 0) ||
        !std::isfinite(row.measured_s))
      throw models::InputError(fmt::format("{}:{}: expected layers, batch, new_tokens >= 1, context >= 0 and "
                                           "per_token_s > 0, got '{}'", csv_path, line_no, text));
    models::Workload w;
    if (row.narrow) {
      if (hidden != kNarrowHidden)
        throw models::InputError(fmt::format("{}:{}: hidden: a narrow row is the harness's hidden size {}, got {}",
                                             csv_path, line_no, kNarrowHidden, hidden));
      w.target = narrow_probe_model(row.layers);
    } else {
      w.target = measured_row_model(registry, row.model, csv_path, line_no);
      if (w.target.layers != row.layers || w.target.hidden_size != hidden)
        throw models::InputError(fmt::format("{}:{}: model '{}' has {} layers of width {}, the row {} of {}", csv_path,
                                             line_no, row.model, w.target.layers, w.target.hidden_size, row.layers,
                                             hidden));
    }
    w.batch = row.batch;
    const StackStepRun run = timer.token(w, row.context, row.new_tokens);
    row.model_kernels = run.kernels;
    row.predicted_s = run.seconds;
    row.predicted_busy_s = run.device_busy_s;
    rows.push_back(row);
  });
  return rows;
}

const OverlapGoldenRow* narrow_twin(const std::vector<OverlapGoldenRow>& rows, const OverlapGoldenRow& wide) {
  if (wide.narrow || wide.measured_busy_s < 0) return nullptr;
  for (const auto& narrow : rows)
    if (narrow.narrow && narrow.layers == wide.layers && narrow.batch == wide.batch && narrow.context == wide.context)
      return &narrow;
  return nullptr;
}

std::vector<OverlapPair> overlap_pairs(const std::vector<OverlapGoldenRow>& rows) {
  std::vector<OverlapPair> pairs;
  for (const auto& wide : rows)
    if (const OverlapGoldenRow* narrow = narrow_twin(rows, wide)) pairs.push_back({wide, *narrow});
  return pairs;
}

}  // namespace sim
