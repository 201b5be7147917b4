// The EAGLE dispatcher over paper 004's tensor-parallel host (eagle-8xh100-nvlink): the system
// step's TP slices per layer (Maverick's interleaved dense/MoE layers counted once each), expert
// FFNs sharded, all-reduce time against hidden size and batch, memory fit per GPU, and the
// dispatcher's choices against batch.
#include <catch2/catch.hpp>

#include <memory>

#include "models/config_error.hpp"
#include "models/config_registry.hpp"
#include "models/engine_registry.hpp"
#include "models/system_spec.hpp"
#include "search/scenarios/eagle_dispatcher/eagle_dispatcher.hpp"
#include "sim/system/system_step.hpp"

using namespace search;

namespace {

struct Tp {
  models::ConfigRegistry reg;
  models::SystemSpec system = models::load_system(reg.path("systems", "eagle-8xh100-nvlink"), reg);
  models::Workload workload(const std::string& model) const {
    models::Workload w{reg.model(model), nullptr, 1};
    w.algorithm = std::make_shared<models::AlgorithmSpec>(eagle_head_for_target(reg.algorithm("eagle3-chain"), w.target));
    return w;
  }
  sim::SystemStep verify(const std::string& model, int x, int batch, long long context) const {
    sim::SystemQuery q;
    q.target = reg.model(model);
    q.x = x;
    q.batch = batch;
    q.context = context;
    return sim::simulate_system_step(sim::without_host_work(system), q, "roofline");
  }
};

int compute_tasks_on(const sim::SystemStep& st, int resource) {
  int n = 0;
  for (const auto& t : st.graph.tasks()) n += t.category == "compute" && t.resource == resource;
  return n;
}

}  // namespace

TEST_CASE("TP shard: experts' FFNs are split across the ranks, the router is not") {
  const models::ConfigRegistry reg;
  const auto m = reg.model("llama-4-maverick");
  const auto s = sim::tensor_parallel_shard(m, 8, "test");
  CHECK(s.moe_intermediate_size == m.moe_intermediate_size / 8);
  CHECK(s.num_experts == m.num_experts);
  CHECK(s.intermediate_size == m.intermediate_size / 8);
  auto odd = m;
  odd.moe_intermediate_size = 8190;  // not a multiple of 8
  CHECK_THROWS_AS(sim::tensor_parallel_shard(odd, 8, "test"), models::InputError);
}

TEST_CASE("TP system step: Maverick's 48 layers run once each (24 dense + 24 MoE), weights are 1/8 per GPU") {
  const Tp tp;
  const auto st = tp.verify("llama-4-maverick", 1, 256, 1024);
  // Rank 0's stream: two slices (attention, MLP) per layer, then its LM-head shard.
  const int rank0 = 0;  // device resources are added first, in device order
  CHECK(compute_tasks_on(st, rank0) == 48 * 2 + 1);
  // 256 tokens touch nearly all 128 experts: one rank reads close to 1/8 of the parameters.
  const auto m = tp.reg.model("llama-4-maverick");
  const double all = m.parameters() * m.weight_bytes_per_param() / 8;
  CHECK(st.rank_weight_bytes < all);
  CHECK(st.rank_weight_bytes > 0.85 * all);
}

TEST_CASE("TP all-reduce time grows with batch and with hidden size") {
  const Tp tp;
  const auto small = tp.verify("llama-3.1-8b-instruct", 4, 1, 1024);
  const auto big = tp.verify("llama-3.1-8b-instruct", 4, 128, 1024);
  CHECK(big.lead_wait_s > small.lead_wait_s);
  // Per all-reduce (two per layer): 70B's hidden 8192 against the 8B's 4096 at the same tokens.
  const auto wide = tp.verify("llama-3.1-70b", 4, 128, 1024);
  CHECK(wide.lead_wait_s / (2 * 80) > big.lead_wait_s / (2 * 32));
}

TEST_CASE("EAGLE head on the TP group: sharded passes cost less than the head on one GPU") {
  const Tp tp;
  const auto w = tp.workload("llama-3.1-70b");
  sim::SystemQuery q;
  q.target = w.target;
  q.batch = 64;
  q.context = 4096;
  q.head = w.algorithm;
  q.head_pass_widths = {1, 1, 1};
  q.verify = false;
  const auto st = sim::simulate_system_step(sim::without_host_work(tp.system), q, "roofline");
  CHECK(st.head_s > 0);
  const models::ConfigRegistry reg;
  auto hw = reg.hardware("h100-sxm");
  hw.stack = models::SoftwareStack{};
  const auto engine = models::make_engine("roofline", hw);
  models::Workload one = w;
  one.batch = 64;
  CHECK(st.head_s < models::t_draft_passes(*engine, one, {1, 1, 1}, 4096));
  q.head_pass_widths = {0};
  CHECK_THROWS_AS(sim::simulate_system_step(tp.system, q, "roofline"), models::InputError);
}

