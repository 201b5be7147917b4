// Systems of devices and links: the timeline, ring collectives built from sends,
// memory fit (paper 002 Table 1), placements, the systems of papers 002-004, trace export.
#include <catch2/catch.hpp>

#include <fmt/format.h>

#include <algorithm>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <vector>
#include <unistd.h>

#include "models/config_error.hpp"
#include "models/config_registry.hpp"
#include "models/drafts/draft_builder.hpp"
#include "models/engine_registry.hpp"
#include "models/system_spec.hpp"
#include "sim/system/collectives.hpp"
#include "sim/system/memory_fit.hpp"
#include "sim/system/system_costs.hpp"
#include "sim/system/system_step.hpp"
#include "sim/system/timeline.hpp"

using namespace sim;

namespace {

constexpr double kGiB = 1024.0 * 1024.0 * 1024.0;

models::SystemSpec named_system(const std::string& name) {
  const models::ConfigRegistry reg;
  return models::load_system(reg.path("systems", name), reg);
}

// Writes a system YAML into a fresh temporary folder (never into the source tree).
std::string write_system(const std::string& body) {
  static int n = 0;
  const auto dir = std::filesystem::temp_directory_path() / fmt::format("specdse_test_system_{}", ::getpid());
  std::filesystem::create_directories(dir);
  const auto path = dir / fmt::format("s{}.yaml", n++);
  std::ofstream(path) << body;
  return path.string();
}

std::string load_error(const std::string& body) {
  try {
    const models::ConfigRegistry reg;
    models::SystemSpec s = models::load_system(write_system(body), reg);
    s.validate_placement(reg.model("llama-3.1-8b-instruct"));
  } catch (const models::InputError& e) {
    return e.what();
  }
  return "";
}

const char* kTwoGpus = R"(name: t
devices:
  - {name: gpu, hardware: rtx3090, count: 2}
links:
  - {link: pcie4-x16, topology: chain, devices: [gpu]}
)";

}  // namespace

TEST_CASE("system: config_files lists every file the system was built from, once each") {
  const models::SystemSpec s = named_system("duodecoding-a800-xeon");
  const std::vector<std::string> files = s.config_files();
  auto ends_with = [&](const std::string& tail) {
    return std::count_if(files.begin(), files.end(), [&](const std::string& f) {
      return f.size() >= tail.size() && f.compare(f.size() - tail.size(), tail.size(), tail) == 0;
    });
  };
  REQUIRE_FALSE(files.empty());
  CHECK(files.front() == s.source_file);
  for (const char* tail : {"systems/duodecoding-a800-xeon.yaml", "hardware/a800.yaml", "hardware/xeon-16c.yaml",
                           "stacks/huggingface-transformers.yaml", "stacks/llama-cpp-python.yaml",
                           "links/pcie4-x16.yaml", "collectives/nccl.yaml"}) {
    INFO(tail);
    CHECK(ends_with(tail) == 1);
  }
  // Paper 002's testbed also names its baselines' stacks.
  const std::vector<std::string> pipeline = named_system("specpipe-8x3090-pcie").config_files();
  CHECK(std::count_if(pipeline.begin(), pipeline.end(),
                      [](const std::string& f) { return f.find("stacks/vllm-cuda-graph.yaml") != std::string::npos; }) == 1);
}

TEST_CASE("system: the timeline runs dependencies in order and serialises each resource") {
  TaskGraph g;
  const int dev = g.add_resource({"gpu0", ResourceKind::device_stream, "gpu0"});
  const int link = g.add_resource({"pcie", ResourceKind::link, "links"});
  const int a = g.add_task({"a", "compute", dev, 1e-3, 0, 0, {}});
  const int b = g.add_task({"b", "compute", dev, 2e-3, 0, 0, {}});       // same device: after a
  const int c = g.add_task({"c", "transfer", link, 0.5e-3, 1e-3, 64, {a}});  // link latency 1 ms
  const int d = g.add_task({"d", "compute", dev, 1e-3, 0, 0, {c}});
  const TimelineRun r = run_timeline(g);
  CHECK(r.start_s[a] == Approx(0).margin(1e-12));
  CHECK(r.start_s[b] == Approx(1e-3));
  CHECK(r.end_s[b] == Approx(3e-3));
  CHECK(r.start_s[c] == Approx(1e-3));
  CHECK(r.end_s[c] == Approx(2.5e-3));  // busy 0.5 ms + 1 ms in flight
  CHECK(r.start_s[d] == Approx(3e-3));  // ready at 2.5 ms, device busy with b until 3 ms
  CHECK(r.makespan_s == Approx(4e-3));
  CHECK(r.resource_busy_s[dev] == Approx(4e-3));
  CHECK(r.resource_busy_s[link] == Approx(0.5e-3));
  // Forward references and negative durations are refused.
  CHECK_THROWS_AS(g.add_task({"bad", "compute", dev, 1, 0, 0, {99}}), models::InputError);
  CHECK_THROWS_AS(g.add_task({"bad", "compute", dev, -1, 0, 0, {}}), models::InputError);
}

