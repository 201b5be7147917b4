#include "sim/golden/golden_suite.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <fstream>
#include <limits>
#include <memory>
#include <random>
#include <sstream>

#include "models/config_error.hpp"
#include "sim/cpu/cpu_sim_engine.hpp"
#include "sim/golden/golden_kernels.hpp"
#include "sim/golden/golden_timing.hpp"
#include "sim/gpu/gpu_kernel_model.hpp"

namespace sim {

std::function<void()> before_each_kernel(CacheFlusher* flusher, ThreadTeam& team) {
  return [flusher, &team] {
    if (flusher) flusher->flush();
    team.wake();
  };
}

std::vector<GoldenShape> projection_shapes(const std::vector<models::ModelSpec>& models,
                                           const std::vector<std::int64_t>& tokens) {
  std::vector<GoldenShape> out;
  for (const auto& model : models) {
    const std::int64_t d = model.hidden_size, q = std::int64_t(model.attention_heads) * model.head_dim,
                       kv = std::int64_t(model.kv_heads) * model.head_dim;
    const bool gated = model.mlp == models::MlpKind::gated;
    const std::vector<std::tuple<std::string, std::int64_t, std::int64_t>> layer = {
        {"qkv_proj", q + 2 * kv, d},
        {"o_proj", d, q},
        {gated ? "gate_up_proj" : "fc1", gated ? 2 * model.intermediate_size : model.intermediate_size, d},
        {gated ? "down_proj" : "fc2", d, model.intermediate_size}};
    for (const auto& [name, n, k] : layer)
      for (std::int64_t m : tokens)
        out.push_back({m == 1 ? "gemv" : "gemm", model.name + " " + name, m, n, k, 0, 0});
  }
  return out;
}

std::vector<GoldenShape> attention_shapes(const models::ModelSpec& model, const std::vector<std::int64_t>& contexts,
                                          int tree_tokens) {
  std::vector<GoldenShape> out;
  for (std::int64_t L : contexts) {
    out.push_back({"decode_attention", model.name, 1, L, model.head_dim, model.attention_heads, model.kv_heads});
    out.push_back({"tree_attention", model.name, tree_tokens, L, model.head_dim, model.attention_heads,
                   model.kv_heads});
  }
  return out;
}

models::Op golden_gemm_op(std::int64_t m, std::int64_t n, std::int64_t k, double element_bytes) {
  return models::make_gemm_op(m == 1 ? "gemv" : "gemm", m, n, k, element_bytes, element_bytes);
}

std::vector<models::Op> golden_attention_ops(const GoldenShape& s, double eb) {
  const bool tree = s.kernel.rfind("tree_attention", 0) == 0;
  const std::int64_t x = s.m, cached = s.n, d = s.k, fresh = tree ? x : 0, keys = cached + fresh;
  models::Op qk;
  qk.name = "attn_qk";
  qk.kind = models::OpKind::attention_qk;
  qk.m = x;
  qk.n = keys;
  qk.k = d;
  qk.batch = s.heads;
  qk.kv_heads = s.kv_heads;
  qk.cached_keys = cached;
  qk.new_keys = fresh;
  qk.mask = tree ? models::MaskKind::tree : models::MaskKind::causal;
  qk.flops = 2.0 * s.heads * x * keys * d;
  qk.kv_read_bytes = double(cached) * s.kv_heads * d * eb;
  qk.activation_bytes = double(x) * s.heads * (d + keys) * eb;
  models::Op sm;
  sm.name = "attn_softmax";
  sm.kind = models::OpKind::softmax;
  sm.sfu_elements = double(s.heads) * x * keys;
  sm.sfu_passes = 2;
  sm.flops = 5.0 * sm.sfu_elements;
  sm.activation_bytes = 2.0 * sm.sfu_elements * eb;
  models::Op pv = qk;
  pv.name = "attn_pv";
  pv.kind = models::OpKind::attention_pv;
  pv.n = d;
  pv.k = keys;
  return {qk, sm, pv};
}

namespace {

double predict_cpu(const CpuSimEngine& e, const GoldenShape& s) {
  if (s.kernel == "gemm" || s.kernel == "gemv") return e.op_cost(golden_gemm_op(s.m, s.n, s.k, 4.0)).seconds;
  const std::vector<models::Op> ops = golden_attention_ops(s, 4.0);
  double t = 0;
  for (const auto& op : ops) t += e.op_cost(op).seconds;
  // The model's three ops (QK^T, softmax, PV) each pay a fork/join, as an engine that runs them
  // as separate graph nodes does; the harness runs a head's three in one parallel region
  // (time_attention), as calibrate-host's attention probes do, whose rates are derived with one.
  return t - double(ops.size() - 1) * e.hardware().cpu->op_overhead_us * 1e-6;
}

// Times one attention shape: heads dealt round-robin to the team, each head reading its
// (GQA-shared) KV head.
TimingStats time_attention(const GoldenShape& s, ThreadTeam& team, const CpuGoldenOptions& o,
                           CacheFlusher* flusher, std::mt19937_64& rng) {
  const bool tree = s.kernel == "tree_attention";
  std::vector<RowMatrix> q, kc, vc, kn, vn;
  for (std::int64_t h = 0; h < s.heads; ++h) q.push_back(random_matrix(s.m, s.k, rng));
  for (std::int64_t h = 0; h < s.kv_heads; ++h) {
    kc.push_back(random_matrix(s.n, s.k, rng));
    vc.push_back(random_matrix(s.n, s.k, rng));
    kn.push_back(random_matrix(tree ? s.m : 0, s.k, rng));
    vn.push_back(random_matrix(tree ? s.m : 0, s.k, rng));
  }
  const auto parent = random_tree(int(s.m), rng);
  const std::int64_t group = std::max<std::int64_t>(1, s.heads / s.kv_heads);
  std::vector<RowMatrix> out(s.heads);
  auto kernel = [&] {
    team.run([&](int t) {
      for (std::int64_t h = t; h < s.heads; h += team.size()) {
        const std::int64_t g = h / group;
        out[h] = tree ? tree_attention_split(q[h], kc[g], vc[g], kn[g], vn[g], parent)
                      : attend(q[h], kc[g], vc[g]).out;
      }
    });
  };
  return time_repeated(kernel, o.warmup, o.repeats, before_each_kernel(flusher, team));
}

}  // namespace

std::vector<GoldenRow> time_cpu_golden(const std::vector<GoldenShape>& shapes, const CpuGoldenOptions& o) {
  if (o.rounds < 1) throw models::InputError("--rounds: expected an integer >= 1, got " + std::to_string(o.rounds));
  ThreadTeam team(o.threads);
  std::unique_ptr<CacheFlusher> flusher;
  if (o.flush_bytes > 0) flusher = std::make_unique<CacheFlusher>(o.flush_bytes);
  std::vector<TimingStats> stats(shapes.size());
  for (int round = 0; round < o.rounds; ++round) {
    if (o.before_round) o.before_round(round + 1, team);
    for (std::size_t i = 0; i < shapes.size(); ++i) {
      const GoldenShape& s = shapes[i];
      // The same data in every round: each shape's generator is seeded by its index.
      std::mt19937_64 rng(o.seed + i);
      TimingStats t;
      if (s.kernel == "gemm" || s.kernel == "gemv") {
        const RowMatrix x = random_matrix(s.m, s.k, rng), w = random_matrix(s.n, s.k, rng);
        RowMatrix y(s.m, s.n);
        t = time_repeated([&] { linear(x, w, y, team); }, o.warmup, o.repeats, before_each_kernel(flusher.get(), team));
      } else {
        t = time_attention(s, team, o, flusher.get(), rng);
      }
      stats[i].merge(t);
    }
    if (o.on_round_done) o.on_round_done(round + 1, o.rounds);
  }
  std::vector<GoldenRow> rows;
  for (std::size_t i = 0; i < shapes.size(); ++i) {
    GoldenRow row;
    row.shape = shapes[i];
    row.measured_s = stats[i].min_s;
    row.measured_median_s = stats[i].median_s;
    rows.push_back(row);
  }
  return rows;
}

namespace {

void predict_rows(const CpuSimEngine& engine, std::vector<GoldenRow>& rows) {
  for (GoldenRow& row : rows) row.predicted_s = predict_cpu(engine, row.shape);
}

}  // namespace

void predict_cpu_golden(std::vector<GoldenRow>& rows, const models::HardwareSpec& cpu) {
  predict_rows(CpuSimEngine(cpu, SimMode::event_driven), rows);
}

std::vector<GoldenRow> run_cpu_golden(const std::vector<GoldenShape>& shapes, const models::HardwareSpec& cpu,
                                      const CpuGoldenOptions& o) {
  const CpuSimEngine engine(cpu, SimMode::event_driven);  // a config the engine refuses fails before the timing
  std::vector<GoldenRow> rows = time_cpu_golden(shapes, o);
  predict_rows(engine, rows);
  return rows;
}

double median_abs(std::vector<double> values) {
  if (values.empty()) return std::numeric_limits<double>::quiet_NaN();
  for (double& v : values) v = std::abs(v);
  std::sort(values.begin(), values.end());
  const std::size_t n = values.size();
  return n % 2 ? values[n / 2] : 0.5 * (values[n / 2 - 1] + values[n / 2]);
}

double median_abs_error_pct(const std::vector<GoldenRow>& rows, const std::vector<std::string>& kernels) {
  std::vector<double> e;
  for (const auto& r : rows)
    if (std::find(kernels.begin(), kernels.end(), r.shape.kernel) != kernels.end()) e.push_back(r.error_pct());
  return median_abs(std::move(e));
}

}  // namespace sim
