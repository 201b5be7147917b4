// specdse window: the speculation window gamma of a chain draft (paper 001 objective (1)).
// Either paper 001's idealisation (T_v constant, draft time per token = c * T_v) or latencies
// from an engine for a target, a chain draft and a context. Per gamma: expected tokens per
// iteration and tokens/s, the best window marked; with --map, gamma*(a, c) as in Fig. 5.
#include <fmt/format.h>

#include "experiments/cli/cli_common.hpp"
#include "experiments/cli/draft_placement_options.hpp"
#include "experiments/cli/heartbeat.hpp"
#include "experiments/cli/window_table.hpp"
#include "models/config_error.hpp"
#include "search/window/chain_sd.hpp"

#include <optional>

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

int run_window(const WindowArgs& a, const GlobalOptions& g) {
  const Heartbeat beat("window");  // a line on a terminal's stderr while a large grid runs
  WindowRequest q;
  q.names = {"--alpha", "--acceptance", "--cost-ratio", "--t-verify-s", "--hw", "--model", "--draft", "--context",
             "--gamma-max", "--draft-hw, --system"};
  if (!a.alpha.empty()) q.alphas = parse_double_list("--alpha", a.alpha);
  q.band = a.acceptance;
  if (!a.cost_ratio.empty()) q.cost_ratios = parse_double_list("--cost-ratio", a.cost_ratio);
  q.t_verify_s = a.t_verify_s;
  q.t_verify_given = a.t_verify_given;
  std::optional<models::HardwareSpec> hw;
  if (!a.hw.empty()) {
    hw = registry(g).hardware(a.hw);
    q.hw = &*hw;
  }
  q.model = a.model;
  q.draft = a.draft;
  q.engine = a.engine;
  if (!a.context.empty()) q.contexts = parse_int_list("--context", a.context, 0, kMaxContext);
  q.placement = a.placement;
  q.gamma_max = a.gamma_max;
  q.map = a.map;
  q.config_dir = registry(g).dir();
  const WindowTable w = compute_window_table(q);

  // The case's leading cells: its cost ratio, or the engine's workload, context and c.
  std::vector<std::string> cols = w.engine_mode
      ? std::vector<std::string>{"hw", "model", "draft", "engine", "context", "cost_ratio"}
      : std::vector<std::string>{"cost_ratio"};
  if (w.with_placement) cols.push_back("draft_device");  // default: the columns as before
  const auto case_cells = [&](const WindowCase& k) {
    std::vector<Cell> cells;
    if (w.engine_mode) cells = {k.hw, k.model, k.draft, k.engine, integer(k.context)};
    cells.push_back(num(k.cost_ratio));
    if (w.with_placement) cells.push_back(k.draft_device);
    return cells;
  };
  // The acceptance's cell: the accuracy, or the band's fit.
  cols.push_back(w.acceptances.from_band ? "acceptance" : "alpha");
  const auto acceptance_cell = [&](const WindowAcceptance& acc) -> Cell {
    return w.acceptances.from_band ? text(acc.label) : num(acc.alpha);
  };
  if (a.map) {
    cols.insert(cols.end(), {"gamma_star", "expected_tokens", "tokens_per_s", "speedup", "at_search_limit"});
    Table t(cols);
    for (const WindowRow& r : w.rows) {
      auto row = case_cells(w.cases[r.case_index]);
      row.insert(row.end(), {acceptance_cell(w.acceptances.cases[r.acceptance_index]), integer(r.gamma),
                             num(r.expected_tokens), num(r.tokens_per_s), num(r.speedup),
                             text(r.at_search_limit ? "yes" : "no")});
      t.add_row(row);
    }
    if (w.acceptances.from_band) t.set_footer(w.acceptances.band_note);
    print_table(t, a.format);
    return 0;
  }
  cols.insert(cols.end(), {"gamma", "expected_tokens", "t_draft_s", "t_verify_s", "t_iteration_s", "tokens_per_s",
                           "speedup", "best"});
  Table t(cols);
  for (const WindowRow& r : w.rows) {
    auto row = case_cells(w.cases[r.case_index]);
    row.insert(row.end(), {acceptance_cell(w.acceptances.cases[r.acceptance_index]), integer(r.gamma),
                           num(r.expected_tokens), num(r.t_draft_s), num(r.t_verify_s), num(r.t_iteration_s),
                           num(r.tokens_per_s), num(r.speedup), text(r.best ? "yes" : "no")});
    t.add_row(row);
  }
  std::string footer = w.acceptances.band_note;
  if (w.best_at_limit)
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
      // Another command's name for the same input: listed, and an error given with --draft.
      sub.add_option("--algorithm", a->draft, "Same as --draft (the name optimize uses)")->excludes("--draft");
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
