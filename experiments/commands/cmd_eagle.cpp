// specdse eagle: the EAGLE tree dispatcher of paper 004 on one GPU (--hw) or a tensor-parallel
// system (--system: target and head sharded over the first stage's GPUs, all-reduces on the
// link model, on the SystemC timeline): per batch size, the static tree (full D_m-BF_n or pruned
// N_i) maximising per-sequence decode speed TPC / TTIT, or the fastest-per-token tree whose step
// meets --latency-target-ms, with the speed-up over plain decoding and the step's breakdown
// (search/scenarios/eagle_dispatcher/eagle_dispatcher.hpp). Batches that do not fit a GPU's
// memory are reported infeasible, not timed.
#include <fmt/format.h>

#include <algorithm>

#include "experiments/cli/cli_common.hpp"
#include "experiments/cli/workload_setup.hpp"
#include "models/config_error.hpp"
#include "models/software_stack.hpp"
#include "search/scenarios/eagle_dispatcher/eagle_dispatcher.hpp"
#include "models/system_spec.hpp"
#include "search/scenarios/eagle_dispatcher/eagle_costs.hpp"

namespace experiments {
namespace {

struct EagleArgs {
  std::string hw, system, model, draft = "eagle-dense3-chain", batch = "1,2,4,8,16,32,64,128", context = "1024",
              stack = "vllm-cuda-graph", engine, format;
  std::vector<std::string> trees;
  double latency_target_ms = 0;
  double sd_host_us = 0;
  int max_nodes = 64;
  int max_depth = search::kMaxDraftDepth;
};

int run_eagle(const EagleArgs& a, const GlobalOptions& g) {
  if (a.hw.empty() == a.system.empty())
    throw models::InputError("eagle: give exactly one of --hw (one GPU) and --system (tensor parallel)");
  if (a.latency_target_ms < 0)
    throw models::InputError(fmt::format("eagle: --latency-target-ms must be >= 0, got {}", a.latency_target_ms));
  if (a.max_depth < 1 || a.max_depth > search::kMaxDraftDepth)
    throw models::InputError(fmt::format("eagle: --max-depth must be in 1..{} (the levels the EAGLE head drafts), got {}",
                                         search::kMaxDraftDepth, a.max_depth));
  const auto reg = registry(g);
  auto w = make_workload(reg, a.model, a.draft);
  if (!w.algorithm) throw models::InputError("eagle: --draft: an EAGLE head algorithm is required");
  // Paper 004 trains a head per target: its layer takes the target's layer shape.
  w.algorithm = std::make_shared<models::AlgorithmSpec>(search::eagle_head_for_target(*w.algorithm, w.target));
  const auto acceptance = search::paper004_acceptance(w.target.name);
  std::unique_ptr<models::LatencyEngine> engine;
  std::unique_ptr<search::EagleCostModel> costs;
  std::string where, host_note;
  if (!a.hw.empty()) {
    auto hw = reg.hardware(a.hw);
    hw.stack = models::SoftwareStack{};  // the engine costs kernels; host time is added per step
    const auto stack = models::load_software_stack(reg.path("stacks", a.stack));
    engine = make_engine(a.engine, hw);
    costs = search::make_engine_eagle_costs(*engine, w, stack);
    host_note = fmt::format("stack {} ({} us + graph launches)", stack.name, stack.per_step_host_us);
  } else {
    const auto system = models::load_system(reg.path("systems", a.system), reg);
    const auto& lead = system.devices[std::size_t(system.stages.front().devices.front())].hardware.stack;
    host_note = fmt::format("stack {} of the system's GPUs ({} us + graph launches)", lead.name, lead.per_step_host_us);
    costs = search::make_system_eagle_costs(system, w, a.engine.empty() ? "roofline" : a.engine);
  }
  search::EagleDispatchOptions o;
  o.batches.clear();
  for (long long b : parse_int_list("--batch", a.batch, 1)) o.batches.push_back(int(b));
  o.max_tree_nodes = a.max_nodes;
  o.max_full_depth = std::min(o.max_full_depth, a.max_depth);
  o.pruned_max_depth = std::min(o.pruned_max_depth, a.max_depth);
  o.latency_target_s = a.latency_target_ms * 1e-3;
  o.speculative_host_s = a.sd_host_us * 1e-6;
  if (a.sd_host_us > 0) host_note += fmt::format(", plus {} us per speculative step (--sd-host-us)", a.sd_host_us);
  o.only_trees = a.trees;
  Table t({"where", "model", "context", "batch", "tree", "x", "tpc", "t_verify_ms", "t_draft_ms", "t_host_ms",
           "t_wait_ms", "ttit_ms", "tokens_per_s_per_seq", "ar_step_ms", "ar_wait_ms", "speedup", "weight_gb",
           "ar_weight_gb", "kv_gb", "meets_target", "status"});
  for (long long L : parse_int_list("--context", a.context, 0)) {
    o.context = L;
    for (const auto& r : search::eagle_dispatch(*costs, acceptance, o)) {
      if (!r.feasible) {  // weights and KV cache do not fit a GPU: no times
        std::vector<Cell> row = {costs->where(), w.target.name, integer(L), integer(r.batch)};
        while (row.size() + 1 < t.columns().size()) row.push_back(text(""));
        row.push_back(r.status);
        t.add_row(row);
        continue;
      }
      t.add_row({costs->where(), w.target.name, integer(L), integer(r.batch), r.tree, integer(r.x), num(r.tpc, 3),
                 num(r.t_verify_s * 1e3), num(r.t_draft_s * 1e3), num(r.t_host_s * 1e3), num(r.t_wait_s * 1e3),
                 num(r.ttit_s * 1e3), num(r.tokens_per_s), num(r.ar_step_s * 1e3), num(r.ar_wait_s * 1e3),
                 num(r.speedup, 3), num(r.weight_bytes * 1e-9), num(r.ar_weight_bytes * 1e-9), num(r.kv_bytes * 1e-9),
                 std::string(r.meets_target ? "yes" : "no"), r.status});
    }
  }
  t.set_footer(fmt::format("acceptance: {}; host per step: {}; draft {} (head shaped as {}'s layer); "
                           "weight/kv: bytes one GPU reads per verify; t_wait: exposed all-reduce/transfer time",
                           acceptance.source(), host_note, a.draft, w.target.name));
  print_table(t, a.format);
  return 0;
}

const RegisterCommand reg{
    "eagle",
    "EAGLE tree dispatcher (paper 004): per batch, the tree maximising TPC/TTIT and its speed-up over no SD",
    [](CLI::App& sub, const GlobalOptions& g) -> CommandRunner {
      auto a = std::make_shared<EagleArgs>();
      sub.add_option("--hw", a->hw, "Hardware config name (one GPU)");
      sub.add_option("--system", a->system,
                     "System config (e.g. eagle-8xh100-nvlink): target and head tensor parallel on the timeline");
      sub.add_option("--tree", a->trees, "Only these trees (D<m>-BF<n>, N<i>; comma separated)")->delimiter(',');
      sub.add_option("--model", a->model, "Target model (one of paper 004's four)")->required();
      sub.add_option("--draft", a->draft,
                     "EAGLE draft algorithm (configs/algorithms; default: paper 004's 3-layer dense draft, whose "
                     "acceptance the TPC model carries; eagle3-chain: a one-layer EAGLE-3 head)")
          ->default_val("eagle-dense3-chain");
      sub.add_option("--batch", a->batch, "Batch sizes: 1,2,4 or a range")->default_val("1,2,4,8,16,32,64,128");
      sub.add_option("--context", a->context, "Context lengths per sequence")->default_val("1024");
      sub.add_option("--latency-target-ms", a->latency_target_ms, "Step (TTIT) target in ms; 0: maximise speed")
          ->default_val(0);
      sub.add_option("--sd-host-us", a->sd_host_us,
                     "Host work a speculative step adds beyond the plain step's (tree sampling, bookkeeping), in us; "
                     "no published figure, so 0 by default (a sensitivity input)")
          ->default_val(0);
      sub.add_option("--stack", a->stack, "Software stack for host costs (configs/stacks)")->default_val("vllm-cuda-graph");
      sub.add_option("--max-nodes", a->max_nodes, "Largest candidate tree (draft nodes)")->default_val(64);
      sub.add_option("--max-depth", a->max_depth,
                     "Deepest candidate tree (draft levels); paper 004's production trees have a speculation "
                     "length of 3")
          ->default_val(search::kMaxDraftDepth);
      add_engine_option(sub, a->engine);
      add_format_option(sub, a->format);
      return [a, &g] { return run_eagle(*a, g); };
    },
    37};

}  // namespace
}  // namespace experiments
