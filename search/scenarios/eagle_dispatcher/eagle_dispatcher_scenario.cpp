// eagle-dispatcher (paper 004), and so `specdse eagle`: the EAGLE tree dispatcher on one GPU
// (--hw) or a tensor-parallel system (--system: target and head sharded over the first stage's
// GPUs, all-reduces on the link model, on the system timeline). Per batch size, the static tree
// (full D_m-BF_n or pruned N_i) maximising per-sequence decode speed TPC / TTIT, or the
// fastest-per-token tree whose step meets --latency-target-ms, with the speed-up over plain
// decoding and the step's breakdown (eagle_dispatcher.hpp). Batches that do not fit a GPU's
// memory are rows with status "infeasible: ...", not timed.
#include <fmt/format.h>

#include <algorithm>
#include <string>

#include "models/config_error.hpp"
#include "models/config_registry.hpp"
#include "models/drafts/draft_builder.hpp"
#include "models/software_stack.hpp"
#include "models/system_spec.hpp"
#include "search/scenarios/eagle_dispatcher/eagle_costs.hpp"
#include "search/scenarios/eagle_dispatcher/eagle_dispatcher.hpp"
#include "search/scenarios/eagle_dispatcher/eagle_tpc_band.hpp"
#include "search/scenarios/eagle_dispatcher/eagle_dispatcher_scenario.hpp"
#include "search/scenarios/scenario.hpp"
#include "search/scenarios/serial_step_trace.hpp"
#include "search/work_bound.hpp"