TEST_CASE("system: many timelines run in one process, one after another") {
  for (int i = 1; i <= 50; ++i) {
    TaskGraph g;
    const int dev = g.add_resource({"d", ResourceKind::device_stream, "d"});
    int prev = -1;
    for (int k = 0; k < i; ++k) prev = g.add_task({"t", "compute", dev, 1e-6, 0, 0, prev < 0 ? std::vector<int>{} : std::vector<int>{prev}});
    CHECK(run_timeline(g).makespan_s == Approx(i * 1e-6));
  }
}

TEST_CASE("system: a ring all-reduce takes 2(N-1) chunk steps over the ring's links") {
  const models::ConfigRegistry reg;
  const std::string body = R"(name: ring
devices:
  - {name: gpu, hardware: h100-sxm, count: 4}
links:
  - {link: nvlink4, topology: ring, devices: [gpu]}
placement:
  target: {stages: even, devices: [gpu], tensor_parallel: 4}
)";
  const models::SystemSpec s = models::load_system(write_system(body), reg);
  TaskGraph g;
  LaneResources lanes;
  for (const auto& l : s.lanes) lanes.resource_of_lane.push_back(g.add_resource({l, ResourceKind::link, "links"}));
  const int dev = g.add_resource({"start", ResourceKind::host, "host"});
  const int start = g.add_task({"start", "host", dev, 0, 0, 0, {}});
  const double bytes = 64.0 * 1024 * 1024;
  const auto done = add_ring_all_reduce(g, s, lanes, {0, 1, 2, 3}, bytes, {start, start, start, start}, "ar");
  const TimelineRun r = run_timeline(g);
  const models::LinkSpec& link = s.links.front().spec;
  const double expected = 2 * 3 * link.transfer_s(bytes / 4);
  for (int t : done) CHECK(r.end_s[std::size_t(t)] == Approx(expected).epsilon(1e-6));
  // Each rank sends 2(N-1)/N of the buffer: the bus bandwidth identity of ring all-reduce.
  double sent = 0;
  for (const auto& t : g.tasks()) sent += t.bytes;
  CHECK(sent == Approx(4 * 2.0 * 3 / 4 * bytes));
}

TEST_CASE("system: placed_for says whether validate_placement would leave the placement as it is") {
  const models::ConfigRegistry reg;
  const models::ModelSpec b70 = reg.model("llama-3.1-70b"), b8 = reg.model("llama-3.1-8b-instruct");
  models::SystemSpec even = named_system("specpipe-8x3090-pcie");
  CHECK_FALSE(even.placed_for(b70));  // even stages: no layer ranges before a model is known
  even.validate_placement(b70);
  CHECK(even.placed_for(b70));
  CHECK_FALSE(even.placed_for(b8));  // 80 layers split, not 32
  models::SystemSpec again = even;
  again.validate_placement(b70);
  for (std::size_t i = 0; i < even.stages.size(); ++i) {
    CHECK(again.stages[i].first_layer == even.stages[i].first_layer);
    CHECK(again.stages[i].last_layer == even.stages[i].last_layer);
  }
  // Explicit stages: placed for the model they cover, not for another (validate_placement throws).
  const models::SystemSpec fixed = models::load_system(
      write_system(std::string(kTwoGpus) +
                   "placement:\n  target:\n    stages:\n      - {devices: [gpu0], layers: 0-15}\n"
                   "      - {devices: [gpu1], layers: 16-31}\n"),
      reg);
  CHECK(fixed.placed_for(b8));
  CHECK_FALSE(fixed.placed_for(b70));
  // placed(): the system itself where it is placed, else a placed copy.
  std::optional<models::SystemSpec> copy;
  CHECK(&even.placed(b70, copy) == &even);
  CHECK_FALSE(copy);
  const models::SystemSpec& for_8b = even.placed(b8, copy);
  REQUIRE(copy);
  CHECK(&for_8b == &*copy);
  CHECK(for_8b.placed_for(b8));
  CHECK(even.placed_for(b70));  // the original is left as it was
  CHECK_THROWS_AS(models::SystemSpec(fixed).validate_placement(b70), models::InputError);
}

