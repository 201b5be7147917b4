#include <catch2/catch.hpp>

#include <memory>

#include "models/config_error.hpp"
#include "models/config_registry.hpp"
#include "models/engine_registry.hpp"
#include "models/software_stack.hpp"
#include "search/scenarios/eagle_dispatcher/eagle_dispatcher.hpp"
#include "search/scenarios/scenario.hpp"

using namespace search;

namespace {
struct Setup {
  models::ConfigRegistry reg;
  models::HardwareSpec hw = reg.hardware("h100-sxm");
  std::unique_ptr<models::LatencyEngine> engine = models::make_engine("roofline", hw);
  models::SoftwareStack stack = models::load_software_stack(reg.path("stacks", "vllm-cuda-graph"));
  models::Workload workload(const std::string& model) const {
    return {reg.model(model), std::make_shared<models::AlgorithmSpec>(reg.algorithm("eagle3-chain")), 1};
  }
};
}  // namespace

TEST_CASE("EAGLE pass widths: the root, then each depth's nodes with children") {
  CHECK(eagle_pass_widths(full_tree(3, 1)) == std::vector<int>{1, 1, 1});
  CHECK(eagle_pass_widths(full_tree(2, 3)) == std::vector<int>{1, 3});
  CHECK(eagle_pass_widths(TokenTree()).empty());
}

TEST_CASE("Dispatcher on H100, Llama-3.1-8B: SD helps at batch 1, the tree shrinks (weakly) with batch") {
  const Setup s;
  const auto w = s.workload("llama-3.1-8b-instruct");
  EagleDispatchOptions o;
  o.batches = {1, 2, 4, 8, 16, 32, 64, 128};
  o.context = 1024;
  const auto rows = eagle_dispatch(*s.engine, w, s.stack, paper004_acceptance(models::ConfigRegistry::default_config_dir(), w.target.name), o);
  REQUIRE(rows.size() == 8);
  CHECK(rows[0].speedup > 1.0);
  for (std::size_t i = 1; i < rows.size(); ++i) {
    INFO("batch " << rows[i].batch << " tree " << rows[i].tree << " after " << rows[i - 1].tree);
    CHECK(rows[i].x <= rows[i - 1].x);
  }
  // Dense model: the weights a step reads do not depend on batch or tree.
  CHECK(rows.front().weight_bytes == Approx(rows.back().weight_bytes));
  CHECK(rows.front().weight_bytes == Approx(rows.front().ar_weight_bytes));
  // Each row is the best of its batch: no candidate is faster per sequence.
  const auto cands = eagle_tree_candidates(paper004_acceptance(models::ConfigRegistry::default_config_dir(), w.target.name), o);
  for (const auto& c : cands)
    CHECK(evaluate_eagle_tree(*s.engine, w, s.stack, c, 4, 1024).tokens_per_s <= rows[2].tokens_per_s + 1e-9);
}

TEST_CASE("Dispatcher with a latency target keeps the step within it") {
  const Setup s;
  const auto w = s.workload("llama-3.1-8b-instruct");
  EagleDispatchOptions o;
  o.batches = {1, 64};
  const auto free = eagle_dispatch(*s.engine, w, s.stack, paper004_acceptance(models::ConfigRegistry::default_config_dir(), w.target.name), o);
  o.latency_target_s = 0.98 * free[0].ttit_s;  // the unconstrained choice misses it
  const auto held = eagle_dispatch(*s.engine, w, s.stack, paper004_acceptance(models::ConfigRegistry::default_config_dir(), w.target.name), o);
  CHECK(held[0].ttit_s <= o.latency_target_s);
  CHECK(held[0].meets_target);
  CHECK(held[0].tokens_per_s <= free[0].tokens_per_s);
  o.latency_target_s = 1e-6;  // nothing meets a microsecond: the fastest step, flagged
  CHECK_FALSE(eagle_dispatch(*s.engine, w, s.stack, paper004_acceptance(models::ConfigRegistry::default_config_dir(), w.target.name), o)[0].meets_target);
}

