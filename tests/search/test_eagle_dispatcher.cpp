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
  CHECK(search::eagle_host_seconds(vllm, 3, 5e-3) == Approx(330e-6));
  CHECK(search::eagle_host_seconds(vllm, 3, 0) == Approx(330e-6));
  // Overlapped: the first launch always shows; the rest only where it outlasts the GPU's work.
  CHECK(search::eagle_host_seconds(engine, 3, 5e-3) == Approx(10e-6));
  CHECK(search::eagle_host_seconds(engine, 3, 100e-6) == Approx(10e-6 + (320e-6 - 100e-6)));
  CHECK(search::eagle_host_seconds(engine, 3, 0) == Approx(330e-6));
  // On the paper's host a step of the 8B pays less host time than under vLLM's stack, never more.
  for (double device_s : {1e-6, 1e-4, 1e-3, 1e-2})
    CHECK(search::eagle_host_seconds(engine, 1, device_s) <= search::eagle_host_seconds(vllm, 1, device_s));
}