TEST_CASE("system: a draft head's memory follows its own shape, also when reshaped for a target under its name") {
  const models::ConfigRegistry reg;
  const sim::SystemCosts costs(models::single_device_system(reg.hardware("h100-sxm")), "roofline");
  const models::ModelSpec target = reg.model("llama-3.1-70b");
  const models::AlgorithmSpec head_8b = reg.algorithm("eagle3-tree");  // the Llama-3.1-8B head's layer
  models::AlgorithmSpec head_70b = head_8b;
  head_70b.draft = models::draft_builder(head_8b.draft.kind, head_8b.name).reshaped_for(head_8b.draft, target);
  REQUIRE(head_70b.draft.hidden_size != head_8b.draft.hidden_size);
  MemoryQuery q;
  q.kv_tokens = 1024;
  q.step_tokens = 8;
  DraftHead head;
  head.device = 0;
  auto weights = [&](const models::AlgorithmSpec& a) {
    head.algorithm = &a;
    return costs.memory(target, nullptr, q, std::nullopt, head).front().need.weights_bytes;
  };
  const double bare = costs.memory(target, nullptr, q).front().need.weights_bytes;
  // Asked twice each, in both orders: the cost layer keeps each shape's weights apart.
  for (int round = 0; round < 2; ++round) {
    CHECK(weights(head_8b) - bare == Approx(draft_head_weight_bytes(head_8b, target)));
    CHECK(weights(head_70b) - bare == Approx(draft_head_weight_bytes(head_70b, target)));
  }
  CHECK(draft_head_weight_bytes(head_70b, target) > 2 * draft_head_weight_bytes(head_8b, target));
  // A head pass's time likewise: each shape its own, whichever the cost layer saw first.
  auto head_pass_s = [&](const sim::SystemCosts& c, const models::AlgorithmSpec& a) {
    SystemQuery sq;
    sq.target = target;
    sq.context = 1024;
    sq.head = std::make_shared<const models::AlgorithmSpec>(a);
    sq.head_pass_widths = {4};
    sq.verify = false;
    return c.system_step_times(sq).head_s;
  };
  const double small_first = head_pass_s(costs, head_8b), wide_second = head_pass_s(costs, head_70b);
  const sim::SystemCosts fresh(models::single_device_system(reg.hardware("h100-sxm")), "roofline");
  const double wide_first = head_pass_s(fresh, head_70b), small_second = head_pass_s(fresh, head_8b);
  CHECK(wide_second > small_first);
  CHECK(wide_second == wide_first);
  CHECK(small_second == small_first);
}

TEST_CASE("system: paper 002 Table 1, per-GPU memory of Llama-3.1-70B over 8 GPUs, within 5 %") {
  const models::ConfigRegistry reg;
  models::SystemSpec s = named_system("specpipe-8x3090-pcie");
  const models::ModelSpec target = reg.model("llama-3.1-70b");
  s.validate_placement(target);
  MemoryQuery q;
  q.kv_tokens = s.memory.kv_tokens;
  q.step_tokens = 64;  // a 64-wide tree level (paper 002's w)
  q.parameter_rule = s.memory.parameter_rule;
  const auto mem = system_memory(s, target, nullptr, q);
  // Table 1 (GiB): GPU 0 (with embedding) 23.5, GPUs 1-6 21.5, GPU 7 (with output) 23.5.
  CHECK(mem[0].need.total() / kGiB == Approx(23.5).epsilon(0.05));
  for (int i = 1; i <= 6; ++i) CHECK(mem[std::size_t(i)].need.total() / kGiB == Approx(21.5).epsilon(0.05));
  CHECK(mem[7].need.total() / kGiB == Approx(23.5).epsilon(0.05));
  for (int i = 0; i < 8; ++i) CHECK(mem[std::size_t(i)].fits());  // "only the first and last approach 24 GiB"
  // With the exact (GQA) parameter count the layers are smaller than the paper's 4d^2 + 3df.
  q.parameter_rule = "exact";
  const auto exact = system_memory(s, target, nullptr, q);
  CHECK(exact[3].need.weights_bytes < 0.9 * mem[3].need.weights_bytes);
}

TEST_CASE("system: a 70B model at batch 64 on a 24 GB RTX 3090 is infeasible, not timed") {
  const models::ConfigRegistry reg;
  MemoryQuery q;
  q.batch = 64;
  q.kv_tokens = 1024;
  try {
    require_fit(reg.hardware("rtx3090"), reg.model("llama-2-70b"), q);
    FAIL("expected infeasible");
  } catch (const models::InputError& e) {
    const std::string msg = e.what();
    CHECK_THAT(msg, Catch::Contains("infeasible") && Catch::Contains("rtx3090") && Catch::Contains("GiB"));
  }
  // The 8B model at batch 1 fits the same card.
  q.batch = 1;
  CHECK(require_fit(reg.hardware("rtx3090"), reg.model("llama-3.1-8b-instruct"), q).fits());
}

TEST_CASE("system: every paper testbed loads and runs a step") {
  const models::ConfigRegistry reg;
  struct Case { const char* system; const char* target; const char* draft; };
  for (const Case c : {Case{"specpipe-8x3090-pcie", "llama-3.1-70b", "llama-3.2-1b"},
                       Case{"specpipe-2srv-3090-4090-eth", "llama-3.1-70b", "llama-3.2-1b"},
                       Case{"duodecoding-a800-xeon", "llama-2-7b", "llama-68m"},
                       Case{"eagle-8xh100-nvlink", "llama-3.1-70b", nullptr}}) {
    INFO(c.system);
    SystemQuery q;
    q.target = reg.model(c.target);
    if (c.draft) q.draft = reg.model(c.draft);
    q.x = 8;
    q.context = 1024;
    const SystemStep step = simulate_system_step(named_system(c.system), q, "roofline");
    CHECK(step.step_s > 0);
    CHECK(step.target_s <= step.step_s);
    CHECK(step.feasible);
    double busy = 0;
    for (const auto& d : step.devices) busy += d.busy_s;
    CHECK(busy > 0);
  }
}