TEST_CASE("Memory: Llama-3.1-8B at batch 128 x 8k fits 8 GPUs but not one") {
  const Tp tp;
  const auto w = tp.workload("llama-3.1-8b-instruct");
  const auto acc = paper004_acceptance(models::ConfigRegistry::default_config_dir(), w.target.name);
  EagleDispatchOptions o;
  o.batches = {128};
  o.context = 8192;
  o.only_trees = {"D3-BF1"};
  const auto sys_costs = make_system_eagle_costs(tp.system, w, "roofline");
  const auto on_system = eagle_dispatch(*sys_costs, acc, o);
  CHECK(on_system[0].feasible);
  auto hw = tp.reg.hardware("h100-sxm");
  hw.stack = models::SoftwareStack{};
  const auto engine = models::make_engine("roofline", hw);
  const auto one_costs = make_engine_eagle_costs(*engine, w, models::load_software_stack(tp.reg.path("stacks", "vllm-cuda-graph")));
  const auto on_one = eagle_dispatch(*one_costs, acc, o);
  CHECK_FALSE(on_one[0].feasible);
  CHECK(on_one[0].status.find("infeasible: needs") == 0);
}

TEST_CASE("Dispatcher on the TP system, Llama-3.1-8B: the tree shrinks as batch grows, a chain at batch 128 (of 3 among depth-3 trees)") {
  const Tp tp;
  const auto w = tp.workload("llama-3.1-8b-instruct");
  EagleDispatchOptions o;
  o.batches = {1, 16, 128};
  o.context = 1024;
  const auto costs = make_system_eagle_costs(tp.system, w, "roofline");
  const auto rows = eagle_dispatch(*costs, paper004_acceptance(models::ConfigRegistry::default_config_dir(), w.target.name), o);
  REQUIRE(rows.size() == 3);
  for (std::size_t i = 1; i < rows.size(); ++i) {
    INFO("batch " << rows[i].batch << " " << rows[i].tree << " after " << rows[i - 1].tree);
    CHECK(rows[i].feasible);
    CHECK(rows[i].x < rows[i - 1].x);
  }
  // At batch 128 every branching tree's extra verify compute and all-reduce bytes cost more than
  // its extra tokens earn: a chain.
  const std::string& last = rows.back().tree;
  CHECK(last.size() >= 4);
  CHECK(last.compare(last.size() - 4, 4, "-BF1") == 0);
  // Among the paper's production trees (speculation length 3, §2.2 and Fig. 8) that chain is
  // the chain of 3, the paper's choice for batches above one (§3.4).
  o.max_full_depth = o.pruned_max_depth = 3;
  const auto paper_set = eagle_dispatch(*costs, paper004_acceptance(models::ConfigRegistry::default_config_dir(), w.target.name), o);
  CHECK(paper_set.front().x > paper_set.back().x);
  CHECK(paper_set.back().tree == "D3-BF1");
}

TEST_CASE("Llama 4 Maverick: BF16 does not fit 8x H100, FP8 does, and its speed-up falls with batch (expert reads)") {
  const Tp tp;
  EagleDispatchOptions o;
  o.batches = {1, 128};
  o.context = 8192;
  const auto acc = paper004_acceptance(models::ConfigRegistry::default_config_dir(), "llama-4-maverick");
  const auto bf16 = make_system_eagle_costs(tp.system, tp.workload("llama-4-maverick"), "roofline");
  CHECK_FALSE(eagle_dispatch(*bf16, acc, o)[0].feasible);
  const auto fp8 = make_system_eagle_costs(tp.system, tp.workload("llama-4-maverick@fp8"), "roofline");
  const auto rows = eagle_dispatch(*fp8, acc, o);
  REQUIRE(rows[0].feasible);
  REQUIRE(rows[1].feasible);
  CHECK(rows[1].speedup < rows[0].speedup);
  // The reason: B x x tokens touch more experts than B tokens, so the verify reads more weights
  // than plain decoding does at every batch short of all experts.
  CHECK(rows[0].weight_bytes > rows[0].ar_weight_bytes);
}

TEST_CASE("Named trees: beyond the head's depth or branching, or more nodes than allowed, are errors") {
  const auto acc = paper004_acceptance(models::ConfigRegistry::default_config_dir(), "llama-3.1-8b-instruct");
  EagleDispatchOptions o;
  CHECK(eagle_named_tree(acc, "D3-BF1", o).tree.draft_nodes() == 3);
  CHECK(eagle_named_tree(acc, "N8", o).tree.draft_nodes() == 8);
  for (const std::string bad : {"D7-BF1", "D2-BF5", "N65", "N0", "D3-BF4", "X3", "D3-BF1x"}) {
    INFO(bad);
    CHECK_THROWS_AS(eagle_named_tree(acc, bad, o), models::InputError);
  }
}
