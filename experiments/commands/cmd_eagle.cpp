// specdse eagle: the EAGLE tree dispatcher of paper 004 on one GPU: per batch size, the static
// tree (full D_m-BF_n or pruned N_i) maximising per-sequence decode speed TPC / TTIT, or the
// fastest-per-token tree whose step meets --latency-target-ms, with the speed-up over plain
// decoding (search/scenarios/eagle_dispatcher/eagle_dispatcher.hpp).
#include <fmt/format.h>

#include "experiments/cli/cli_common.hpp"
#include "experiments/cli/workload_setup.hpp"
#include "models/config_error.hpp"
#include "models/software_stack.hpp"
#include "search/scenarios/eagle_dispatcher/eagle_dispatcher.hpp"
#include "sim/system/memory_fit.hpp"

namespace experiments {
namespace {

struct EagleArgs {
  std::string hw, system, model, draft = "eagle3-chain", batch = "1,2,4,8,16,32,64,128", context = "1024",
              stack = "vllm-cuda-graph", engine, format;
  double latency_target_ms = 0;
  int max_nodes = 64;
};

int run_eagle(const EagleArgs& a, const GlobalOptions& g) {
  if (!a.system.empty())
    throw models::InputError("eagle: --system (tensor-parallel placement) is not supported yet; use --hw");
  if (a.hw.empty()) models::throw_input_error("command line", "eagle", "--hw", "none");
  if (a.latency_target_ms < 0)
    throw models::InputError(fmt::format("eagle: --latency-target-ms must be >= 0, got {}", a.latency_target_ms));
  const auto reg = registry(g);
  auto hw = reg.hardware(a.hw);
  hw.stack = models::SoftwareStack{};  // the engine costs kernels; host time is added per step below
  const auto stack = models::load_software_stack(reg.path("stacks", a.stack));
  const auto engine = make_engine(a.engine, hw);
  const auto w = make_workload(reg, a.model, a.draft);
  const auto acceptance = search::paper004_acceptance(w.target.name);
  search::EagleDispatchOptions o;
  o.batches.clear();
  for (long long b : parse_int_list("--batch", a.batch, 1)) o.batches.push_back(int(b));
  o.max_tree_nodes = a.max_nodes;
  o.latency_target_s = a.latency_target_ms * 1e-3;
  Table t({"hw", "model", "context", "batch", "tree", "x", "tpc", "t_verify_ms", "t_draft_ms", "t_host_ms",
           "ttit_ms", "tokens_per_s_per_seq", "ar_step_ms", "speedup", "weight_gb", "ar_weight_gb", "meets_target", "status"});
  for (long long L : parse_int_list("--context", a.context, 0)) {
    o.context = L;
    for (const auto& r : search::eagle_dispatch(*engine, w, stack, acceptance, o)) {
      // A batch whose weights and KV cache do not fit the GPU is infeasible: no times.
      sim::MemoryQuery mq;
      mq.batch = r.batch;
      mq.step_tokens = r.x;
      mq.kv_tokens = L + r.x;
      models::HardwareSpec deployed = hw;
      deployed.stack = stack;
      const sim::DeviceMemory memory = sim::device_memory(deployed, w.target, mq);
      if (!memory.fits()) {
        std::vector<Cell> row = {hw.name, w.target.name, integer(L), integer(r.batch)};
        while (row.size() + 1 < t.columns().size()) row.push_back(text(""));
        row.push_back(sim::fit_status(memory));
        t.add_row(row);
        continue;
      }
      t.add_row({hw.name, w.target.name, integer(L), integer(r.batch), r.tree, integer(r.x), num(r.tpc, 3),
                 num(r.t_verify_s * 1e3), num(r.t_draft_s * 1e3), num(r.t_host_s * 1e3), num(r.ttit_s * 1e3),
                 num(r.tokens_per_s), num(r.ar_step_s * 1e3), num(r.speedup, 3), num(r.weight_bytes * 1e-9),
                 num(r.ar_weight_bytes * 1e-9), std::string(r.meets_target ? "yes" : "no"), sim::fit_status(memory)});
    }
  }
  t.set_footer(fmt::format("acceptance: {}; host per step: stack {} ({} us + graph launches); draft {}",
                           acceptance.source(), stack.name, stack.per_step_host_us, a.draft));
  print_table(t, a.format);
  return 0;
}

const RegisterCommand reg{
    "eagle",
    "EAGLE tree dispatcher (paper 004): per batch, the tree maximising TPC/TTIT and its speed-up over no SD",
    [](CLI::App& sub, const GlobalOptions& g) -> CommandRunner {
      auto a = std::make_shared<EagleArgs>();
      sub.add_option("--hw", a->hw, "Hardware config name (one GPU)");
      sub.add_option("--system", a->system, "System config (tensor parallel; not supported yet)");
      sub.add_option("--model", a->model, "Target model (one of paper 004's four)")->required();
      sub.add_option("--draft", a->draft, "EAGLE draft algorithm (configs/algorithms)")->default_val("eagle3-chain");
      sub.add_option("--batch", a->batch, "Batch sizes: 1,2,4 or a range")->default_val("1,2,4,8,16,32,64,128");
      sub.add_option("--context", a->context, "Context lengths per sequence")->default_val("1024");
      sub.add_option("--latency-target-ms", a->latency_target_ms, "Step (TTIT) target in ms; 0: maximise speed")
          ->default_val(0);
      sub.add_option("--stack", a->stack, "Software stack for host costs (configs/stacks)")->default_val("vllm-cuda-graph");
      sub.add_option("--max-nodes", a->max_nodes, "Largest candidate tree (draft nodes)")->default_val(64);
      add_engine_option(sub, a->engine);
      add_format_option(sub, a->format);
      return [a, &g] { return run_eagle(*a, g); };
    },
    37};

}  // namespace
}  // namespace experiments