TEST_CASE("system: pipelining 8 stages costs the per-stage times plus the transfers") {
  const models::ConfigRegistry reg;
  SystemQuery q;
  q.target = reg.model("llama-3.1-70b");
  q.x = 1;
  q.context = 1024;
  const SystemStep step = simulate_system_step(named_system("specpipe-8x3090-pcie"), q, "roofline");
  double compute = 0, links = 0;
  for (const auto& d : step.devices) compute += d.busy_s;
  for (const auto& l : step.lanes) links += l.busy_s;
  // One token passes the stages in sequence: the step is their sum plus the 7 hops.
  CHECK(step.target_s >= compute);
  CHECK(step.target_s <= compute + links + 7 * 100e-6);
  // The 10 GbE link carries nothing without a draft; 7 PCIe hops carry one hidden vector each.
  long long messages = 0;
  for (const auto& l : step.lanes) messages += l.messages;
  CHECK(messages == 7);
  // The pipeline's period (what a next micro-batch waits for): the busiest stage's compute and
  // the send of its activations, about an eighth of the step; on one device, the whole step.
  double busiest = 0, widest_lane = 0;
  for (const auto& d : step.devices) busiest = std::max(busiest, d.busy_s);
  for (const auto& l : step.lanes) widest_lane = std::max(widest_lane, l.busy_s);
  CHECK(step.stage_period_s >= busiest * (1 - 1e-12));  // end - start against a sum of one task
  CHECK(step.stage_period_s <= busiest + widest_lane + 1e-12);
  CHECK(step.stage_period_s < step.step_s / 6);
  const SystemStep alone = simulate_system_step(models::single_device_system(reg.hardware("h100-sxm")), q, "roofline");
  CHECK(alone.stage_period_s == alone.step_s);
}

TEST_CASE("system: vLLM on NVLink H100s runs its one-stage kernel for small all-reduces and NCCL's ring past its limit") {
  const models::SystemSpec s = named_system("eagle-8xh100-nvlink");
  const std::vector<int> ranks = {0, 1, 2, 3, 4, 5, 6, 7};
  auto time_of = [&](double bytes, int algorithm) {  // 0: the stack's choice, 1: NCCL ring (its protocol), 2: one-shot
    TaskGraph g;
    LaneResources lanes;
    for (const auto& lane : s.lanes) lanes.resource_of_lane.push_back(g.add_resource({lane, ResourceKind::link, "links"}));
    const int dev = g.add_resource({"gpu0", ResourceKind::device_stream, "gpu0"});
    const int start = g.add_task({"start", "compute", dev, 0, 0, 0, {}});
    const std::vector<int> ready(8, start);
    CollectiveChoice nccl = choose_all_reduce(s, ranks, 64e6);  // past vLLM's 8 MiB: NCCL's ring
    const auto done = algorithm == 1   ? add_nccl_ring(g, s, lanes, *s.devices[0].hardware.stack.collectives,
                                                       nccl.protocol, ranks, bytes, ready, "ar", true)
                      : algorithm == 2 ? add_one_shot_all_reduce(g, s, lanes, ranks, bytes, ready, "ar")
                                       : add_all_reduce(g, s, lanes, ranks, bytes, ready, "ar");
    const TimelineRun r = run_timeline(g);
    double end = 0;
    for (int t : done) end = std::max(end, r.end_s[std::size_t(t)]);
    return end;
  };
  const double small = 64e3, large = 64e6;
  CHECK(choose_all_reduce(s, ranks, small).algorithm == CollectiveAlgorithm::custom_one_stage);
  CHECK(choose_all_reduce(s, ranks, large).algorithm == CollectiveAlgorithm::nccl_ring);
  CHECK(time_of(small, 2) < time_of(small, 1));
  CHECK(time_of(large, 1) < time_of(large, 2));
  CHECK(time_of(small, 0) == Approx(time_of(small, 2)));
  CHECK(time_of(large, 0) == Approx(time_of(large, 1)));
  CHECK(time_of(2 * small, 0) > time_of(small, 0));  // more bytes never take less time
}

TEST_CASE("system: tensor parallelism over NVLink beats one H100 for a 70B step, and pays all-reduces") {
  const models::ConfigRegistry reg;
  SystemQuery q;
  q.target = reg.model("llama-3.1-70b");
  q.x = 4;
  q.context = 2048;
  const SystemStep tp8 = simulate_system_step(named_system("eagle-8xh100-nvlink"), q, "roofline");
  long long collective = 0;
  for (const auto& t : tp8.graph.tasks()) collective += t.category == "collective";
  // A decode step's all-reduce (4 tokens x 8192 x 2 bytes) is small: the one-shot algorithm, per
  // layer and half N(N-1) pushes and N local reductions.
  CHECK(collective == 80 * 2 * (8 * 7 + 8));
  const auto one = models::make_engine("roofline", reg.hardware("h100-sxm"));
  models::Workload w;
  w.target = q.target;
  const double single = models::t_verify(*one, w, q.x, q.context);
  CHECK(tp8.target_s < single / 3);
}

