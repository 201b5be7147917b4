// specdse window: the speculation window gamma of a chain draft (paper 001 objective (1)).
// Either paper 001's idealisation (T_v constant, draft time per token = c * T_v) or latencies
// from an engine for a target, a chain draft and a context. Per gamma: expected tokens per
// iteration and tokens/s, the best window marked; with --map, gamma*(a, c) as in Fig. 5.
#include <fmt/format.h>

#include "experiments/cli/cli_common.hpp"
#include "experiments/cli/draft_placement_options.hpp"
#include "experiments/cli/heartbeat.hpp"
#include "experiments/cli/window_acceptance.hpp"
#include "experiments/cli/workload_setup.hpp"
#include "models/config_error.hpp"
#include "search/window/chain_sd.hpp"
#include "search/work_bound.hpp"
#include "sim/system/system_costs.hpp"

namespace experiments {
namespace {

// Largest --gamma-max: the table has gamma_max + 1 rows per case and each row sums a geometric
// series of gamma terms (quadratic work); engine mode times gamma_max + 1 verification lengths.
constexpr int kMaxGamma = search::kMaxWindowLimit;

struct WindowArgs {
  std::string alpha, acceptance, cost_ratio, hw, model, draft, context, engine, format;
  double t_verify_s = 1.0;
  bool t_verify_given = false;  // --t-verify-s on the command line (constant mode only)
  int gamma_max = 16;
  bool map = false;
  DraftPlacementNames placement;
};

// One latency table per cost ratio (constant mode) or per context (engine mode).
struct LatencyCase {
  std::vector<Cell> key;  // leading cells identifying the case
  search::ChainLatency latency;
};

int run_window(const WindowArgs& a, const GlobalOptions& g) {
  const Heartbeat beat("window");  // a line on a terminal's stderr while a large grid runs
  search::require_gamma_max("--gamma-max", a.gamma_max);
  if (a.gamma_max > kMaxGamma)
    throw models::InputError(fmt::format("--gamma-max: expected a window limit <= {}, got {}", kMaxGamma, a.gamma_max));
  const WindowAcceptances acceptances = window_acceptances(
      a.alpha.empty() ? std::vector<double>{} : parse_double_list("--alpha", a.alpha), a.acceptance, registry(g).dir(),
      "--alpha", "--acceptance");
  // The acceptance's cell: the accuracy, or the band's fit.
  const char* acceptance_col = acceptances.from_band ? "acceptance" : "alpha";
  const auto acceptance_cell = [&](const WindowAcceptance& w) -> Cell {
    return acceptances.from_band ? text(w.label) : num(w.alpha);
  };
  const bool constant_mode = !a.cost_ratio.empty();
  const bool engine_mode = !a.hw.empty() || !a.model.empty() || !a.draft.empty();
  if (constant_mode == engine_mode)
    throw models::InputError(
        "window: expected either --cost-ratio C (constant T_v) or --hw, --model, --draft and --context "
        "(latencies from an engine), got " + std::string(constant_mode ? "both" : "neither"));

  if (engine_mode && a.t_verify_given)
    throw models::InputError("window: --t-verify-s is constant mode's T_v (with --cost-ratio); engine mode times T_v "
                             "from --hw, --model and --context");
  if (constant_mode && !a.placement.empty())
    throw models::InputError("window: a draft placement (--draft-hw, --system) needs engine mode (--hw, --model, "
                             "--draft, --context), not --cost-ratio");
  std::vector<std::string> key_cols;
  std::vector<LatencyCase> cases;
  if (constant_mode) {
    key_cols = {"cost_ratio"};
    for (double c : parse_double_list("--cost-ratio", a.cost_ratio))
      cases.push_back({{num(c)}, search::ChainLatency::constant(c, a.t_verify_s, a.gamma_max)});
  } else {
    if (a.hw.empty() || a.model.empty() || a.draft.empty() || a.context.empty())
      throw models::InputError("window: engine mode: expected --hw, --model, --draft and --context, got "
                               "only some of them");
    const auto reg = registry(g);
    const auto hw = reg.hardware(a.hw);
    const auto w = make_workload(reg, a.model, a.draft);
    // Through a one-device deployment: its forwards are memoised like every scenario's.
    const auto device = sim::deploy_device(hw, a.engine);
    const models::LatencyEngine* const engine = &device->engine(0);
    const auto placement = resolve_draft_placement(reg, a.placement, a.engine, hw.name);
    key_cols = {"hw", "model", "draft", "engine", "context", "cost_ratio"};
    if (!a.placement.empty()) key_cols.push_back("draft_device");  // default: the columns as before
    const auto contexts = parse_int_list("--context", a.context, 0, kMaxContext);
    search::require_work_within("window", fmt::format("--context ({})", contexts.size()), double(contexts.size()),
                                search::kMaxWindowContexts, "contexts");
    for (long long L : contexts) {
      require_workload_fits(hw, w, L, a.gamma_max + 1);
      auto lat = search::ChainLatency::from_engine(*engine, w, L, a.gamma_max, placement);
      std::vector<Cell> key{hw.name, w.target.name, w.algorithm->name, engine->name(), integer(L),
                            num(lat.cost_ratio())};
      if (!a.placement.empty()) key.push_back(placement.device());
      cases.push_back({std::move(key), std::move(lat)});
    }
  }

  search::require_work_within("window", fmt::format("{} ({}) x acceptances ({}) x windows 0..--gamma-max ({})",
                                                    constant_mode ? "--cost-ratio" : "--context", cases.size(),
                                                    acceptances.cases.size(), a.gamma_max + 1),
                              double(cases.size()) * double(acceptances.cases.size()) * double(a.gamma_max + 1),
                              search::kMaxWindowRows, "rows");
  if (a.map) {
    auto cols = key_cols;
    cols.insert(cols.end(), {acceptance_col, "gamma_star", "expected_tokens", "tokens_per_s", "speedup", "at_search_limit"});
    Table t(cols);
    for (const auto& c : cases)
      for (const auto& acc : acceptances.cases) {
        const auto best = search::optimal_gamma(acc.expected_tokens, c.latency);
        auto row = c.key;
        row.insert(row.end(), {acceptance_cell(acc), integer(best.gamma), num(best.expected_tokens), num(best.tokens_per_s),
                               num(best.tokens_per_s * c.latency.iteration_s(0)),
                               text(best.gamma == a.gamma_max ? "yes" : "no")});
        t.add_row(row);
      }
    if (acceptances.from_band) t.set_footer(acceptances.band_note);
    print_table(t, a.format);
    return 0;
  }

  auto cols = key_cols;
  cols.insert(cols.end(), {acceptance_col, "gamma", "expected_tokens", "t_draft_s", "t_verify_s", "t_iteration_s",
                           "tokens_per_s", "speedup", "best"});
  Table t(cols);
  bool best_at_limit = false;
  for (const auto& c : cases)
    for (const auto& acc : acceptances.cases) {
      const int best = search::optimal_gamma(acc.expected_tokens, c.latency).gamma;
      best_at_limit = best_at_limit || best == a.gamma_max;
      for (int gm = 0; gm <= a.gamma_max; ++gm) {
        const double expected = acc.expected_tokens(gm);
        const double tps = expected / c.latency.iteration_s(gm);
        auto row = c.key;
        row.insert(row.end(), {acceptance_cell(acc), integer(gm), num(expected),
                               num(c.latency.draft_s(gm)), num(c.latency.verify_s(gm)),
                               num(c.latency.iteration_s(gm)), num(tps),
                               num(tps * c.latency.iteration_s(0)), text(gm == best ? "yes" : "no")});
        t.add_row(row);
      }
    }
  std::string footer = acceptances.band_note;
  if (best_at_limit)
    footer += fmt::format("{}At search limit: a best gamma equals --gamma-max ({}); raise --gamma-max.",
                          footer.empty() ? "" : "; ", a.gamma_max);
  if (!footer.empty()) t.set_footer(footer);
  print_table(t, a.format);
  return 0;
}

const RegisterCommand window_registration{
    "window",
    "Speculation window gamma of a chain draft: expected tokens and tokens/s per gamma (paper 001 objective (1))",
    [](CLI::App& sub, const GlobalOptions& g) -> CommandRunner {
      auto a = std::make_shared<WindowArgs>();
      sub.add_option("--alpha", a->alpha, "Token accuracy a in (0, 1); a list (0.5,0.8) evaluates each");
      sub.add_option("--acceptance", a->acceptance,
                     "Instead of --alpha: an acceptance process band (name or path); each of its fits gives the "
                     "expected tokens per window (its chain tokens per call)");
      sub.add_option("--cost-ratio", a->cost_ratio,
                     "Constant mode: draft time per token / T_v (paper 001's c); a list evaluates each");
      // A nanosecond to a day: T_v's reciprocal (tokens/s) stays a finite number.
      sub.add_option("--t-verify-s", a->t_verify_s, "Constant mode: T_v in seconds")
          ->default_val(1.0)
          ->check(real_in(1e-9, 86400.0))
          ->each([a](const std::string&) { a->t_verify_given = true; });
      sub.add_option("--hw", a->hw, "Engine mode: hardware config name");
      sub.add_option("--model", a->model, "Engine mode: target model config name");
      sub.add_option("--draft", a->draft,
                     "Engine mode: chain algorithm (longspec-chain, eagle3-chain) or a draft model name");
      sub.add_option("--algorithm", a->draft)->group("");  // optimize's name for the same thing
      sub.add_option("--context", a->context, "Engine mode: context lengths L (1024 or 128,4096)");
      sub.add_option("--gamma-max", a->gamma_max, fmt::format("Largest window considered (1..{})", kMaxGamma))->default_val(16);
      sub.add_flag("--map", a->map, "Print only gamma* per (alpha, cost ratio or context): paper 001 Fig. 5");
      add_draft_placement_options(sub, a->placement);
      add_engine_option(sub, a->engine);
      sub.get_option("--engine")->excludes("--cost-ratio");  // constant mode times nothing
      add_format_option(sub, a->format);
      return [a, &g] { return run_window(*a, g); };
    },
    60};

}  // namespace
}  // namespace experiments