TEST_CASE("Dispatcher: a speculative step's own host work is charged once per step and costs small batches most") {
  const Setup s;
  const auto w = s.workload("llama-3.1-8b-instruct");
  const auto acc = paper004_acceptance(models::ConfigRegistry::default_config_dir(), w.target.name);
  const EagleTreeCandidate chain{"D3-BF1", full_tree(3, 1), tree_tpc(acc, full_tree(3, 1)), {1, 1, 1}};
  const auto costs = make_engine_eagle_costs(*s.engine, w, s.stack);
  for (int b : {1, 64}) {
    const auto none = evaluate_eagle_tree(*costs, chain, b, 1024);
    const auto some = evaluate_eagle_tree(*costs, chain, b, 1024, 2e-3);
    INFO("batch " << b);
    CHECK(some.t_host_s == Approx(none.t_host_s + 2e-3));
    CHECK(some.ttit_s == Approx(none.ttit_s + 2e-3));
    CHECK(some.ar_step_s == Approx(none.ar_step_s));  // plain decoding does not pay it
  }
  const auto loss = [&](int b) {
    return evaluate_eagle_tree(*costs, chain, b, 1024, 2e-3).speedup / evaluate_eagle_tree(*costs, chain, b, 1024).speedup;
  };
  CHECK(loss(1) < loss(64));  // the longer the GPU step, the less the same host work weighs
  CHECK_THROWS_AS(evaluate_eagle_tree(*costs, chain, 1, 1024, -1e-3), models::InputError);
}

TEST_CASE("MoE target: verify weight reads grow with batch (distinct experts)") {
  const Setup s;
  const auto w = s.workload("llama-4-scout");
  const auto acc = paper004_acceptance(models::ConfigRegistry::default_config_dir(), "llama-4-scout");
  EagleDispatchOptions o;
  const EagleTreeCandidate chain{"D3-BF1", full_tree(3, 1), tree_tpc(acc, full_tree(3, 1)), {1, 1, 1}};
  double last = 0;
  for (int b : {1, 2, 4, 8}) {
    const auto r = evaluate_eagle_tree(*s.engine, w, s.stack, chain, b, 1024);
    CHECK(r.weight_bytes > last);
    CHECK(r.weight_bytes > r.ar_weight_bytes);  // 4 tokens per sequence touch more experts than 1
    last = r.weight_bytes;
  }
}

TEST_CASE("Dispatcher bad input: batch 0, no draft") {
  const Setup s;
  const auto acc = paper004_acceptance(models::ConfigRegistry::default_config_dir(), "llama-3.1-8b-instruct");
  const EagleTreeCandidate chain{"D3-BF1", full_tree(3, 1), tree_tpc(acc, full_tree(3, 1)), {1, 1, 1}};
  CHECK_THROWS_AS(evaluate_eagle_tree(*s.engine, s.workload("llama-3.1-8b-instruct"), s.stack, chain, 0, 1024),
                  models::InputError);
  models::Workload none{s.reg.model("llama-3.1-8b-instruct"), nullptr, 1};
  CHECK_THROWS_AS(evaluate_eagle_tree(*s.engine, none, s.stack, chain, 1, 1024), models::InputError);
}

TEST_CASE("Scenario eagle-dispatcher is registered") {
  CHECK(scenario("eagle-dispatcher").name == "eagle-dispatcher");
}

TEST_CASE("Dispatcher host work: in series under vLLM's stack, hidden behind the GPU under paper 004's engine") {
  const models::ConfigRegistry reg;
  const auto vllm = models::load_software_stack(reg.path("stacks", "vllm-cuda-graph"));
  const auto engine = models::load_software_stack(reg.path("stacks", "paper004-engine"));
  REQUIRE(!vllm.host_overlaps_device);
  REQUIRE(engine.host_overlaps_device);
  // A verify and two draft passes: 300 us of per-step work and three 10 us graph launches.
  CHECK(search::eagle_host_seconds(vllm, models::HostSpec{}, 3, 5e-3) == Approx(330e-6));
  CHECK(search::eagle_host_seconds(vllm, models::HostSpec{}, 3, 0) == Approx(330e-6));
  // Overlapped: the first launch always shows; the rest only where it outlasts the GPU's work.
  CHECK(search::eagle_host_seconds(engine, models::HostSpec{}, 3, 5e-3) == Approx(10e-6));
  CHECK(search::eagle_host_seconds(engine, models::HostSpec{}, 3, 100e-6) == Approx(10e-6 + (320e-6 - 100e-6)));
  CHECK(search::eagle_host_seconds(engine, models::HostSpec{}, 3, 0) == Approx(330e-6));
  // On the paper's host a step of the 8B pays less host time than under vLLM's stack, never more.
  for (double device_s : {1e-6, 1e-4, 1e-3, 1e-2})
    CHECK(search::eagle_host_seconds(engine, models::HostSpec{}, 1, device_s) <= search::eagle_host_seconds(vllm, models::HostSpec{}, 1, device_s));
}