TEST_CASE("system: a step without task names has the same timeline, to the picosecond") {
  // Callers that write no trace (the EAGLE dispatcher) skip naming the ~10^4 tasks of a TP step,
  // and their graphs copy the repeating layers (TaskGraph::repeat_tasks) instead of building each:
  // the same tasks, dependencies and run as the named graph built layer by layer.
  const models::ConfigRegistry reg;
  struct Case {
    const char* model;
    int x, batch;
  };
  // Small and large all-reduces (vLLM's custom kernels, NCCL's ring) and Maverick's two-layer unit.
  for (const Case c : {Case{"llama-3.1-70b", 16, 8}, Case{"llama-3.1-70b", 64, 128}, Case{"llama-4-maverick", 8, 4}}) {
    CAPTURE(c.model, c.x, c.batch);
    SystemQuery q;
    q.target = reg.model(c.model);
    q.x = c.x;
    q.batch = c.batch;
    q.context = 2048;
    const SystemStep named = simulate_system_step(named_system("eagle-8xh100-nvlink"), q, "roofline");
    q.task_names = false;
    const SystemStep unnamed = simulate_system_step(named_system("eagle-8xh100-nvlink"), q, "roofline");
    CHECK(named.graph.repeats().empty());
    CHECK(!unnamed.graph.repeats().empty());
    REQUIRE(named.graph.task_count() == unnamed.graph.task_count());
    CHECK(named.step_s == unnamed.step_s);
    CHECK(named.run.start_s == unnamed.run.start_s);
    CHECK(named.run.end_s == unnamed.run.end_s);
    CHECK(named.run.resource_busy_s == unnamed.run.resource_busy_s);
    CHECK(named.run.makespan_s == unnamed.run.makespan_s);
    CHECK(named.run.events == unnamed.run.events);
    CHECK(named.run.replayed_tasks == 0);
    CHECK(unnamed.run.replayed_tasks > 0);  // the copied layers' periods are replayed, not simulated
    std::size_t with_names = 0, same = 0;
    for (std::size_t t = 0; t < named.graph.task_count(); ++t) {
      const TimelineTask& a = named.graph.task(int(t));
      const TimelineTask& b = unnamed.graph.task(int(t));
      with_names += !a.name.empty();
      CHECK(b.name.empty());
      const auto da = named.graph.deps(int(t)), db = unnamed.graph.deps(int(t));
      same += a.category == b.category && a.resource == b.resource && a.busy_s == b.busy_s &&
              a.latency_s == b.latency_s && a.bytes == b.bytes &&
              std::vector<int>(da.begin(), da.end()) == std::vector<int>(db.begin(), db.end());
    }
    CHECK(with_names == named.graph.task_count());
    CHECK(same == named.graph.task_count());
    REQUIRE(named.collectives.size() == unnamed.collectives.size());
    for (std::size_t i = 0; i < named.collectives.size(); ++i) {
      CHECK(named.collectives[i].calls == unnamed.collectives[i].calls);
      CHECK(named.collectives[i].busy_s == unnamed.collectives[i].busy_s);
    }
  }
}

TEST_CASE("system: the Chrome trace is valid trace-event JSON with one event per task") {
  const models::ConfigRegistry reg;
  SystemQuery q;
  q.target = reg.model("llama-2-7b");
  q.draft = reg.model("llama-68m");
  q.x = 4;
  const SystemStep step = simulate_system_step(named_system("duodecoding-a800-xeon"), q, "roofline");
  std::ostringstream out;
  write_chrome_trace(step.graph, step.run, out);
  const std::string json = out.str();
  CHECK(json.rfind("{\"displayTimeUnit\":\"ms\",\"traceEvents\":[", 0) == 0);
  std::size_t events = 0, pos = 0;
  while ((pos = json.find("\"ph\":\"X\"", pos)) != std::string::npos) ++events, ++pos;
  CHECK(events == step.graph.task_count());
  CHECK(json.find("\"process_name\"") != std::string::npos);
  CHECK(json.find("\"thread_name\"") != std::string::npos);
  // Balanced braces and brackets outside strings (a structural check without a JSON library).
  int braces = 0, brackets = 0;
  bool in_string = false;
  for (std::size_t i = 0; i < json.size(); ++i) {
    const char c = json[i];
    if (c == '"' && (i == 0 || json[i - 1] != '\\')) in_string = !in_string;
    if (in_string) continue;
    braces += c == '{' ? 1 : c == '}' ? -1 : 0;
    brackets += c == '[' ? 1 : c == ']' ? -1 : 0;
    REQUIRE(braces >= 0);
    REQUIRE(brackets >= 0);
  }
  CHECK(braces == 0);
  CHECK(brackets == 0);
  CHECK_FALSE(in_string);
}

