// Which transport NCCL takes between two devices and which all-reduce a stack runs on a system
// (sim/system/collective_choice.hpp): GeForce GPUs without peer access stage through the host,
// NVLink gives peer-to-peer, hosts joined by Ethernet use sockets; vLLM's custom all-reduce only
// where its rules allow it; NCCL's figures and bad collective configs.
#include <catch2/catch.hpp>

#include <fmt/format.h>

#include <cmath>
#include <filesystem>
#include <functional>
#include <fstream>
#include <sstream>
#include <unistd.h>

#include "models/config_error.hpp"
#include "models/config_registry.hpp"
#include "models/software_stack.hpp"
#include "models/system_spec.hpp"
#include "sim/golden/op_alone_golden.hpp"
#include "sim/system/collective_choice.hpp"
#include "sim/system/collectives.hpp"
#include "sim/system/system_step.hpp"
#include "sim/system/timeline.hpp"

using namespace sim;

namespace {

namespace fs = std::filesystem;

models::SystemSpec named_system(const std::string& name) {
  const models::ConfigRegistry reg;
  return models::load_system(reg.path("systems", name), reg);
}

fs::path temp_dir() {
  const auto dir = fs::temp_directory_path() / fmt::format("specdse_test_collectives_{}", ::getpid());
  fs::create_directories(dir);
  return dir;
}

// A system YAML in a temporary folder, loaded against the shipped configs.
models::SystemSpec system_from(const std::string& body) {
  static int n = 0;
  const auto path = temp_dir() / fmt::format("s{}.yaml", n++);
  std::ofstream(path) << body;
  const models::ConfigRegistry reg;
  return models::load_system(path.string(), reg);
}

// `count` GPUs of `hardware` on one PCIe switch under `stack`.
models::SystemSpec pcie_host(const std::string& hardware, int count, const std::string& stack) {
  return system_from(fmt::format(R"(name: host
devices:
  - {{name: gpu, hardware: {}, count: {}, stack: {}}}
links:
  - {{link: pcie4-x16, topology: switch, devices: [gpu]}}
placement:
  target: {{stages: even, devices: [gpu], tensor_parallel: {}}}
)",
                                 hardware, count, stack, count));
}

models::SystemSpec nvlink_host(int count, const std::string& stack) {
  return system_from(fmt::format(R"(name: nvl
devices:
  - {{name: gpu, hardware: h100-sxm, count: {}, stack: {}}}
links:
  - {{link: nvlink4, topology: switch, devices: [gpu]}}
placement:
  target: {{stages: even, devices: [gpu], tensor_parallel: {}}}
)",
                                   count, stack, count));
}

std::vector<int> first_ranks(int n) {
  std::vector<int> r;
  for (int i = 0; i < n; ++i) r.push_back(i);
  return r;
}

// Seconds until every rank holds the result of one all-reduce of `bytes` that all start at 0.
// A config tree in a temporary folder: the shipped collectives and stacks, with `file` (relative
// to the tree) replaced by `body`; returns the tree's root.
fs::path config_tree_with(const std::string& file, const std::string& body) {
  static int n = 0;
  const models::ConfigRegistry reg;
  const fs::path root = temp_dir() / fmt::format("tree{}", n++);
  for (const char* folder : {"collectives", "stacks"}) {
    fs::create_directories(root / folder);
    for (const auto& e : fs::directory_iterator(fs::path(reg.dir()) / folder))
      fs::copy_file(e.path(), root / folder / e.path().filename(), fs::copy_options::overwrite_existing);
  }
  std::ofstream(root / file) << body;
  return root;
}

std::string error_of(const std::function<void()>& f) {
  try {
    f();
  } catch (const models::InputError& e) {
    return e.what();
  }
  return "";
}

std::string read_file(const fs::path& p) {
  std::ifstream in(p);
  std::stringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

std::string replaced(std::string text, const std::string& from, const std::string& to) {
  const auto at = text.find(from);
  REQUIRE(at != std::string::npos);
  return text.replace(at, from.size(), to);
}

}  // namespace

