// eagle-dispatcher (paper 004): per batch size, the static EAGLE tree maximising per-sequence
// decode speed TPC / TTIT (or meeting a step-latency target) and its speed-up over plain
// decoding (search/scenarios/eagle_dispatcher/eagle_dispatcher.hpp).
#include <fmt/format.h>

#include <algorithm>
#include <string>

#include "models/config_error.hpp"
#include "models/config_registry.hpp"
#include "models/system_spec.hpp"
#include "search/scenarios/eagle_dispatcher/eagle_dispatcher.hpp"
#include "search/scenarios/scenario.hpp"

namespace search {
namespace {

ScenarioResult run_eagle_dispatcher(const ScenarioContext& ctx) {
  const std::string system = ctx.params.at("system");
  ctx.require(ctx.engine != nullptr || !system.empty(), "--hw or --param system=NAME");
  ctx.require(ctx.workload != nullptr && ctx.workload->algorithm != nullptr, "--model and --algorithm");
  ctx.require(!ctx.contexts.empty(), "--context");
  EagleDispatchOptions o;
  o.batches.clear();
  for (long long b : ctx.integers("batches")) o.batches.push_back(int(b));
  o.max_tree_nodes = int(ctx.integer("max-nodes"));
  o.latency_target_s = ctx.real("latency-target-ms") * 1e-3;
  const auto acceptance = paper004_acceptance(ctx.workload->target.name);
  models::SoftwareStack stack;  // --hw's stack; the bare default charges no host time
  std::unique_ptr<EagleCostModel> costs;
  std::string where;
  if (!system.empty()) {  // tensor parallel on the system's timeline, head shaped as the target's layer
    ctx.require(ctx.configs != nullptr, "a config registry");
    models::Workload w = *ctx.workload;
    w.algorithm = std::make_shared<models::AlgorithmSpec>(eagle_head_for_target(*w.algorithm, w.target));
    const auto spec = models::load_system(ctx.configs->path("systems", system), *ctx.configs);
    stack = spec.devices[std::size_t(spec.stages.front().devices.front())].hardware.stack;
    costs = make_system_eagle_costs(spec, w, ctx.engine ? ctx.engine->name() : "roofline");
    where = spec.name;
  } else {
    stack = ctx.hw->stack;
    costs = make_engine_eagle_costs(*ctx.engine, *ctx.workload, stack);
    where = ctx.hw->name;
  }
  ScenarioResult r;
  r.columns = {"where", "model", "context", "batch", "tree", "x", "tpc", "t_verify_s", "t_draft_s", "t_host_s",
               "ttit_s", "tokens_per_s_per_seq", "ar_step_s", "speedup", "weight_bytes", "ar_weight_bytes",
               "meets_target"};
  for (long long L : ctx.contexts) {
    o.context = L;
    for (const auto& row : eagle_dispatch(*costs, acceptance, o))
      r.rows.push_back({where, ctx.workload->target.name, std::int64_t(L), std::int64_t(row.batch), row.tree,
                        std::int64_t(row.x), row.tpc, row.t_verify_s, row.t_draft_s, row.t_host_s, row.ttit_s,
                        row.tokens_per_s, row.ar_step_s, row.speedup, row.weight_bytes, row.ar_weight_bytes,
                        std::string(row.meets_target ? "yes" : "no")});
  }
  r.footer = "acceptance: " + acceptance.source() + "; host: stack " + stack.name;
  return r;
}

const ScenarioRegistration registered(
    {"eagle-dispatcher",
     "EAGLE tree dispatcher (paper 004): per batch, the tree maximising TPC/TTIT, speed-up over plain decoding",
     {param::integers("batches", "1,2,4,8,16,32,64,128", 1, 4096, "sequences", "batch sizes"),
      param::integer("max-nodes", 64, 1, 1024, "nodes", "largest candidate tree (draft nodes)"),
      param::real("latency-target-ms", 0, 0, 1e6, "ms", "step (TTIT) target; 0: none"),
      param::text("system", "", "a system (e.g. eagle-8xh100-nvlink): tensor parallel instead of --hw")},
     run_eagle_dispatcher,
     false,
     {"hw", "model", "algorithm", "context", "engine"},
     {"model", "algorithm", "context"}});

}  // namespace
}  // namespace search
