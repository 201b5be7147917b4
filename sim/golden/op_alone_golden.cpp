#include "sim/golden/op_alone_golden.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <limits>
#include <numeric>

#include "models/config_error.hpp"
#include "sim/golden/golden_suite.hpp"
#include "sim/golden/measured_csv.hpp"
#include "sim/gpu/gpu_kernel_model.hpp"
#include "sim/system/collectives.hpp"
#include "sim/system/timeline.hpp"

namespace sim {

namespace {

constexpr const char* kOpAloneHeader = "set,op,kind,m,n,k,batch,count,measured_s";
constexpr double kFp16Bytes = 2.0;

// The harness class of a kind: what one call costs beyond its kernels depends on the Python path
// (a matmul, an eager reduction, a torch.compile'd function), so each is measured apart.
std::string harness_class(const std::string& kind) { return kind == "gemm" || kind == "bmm" ? "matmul" : kind; }

// The kernels of one call. Element-wise and row-wise ops are one memory-bound kernel each that
// reads and writes the tensor; their CUDA-core work (per element: softmax max, exp, sum, scale;
// layernorm mean, variance, normalise; tanh-GELU's polynomial and tanh) is far below the bytes' time.
std::vector<GpuKernel> op_kernels(const GpuKernelModel& model, const OpAloneGoldenRow& r) {
  const double elements = double(r.m) * double(r.n);
  if (r.kind == "gemm") {
    const auto op = golden_gemm_op(r.m, r.n, r.k, kFp16Bytes);
    return {model.gemm_kernel(op.name, op.m, op.n, op.k, 1, op.weight_bytes + op.activation_bytes, kFp16Bytes)};
  }
  if (r.kind == "bmm") {
    // Both operands are activations: each of the batch problems reads m x k and k x n and writes m x n.
    const double bytes = double(r.batch) * kFp16Bytes * (double(r.m) * r.k + double(r.k) * r.n + double(r.m) * r.n);
    return {model.gemm_kernel("bmm", r.m, r.n, r.k, r.batch, bytes, kFp16Bytes)};
  }
  if (r.kind == "softmax") return {model.memory_kernel("softmax", 2 * kFp16Bytes * elements, 5 * elements)};
  if (r.kind == "layernorm") return {model.memory_kernel("layernorm", 2 * kFp16Bytes * elements, 7 * elements)};
  return {model.memory_kernel("gelu", 2 * kFp16Bytes * elements, 10 * elements)};  // gelu
}

OpAloneGoldenRow parse_row(const std::vector<std::string>& f, const std::string& text, const std::string& path,
                           int line_no) {
  OpAloneGoldenRow r;
  try {
    if (f.size() != 9) throw std::invalid_argument("fields");
    r.set = f[0];
    r.op = f[1];
    r.kind = f[2];
    r.m = std::stoll(f[3]);
    r.n = std::stoll(f[4]);
    r.k = std::stoll(f[5]);
    r.batch = std::stoll(f[6]);
    r.count = std::stoi(f[7]);
    r.measured_s = std::stod(f[8]);
  } catch (const std::exception&) {
    throw models::InputError(fmt::format("{}:{}: expected {} with numbers in m, n, k, batch, count, measured_s, got '{}'",
                                         path, line_no, kOpAloneHeader, text));
  }
  static const std::vector<std::string> kinds = {"gemm", "bmm", "softmax", "layernorm", "gelu", "allreduce"};
  if (std::find(kinds.begin(), kinds.end(), r.kind) == kinds.end())
    throw models::InputError(fmt::format("{}:{}: kind: expected gemm, bmm, softmax, layernorm, gelu or allreduce, got '{}'",
                                         path, line_no, r.kind));
  // Shapes are bounded by what one GPU call can hold (2^40 elements is 2 TiB of fp16).
  constexpr long long kMaxDim = 1LL << 40;
  const bool uses_k = r.kind == "gemm" || r.kind == "bmm" || r.kind == "allreduce";
  if (r.set.empty() || r.m < 1 || r.n < 1 || r.m > kMaxDim || r.n > kMaxDim || r.batch < 1 || r.batch > kMaxDim ||
      (uses_k && (r.k < 1 || r.k > kMaxDim)) || r.count < 1 || !(r.measured_s > 0) || !std::isfinite(r.measured_s))
    throw models::InputError(fmt::format(
        "{}:{}: expected a set name, m, n, batch, count >= 1 (k >= 1 for gemm, bmm and allreduce), shapes below 2^40 "
        "and measured_s > 0, got '{}'", path, line_no, text));
  if (r.kind == "allreduce" && r.k < 2)
    throw models::InputError(fmt::format("{}:{}: k: an allreduce needs k >= 2 ranks, got {}", path, line_no, r.k));
  return r;
}

}  // namespace

bool is_op_alone_csv(const std::string& csv_path) { return measured_header_starts(csv_path, "set,op,kind"); }

OpAloneGolden compare_ops_timed_alone(const std::string& csv_path, const models::HardwareSpec& gpu,
                                      const models::SystemSpec* system) {
  if (!gpu.gpu) throw models::InputError(fmt::format("--hw: '{}' is not a GPU; --measured compares GPU operators", gpu.name));
  const GpuKernelModel model(*gpu.gpu);
  OpAloneGolden out;
  for_each_measured_record(csv_path, kOpAloneHeader, [&](const std::vector<std::string>& f, const std::string& text, int line_no) {
    OpAloneGoldenRow r = parse_row(f, text, csv_path, line_no);
    if (r.kind == "allreduce") {
      if (!system) {
        ++out.skipped_all_reduces;
        return;
      }
      if (r.k > std::int64_t(system->devices.size()))
        throw models::InputError(fmt::format("{}:{}: k: {} ranks, but system '{}' has {} devices", csv_path, line_no, r.k,
                                             system->name, system->devices.size()));
      std::vector<int> ranks(std::size_t(r.k));
      std::iota(ranks.begin(), ranks.end(), 0);
      r.kernel_s = all_reduce_seconds(*system, ranks, kFp16Bytes * double(r.m) * double(r.n));
    } else {
      r.kernel_s = model.seconds(op_kernels(model, r));
    }
    out.rows.push_back(r);
  });
  if (out.rows.empty()) throw models::InputError(fmt::format("{}: no operator rows to compare", csv_path));

  // Harness per class: the calibration op with the shortest modelled kernels (its time is almost
  // all harness), measured per call less those kernels; never negative.
  std::map<std::string, std::size_t> shortest;
  for (std::size_t i = 0; i < out.rows.size(); ++i) {
    const auto& r = out.rows[i];
    if (r.set != "alone" || r.kind == "allreduce") continue;
    const auto c = harness_class(r.kind);
    const auto it = shortest.find(c);
    if (it == shortest.end() || r.kernel_s < out.rows[it->second].kernel_s) shortest[c] = i;
  }
  for (const auto& [c, i] : shortest) {
    auto& r = out.rows[i];
    r.calibration = true;
    out.harness[c] = {std::max(0.0, r.measured_s / r.count - r.kernel_s), r.op};
  }
  for (auto& r : out.rows) {
    if (r.kind != "allreduce") {
      const auto it = out.harness.find(harness_class(r.kind));
      r.harness_s = it == out.harness.end() ? 0.0 : it->second.seconds_per_call;
    }
    r.predicted_s = r.count * (r.kernel_s + r.harness_s);
  }
  return out;
}

SetTotal OpAloneGolden::set_total(const std::string& set, bool with_all_reduce) const {
  SetTotal total;
  for (const auto& r : rows)
    if (r.set == set && (with_all_reduce || r.kind != "allreduce")) {
      ++total.rows;
      total.measured_s += r.measured_s;
      total.predicted_s += r.predicted_s;
    }
  return total;
}

}  // namespace sim