TEST_CASE("Dispatcher: the proposer's host work per head pass is paid in series, also where the step's work overlaps") {
  const models::ConfigRegistry reg;
  auto inprocess = models::load_software_stack(reg.path("stacks", "vllm-v1-inprocess"));
  auto engine = models::load_software_stack(reg.path("stacks", "paper004-engine"));
  REQUIRE(inprocess.per_draft_pass_host_us > 0);
  const double per_pass_s = inprocess.per_draft_pass_host_us * 1e-6;
  auto without = inprocess;
  without.per_draft_pass_host_us = 0;
  // A verify and three head passes; a plain step has no head pass.
  CHECK(search::eagle_host_seconds(inprocess, models::HostSpec{}, 4, 5e-3) - search::eagle_host_seconds(without, models::HostSpec{}, 4, 5e-3) ==
        Approx(3 * per_pass_s));
  CHECK(search::eagle_host_seconds(inprocess, models::HostSpec{}, 1, 5e-3) == search::eagle_host_seconds(without, models::HostSpec{}, 1, 5e-3));
  // Overlapped step work hides behind the GPU; the proposer's work does not.
  const double hidden = search::eagle_host_seconds(engine, models::HostSpec{}, 4, 5e-3);
  engine.per_draft_pass_host_us = 100;
  CHECK(search::eagle_host_seconds(engine, models::HostSpec{}, 4, 5e-3) - hidden == Approx(300e-6));
}

TEST_CASE("Dispatcher: per-sequence host work grows with the batch and is spread over a speculative step's tokens") {
  const models::ConfigRegistry reg;
  auto engine = models::load_software_stack(reg.path("stacks", "paper004-engine"));
  // Overlapped: 300 us + 100 us x 64 sequences of host work beside 2 ms of GPU work.
  CHECK(search::eagle_host_seconds(engine, models::HostSpec{}, 1, 2e-3, 64, 100) == Approx(10e-6 + (300e-6 + 6.4e-3 - 2e-3)));
  // The stack's own figure unless one is given.
  engine.per_sequence_host_us = 50;
  CHECK(search::eagle_host_seconds(engine, models::HostSpec{}, 1, 0, 8) == Approx(300e-6 + 400e-6 + 10e-6));
  CHECK(search::eagle_host_seconds(engine, models::HostSpec{}, 1, 0, 8, 0) == Approx(310e-6));
}

TEST_CASE("Dispatcher on paper 004's host: per-sequence host work turns the 8B's trend before Maverick's") {
  // Paper 004 §3.5: the 8B's speed-up grows with batch, Maverick's falls. Host work per sequence,
  // overlapped with the GPU, makes a large batch's plain step wait on the host where the GPU's
  // step is short (the 8B on eight GPUs) and not where it is long (Maverick's experts).
  const models::ConfigRegistry reg;
  const auto system = models::load_system(reg.path("systems", "eagle-8xh100-nvlink"), reg);
  auto trend = [&](const std::string& model, double seq_host_us) {
    models::Workload w;
    // As paper 004 deploys it (and eagle-fig9): Maverick in FP8.
    w.target = reg.model(model == "llama-4-maverick" ? model + "@fp8" : model);
    w.algorithm = std::make_shared<models::AlgorithmSpec>(
        eagle_head_for_target(reg.algorithm(kDefaultEagleHead), w.target));
    const auto costs = make_system_eagle_costs(system, w, "roofline");
    EagleDispatchOptions o;
    o.batches = {1, 128};
    o.context = 8192;
    o.pruned_max_depth = o.max_full_depth = 3;
    o.sequence_host_us = seq_host_us;
    const auto rows = eagle_dispatch(*costs, paper004_acceptance(reg.dir(), model), o);
    REQUIRE(rows.size() == 2);
    REQUIRE(rows[1].feasible);
    // The plain step waits at least on the batch's host work.
    CHECK(rows[1].ar_step_s >= seq_host_us * 1e-6 * 128);
    return rows[1].speedup / rows[0].speedup;
  };
  CHECK(trend("llama-3.1-8b-instruct", 0) < 1);
  CHECK(trend("llama-3.1-8b-instruct", 150) > 1);
  CHECK(trend("llama-4-maverick", 150) < 1);
}
