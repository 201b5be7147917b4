#include "sim/golden/golden_host_calibration.hpp"

#include <fmt/format.h>
#include <unistd.h>

#include <algorithm>
#include <cmath>
#include <fstream>
#include <functional>
#include <optional>
#include <random>
#include <sstream>
#include <stdexcept>
#include <thread>

#include "models/config_error.hpp"
#include "models/yaml_text.hpp"
#include "sim/golden/golden_kernels.hpp"
#include "sim/golden/golden_suite.hpp"
#include "sim/golden/golden_timing.hpp"

namespace sim {

namespace {

// Reads a cache size like "1024K" or "32M" from sysfs; 0 when absent.
double sysfs_cache_kib(int level) {
  for (int index = 0; index < 8; ++index) {
    const std::string base = fmt::format("/sys/devices/system/cpu/cpu0/cache/index{}/", index);
    std::ifstream lv(base + "level"), sz(base + "size"), ty(base + "type");
    int l = 0;
    std::string size, type;
    if (!(lv >> l) || !(sz >> size)) continue;
    ty >> type;
    if (l != level || type == "Instruction") continue;
    double v = std::stod(size);
    if (size.back() == 'M') v *= 1024;
    return v;
  }
  return 0;
}

double proc_cpuinfo_mhz(std::string& model) {
  std::ifstream in("/proc/cpuinfo");
  std::string line;
  double mhz = 0;
  while (std::getline(in, line)) {
    const auto colon = line.find(':');
    if (colon == std::string::npos) continue;
    const std::string key = line.substr(0, line.find_last_not_of(" \t", colon - 1) + 1);
    const std::string value = line.substr(colon + 1 + (colon + 1 < line.size() && line[colon + 1] == ' '));
    if (key == "cpu MHz") mhz = std::max(mhz, std::stod(value));
    if (key == "model name" && model.empty()) model = value;
  }
  return mhz;
}

}  // namespace

int host_core_count() { return std::max(1u, std::thread::hardware_concurrency()); }

std::size_t host_cache_flush_bytes() {
  const double kib = sysfs_cache_kib(2) * host_core_count() + sysfs_cache_kib(3);
  // Twice the caches (at least 64 MiB when sysfs says nothing) evicts them in practice.
  return std::size_t(std::max(2.0 * kib * 1024, 64.0 * 1024 * 1024));
}

namespace {

// The GEMM probes (linear() over n x k weights with m rows), outside the golden shape set.
struct GemmProbe {
  std::int64_t m, n, k;
  double weight_bytes() const { return double(n) * double(k) * sizeof(float); }
  double flops() const { return 2.0 * double(m) * double(n) * double(k); }
};
constexpr GemmProbe kStreamProbe{1, 8192, 4096};   // a 128 MiB GEMV: the streaming bandwidth
constexpr GemmProbe kPackProbe{2, 8192, 4096};     // 2 rows over 128 MiB: mostly packing
constexpr GemmProbe kFlopProbe{192, 2560, 1536};   // compute-bound
// Short rows: 64 MiB of rows of (at most) 512 weights, packed whole where Eigen keeps them so.
GemmProbe short_rows_probe(std::int64_t max_k) {
  const std::int64_t k = std::min<std::int64_t>(512, max_k);
  return {2, (std::int64_t(64) << 20) / (k * std::int64_t(sizeof(float))), k};
}

// The largest row length K (weights) that Eigen's GEMM blocking packs whole into one depth
// panel (kc = K) for this host's caches; beyond it kc < K. 0 where even the shortest row is cut.
std::int64_t eigen_whole_row_max_k() {
  std::int64_t best = 0;
  for (Eigen::Index k = 8; k <= 65536; k += 8) {
    Eigen::Index kc = k, mc = 4096, nc = 16;
    Eigen::internal::computeProductBlockingSizes<float, float, 1>(kc, mc, nc, Eigen::Index(1));
    if (kc != k) break;
    best = k;
  }
  return best;
}

HostCalibration host_figures(int threads) {
  HostCalibration c;
  c.cores = host_core_count();
  c.threads = threads > 0 ? threads : c.cores;
  const double mhz = proc_cpuinfo_mhz(c.cpu_model);
  if (!(mhz > 0)) throw models::InputError("/proc/cpuinfo: cpu MHz: expected a clock > 0, got nothing");
  c.clock_ghz = mhz / 1000.0;
  // Peak of the SIMD code Eigen was compiled to: two vector pipes, each a multiply-add
  // (or a multiply and an add) on every lane per cycle. Efficiency below is relative to it.
  c.simd_flops_per_cycle = 4.0 * Eigen::internal::packet_traits<float>::size;
  c.l2_kib_per_core = sysfs_cache_kib(2);
  c.l3_mib = sysfs_cache_kib(3) / 1024.0;
  if (c.l2_kib_per_core <= 0) c.l2_kib_per_core = 512;  // sysfs silent: a typical size, noted in the YAML
  if (c.l3_mib <= 0) c.l3_mib = 8;
  c.gemm_short_rows_max_k = eigen_whole_row_max_k();
  return c;
}

// The attention probes' FLOPs as the CPU model counts them (the golden's attention ops): a head
// with `rows` query rows over the cache; the products (QK^T and PV) and the softmax apart.
constexpr int kAttentionHeads = 16, kAttentionKvHeads = 4, kAttentionKeys = 1024, kAttentionHeadSize = 128;
// The second probe's query rows per head (a tree of 16 verified at once, as the golden's), and
// the head size of a third probe with as many rows: two head sizes separate a later row's cost
// per score from its FLOPs (CpuSpec::attention_extra_row_score_ns).
constexpr int kAttentionRows = 16, kAttentionNarrowHeadSize = 32;
struct AttentionFlops {
  double products = 0, softmax = 0;
  double total() const { return products + softmax; }
};
AttentionFlops attention_probe_flops(int rows, int head_size = kAttentionHeadSize) {
  GoldenShape probe;
  probe.kernel = "decode_attention";
  probe.m = rows, probe.n = kAttentionKeys, probe.k = head_size, probe.heads = kAttentionHeads,
  probe.kv_heads = kAttentionKvHeads;
  AttentionFlops f;
  for (const models::Op& op : golden_attention_ops(probe, sizeof(float)))
    (op.kind == models::OpKind::softmax ? f.softmax : f.products) += op.flops;
  return f;
}

HostProbeTimes time_probes(const HostCalibration& c, int repeats, ThreadTeam& team) {
  CacheFlusher flusher(host_cache_flush_bytes());
  std::mt19937_64 rng(7);
  const std::function<void()> flush = before_each_kernel(&flusher, team);  // as the golden times its kernels
  HostProbeTimes p;
  auto time_gemm = [&](const GemmProbe& g) {
    const RowMatrix x = random_matrix(g.m, g.k, rng), w = random_matrix(g.n, g.k, rng);
    RowMatrix y;
    return time_repeated([&] { linear(x, w, y, team); }, 1, repeats, flush).min_s;
  };
  p.stream_s = time_gemm(kStreamProbe);
  p.pack_s = time_gemm(kPackProbe);
  p.flop_s = time_gemm(kFlopProbe);
  p.short_rows_s = c.gemm_short_rows_max_k > 0 ? time_gemm(short_rows_probe(c.gemm_short_rows_max_k)) : 0.0;
  // Fork/join cost of one parallel region.
  p.fork_join_s = time_repeated([&] { team.run([](int) {}); }, 10, std::max(50, repeats)).min_s;
  {  // Attention rate: decode attention (one query per head) of 16 heads over 1024 cached keys of
     // head size 128, 4 KV heads, heads dealt to the team as the golden harness deals them. Outside
     // the golden shape set (head size 64). The caches are evicted before each run, as the golden
     // times attention and as a decode step finds a layer's K/V behind the other layers' weights:
     // each head's one-row products then wait on rows fetched one head at a time, so the rate
     // (FLOPs over the time) holds that wait as well as the products' and softmax's compute. On
     // the Xeon VM: 12.5-12.9 GFLOP/s cold, 16.8-19.8 with the keys in cache (docs/cpu-model.md).
    std::vector<RowMatrix> q, q_rows, q_narrow, k, v, k_narrow, v_narrow, out(kAttentionHeads);
    for (int h = 0; h < kAttentionHeads; ++h) q.push_back(random_matrix(1, kAttentionHeadSize, rng));
    for (int h = 0; h < kAttentionHeads; ++h) q_rows.push_back(random_matrix(kAttentionRows, kAttentionHeadSize, rng));
    for (int h = 0; h < kAttentionHeads; ++h)
      q_narrow.push_back(random_matrix(kAttentionRows, kAttentionNarrowHeadSize, rng));
    for (int g = 0; g < kAttentionKvHeads; ++g) {
      k.push_back(random_matrix(kAttentionKeys, kAttentionHeadSize, rng));
      v.push_back(random_matrix(kAttentionKeys, kAttentionHeadSize, rng));
      k_narrow.push_back(random_matrix(kAttentionKeys, kAttentionNarrowHeadSize, rng));
      v_narrow.push_back(random_matrix(kAttentionKeys, kAttentionNarrowHeadSize, rng));
    }
    constexpr int kGroup = kAttentionHeads / kAttentionKvHeads;
    // The caller's vectors, which outlive the kernel, held by pointer.
    const auto kernel_of = [&](const std::vector<RowMatrix>& queries, const std::vector<RowMatrix>& keys,
                               const std::vector<RowMatrix>& values) {
      const std::vector<RowMatrix>*qs = &queries, *ks = &keys, *vs = &values;
      return [&, qs, ks, vs] {
        team.run([&](int t) {
          for (int h = t; h < kAttentionHeads; h += team.size())
            out[std::size_t(h)] = attend((*qs)[std::size_t(h)], (*ks)[std::size_t(h / kGroup)],
                                         (*vs)[std::size_t(h / kGroup)])
                                      .out;
        });
      };
    };
    // The same heads with 16 query rows each (mask-free, over the same cache): the rows after a
    // head's first read its keys and values from cache (CpuSpec::attention_extra_row_compute_efficiency);
    // and 16 rows of a narrow head (32), whose later rows do a quarter of the FLOPs per score.
    p.attention_rows_s = time_repeated(kernel_of(q_rows, k, v), 1, repeats, flush).min_s;
    p.attention_narrow_rows_s = time_repeated(kernel_of(q_narrow, k_narrow, v_narrow), 1, repeats, flush).min_s;
    p.attention_s = time_repeated(kernel_of(q, k, v), 1, repeats, flush).min_s;
  }
  return p;
}

// The rates the CPU model needs from the probes' times. Each probe pays one fork/join. The
// packing and FLOP probes each run both phases of a packed GEMM (pack, then compute), so their
// two equations are solved together for the packing rate and the FLOP rate:
//   t - fork/join = weight_bytes / packing rate + flops / FLOP rate.
void derive_rates(HostCalibration& c, const HostProbeTimes& p) {
  const double fj = p.fork_join_s;
  c.op_overhead_us = fj * 1e6;
  c.bandwidth_gbs = kStreamProbe.weight_bytes() / std::max(1e-9, p.stream_s - fj) / 1e9;
  const double a1 = kFlopProbe.weight_bytes(), b1 = kFlopProbe.flops(), t1 = p.flop_s - fj;
  const double a2 = kPackProbe.weight_bytes(), b2 = kPackProbe.flops(), t2 = p.pack_s - fj;
  const double det = a1 * b2 - a2 * b1;
  const double s_per_byte = (t1 * b2 - t2 * b1) / det, s_per_flop = (a1 * t2 - a2 * t1) / det;
  if (!(s_per_byte > 0) || !(s_per_flop > 0))
    throw std::runtime_error(fmt::format(
        "calibrate-host: the GEMM probes' times ({:.3f} ms for {}x{}x{}, {:.3f} ms for {}x{}x{}) do not separate "
        "into a packing and a FLOP rate (the machine was busy?); run it again",
        p.flop_s * 1e3, kFlopProbe.m, kFlopProbe.n, kFlopProbe.k, p.pack_s * 1e3, kPackProbe.m, kPackProbe.n,
        kPackProbe.k));
  c.gemm_stream_gbs = 1.0 / s_per_byte / 1e9;
  c.gemm_gflops = 1.0 / s_per_flop / 1e9;
  c.compute_efficiency = c.gemm_gflops / (c.threads * c.simd_flops_per_cycle * c.clock_ghz);
  if (c.compute_efficiency > 1.0) {
    // Faster than the nominal SIMD peak at the reported clock (turbo, or wider vectors than the
    // packet size says): take the measured rate per core-cycle as the peak instead.
    c.simd_flops_per_cycle = c.gemm_gflops / (c.threads * c.clock_ghz);
    c.compute_efficiency = 1.0;
  }
  if (c.gemm_short_rows_max_k > 0) {
    const GemmProbe g = short_rows_probe(c.gemm_short_rows_max_k);
    const double pack_s = p.short_rows_s - fj - g.flops() * s_per_flop;
    // A probe no slower than its compute leaves no packing time to measure: one rate then.
    if (pack_s > 0)
      c.gemm_short_rows_stream_gbs = g.weight_bytes() / pack_s / 1e9;
    else
      c.gemm_short_rows_max_k = 0;
  }
  const AttentionFlops one_row = attention_probe_flops(1), rows = attention_probe_flops(kAttentionRows);
  const double first_row_s = std::max(1e-9, p.attention_s - fj);
  c.attention_gflops = one_row.total() / first_row_s / 1e9;
  const double peak_gflops = c.threads * c.simd_flops_per_cycle * c.clock_ghz;
  c.attention_compute_efficiency = std::min(1.0, c.attention_gflops / peak_gflops);
  // The 16-row probe as the model costs it: each head's first row of products and all its
  // softmax at the one-row rate, the other rows' products at theirs (the time left over).
  auto extra_time = [&](double probe_s, const AttentionFlops& f) {
    return (probe_s - fj) - (f.products / kAttentionRows + f.softmax) / (c.attention_gflops * 1e9);
  };
  const AttentionFlops narrow = attention_probe_flops(kAttentionRows, kAttentionNarrowHeadSize);
  const double extra_s = extra_time(p.attention_rows_s, rows), narrow_extra_s = extra_time(p.attention_narrow_rows_s, narrow);
  const double later = 1.0 - 1.0 / kAttentionRows;  // the later rows' share of a probe's products
  if (extra_s > 0) {
    // The two head sizes' later rows: extra time = scores x cost per score + FLOPs / rate, with
    // the scores (rows after the first x keys, in QK^T and in PV, on the busiest core's heads)
    // the same in both and the FLOPs in proportion to the head size. One probe (the FLOPs' rate
    // alone) where the two do not separate into positive figures.
    const double busiest_core_heads = std::ceil(double(kAttentionHeads) / c.threads);
    const double scores = busiest_core_heads * 2.0 * (kAttentionRows - 1) * kAttentionKeys;
    const double rate = later * (rows.products - narrow.products) / (extra_s - narrow_extra_s);
    const double per_score_s = (narrow_extra_s - later * narrow.products / rate) / scores;
    if (std::isfinite(rate) && rate > 0 && per_score_s > 0) {
      c.attention_extra_row_gflops = rate / 1e9;
      c.attention_extra_row_score_ns = per_score_s * 1e9;
    } else {
      c.attention_extra_row_gflops = later * rows.products / extra_s / 1e9;
      c.attention_extra_row_score_ns = 0;
    }
    c.attention_extra_row_compute_efficiency = std::min(1.0, c.attention_extra_row_gflops / peak_gflops);
  }
}

}  // namespace

void HostProbeTimes::keep_fastest(const HostProbeTimes& o) {
  stream_s = std::min(stream_s, o.stream_s);
  pack_s = std::min(pack_s, o.pack_s);
  flop_s = std::min(flop_s, o.flop_s);
  short_rows_s = std::min(short_rows_s, o.short_rows_s);
  attention_s = std::min(attention_s, o.attention_s);
  attention_rows_s = std::min(attention_rows_s, o.attention_rows_s);
  attention_narrow_rows_s = std::min(attention_narrow_rows_s, o.attention_narrow_rows_s);
  fork_join_s = std::min(fork_join_s, o.fork_join_s);
}

HostCalibrator::HostCalibrator(int threads, int repeats) : host_(host_figures(threads)), repeats_(repeats) {}

void HostCalibrator::time_round(ThreadTeam* team) {
  if (team && team->size() != host_.threads)
    throw std::logic_error(fmt::format("HostCalibrator::time_round: a team of {} threads for a calibration of {}",
                                       team->size(), host_.threads));
  std::optional<ThreadTeam> own;
  if (!team) team = &own.emplace(host_.threads);
  const HostProbeTimes round = time_probes(host_, repeats_, *team);
  if (rounds_ == 0)
    fastest_ = round;
  else
    fastest_.keep_fastest(round);
  ++rounds_;
}

HostCalibration derive_host_figures(HostCalibration host, const HostProbeTimes& fastest) {
  derive_rates(host, fastest);
  return host;
}

HostCalibration HostCalibrator::result() const {
  if (rounds_ == 0) throw std::logic_error("HostCalibrator::result: no round of the probes timed yet");
  return derive_host_figures(host_, fastest_);
}

HostCalibration calibrate_host(int threads, int repeats, int rounds) {
  HostCalibrator calibrator(threads, repeats);
  for (int r = 0; r < std::max(1, rounds); ++r) calibrator.time_round();
  return calibrator.result();
}

std::string HostCalibration::summary() const {
  const std::string short_rows =
      gemm_short_rows_max_k > 0 ? fmt::format(" ({:.2f} GB/s for rows of <= {} weights)", gemm_short_rows_stream_gbs,
                                              gemm_short_rows_max_k)
                                : std::string();
  return fmt::format("{} cores, {} threads, {:.3f} GHz, {:.2f} GB/s streaming, {:.2f} GB/s GEMM packing{}, {:.2f} GFLOP/s "
                     "(compute_efficiency {:.3f}), attention {:.2f} GFLOP/s ({:.3f}){}, fork/join {:.2f} us",
                     cores, threads, clock_ghz, bandwidth_gbs, gemm_stream_gbs, short_rows, gemm_gflops,
                     compute_efficiency, attention_gflops, attention_compute_efficiency,
                     attention_extra_row_compute_efficiency > 0
                         ? fmt::format(" ({:.2f} GFLOP/s ({:.3f}) in a head's later query rows{}",
                                       attention_extra_row_gflops, attention_extra_row_compute_efficiency,
                                       attention_extra_row_score_ns > 0
                                           ? fmt::format(", {:.2f} ns per score", attention_extra_row_score_ns)
                                           : std::string()) +
                               ")"
                         : std::string(),
                     op_overhead_us);
}

std::string HostCalibration::to_yaml(const std::string& name) const {
  std::ostringstream y;
  y << "# Host CPU calibrated by `specdse calibrate-host` (" << cpu_model << ").\n"
    << "# cores, clock and caches from the OS; bandwidth, FLOP rate and fork/join cost measured\n"
    << "# with the golden kernels (FP32 Eigen GEMV 8192x4096, GEMMs 2x8192x4096, 192x2560x1536 and 2 rows over\n"
    << "# 64 MiB of short rows, decode attention with 1 and 16 query rows per head, 16 rows at head size 32),\n"
    << "# minimum times.\n"
    << "name: " << models::yaml_quoted(name) << "\n"
    << "kind: cpu\n"
    << "description: " << models::yaml_quoted(cpu_model + " (calibrated host)") << "\n"
    << fmt::format("cores: {}\n", cores)
    << fmt::format("threads: {}\n", threads)
    << fmt::format("clock_ghz: {:.4f}\n", clock_ghz)
    << fmt::format("simd_flops_per_cycle: {:.3f}   # 2 pipes x FP32 lanes x multiply-add as compiled, or the\n"
                   "                              # measured rate per core-cycle where that is higher (turbo)\n",
                   simd_flops_per_cycle)
    << fmt::format("l2_kib_per_core: {}\n", l2_kib_per_core)
    << fmt::format("l3_mib: {}\n", l3_mib)
    << "memory:\n"
    << fmt::format("  bandwidth_gbs: {:.3f}          # measured GEMV stream rate, not the DIMM peak\n", bandwidth_gbs)
    << "calibration:\n"
    << fmt::format("  compute_efficiency: {:.4f}     # measured {:.2f} GFLOP/s on {} threads\n",
                   compute_efficiency, gemm_gflops, threads)
    << "  memory_efficiency: 1.0         # the bandwidth above is already the achieved rate\n"
    << fmt::format("  gemm_stream_bandwidth_gbs: {:.3f}   # packing rate, solved with the FLOP rate from the 2-row GEMM\n"
                   "                                    # over 8192x4096 weights and the 192x2560x1536 GEMM\n",
                   gemm_stream_gbs);
  if (gemm_short_rows_max_k > 0)
    y << fmt::format("  gemm_short_rows_max_k: {}       # Eigen's blocking packs rows of up to this many weights whole\n",
                     gemm_short_rows_max_k)
      << fmt::format("  gemm_short_rows_stream_bandwidth_gbs: {:.3f}   # their packing rate: 2-row GEMM over {}x{} weights\n",
                     gemm_short_rows_stream_gbs, short_rows_probe(gemm_short_rows_max_k).n,
                     short_rows_probe(gemm_short_rows_max_k).k);
  y
    << fmt::format("  op_overhead_us: {:.3f}          # empty fork/join of the thread team\n", op_overhead_us)
    << fmt::format("  attention_compute_efficiency: {:.4f}   # measured {:.2f} GFLOP/s: decode attention, 16 heads x "
                   "1024 keys x 128, caches evicted\n",
                   // A config field in (0, 1]: a rate too small to print still states one.
                   std::max(1e-4, attention_compute_efficiency), attention_gflops);
  if (attention_extra_row_compute_efficiency > 0)
    y << fmt::format("  attention_extra_row_compute_efficiency: {:.4f}   # measured {:.2f} GFLOP/s: the same heads with "
                     "{} query rows, beyond the first row's time\n",
                     std::max(1e-4, attention_extra_row_compute_efficiency), attention_extra_row_gflops, kAttentionRows);
  if (attention_extra_row_compute_efficiency > 0 && attention_extra_row_score_ns > 0)
    y << fmt::format("  attention_extra_row_score_ns: {:.4f}   # per later row and key in each product, beyond its FLOPs:\n"
                     "                                     # solved with the rate above from the same rows at head "
                     "size {}\n",
                     attention_extra_row_score_ns, kAttentionNarrowHeadSize);
  return y.str();
}

}  // namespace sim