TEST_CASE("collectives: GeForce GPUs on PCIe without peer access stage through the host (SHM)") {
  models::SystemSpec s = named_system("specpipe-2srv-3090-4090-eth");
  const int a0 = s.device_index("a0"), a1 = s.device_index("a1"), b0 = s.device_index("b0"), b1 = s.device_index("b1");
  CHECK_FALSE(s.devices[std::size_t(a0)].hardware.pcie_peer_to_peer());
  CHECK(nccl_transport(s, a0, a1) == Transport::shm);
  CHECK(nccl_transport(s, b0, b1) == Transport::shm);
  // The TP/PP-vLLM baseline: vLLM declines its custom kernel on four PCIe-only GPUs, so every
  // all-reduce of a decode step (one token of Llama-3.1-70B, 16 KiB) is NCCL's ring over SHM.
  s = models::with_group_tensor_parallel(models::with_target_stack(s, s.baseline_tp_stacks.at("tp-pp-vllm")));
  const CollectiveChoice c = choose_all_reduce(s, s.stages.front().devices, 16384);
  CHECK(c.algorithm == CollectiveAlgorithm::nccl_ring);
  CHECK(c.transport == Transport::shm);
  CHECK(c.protocol_name == "LL");
  CHECK_THAT(c.custom_declined, Catch::Contains("more than two PCIe-only GPUs"));
  // Large messages go to NCCL's Simple protocol (the full bus bandwidth).
  CHECK(choose_all_reduce(s, s.stages.front().devices, 64e6).protocol_name == "Simple");
  // The step on the timeline reports the same choice for both servers' groups.
  const models::ConfigRegistry reg;
  SystemQuery q;
  q.target = reg.model("llama-3.1-70b");
  const SystemStep step = simulate_system_step(s, q, "roofline");
  REQUIRE(step.collectives.size() == 2);
  for (const auto& cs : step.collectives) {
    CHECK(cs.op == "all-reduce");
    CHECK(cs.algorithm == "nccl ring LL");
    CHECK(cs.transport == "SHM");
    CHECK(cs.calls == 80);  // 40 layers per server, an attention and an MLP all-reduce each
    CHECK(cs.busy_s > 0);
  }
}

TEST_CASE("collectives: NVLink gives peer-to-peer, and vLLM runs its one-stage or two-stage kernel by size") {
  const models::SystemSpec s = named_system("eagle-8xh100-nvlink");
  const std::vector<int> ranks = first_ranks(8);
  CHECK(nccl_transport(s, 0, 5) == Transport::p2p_nvlink);
  const CollectiveChoice small = choose_all_reduce(s, ranks, 64 * 1024);
  CHECK(small.algorithm == CollectiveAlgorithm::custom_one_stage);
  CHECK(small.transport == Transport::p2p_nvlink);
  CHECK(small.custom_declined.empty());
  // At or above the one-stage limit of eight ranks (256 KiB): the two-stage kernel.
  CHECK(choose_all_reduce(s, ranks, 256 * 1024).algorithm == CollectiveAlgorithm::custom_two_stage);
  // Four ranks keep the one-stage kernel up to 512 KiB.
  const models::SystemSpec four = nvlink_host(4, "vllm-cuda-graph");
  CHECK(choose_all_reduce(four, first_ranks(4), 256 * 1024).algorithm == CollectiveAlgorithm::custom_one_stage);
  CHECK(choose_all_reduce(four, first_ranks(4), 512 * 1024).algorithm == CollectiveAlgorithm::custom_two_stage);
  // An eager PyTorch stack has no custom kernel: NCCL's ring over NVLink peer-to-peer.
  const CollectiveChoice eager = choose_all_reduce(nvlink_host(4, "pytorch-eager"), first_ranks(4), 64 * 1024);
  CHECK(eager.algorithm == CollectiveAlgorithm::nccl_ring);
  CHECK(eager.transport == Transport::p2p_nvlink);
}