TEST_CASE("system: bad system files give one-line errors naming file and key") {
  CHECK_THAT(load_error(std::string(kTwoGpus) + "placement:\n  target: {stages: even, devices: [gpu]}\nbogus: 1\n"),
             Catch::Contains("bogus: unknown key"));
  CHECK_THAT(load_error("name: t\ndevices:\n  - {name: gpu, hardware: gpu9000}\nplacement:\n  target: {stages: even, devices: [gpu]}\n"),
             Catch::Contains("unknown hardware 'gpu9000'"));
  CHECK_THAT(load_error(std::string(kTwoGpus) + "placement:\n  target: {stages: even, devices: [tpu]}\n"),
             Catch::Contains("placement.target.devices") && Catch::Contains("'tpu'"));
  CHECK_THAT(load_error("name: t\ndevices:\n  - {name: gpu, hardware: rtx3090, count: 2}\nlinks:\n  - {link: warp-drive, topology: chain, devices: [gpu]}\nplacement:\n  target: {stages: even, devices: [gpu]}\n"),
             Catch::Contains("unknown link 'warp-drive'"));
  CHECK_THAT(load_error("name: t\ndevices:\n  - {name: gpu, hardware: rtx3090, count: 2}\nplacement:\n  target: {stages: even, devices: [gpu]}\n"),
             Catch::Contains("no path of links from gpu0 to gpu1"));
  CHECK_THAT(load_error(std::string(kTwoGpus) + "placement:\n  target:\n    stages:\n      - {devices: [gpu0], layers: 0-15}\n      - {devices: [gpu1], layers: 17-31}\n"),
             Catch::Contains("stages[1].layers") && Catch::Contains("start at layer 16"));
  CHECK_THAT(load_error(std::string(kTwoGpus) + "placement:\n  target:\n    stages:\n      - {devices: [gpu0], layers: 0-15}\n      - {devices: [gpu1], layers: 10-31}\n"),
             Catch::Contains("stages[1].layers"));
  CHECK_THAT(load_error(std::string(kTwoGpus) + "placement:\n  target:\n    stages:\n      - {devices: [gpu0], layers: 0-15}\n      - {devices: [gpu1], layers: 16-30}\n"),
             Catch::Contains("32 layers"));
  CHECK_THAT(load_error(std::string(kTwoGpus) + "placement:\n  target:\n    stages:\n      - {devices: [gpu0], layers: 9-3}\n"),
             Catch::Contains("layers") && Catch::Contains("'9-3'"));
  // A link type with zero bandwidth.
  const std::string link_dir = std::filesystem::path(write_system("x")).parent_path().string();
  std::ofstream(link_dir + "/zero.yaml") << "name: zero\nkind: ethernet\nbandwidth_gbs: 0\nefficiency: 0.9\nlatency_us: 1\nper_message_us: 1\n";
  CHECK_THAT(load_error("name: t\ndevices:\n  - {name: gpu, hardware: rtx3090, count: 2}\nlinks:\n  - {link: " + link_dir +
                        "/zero.yaml, topology: chain, devices: [gpu]}\nplacement:\n  target: {stages: even, devices: [gpu]}\n"),
             Catch::Contains("bandwidth_gbs") && Catch::Contains("got '0'"));
}

TEST_CASE("system: a tensor-parallel step pays the stack's per-step host work once, not per layer slice") {
  const models::ConfigRegistry reg;
  SystemQuery q;
  q.target = reg.model("llama-3.1-70b");
  q.x = 8;
  q.context = 1024;
  const models::SystemSpec s = named_system("eagle-8xh100-nvlink");
  const SystemStep analytic = simulate_system_step(s, q, "roofline");
  const SystemStep simulated = simulate_system_step(s, q, "sim");
  const auto& stack = s.devices.front().hardware.stack;
  REQUIRE(stack.cuda_graphs);
  const double once = (stack.per_step_host_us + stack.graph_launch_host_us) * 1e-6;
  // The SystemC GPU model equals the analytic kernels on a bare single stream; with a CUDA-graph
  // stack the step adds the per-step host work once, in series, or, under paper 004's engine
  // (which overlaps it with the GPU), only the graph launch.
  REQUIRE(stack.host_overlaps_device);
  CHECK(simulated.step_s - analytic.step_s == Approx(stack.graph_launch_host_us * 1e-6).margin(0.05 * once));
  models::SystemSpec series = s;
  for (auto& d : series.devices) d.hardware.stack.host_overlaps_device = false;
  CHECK(simulate_system_step(series, q, "sim").step_s - analytic.step_s == Approx(once).margin(0.05 * once));
}

TEST_CASE("system: a prefill step is the prompt's causal forward without the LM head") {
  const models::ConfigRegistry reg;
  const auto hw = reg.hardware("h100-sxm");
  const auto model = reg.model("llama-3.1-8b-instruct");
  sim::SystemQuery q;
  q.target = model;
  q.x = 2048;
  q.context = 0;
  q.prefill = true;
  q.task_names = false;
  const double prefill = sim::simulate_system_step(models::single_device_system(hw), q, "roofline").step_s;
  const auto engine = models::make_engine("roofline", hw);
  const double causal = engine->step(models::build_verify_graph(model, {2048, 0, 1, models::MaskKind::causal, false})).seconds;
  CHECK(prefill == Approx(causal).epsilon(1e-9));
  // Without the prefill flag the step verifies a 2048-token tree with its LM head: more work.
  q.prefill = false;
  CHECK(sim::simulate_system_step(models::single_device_system(hw), q, "roofline").step_s > prefill);
}

TEST_CASE("system: steps over one deployment's cost layer cost each distinct forward once, as a one-off step does") {
  const models::ConfigRegistry reg;
  SystemQuery q;
  q.target = reg.model("llama-3.1-70b");
  q.x = 4;
  q.context = 1024;
  q.task_names = false;
  for (const char* engine : {"roofline", "sim"}) {
    INFO("engine " << engine);
    const SystemCosts costs(named_system("eagle-8xh100-nvlink"), engine);
    const double first = simulate_system_step(costs, q).step_s;
    const long long evaluations = costs.evaluations();
    REQUIRE(evaluations > 0);
    // The same step again, and a one-off step's own cost layer: the same time, no new forward.
    CHECK(simulate_system_step(costs, q).step_s == first);
    CHECK(costs.evaluations() == evaluations);
    CHECK(simulate_system_step(named_system("eagle-8xh100-nvlink"), q, engine).step_s == first);
    // Another context adds forwards; the tensor-parallel step's slices repeat per layer, yet each
    // distinct slice is costed once: a handful of evaluations, not one per layer of 80.
    q.context = 2048;
    simulate_system_step(costs, q);
    CHECK(costs.evaluations() > evaluations);
    CHECK(costs.evaluations() - evaluations <= evaluations);
    CHECK(evaluations < 10);
    q.context = 1024;
  }
}