namespace search::eagle_dispatcher {
namespace {

constexpr const char* kDefaultDraft = kDefaultEagleHead;
// The context when none is given.
constexpr long long kDefaultContext = 1024;

// The footer's words for a stack's per-sequence host work (nothing when it has none).
std::string per_sequence_words(double per_sequence_host_us) {
  return per_sequence_host_us > 0 ? fmt::format(" + {} us per sequence", per_sequence_host_us) : std::string();
}

std::vector<std::string> split_trees(const std::string& text) {
  std::vector<std::string> out;
  std::size_t start = 0;
  while (start < text.size()) {
    const std::size_t end = std::min(text.find(',', start), text.size());
    if (end > start) out.push_back(text.substr(start, end - start));
    start = end + 1;
  }
  return out;
}

// The timeline of the first feasible row's decode step (its tree's head passes, the verify, the
// host time the step exposes), as the dispatcher sums them (evaluate_eagle_tree).
sim::TraceWriter step_trace(const EagleCostModel& costs, const PositionalAcceptance& acceptance,
                            const EagleDispatchOptions& o, const EagleDispatchRow& row, long long context) {
  const auto candidate = eagle_named_tree(acceptance, row.tree, o);
  std::vector<StepPhase> phases;
  int depth = 0;
  for (int width : candidate.pass_widths)
    phases.push_back({fmt::format("head pass {} ({} rows x batch {})", ++depth, width, row.batch), "draft",
                      costs.draft_pass(width, row.batch, context).seconds, false});
  phases.push_back({fmt::format("verify tree {} ({} tokens x batch {}, context {})", row.tree, row.x, row.batch, context),
                    "compute", row.t_verify_s, false});
  if (row.t_host_s > 0) phases.push_back({"host work the step exposes", "host", row.t_host_s, true});
  return serial_step_trace(costs.where(), phases);
}

TypedResult<Row> run_eagle_dispatcher(const ScenarioContext& ctx, const Params& p) {
  const std::string& system_name = p.system;
  if ((ctx.hw != nullptr) == !system_name.empty())
    throw models::InputError("eagle: give exactly one of --hw (one GPU) and --system (tensor parallel)");
  if (!system_name.empty() && ctx.was_given("stack"))
    throw models::InputError("eagle: --stack applies to --hw; a system's devices name their own stacks");
  ctx.require(ctx.workload != nullptr, "--model");
  ctx.require(ctx.configs != nullptr, "a config registry");
  // The dispatcher costs a GPU serving stack (CUDA graphs, vLLM's host work): other kinds of
  // device are refused rather than timed under it.
  if (ctx.hw && !ctx.hw->runs_gpu_serving_stacks())
    throw models::InputError(fmt::format("eagle: --hw {} is a {} device; the EAGLE dispatcher models GPUs (kind gpu)",
                                         ctx.hw->name, ctx.hw->kind));
  const auto& reg = *ctx.configs;
  models::Workload w = *ctx.workload;
  const std::string draft = w.algorithm ? w.algorithm->name : kDefaultDraft;
  if (!w.algorithm) w.algorithm = std::make_shared<models::AlgorithmSpec>(reg.algorithm(kDefaultDraft));
  // Paper 004 trains a head per target: its layer takes the target's layer shape.
  w.algorithm = std::make_shared<models::AlgorithmSpec>(eagle_head_for_target(*w.algorithm, w.target));
  // Paper 004's figures for its targets, or the user's own head's measured chains.
  const auto acceptance = p.chain_tpc.empty()
                              ? paper004_acceptance(ctx.configs->dir(), w.target.name)
                              : user_chain_acceptance(parse_chain_tpcs(p.chain_tpc, "--chain-tpc"),
                                                      ctx.configs->dir());
  std::unique_ptr<EagleCostModel> costs;
  std::string host_note;
  if (ctx.hw) {
    models::HardwareSpec hw = *ctx.hw;
    hw.stack = models::SoftwareStack{};  // the engine costs kernels; host time is added per step
    const auto stack = models::load_software_stack(reg.path("stacks", p.stack));
    costs = make_engine_eagle_costs(hw, p.engine, w, stack);
    host_note = fmt::format("stack {} ({} us{} + graph launches{})", stack.name, stack.per_step_host_us,
                            per_sequence_words(stack.per_sequence_host_us),
                            stack.host_overlaps_device ? ", overlapped with the GPU" : "");
  } else {
    const auto system = models::load_system(reg.path("systems", system_name), reg);
    for (int d : system.stages.front().devices)
      if (!system.devices[std::size_t(d)].hardware.runs_gpu_serving_stacks())
        throw models::InputError(fmt::format("eagle: system {}: device {} is a {} device; the EAGLE dispatcher models "
                                             "GPUs (kind gpu)",
                                             system.name, system.devices[std::size_t(d)].name,
                                             system.devices[std::size_t(d)].hardware.kind));
    const auto& lead = system.devices[std::size_t(system.stages.front().devices.front())].hardware.stack;
    host_note = fmt::format("stack {} of the system's GPUs ({} us{} + graph launches{})", lead.name,
                            lead.per_step_host_us, per_sequence_words(lead.per_sequence_host_us),
                            lead.host_overlaps_device ? ", overlapped with the GPU" : "");
    costs = make_system_eagle_costs(system, w, p.engine);
  }
  // A host that was named (--host, a system's host:) scales every host figure above.
  if (const auto& host = costs->host(); !host.source_file.empty())
    host_note += fmt::format(", on host {} (x{:g} each host figure)", host.name, host.dispatch_time_scale);
  EagleDispatchOptions o;
  o.batches.clear();
  for (long long b : p.batch) o.batches.push_back(int(b));
  o.max_tree_nodes = int(p.max_nodes);
  const int max_depth = int(p.max_depth);
  o.max_full_depth = std::min(o.max_full_depth, max_depth);
  o.pruned_max_depth = std::min(o.pruned_max_depth, max_depth);
  o.latency_target_s = p.latency_target_ms * 1e-3;
  const double sd_host_us = p.sd_host_us;
  o.speculative_host_s = sd_host_us * 1e-6;
  if (sd_host_us > 0) host_note += fmt::format(", plus {} us per speculative step (--sd-host-us)", sd_host_us);
  if (ctx.was_given("seq-host-us")) {
    o.sequence_host_us = p.seq_host_us;
    host_note += fmt::format(", {} us per sequence per step instead of the stack's (--seq-host-us)", p.seq_host_us);
  }
  o.only_trees = split_trees(p.tree);
  o.chains_only = !models::draft_builder(w.algorithm->draft.kind, w.algorithm->name).drafts_trees();
  if (o.chains_only) host_note += fmt::format("; {} drafts chains only (D<m>-BF1)", w.algorithm->name);
  // Paper 004 §3.4: "a static tree when batch size is 1 and a chain draft of 3 tokens when batch
  // size is larger than 1": the dispatcher's own tree at batch 1, D3-BF1 at every other batch.
  const bool paper_example = p.policy == "paper-example";
  if (paper_example && !o.only_trees.empty())
    throw models::InputError("eagle: --policy paper-example chooses the trees itself; --tree names them: give one");
  if (paper_example && o.pruned_max_depth < 3)
    throw models::InputError(fmt::format("eagle: --policy paper-example drafts a chain of 3 above batch 1; --max-depth {} "
                                         "is shallower", max_depth));
  // The rows of one context: per batch, under the policy.
  auto dispatch = [&]() {
    if (!paper_example) return eagle_dispatch(*costs, acceptance, o);
    std::vector<EagleDispatchRow> rows;
    for (int b : o.batches) {
      EagleDispatchOptions one = o;
      one.batches = {b};
      if (b > 1) one.only_trees = {"D3-BF1"};
      for (auto& row : eagle_dispatch(*costs, acceptance, one)) rows.push_back(std::move(row));
    }
    return rows;
  };

  TypedResult<Row> out;
  ScenarioResult& r = out.table;
  r.narrow_columns = {"batch", "tree", "x", "tpc", "tpc_low", "tpc_high", "ttit_ms", "tokens_per_s_per_seq", "speedup",
                      "status", "at_search_limit"};
  // A chosen tree as large as the largest candidate may only be the edge of the search.
  const int largest = eagle_largest_candidate_nodes(o);
  // TPC of the chosen tree over the processes the chain statistics leave open (eagle_tpc_band.hpp);
  // the step time does not depend on acceptance, so the speed-up scales with TPC.
  const std::vector<AcceptanceProcess> band = eagle_tpc_band(acceptance);
  const std::vector<long long> contexts = ctx.contexts.empty() ? std::vector<long long>{kDefaultContext} : ctx.contexts;
  require_work_within("eagle-dispatcher", fmt::format("--context ({}) x --batch ({})", contexts.size(), o.batches.size()),
                      double(contexts.size()) * double(o.batches.size()), kMaxEagleDispatches, "dispatcher searches");
  for (long long L : contexts) {
    o.context = L;
    for (const auto& row : dispatch()) {
      Row cells;
      cells.where = costs->where();
      cells.model = w.target.name;
      cells.context = L;
      cells.batch = row.batch;
      if (!row.feasible) {  // weights and KV cache do not fit a GPU: no times
        cells.status = RowStatus::infeasible(row.status);
        out.rows.push_back(std::move(cells));
        continue;
      }
      cells.status = row.status == "unchecked" ? RowStatus::unchecked() : RowStatus::ok();
      double tpc_low = row.tpc, tpc_high = row.tpc;
      const auto paths = eagle_named_tree(acceptance, row.tree, o).tree.rank_paths();
      for (const auto& process : band) {
        const double t = process.tree_tpc(paths);
        tpc_low = std::min(tpc_low, t), tpc_high = std::max(tpc_high, t);
      }
      if (ctx.want_trace && !r.write_trace) r.write_trace = step_trace(*costs, acceptance, o, row, L);
      cells.tree = row.tree;
      cells.x = row.x;
      cells.tpc = row.tpc;
      cells.tpc_low = tpc_low;
      cells.tpc_high = tpc_high;
      cells.t_verify_ms = row.t_verify_s * 1e3;
      cells.t_draft_ms = row.t_draft_s * 1e3;
      cells.t_host_ms = row.t_host_s * 1e3;
      cells.t_wait_ms = row.t_wait_s * 1e3;
      cells.ttit_ms = row.ttit_s * 1e3;
      cells.tokens_per_s_per_seq = row.tokens_per_s;
      cells.speedup_low = row.speedup * tpc_low / row.tpc;
      cells.speedup = row.speedup;
      cells.speedup_high = row.speedup * tpc_high / row.tpc;
      cells.ar_step_ms = row.ar_step_s * 1e3;
      cells.ar_wait_ms = row.ar_wait_s * 1e3;
      cells.weight_gb = row.weight_bytes * 1e-9;
      cells.ar_weight_gb = row.ar_weight_bytes * 1e-9;
      cells.kv_gb = row.kv_bytes * 1e-9;
      cells.meets_target = row.meets_target;
      cells.at_search_limit =
          !(largest > 0 && row.x - 1 >= largest) ? std::string()
          : !o.chains_only ? fmt::format("{} draft nodes: the largest tree searched (raise --max-nodes)", row.x - 1)
          : o.pruned_max_depth < kMaxDraftDepth
              ? fmt::format("{} draft tokens: the longest chain searched (raise --max-depth)", row.x - 1)
              : fmt::format("{} draft tokens: the longest chain the dispatcher drafts", row.x - 1);
      out.rows.push_back(std::move(cells));
    }
  }
  r.footer = fmt::format("acceptance: {}; tpc_low/high: over {} processes that reproduce the same chains "
                         "(independent and bursty); host per step: {}; draft {} (head shaped as {}'s layer); "
                         "weight/kv: bytes one GPU reads per verify; t_wait: exposed all-reduce/transfer time; "
                         "engine {} (on one GPU both engines give the same times: docs/engines.md)",
                         acceptance.source(), band.size(), host_note, draft, w.target.name, p.engine);
  if (paper_example)
    r.footer += "; policy: paper 004 §3.4's example, the chosen static tree at batch 1 and a chain of 3 draft tokens "
                "(D3-BF1) above (--policy best: the dispatcher's tree at every batch)";
  return out;
}

}  // namespace

const TypedScenario<Params, Row>& scenario() {
  static const TypedScenario<Params, Row> typed(
      {"eagle-dispatcher",
     "EAGLE tree dispatcher (paper 004): per batch, the tree maximising TPC/TTIT and its speed-up over no SD",
       {},
       nullptr,
     "eagle",
     {"hw", "model", "algorithm", "context"},
     {"model"},
     ""},
      ParamBindings<Params>()
          .add(param::system("", "e.g. eagle-8xh100-nvlink: target and head tensor parallel on the timeline, instead of --hw"), &Params::system)
          .add(param::integers("batch", "1,2,4,8,16,32,64,128", 1, 1 << 16, "sequences", "batch sizes, e.g. 1,2,4 or a range"), &Params::batch)
          .add(param::text("tree", "", "only these trees (D<m>-BF<n>, N<i>; comma separated)"), &Params::tree)
          .add(param::choice("policy", "best", {"best", "paper-example"},
                             "best (per batch, the tree the dispatcher chooses) or paper-example (paper 004 §3.4: that "
                             "tree at batch 1, a chain of 3 draft tokens above)"), &Params::policy)
          .add(param::text("chain-tpc", "",
                  "your EAGLE head's measured tokens per call of chains, LENGTH:TPC,... (e.g. 3:2.8,5:3.3,7:3.6; "
                  "accepted tokens + 1) instead of paper 004's figures for the target (which cover Llama-3.1-8B/70B "
                  "and Llama 4 Scout/Maverick)"), &Params::chain_tpc)
          .add(param::real("latency-target-ms", 0, 0, 1e6, "ms", "step (TTIT) target; 0: maximise speed"), &Params::latency_target_ms)
          .add(param::real("sd-host-us", 0, 0, 1e6, "us",
                  "host work a speculative step adds beyond the plain step's (tree sampling, bookkeeping); no "
                  "published figure, so 0 by default (a sensitivity input)"), &Params::sd_host_us)
          .add(param::real("seq-host-us", 0, 0, 1e5, "us",
                  "host work per sequence per decode step, plain and speculative alike (scheduling, input and output "
                  "processing), overlapped as the stack's per-step work; replaces the stack's per_sequence_host_us "
                  "(0 in every shipped stack: a sensitivity input)"), &Params::seq_host_us)
          .add(param::text("stack", "vllm-cuda-graph", "software stack for host costs with --hw (configs/stacks)"), &Params::stack)
          .add(param::integer("max-nodes", 64, 1, 1024, "nodes",
                     "largest candidate tree (draft nodes): the pruned trees N2..N64 and beyond 64 N96, N128, ... up to "
                     "it; a chosen tree that large is flagged in at_search_limit"), &Params::max_nodes)
          .add(param::integer("max-depth", kMaxDraftDepth, 1, kMaxDraftDepth, "levels",
                     "deepest candidate tree (draft levels); paper 004's production trees have a speculation length "
                     "of 3"), &Params::max_depth)
          .add(param::choice("engine", "roofline", {"roofline", "sim", "sim-clocked"}, "latency engine"), &Params::engine),
      ColumnBindings<Row>()
          .add("where", &Row::where)
          .add("model", &Row::model)
          .add("context", &Row::context)
          .add("batch", &Row::batch)
          .add("tree", &Row::tree)
          .add("x", &Row::x)
          .add("tpc", &Row::tpc)
          .add("tpc_low", &Row::tpc_low)
          .add("tpc_high", &Row::tpc_high)
          .add("t_verify_ms", &Row::t_verify_ms)
          .add("t_draft_ms", &Row::t_draft_ms)
          .add("t_host_ms", &Row::t_host_ms)
          .add("t_wait_ms", &Row::t_wait_ms)
          .add("ttit_ms", &Row::ttit_ms)
          .add("tokens_per_s_per_seq", &Row::tokens_per_s_per_seq)
          .add("speedup_low", &Row::speedup_low)
          .add("speedup", &Row::speedup)
          .add("speedup_high", &Row::speedup_high)
          .add("ar_step_ms", &Row::ar_step_ms)
          .add("ar_wait_ms", &Row::ar_wait_ms)
          .add("weight_gb", &Row::weight_gb)
          .add("ar_weight_gb", &Row::ar_weight_gb)
          .add("kv_gb", &Row::kv_gb)
          .add("meets_target", std::function<ScenarioCell(const Row&)>([](const Row& r) {
                 return ScenarioCell(std::string(!r.meets_target ? "" : *r.meets_target ? "yes" : "no"));
               }))
          .add("status", &Row::status)
          .add("at_search_limit", &Row::at_search_limit),
      run_eagle_dispatcher);
  return typed;
}

namespace {
// Registers the scenario when the program starts (the registry lists it before any call).
const auto& eagle_dispatcher_registration = scenario();
}  // namespace

}  // namespace search::eagle_dispatcher