TEST_CASE("collectives: GPUs in two servers joined by Ethernet use NCCL's sockets") {
  const models::SystemSpec s = system_from(R"(name: two-hosts
devices:
  - {name: a, hardware: l40, stack: vllm-cuda-graph}
  - {name: b, hardware: l40, stack: vllm-cuda-graph}
links:
  - {link: eth-10g, topology: switch, devices: [a, b]}
placement:
  target: {stages: even, devices: [a, b], tensor_parallel: 2}
)");
  CHECK(nccl_transport(s, 0, 1) == Transport::net_socket);
  const CollectiveChoice c = choose_all_reduce(s, {0, 1}, 16384);
  CHECK(c.algorithm == CollectiveAlgorithm::nccl_ring);
  CHECK(c.transport == Transport::net_socket);
  CHECK_THAT(c.custom_declined, Catch::Contains("spans across nodes"));
  // Each of the two ring steps waits NCCL's network step latency plus the link's own latency.
  const models::NcclSpec& nccl = *s.devices[0].hardware.stack.collectives;
  const models::NcclProtocol& p = nccl.protocols[std::size_t(c.protocol)];
  const NcclStep st = nccl_step(nccl, s, 0, 1, p);
  CHECK(st.latency_s == Approx((p.step_us(models::NcclHardware::network) + s.links.front().spec.latency_us) * 1e-6));
  CHECK(all_reduce_seconds(s, {0, 1}, 16384) ==
        Approx(p.base_latency_us * 1e-6 + 2 * (st.latency_s + 8192 / st.bytes_per_s)).epsilon(1e-6));
}

TEST_CASE("collectives: vLLM's custom all-reduce runs only where its rules allow it") {
  // Two PCIe GPUs with peer access (L40): allowed, the one-stage kernel over PCIe.
  const CollectiveChoice two_l40 = choose_all_reduce(pcie_host("l40", 2, "vllm-cuda-graph"), {0, 1}, 16384);
  CHECK(two_l40.algorithm == CollectiveAlgorithm::custom_one_stage);
  CHECK(two_l40.transport == Transport::p2p_pcie);
  // More than two PCIe-only GPUs: declined (vLLM's warning), NCCL peer-to-peer over PCIe instead.
  const CollectiveChoice four_l40 = choose_all_reduce(pcie_host("l40", 4, "vllm-cuda-graph"), first_ranks(4), 16384);
  CHECK(four_l40.algorithm == CollectiveAlgorithm::nccl_ring);
  CHECK(four_l40.transport == Transport::p2p_pcie);
  CHECK_THAT(four_l40.custom_declined, Catch::Contains("more than two PCIe-only GPUs"));
  // Two GeForce 3090s: no peer access, declined for P2P, NCCL through the host.
  const CollectiveChoice two_3090 = choose_all_reduce(pcie_host("rtx3090", 2, "vllm-cuda-graph"), {0, 1}, 16384);
  CHECK(two_3090.algorithm == CollectiveAlgorithm::nccl_ring);
  CHECK(two_3090.transport == Transport::shm);
  CHECK_THAT(two_3090.custom_declined, Catch::Contains("lacks GPU P2P capability"));
  // A world size the kernels are not built for.
  const CollectiveChoice three = choose_all_reduce(nvlink_host(3, "vllm-cuda-graph"), first_ranks(3), 16384);
  CHECK(three.algorithm == CollectiveAlgorithm::nccl_ring);
  CHECK_THAT(three.custom_declined, Catch::Contains("unsupported world size: 3"));
  // Per call: the size limit (8 MiB, exclusive) and the 16-byte multiple.
  const models::SystemSpec h100 = named_system("eagle-8xh100-nvlink");
  const double limit = 8.0 * 1024 * 1024;
  CHECK(choose_all_reduce(h100, first_ranks(8), limit - 16).algorithm == CollectiveAlgorithm::custom_two_stage);
  CHECK_THAT(choose_all_reduce(h100, first_ranks(8), limit).custom_declined, Catch::Contains("max_size"));
  CHECK_THAT(choose_all_reduce(h100, first_ranks(8), 1004).custom_declined, Catch::Contains("multiple of 16"));
  // A stack without a collective library sends over the links as before.
  const CollectiveChoice bare = choose_all_reduce(system_from(R"(name: bare
devices:
  - {name: gpu, hardware: h100-sxm, count: 2}
links:
  - {link: nvlink4, topology: switch, devices: [gpu]}
placement:
  target: {stages: even, devices: [gpu], tensor_parallel: 2}
)"),
                                                  {0, 1}, 16384);
  CHECK(bare.algorithm == CollectiveAlgorithm::link_ring);
  CHECK(bare.transport == Transport::link);
}