TEST_CASE("system: a tensor-parallel slice pays half a layer's host work and none of the step's, on both engines") {
  const models::ConfigRegistry reg;
  models::HardwareSpec hw = reg.hardware("h100-sxm");
  hw.stack.cuda_graphs = false;
  hw.stack.per_layer_host_us = 40;
  hw.stack.per_step_host_us = 300;
  hw.stack.kernel_launch_host_us = 5;
  models::StepGraph whole = models::build_verify_graph(reg.model("llama-3.1-8b-instruct"), {4, 1024, 1, models::MaskKind::tree, true});
  whole.layer_count = 2;
  models::StepGraph slice = whole;
  slice.step_host_apart = true;
  slice.layer_host_share = 0.5;
  // The same graph on a stack whose per-layer host work is halved and per-step work removed.
  models::HardwareSpec halved = hw;
  halved.stack.per_layer_host_us /= 2;
  halved.stack.per_step_host_us = 0;
  for (const char* engine : {"roofline", "sim"}) {
    INFO("engine " << engine);
    const double full = models::make_engine(engine, hw)->step(whole).seconds;
    const double part = models::make_engine(engine, hw)->step(slice).seconds;
    CHECK(part == Approx(models::make_engine(engine, halved)->step(whole).seconds).epsilon(1e-12));
    CHECK(part < full);
    CHECK(models::graph_fingerprint(slice) != models::graph_fingerprint(whole));
  }
}

TEST_CASE("system: device names that could mean two devices, and unknown method_stacks, are load errors") {
  // A group `gpu` of 2 (gpu0, gpu1) beside a group `gpu1`: two devices named gpu1.
  CHECK_THAT(load_error("name: t\ndevices:\n  - {name: gpu, hardware: rtx3090, count: 2}\n  - {name: gpu1, hardware: rtx3090}\n"
                        "placement:\n  target: {stages: even, devices: [gpu1]}\n"),
             Catch::Contains("devices[1].name") && Catch::Contains("'gpu1'") && Catch::Contains("group 'gpu'"));
  CHECK_THAT(load_error("name: t\ndevices:\n  - {name: '', hardware: rtx3090}\nplacement:\n  target: {stages: even, devices: ['']}\n"),
             Catch::Contains("devices[0].name") && Catch::Contains("non-empty"));
  CHECK_THAT(load_error(std::string(kTwoGpus) + "placement:\n  target: {stages: even, devices: [gpu]}\n"
                        "method_stacks:\n  pp+eagle: hf-accelerate\n"),
             Catch::Contains("method_stacks.pp+eagle") && Catch::Contains("pp+eagle3"));
}

TEST_CASE("system: a switch joins every ordered pair once, and past the link bound it is a load error") {
  const std::string head = "name: t\ndevices:\n  - {name: gpu, hardware: h100-sxm, count: ";
  const std::string tail = "}\nlinks:\n  - {link: nvlink4, topology: switch, devices: [gpu]}\n"
                           "placement:\n  target: {stages: even, devices: [gpu0]}\n";
  const models::ConfigRegistry reg;
  const auto s = models::load_system(write_system(head + "64" + tail), reg);
  REQUIRE(s.links.size() == 64u * 63u);
  for (int a = 0; a < 64; ++a)
    for (int b = 0; b < 64; ++b) {
      const auto* l = s.link_between(a, b);
      if (a == b) CHECK(l == nullptr);
      else REQUIRE((l != nullptr && l->from == a && l->to == b));
    }
  // Links edited after loading are still found (the index is a shortcut, not the truth).
  models::SystemSpec edited = s;
  edited.links.erase(edited.links.begin());
  CHECK(edited.link_between(0, 1) == nullptr);
  CHECK(edited.link_between(0, 2) != nullptr);
  CHECK_THAT(load_error(head + "1025" + tail), Catch::Contains("links[0].devices") && Catch::Contains("directed links"));
}

