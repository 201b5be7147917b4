// specdse tree-search: token trees for every verification length from an acceptance trace —
// the paper's prior-score search against the width-first and depth-first baselines (paper 000
// §III-C, §IV-E) and, given a positional acceptance vector, the Sequoia DP — with
// out-of-sample AAT on a validation trace and, given a workload, the hardware-aware
// (x, maximum depth) choice that maximises P_eff.
#include <fmt/format.h>

#include <iostream>
#include <map>
#include <optional>

#include "experiments/cli/cli_common.hpp"
#include "experiments/cli/heartbeat.hpp"
#include "experiments/cli/workload_setup.hpp"
#include "models/config_error.hpp"
#include "search/acceptance/trace_generator.hpp"
#include "search/trees/hardware_aware_tree.hpp"
#include "search/trees/path_counts.hpp"
#include "search/trees/tree_method.hpp"
#include "search/trees/tree_search.hpp"
#include "sim/system/system_costs.hpp"

namespace experiments {
namespace {

// The fixed tree shape the paper's width-first and depth-first baselines fill: 4 children of
// the root, 4 under each, then one chain per level-2 node, 6 levels. It is the shape whose
// fillings reproduce every baseline row of configs/acceptance/tree_methods.csv.
constexpr const char* kPaperBaselineShape = "4 16 16 16 16 16";

// Largest --max-nodes: the searches are quadratic in it (about 10 s at 1024 on this 2-core
// machine, under load), and 1024 holds every tree size the papers use (paper 000: 85 nodes,
// Sequoia: up to 768).
constexpr int kMaxTreeNodes = 1024;

struct TreeSearchArgs {
  std::string trace, validation, acceptance, baseline_shape = kPaperBaselineShape, emit_method = "prior-score";
  std::string hw, model, algorithm, engine, format, batch = "1";
  long long context = -1;
  double validation_fraction = 0;
  int max_nodes = 128, emit_tree = 0;
  std::string max_nodes_given_as = "--x-max";  // or the older --max-nodes, for its error
};

struct MethodTrees {
  std::string method;
  std::vector<search::TokenTree> trees;  // index x - 2
  std::vector<double> aat, validation_aat;
};

double model_aat(const search::TokenTree& tree, const search::PositionalModel& model) {
  double expected = 1;
  for (const auto& p : tree.rank_paths()) expected += model.path_probability(p);
  return expected;
}

int run_tree_search(const TreeSearchArgs& a, const GlobalOptions& g) {
  const Heartbeat beat("tree-search");  // a line on a terminal's stderr while a large grid runs
  if (a.max_nodes < 2 || a.max_nodes > kMaxTreeNodes)
    models::throw_input_error("command line", a.max_nodes_given_as,
                              fmt::format("a verification length in [2, {}]", kMaxTreeNodes),
                              std::to_string(a.max_nodes));
  const int x_max = a.max_nodes;
  if (!a.validation.empty() && a.validation_fraction != 0)
    models::throw_input_error("command line", "--validation-fraction", "either --validation or --validation-fraction",
                              "both");
  search::PathCounts train;
  std::optional<search::PathCounts> validation;
  if (a.validation_fraction != 0) {
    auto split = search::PathCounts::split_trace_file(a.trace, a.validation_fraction);
    train = std::move(split.first);
    validation = std::move(split.second);
  } else {
    train = search::PathCounts::from_trace_file(a.trace);
  }
  if (train.lines() == 0) models::throw_input_error(a.trace, "trace", "at least one training iteration", "none");
  if (validation && validation->lines() == 0)
    models::throw_input_error(a.trace, "trace", "at least one validation iteration", "none");
  if (!a.validation.empty()) {
    validation = search::PathCounts::from_trace_file(a.validation);
    if (validation->lines() == 0) models::throw_input_error(a.validation, "trace", "at least one iteration", "none");
  }
  std::optional<search::PositionalModel> positional;
  if (!a.acceptance.empty()) {
    positional.emplace();
    positional->acceptance = search::parse_acceptance_vector("--acceptance-vector", a.acceptance);
    positional->max_depth = 100000;
  }
  const bool hardware = !a.hw.empty();
  if (hardware && (a.model.empty() || a.algorithm.empty() || a.context < 0))
    models::throw_input_error("command line", "--hw", "--model, --algorithm and --context with it", "missing");

  // The hardware-aware rows' prior-score trees under a depth bound, sorted once, on demand.
  std::optional<search::PriorScoreOrder> prior_order;
  std::map<int, search::NodeRanking> bounded;  // depth bound -> ranking, built on demand
  auto bounded_tree = [&](int depth_bound, int x) {
    if (!prior_order) prior_order.emplace(train);
    auto it = bounded.find(depth_bound);
    if (it == bounded.end()) it = bounded.emplace(depth_bound, prior_order->ranking(x_max - 1, depth_bound)).first;
    return it->second.tree(x - 1);
  };
  // Every registered method's trees for x = 2..x_max (baselines stop where their shape is
  // full); a method whose input was not given (sequoia-dp without a model) has no rows.
  const auto shape = search::TokenTree::from_widths(
      search::TokenTree::parse_widths(a.baseline_shape, "--baseline-shape"), "--baseline-shape");
  const search::TreeMethodInput input{train, shape, positional ? &positional->acceptance : nullptr, x_max};
  std::vector<MethodTrees> methods;
  for (const auto& method : search::tree_methods())
    if (auto trees = method.build(input)) methods.push_back({method.name, std::move(*trees), {}, {}});
  for (auto& m : methods)
    for (const auto& t : m.trees) {
      m.aat.push_back(search::tree_aat(t, train));
      if (validation) m.validation_aat.push_back(search::tree_aat(t, *validation));
    }

  // Hardware: latency per tree, and the (x, depth bound) search, per batch size (each sequence
  // verifies its own tree against its own context).
  const auto batches = parse_int_list("--batch", a.batch, 1, kMaxBatch);
  if (!hardware && a.batch != "1") models::throw_input_error("command line", "--batch", "--hw with --batch", "no --hw");
  std::unique_ptr<sim::SystemCosts> device;  // one-device deployment: forwards memoised, as in scenarios
  const models::LatencyEngine* engine = nullptr;
  std::vector<models::Workload> workloads;
  std::vector<search::TreeLatency> latencies;
  std::vector<search::HardwareAwareResult> hw_results;
  if (hardware) {
    const auto reg = registry(g);
    const auto hw_spec = reg.hardware(a.hw);
    device = sim::deploy_device(hw_spec, a.engine);
    engine = &device->engine(0);
    workloads.reserve(batches.size());  // TreeLatency keeps a reference to its workload
    latencies.reserve(batches.size());
    for (long long b : batches) {
      workloads.push_back(make_workload(reg, a.model, a.algorithm));
      workloads.back().batch = int(b);
      require_workload_fits(hw_spec, workloads.back(), a.context, x_max);
      latencies.emplace_back(*engine, workloads.back(), a.context);
      hw_results.push_back(
          search::hardware_aware_tree_search(train, validation ? *validation : train, latencies.back(), x_max));
    }
  }
  search::TreeLatency* latency = hardware ? &latencies.front() : nullptr;  // memoises, so not const
  const search::HardwareAwareResult* hw_result = hardware ? &hw_results.front() : nullptr;

  if (a.emit_tree != 0) {
    if (a.emit_tree < 2 || a.emit_tree > x_max)
      models::throw_input_error("command line", "--emit-tree", fmt::format("a verification length in 2..{}", x_max),
                                std::to_string(a.emit_tree));
    std::optional<search::TokenTree> tree;
    std::string note;
    if (a.emit_method == "hardware-aware") {
      if (!hw_result) models::throw_input_error("command line", "--emit-method", "--hw with hardware-aware", "no --hw");
      if (batches.size() > 1)
        models::throw_input_error("command line", "--batch", "one batch size with --emit-tree", a.batch);
      const auto& c = hw_result->per_x_best[std::size_t(a.emit_tree - 2)];
      tree = bounded_tree(c.depth_bound, a.emit_tree);
      note = c.depth_bound ? fmt::format(", depth bound {}", c.depth_bound) : ", no depth bound";
    }
    for (const auto& m : methods)
      if (m.method == a.emit_method) {
        if (a.emit_tree - 2 >= int(m.trees.size()))
          models::throw_input_error("command line", "--emit-tree",
                                    fmt::format("x <= {} for {} (its shape is full)", m.trees.size() + 1, m.method),
                                    std::to_string(a.emit_tree));
        tree = m.trees[std::size_t(a.emit_tree - 2)];
      }
    if (!tree) {
      std::string known;
      for (const auto& m : search::tree_methods())
        known += m.name + (m.needs.empty() ? "" : " (with " + m.needs + ")") + ", ";
      known.replace(known.size() - 2, 2, " or hardware-aware (with --hw)");
      models::throw_input_error("command line", "--emit-method", known, a.emit_method);
    }
    std::cout << fmt::format("# {} tree, x = {}, shape {}{}\n", a.emit_method, a.emit_tree, tree->shape_string(), note);
    for (const auto& p : tree->rank_paths()) std::cout << search::format_rank_path(p) << '\n';
    return 0;
  }

  std::vector<std::string> cols = {"method", "x", "draft_nodes", "depth", "tree_shape", "aat"};
  if (validation) cols.push_back("validation_aat");
  if (positional) cols.push_back("model_aat");
  if (hardware) cols.insert(cols.end(), {"batch", "depth_bound", "t_verify_s", "t_draft_s", "p_eff_tokens_per_s", "best"});
  Table table(cols);
  std::string footer;
  for (std::size_t bi = 0; bi < (hardware ? batches.size() : 1); ++bi) {
    if (hardware) latency = &latencies[bi], hw_result = &hw_results[bi];
    const long long batch = batches[bi];

    auto add = [&](const std::string& method, const search::TokenTree& tree, double aat, std::optional<double> val,
                   std::optional<int> depth_bound, bool best) {
      std::vector<Cell> row = {method, integer(tree.verification_length()), integer(tree.draft_nodes()),
                               integer(tree.depth()), tree.shape_string(), num(aat)};
      if (validation) row.push_back(num(*val));
      if (positional) row.push_back(num(model_aat(tree, *positional)));
      if (hardware) {
        const double tv = latency->t_verify_s(tree.verification_length());
        const double td = latency->t_draft_s(tree.widths_per_depth());
        row.push_back(integer(batch));
        row.push_back(depth_bound ? integer(*depth_bound) : text(""));
        row.insert(row.end(), {num(tv), num(td), num((val ? *val : aat) / (tv + td)), text(best ? "best" : "")});
      }
      table.add_row(row);
    };
    for (const auto& m : methods) {
      std::size_t best = 0;
      if (hardware) {
        double best_p = -1;
        for (std::size_t i = 0; i < m.trees.size(); ++i) {
          const auto& t = m.trees[i];
          const double aat = validation ? m.validation_aat[i] : m.aat[i];
          const double p = aat / (latency->t_verify_s(t.verification_length()) + latency->t_draft_s(t.widths_per_depth()));
          if (p > best_p) {
            best_p = p;
            best = i;
          }
        }
      }
      for (std::size_t i = 0; i < m.trees.size(); ++i)
        add(m.method, m.trees[i], m.aat[i], validation ? std::optional<double>(m.validation_aat[i]) : std::nullopt,
            std::nullopt, hardware && i == best);
    }
    if (hardware) {
      // Per x, the best depth bound (0 = none, the paper's tree).
      for (const auto& c : hw_result->per_x_best) {
        const auto tree = bounded_tree(c.depth_bound, c.x);
        const double in_sample = search::tree_aat(tree, train);
        const bool best = c.x == hw_result->best.x && c.depth_bound == hw_result->best.depth_bound;
        add("hardware-aware", tree, in_sample, validation ? std::optional<double>(c.aat) : std::nullopt,
            c.depth_bound, best);
      }
      const auto& p = hw_result->best_x_only;
      const auto& h = hw_result->best;
      const double ad = hw_result->autoregressive.p_eff();
      footer += (footer.empty() ? "" : "\n") + (batches.size() > 1 ? fmt::format("batch {}: ", batch) : std::string()) + fmt::format(
          "AD {:.4g} tokens/s. Paper (x only): x = {}, shape {}, P_eff {:.4g} tokens/s ({:.3f}x AD). "
          "Hardware-aware: x = {}, depth <= {}, shape {}, P_eff {:.4g} tokens/s ({:.3f}x AD), {:+.2f} % over x only.",
          ad, p.x, p.shape, p.p_eff(), p.p_eff() / ad, h.x, h.depth_bound ? h.depth_bound : h.depth, h.shape,
          h.p_eff(), h.p_eff() / ad, 100 * hw_result->gain()) +
          (h.x == x_max || p.x == x_max
               ? fmt::format(" At search limit: the best x is the largest searched ({}); raise --x-max.", x_max)
               : std::string());
    }
  }
  if (!footer.empty()) table.set_footer(footer);
  print_table(table, a.format);
  return 0;
}

const RegisterCommand tree_search_registration{
    "tree-search",
    "Token trees per x from an acceptance trace: prior-score vs width-first / depth-first (paper 000), "
    "Sequoia DP, validation AAT, hardware-aware (x, depth) choice",
    [](CLI::App& sub, const GlobalOptions& g) -> CommandRunner {
      auto a = std::make_shared<TreeSearchArgs>();
      sub.add_option("--trace", a->trace, "Training trace: one accepted rank path per line ('#' comments)")
          ->required();
      sub.add_option("--validation", a->validation, "Validation trace: AAT of the trained trees out of sample");
      sub.add_option("--validation-fraction", a->validation_fraction,
                     "Instead of --validation: hold out this last fraction of --trace's iterations (0..1)");
      sub.add_option("--x-max", a->max_nodes,
                     fmt::format("Largest verification length x_max (tree nodes including the root); trees for "
                                 "x = 2..x_max; at most {}", kMaxTreeNodes))
          ->default_val(128);
      // The name tree-search had before --x-max became the one name across subcommands; kept
      // working, and given with --x-max it is an error naming both (never a silent winner).
      auto* old_name = sub.add_option("--max-nodes", a->max_nodes)->group("");
      auto* x_max = sub.get_option("--x-max");
      sub.add_option("--acceptance-vector", a->acceptance,
                     "Positional model p_k (e.g. 0.6,0.1,0.05): adds sequoia-dp rows and each tree's model_aat "
                     "(expected AAT under that model, without depth decay, as Sequoia assumes)");
      sub.add_option("--baseline-shape", a->baseline_shape,
                     "Fixed tree shape (nodes per depth) the width-first and depth-first baselines fill")
          ->default_val(kPaperBaselineShape);
      std::string methods;
      for (const auto& m : search::tree_methods()) methods += m.name + ", ";
      sub.add_option("--emit-tree", a->emit_tree, "Print the tree for this x as rank paths, one per line, instead of the table");
      sub.add_option("--emit-method", a->emit_method,
                     "Tree --emit-tree prints: " + methods + "hardware-aware")
          ->default_val("prior-score");
      sub.add_option("--hw", a->hw, "Hardware config name: adds t_verify_s, t_draft_s, p_eff_tokens_per_s");
      sub.add_option("--model", a->model, "Target model: config name, NAME@FORMAT or YAML path (with --hw)");
      sub.add_option("--algorithm", a->algorithm, "SD algorithm whose draft makes the tree (with --hw)");
      // Another command's name for the same input: listed, and an error given with --algorithm.
      sub.add_option("--draft", a->algorithm, "Same as --algorithm (the name latency and window use)")->excludes("--algorithm");
      sub.add_option("--context", a->context, "Context length L in tokens (with --hw)")->check(integer_in(0, kMaxContext));
      sub.add_option("--batch", a->batch,
                     "Sequences per step (with --hw), e.g. 1,8,32: each verifies its own tree; rows per batch size")
          ->default_val("1");
      add_engine_option(sub, a->engine);
      // Without --hw nothing is timed: these would be ignored.
      for (const char* timed : {"--engine", "--context", "--algorithm", "--draft", "--model", "--batch"})
        sub.get_option(timed)->needs("--hw");
      sub.get_option("--emit-method")->needs("--emit-tree");
      add_format_option(sub, a->format);
      return [a, &g, old_name, x_max] {
        if (old_name->count() > 0 && x_max->count() > 0)
          throw models::InputError("command line: --max-nodes is the older name of --x-max; give one of them, not both");
        if (old_name->count() > 0) a->max_nodes_given_as = "--max-nodes";
        return run_tree_search(*a, g);
      };
    },
    61};

}  // namespace
}  // namespace experiments