TEST_CASE("collectives: NCCL over SHM gives back the published 8-GPU small-message time it was derived from") {
  // configs/collectives/nccl.yaml derives SHM's extra step latency from nccl-tests on 8 RTX 4090s
  // (8 bytes, 42.14 us); the timeline's ring over an 8-GPU GeForce host returns that time.
  const models::SystemSpec s = pcie_host("rtx4090", 8, "pytorch-eager");
  CHECK(choose_all_reduce(s, first_ranks(8), 8).transport == Transport::shm);
  CHECK(all_reduce_seconds(s, first_ranks(8), 8) == Approx(42.14e-6).epsilon(0.01));
  // Peer access (L40s) is faster than staging through the host at every size.
  const models::SystemSpec p2p = pcie_host("l40", 8, "pytorch-eager");
  for (double bytes : {8.0, 16384.0, 1048576.0, 64e6})
    CHECK(all_reduce_seconds(p2p, first_ranks(8), bytes) < all_reduce_seconds(s, first_ranks(8), bytes));
}

TEST_CASE("collectives: NCCL's ring inside a public TP-4 decode step over PCIe peer-to-peer is within 40 % of the model") {
  // configs/reference/pcie_tp4_decode_allreduce.csv: 41.7 / 54.5 us per call at 512 / 768 KiB in
  // a CUDA-graph verifier step (local-inference-lab/vllm#580). The model (NCCL's tuning latencies,
  // the ring built from PCIe 5.0 sends) is slower there, not the 0.6-1.1 ms per call that an
  // nvprof count of two calls suggested (vllm-project/vllm#2442, docs/gpu-model.md).
  const models::ConfigRegistry reg;
  const std::string dir = reg.dir() + "/reference";
  const models::SystemSpec system = models::load_system(dir + "/systems/pcie5-4gpu-p2p.yaml", reg);
  const auto result = sim::compare_ops_timed_alone(dir + "/pcie_tp4_decode_allreduce.csv", reg.hardware("a800"), &system);
  REQUIRE(result.rows.size() == 2);
  for (const auto& r : result.rows) {
    INFO(r.op << ": measured " << r.measured_s << " s, modelled " << r.predicted_s << " s");
    CHECK(r.kind == "allreduce");
    CHECK(std::fabs(r.error_pct()) < 40);
    CHECK(r.predicted_s < 100e-6);
  }
}

TEST_CASE("collectives: a bad peer-to-peer or collective config value is a one-line error naming file, key and value") {
  const models::ConfigRegistry reg;
  // A GPU's peer-access flag.
  const fs::path gpu = temp_dir() / "gpu.yaml";
  std::ofstream(gpu) << replaced(read_file(reg.path("hardware", "rtx3090")), "pcie_peer_to_peer: false",
                                 "pcie_peer_to_peer: maybe");
  std::string e = error_of([&] { models::load_hardware(gpu.string()); });
  CHECK_THAT(e, Catch::Contains("gpu.yaml") && Catch::Contains("pcie_peer_to_peer") && Catch::Contains("'maybe'"));
  CHECK(e.find('\n') == std::string::npos);
  // A stack naming a collectives file that does not exist.
  fs::path root = config_tree_with("stacks/s.yaml", "name: s\nkernel_launch_host_us: 0\nper_layer_host_us: 0\n"
                                                   "per_step_host_us: 0\ncuda_graphs: false\nruntime_reserve_gib: 0\n"
                                                   "collectives: nccl\ncustom_all_reduce: nope\n");
  e = error_of([&] { models::load_software_stack((root / "stacks" / "s.yaml").string()); });
  CHECK_THAT(e, Catch::Contains("s.yaml") && Catch::Contains("custom_all_reduce") && Catch::Contains("'nope'"));
  CHECK(e.find('\n') == std::string::npos);
  // An SHM measurement faster than NCCL's own PCIe estimate cannot come from a host round trip.
  const std::string nccl = read_file(reg.path("collectives", "nccl"));
  root = config_tree_with("collectives/nccl.yaml", replaced(nccl, "time_us: 42.14", "time_us: 10"));
  e = error_of([&] { models::load_software_stack((root / "stacks" / "pytorch-eager.yaml").string()); });
  CHECK_THAT(e, Catch::Contains("nccl.yaml") && Catch::Contains("shm.measured_all_reduce.time_us") && Catch::Contains("10"));
  CHECK(e.find('\n') == std::string::npos);
  // A protocol NCCL's file does not know, and a negative latency.
  root = config_tree_with("collectives/nccl.yaml", replaced(nccl, "  simple:", "  ll256:"));
  CHECK_THAT(error_of([&] { models::load_software_stack((root / "stacks" / "pytorch-eager.yaml").string()); }),
             Catch::Contains("protocols.ll256") && Catch::Contains("unknown key"));
  root = config_tree_with("collectives/nccl.yaml", replaced(nccl, "base_latency_us: 6.6", "base_latency_us: -6.6"));
  CHECK_THAT(error_of([&] { models::load_software_stack((root / "stacks" / "pytorch-eager.yaml").string()); }),
             Catch::Contains("protocols.ll.base_latency_us") && Catch::Contains("'-6.6'"));
  // vLLM's world sizes: a group of one is not a collective.
  const std::string custom = read_file(reg.path("collectives", "vllm-custom-all-reduce"));
  root = config_tree_with("collectives/vllm-custom-all-reduce.yaml", replaced(custom, "[2, 4, 6, 8]", "[1, 2]"));
  e = error_of([&] { models::load_software_stack((root / "stacks" / "vllm-cuda-graph.yaml").string()); });
  CHECK_THAT(e, Catch::Contains("vllm-custom-all-reduce.yaml") && Catch::Contains("world_sizes") && Catch::Contains("1"));
  // A custom all-reduce without a library for the calls it declines.
  root = config_tree_with("stacks/s.yaml", "name: s\nkernel_launch_host_us: 0\nper_layer_host_us: 0\n"
                                           "per_step_host_us: 0\ncuda_graphs: false\nruntime_reserve_gib: 0\n"
                                           "custom_all_reduce: vllm-custom-all-reduce\n");
  CHECK_THAT(error_of([&] { models::load_software_stack((root / "stacks" / "s.yaml").string()); }),
             Catch::Contains("s.yaml") && Catch::Contains("custom_all_reduce"));
}