TEST_CASE("system: the deployment keeps each whole step, equal to a fresh one, keyed by what the step is") {
  const models::ConfigRegistry reg;
  const auto system = named_system("eagle-8xh100-nvlink");
  const sim::SystemCosts costs(system, "roofline");
  sim::SystemQuery q;
  q.target = reg.model("llama-3.1-70b");
  q.x = 8;
  q.context = 2048;
  q.batch = 4;
  const sim::SystemStepTimes kept = costs.system_step_times(q);
  q.task_names = false;
  const sim::SystemStep fresh = sim::simulate_system_step(costs, q);
  CHECK(kept.step_s == fresh.step_s);
  CHECK(kept.lead_wait_s == fresh.lead_wait_s);
  CHECK(kept.rank_weight_bytes == fresh.rank_weight_bytes);
  CHECK(costs.system_steps() == 1);
  CHECK(costs.system_step_times(q).step_s == kept.step_s);  // named tasks or not: one step
  CHECK(costs.system_steps() == 1);
  // Another shape, another model of another name, a head: each its own step.
  q.x = 9;
  CHECK(costs.system_step_times(q).step_s > kept.step_s);
  sim::SystemQuery other = q;
  other.target = reg.model("llama-3.1-8b-instruct");
  CHECK(costs.system_step_times(other).step_s < kept.step_s);
  sim::SystemQuery head = q;
  head.head = std::make_shared<models::AlgorithmSpec>(reg.algorithm("eagle-dense3-chain"));
  head.head_pass_widths = {4};
  head.verify = false;
  CHECK(costs.system_step_times(head).head_s > 0);
  CHECK(costs.system_steps() == 4);
}

TEST_CASE("system: a pipeline's stage period counts a draft head's passes on the stage whose GPU runs them") {
  const models::ConfigRegistry reg;
  // Four H100 stages; the head on the first stage's GPU or on the third's: either way it takes
  // turns with that stage's layers, and on a GPU of no stage it holds that GPU apart.
  auto pipeline = [&](const std::string& draft_device, int gpus) {
    return models::load_system(
        write_system(fmt::format("name: pp4\ndevices:\n  - {{name: gpu, hardware: h100-sxm, count: {}, stack: "
                                 "vllm-cuda-graph}}\nlinks:\n  - {{link: nvlink4, topology: switch, devices: [gpu]}}\n"
                                 "placement:\n  target:\n    stages:\n      - {{devices: [gpu0], layers: 0-19}}\n"
                                 "      - {{devices: [gpu1], layers: 20-39}}\n      - {{devices: [gpu2], layers: 40-59}}\n"
                                 "      - {{devices: [gpu3], layers: 60-79}}\n  draft: {{device: {}}}\n",
                                 gpus, draft_device)),
        reg);
  };
  SystemQuery q;
  q.target = reg.model("llama-3.1-70b");
  q.x = 4;
  q.context = 1024;
  SystemQuery with_head = q;
  with_head.head = std::make_shared<models::AlgorithmSpec>(reg.algorithm("eagle-dense3-chain"));
  with_head.head_pass_widths = {1, 1, 1};
  const double bare = simulate_system_step(pipeline("gpu0", 4), q, "roofline").stage_period_s;
  for (const std::string device : {"gpu0", "gpu2"}) {
    INFO("head on " << device);
    const SystemStep step = simulate_system_step(pipeline(device, 4), with_head, "roofline");
    CHECK(step.head_s > 0);
    // That GPU computes its layers and the head's passes in the step: the period holds both.
    double busy = 0;
    for (const auto& d : step.devices)
      if (d.device == device) busy = d.busy_s;
    CHECK(busy > step.head_s);
    CHECK(step.stage_period_s >= busy * (1 - 1e-9));
    CHECK(step.stage_period_s >= bare);
  }
  // On a fifth GPU holding no stage the head's device is held apart: the stages' period stands.
  const SystemStep apart = simulate_system_step(pipeline("gpu4", 5), with_head, "roofline");
  CHECK(apart.stage_period_s == Approx(std::max(bare, apart.head_s)).epsilon(0.01));
}

TEST_CASE("system: a head pass pays its stack's proposer host work once, on one GPU and tensor-parallel") {
  const models::ConfigRegistry reg;
  auto system = [&](int tp, const std::string& stack) {
    std::string devices = "gpu0";
    for (int i = 1; i < tp; ++i) devices += fmt::format(", gpu{}", i);
    return models::load_system(
        write_system(fmt::format("name: tp\ndevices:\n  - {{name: gpu, hardware: h100-sxm, count: {0}, stack: {1}}}\n"
                                 "links:\n  - {{link: nvlink4, topology: switch, devices: [gpu]}}\n"
                                 "placement:\n  target:\n    stages:\n      - {{devices: [{2}], layers: 0-31}}\n"
                                 "  draft: {{device: gpu0}}\n",
                                 std::max(tp, 2), stack, devices)),
        reg);
  };
  SystemQuery q;
  q.target = reg.model("llama-3.1-8b-instruct");
  q.context = 1024;
  q.head = std::make_shared<models::AlgorithmSpec>(reg.algorithm("eagle3-chain"));
  q.head_pass_widths = {4, 1, 1};
  q.verify = false;
  const double per_pass_s = models::load_software_stack(reg.path("stacks", "vllm-v1-inprocess")).per_draft_pass_host_us * 1e-6;
  REQUIRE(per_pass_s > 0);
  for (int tp : {1, 2}) {
    INFO("tp " << tp);
    // The two vLLM V1 stacks differ in their per-step work, which a head's passes do not pay.
    const double with = simulate_system_step(system(tp, "vllm-v1-inprocess"), q, "roofline").head_s;
    const double without = simulate_system_step(system(tp, "vllm-cuda-graph"), q, "roofline").head_s;
    CHECK(with - without == Approx(3 * per_pass_s).epsilon(1e-6));
  }
}