TEST_CASE("system step: paper 004's engine hides its per-step host work behind the tensor-parallel step") {
  const models::ConfigRegistry reg;
  const models::SystemSpec overlapped = models::load_system(reg.path("systems", "eagle-8xh100-nvlink"), reg);
  REQUIRE(overlapped.devices.front().hardware.stack.host_overlaps_device);
  models::SystemSpec series = overlapped;
  for (auto& d : series.devices) d.hardware.stack.host_overlaps_device = false;
  SystemQuery q;
  q.target = reg.model("llama-3.1-8b-instruct");
  q.context = 1024;
  const double per_step_s = overlapped.devices.front().hardware.stack.per_step_host_us * 1e-6;
  // Both engines charge the stack by the same rules: the same steps to the picosecond.
  for (const char* engine : {"sim", "roofline"}) {
    INFO("engine " << engine);
    const SystemStep a = simulate_system_step(overlapped, q, engine), b = simulate_system_step(series, q, engine);
    REQUIRE(a.step_s > per_step_s);  // milliseconds of GPU work: the bookkeeping fits beside it
    CHECK(b.step_s - a.step_s == Approx(per_step_s).epsilon(0.02));
  }
  const double sim_s = simulate_system_step(overlapped, q, "sim").step_s;
  CHECK(simulate_system_step(overlapped, q, "roofline").step_s == Approx(sim_s).epsilon(1e-9));
}

TEST_CASE("system step: per-sequence host work is charged once per step for the batch, on both engines") {
  const models::ConfigRegistry reg;
  models::SystemSpec base = models::load_system(reg.path("systems", "eagle-8xh100-nvlink"), reg);
  for (auto& d : base.devices) d.hardware.stack.host_overlaps_device = false;  // in series: the difference shows whole
  models::SystemSpec per_seq = base;
  for (auto& d : per_seq.devices) d.hardware.stack.per_sequence_host_us = 30;
  SystemQuery q;
  q.target = reg.model("llama-3.1-8b-instruct");
  q.context = 1024;
  q.batch = 16;
  for (const char* engine : {"sim", "roofline"}) {
    INFO("engine " << engine);
    const double more = simulate_system_step(per_seq, q, engine).step_s - simulate_system_step(base, q, engine).step_s;
    CHECK(more == Approx(30e-6 * 16).epsilon(0.02));
  }
}
