// _specdse: acceptance traces and the token-tree search (paper 000 §III-C) from the search
// library, as `specdse tree-search` and `specdse trace-gen` compute them: every registered tree
// method's trees per verification length, their AAT in and out of sample, and with a workload
// the hardware-aware (x, depth bound) choice.
#include <pybind11/stl.h>

#include <fmt/format.h>

#include <cmath>
#include <map>
#include <memory>
#include <optional>
#include <sstream>

#include "experiments/cli/cli_common.hpp"
#include "experiments/cli/workload_setup.hpp"
#include "experiments/output/table.hpp"
#include "experiments/python/columns.hpp"
#include "experiments/python/without_gil.hpp"
#include "models/config_error.hpp"
#include "search/acceptance/trace_generator.hpp"
#include "search/trees/hardware_aware_tree.hpp"
#include "search/trees/path_counts.hpp"
#include "search/trees/tree_method.hpp"
#include "search/trees/tree_search.hpp"
#include "sim/system/system_costs.hpp"
#include "search/work_bound.hpp"

namespace specdse_py {
namespace {

// trace_gen's cap on a trace returned as a list (10^7 lines: about a GiB of Python tuples).
constexpr long long kMaxTraceLinesInMemory = 10'000'000;

// A trace given as a file path or as rank paths in memory (one per iteration).
struct TraceInput {
  std::string path;
  std::optional<std::vector<search::RankPath>> paths;
  std::string source() const { return paths ? std::string("trace") : path; }
};

TraceInput trace_input(const py::object& o, const std::string& what) {
  TraceInput t;
  if (py::isinstance<py::str>(o)) {
    t.path = o.cast<std::string>();
    return t;
  }
  try {
    t.paths = o.cast<std::vector<search::RankPath>>();
  } catch (const py::cast_error&) {
    throw models::InputError(fmt::format("{}: expected a trace file path or a sequence of rank paths (sequences of "
                                         "integers), got {}",
                                         what, py::str(py::type::of(o).attr("__name__")).cast<std::string>()));
  }
  for (std::size_t i = 0; i < t.paths->size(); ++i)
    for (int r : (*t.paths)[i])
      if (r < 0)
        throw models::InputError(fmt::format("{}: iteration {}: rank path: expected non-negative ranks, got {}", what,
                                             i + 1, r));
  return t;
}

search::PathCounts fold(const TraceInput& t) {
  if (!t.paths) return search::PathCounts::from_trace_file(t.path);
  search::PathCounts c;
  for (const auto& p : *t.paths) c.add(p);
  return c;
}

// The first (1 - fraction) of the iterations train, the rest validate (PathCounts::split_trace_file).
std::pair<search::PathCounts, search::PathCounts> split(const TraceInput& t, double fraction) {
  if (!t.paths) return search::PathCounts::split_trace_file(t.path, fraction);
  if (!(fraction > 0 && fraction < 1))
    models::throw_input_error("trace", "validation fraction", "a fraction in (0, 1)", fmt::format("{}", fraction));
  const auto train_lines = std::size_t(std::llround(double(t.paths->size()) * (1 - fraction)));
  std::pair<search::PathCounts, search::PathCounts> s;
  for (std::size_t i = 0; i < t.paths->size(); ++i) (i < train_lines ? s.first : s.second).add((*t.paths)[i]);
  return s;
}

double model_aat(const search::TokenTree& tree, const search::PositionalModel& model) {
  double expected = 1;
  for (const auto& p : tree.rank_paths()) expected += model.path_probability(p);
  return expected;
}

py::dict choice_dict(const search::TreeChoice& c, double ad) {
  using namespace pybind11::literals;
  return py::dict("x"_a = c.x, "depth_bound"_a = c.depth_bound, "depth"_a = c.depth, "tree_shape"_a = c.shape,
                  "aat"_a = c.aat, "t_verify_s"_a = c.t_verify_s, "t_draft_s"_a = c.t_draft_s,
                  "p_eff_tokens_per_s"_a = c.p_eff(), "speedup"_a = c.p_eff() / ad);
}

py::object rank_paths_column(const std::vector<std::vector<search::RankPath>>& trees) {
  py::list col;
  for (const auto& tree : trees) {
    py::list paths;
    for (const auto& p : tree) paths.append(py::tuple(py::cast(p)));
    col.append(paths);
  }
  return std::move(col);
}

struct TreeSearchArgs {
  TraceInput train, validation;
  bool has_validation = false;
  double validation_fraction = 0;
  int max_nodes = 128;
  std::vector<double> acceptance;
  std::string baseline_shape;
  const models::HardwareSpec* hw = nullptr;
  std::string model, algorithm, engine, config_dir;
  long long context = -1;
  int batch = 1;  // sequences per step, each verifying its own tree (with hw)
  bool paths = false;
};

struct TreeSearchOut {
  Columns cols;
  std::vector<std::vector<search::RankPath>> paths;
  std::optional<search::HardwareAwareResult> hw;
};

TreeSearchOut tree_search(const TreeSearchArgs& a) {
  if (a.max_nodes < 2)
    models::throw_input_error("tree_search", "max_nodes", "a verification length >= 2", std::to_string(a.max_nodes));
  const int x_max = a.max_nodes;
  if (a.has_validation && a.validation_fraction != 0)
    models::throw_input_error("tree_search", "validation_fraction", "either validation or validation_fraction", "both");
  search::PathCounts train;
  std::optional<search::PathCounts> validation;
  if (a.validation_fraction != 0) {
    auto s = split(a.train, a.validation_fraction);
    train = std::move(s.first);
    validation = std::move(s.second);
  } else {
    train = fold(a.train);
  }
  if (train.lines() == 0) models::throw_input_error(a.train.source(), "trace", "at least one training iteration", "none");
  if (validation && validation->lines() == 0)
    models::throw_input_error(a.train.source(), "trace", "at least one validation iteration", "none");
  if (a.has_validation) {
    validation = fold(a.validation);
    if (validation->lines() == 0)
      models::throw_input_error(a.validation.source(), "trace", "at least one iteration", "none");
  }
  std::optional<search::PositionalModel> positional;
  if (!a.acceptance.empty()) {
    positional.emplace();
    positional->acceptance = a.acceptance;
    positional->max_depth = 100000;  // Sequoia's model: no depth cut
    positional->validate("acceptance_vector");
  }
  const bool hardware = a.hw != nullptr;
  if (hardware && (a.model.empty() || a.algorithm.empty() || a.context < 0))
    models::throw_input_error("tree_search", "hw", "model, algorithm and context with it", "missing");

  const auto shape = search::TokenTree::from_widths(search::TokenTree::parse_widths(a.baseline_shape, "baseline_shape"),
                                                    "baseline_shape");
  const search::TreeMethodInput input{train, shape, positional ? &positional->acceptance : nullptr, x_max};

  std::unique_ptr<sim::SystemCosts> device;  // one-device deployment: forwards memoised, as in scenarios
  const models::LatencyEngine* engine = nullptr;
  models::Workload workload;
  std::optional<search::TreeLatency> latency;
  TreeSearchOut out;
  if (hardware) {
    const auto reg = registry(a.config_dir);
    device = sim::deploy_device(*a.hw, a.engine);
    engine = &device->engine(0);
    workload = experiments::make_workload(reg, a.model, a.algorithm);
    if (a.batch < 1 || a.batch > experiments::kMaxBatch)
      models::throw_input_error("tree_search", "batch", fmt::format("an integer in [1, {}]", experiments::kMaxBatch),
                                std::to_string(a.batch));
    workload.batch = a.batch;
    latency.emplace(*engine, workload, a.context);
    out.hw = search::hardware_aware_tree_search(train, validation ? *validation : train, *latency, x_max);
  }

  Columns& c = out.cols;
  auto add = [&](const std::string& method, const search::TokenTree& tree, double aat, std::optional<double> val,
                 std::optional<int> depth_bound, bool best) {
    c.s("method").push_back(method);
    c.i("x").push_back(tree.verification_length());
    c.i("draft_nodes").push_back(tree.draft_nodes());
    c.i("depth").push_back(tree.depth());
    c.s("tree_shape").push_back(tree.shape_string());
    c.f("aat").push_back(aat);
    if (validation) c.f("validation_aat").push_back(*val);
    if (positional) c.f("model_aat").push_back(model_aat(tree, *positional));
    if (hardware) {
      const double tv = latency->t_verify_s(tree.verification_length());
      const double td = latency->t_draft_s(tree.widths_per_depth());
      c.f("depth_bound").push_back(depth_bound ? double(*depth_bound) : std::nan(""));  // none: not searched
      c.f("t_verify_s").push_back(tv);
      c.f("t_draft_s").push_back(td);
      c.f("p_eff_tokens_per_s").push_back((val ? *val : aat) / (tv + td));
      c.i("best").push_back(best ? 1 : 0);
    }
    if (a.paths) out.paths.push_back(tree.rank_paths());
  };
  for (const auto& method : search::tree_methods()) {
    auto trees = method.build(input);
    if (!trees) continue;  // the method needs an input not given (sequoia-dp without acceptance)
    std::vector<double> aat, val;
    for (const auto& t : *trees) {
      aat.push_back(search::tree_aat(t, train));
      if (validation) val.push_back(search::tree_aat(t, *validation));
    }
    std::size_t best = 0;
    if (hardware) {
      double best_p = -1;
      for (std::size_t i = 0; i < trees->size(); ++i) {
        const auto& t = (*trees)[i];
        const double p = (validation ? val[i] : aat[i]) /
                         (latency->t_verify_s(t.verification_length()) + latency->t_draft_s(t.widths_per_depth()));
        if (p > best_p) {
          best_p = p;
          best = i;
        }
      }
    }
    for (std::size_t i = 0; i < trees->size(); ++i)
      add(method.name, (*trees)[i], aat[i], validation ? std::optional<double>(val[i]) : std::nullopt, std::nullopt,
          hardware && i == best);
  }
  if (hardware) {
    // Per x, the prior-score tree under the depth bound that maximises P_eff (0 = no bound).
    search::PriorScoreOrder order(train);
    std::map<int, search::NodeRanking> bounded;
    for (const auto& ch : out.hw->per_x_best) {
      auto it = bounded.find(ch.depth_bound);
      if (it == bounded.end()) it = bounded.emplace(ch.depth_bound, order.ranking(x_max - 1, ch.depth_bound)).first;
      const auto tree = it->second.tree(ch.x - 1);
      const bool best = ch.x == out.hw->best.x && ch.depth_bound == out.hw->best.depth_bound;
      add("hardware-aware", tree, search::tree_aat(tree, train), validation ? std::optional<double>(ch.aat) : std::nullopt,
          ch.depth_bound, best);
    }
  }
  return out;
}

}  // namespace

void bind_trees(py::module_& m) {
  m.def("tree_methods", [] {
    std::vector<std::pair<std::string, std::string>> out;
    for (const auto& t : search::tree_methods()) out.emplace_back(t.name, t.needs);
    return out;
  });

  m.def("tree_search", [](const py::object& trace, const py::object& validation, double validation_fraction,
                          int max_nodes, const std::vector<double>& acceptance, const std::string& baseline_shape,
                          const models::HardwareSpec* hw, const std::string& model, const std::string& algorithm,
                          long long context, int batch, const std::string& engine, const std::string& config_dir,
                          bool paths) {
    // In TreeSearchArgs' member order.
    TreeSearchArgs a{trace_input(trace, "trace"), TraceInput{}, !validation.is_none(), validation_fraction,
                     max_nodes, acceptance, baseline_shape, hw, model, algorithm, engine, config_dir, context, batch,
                     paths};
    if (a.has_validation) a.validation = trace_input(validation, "validation");
    const TreeSearchOut r = without_gil([&] { return tree_search(a); });
    py::dict cols = r.cols.to_python();
    if (a.paths) cols["rank_paths"] = rank_paths_column(r.paths);
    py::dict summary;
    if (r.hw) {
      const double ad = r.hw->autoregressive.p_eff();
      summary["ad_tokens_per_s"] = ad;
      summary["x_only"] = choice_dict(r.hw->best_x_only, ad);
      summary["hardware_aware"] = choice_dict(r.hw->best, ad);
      summary["gain"] = r.hw->gain();
    }
    return py::make_tuple(cols, summary);
  }, py::arg("trace"), py::arg("validation"), py::arg("validation_fraction"), py::arg("max_nodes"),
     py::arg("acceptance"), py::arg("baseline_shape"), py::arg("hw").none(true), py::arg("model"),
     py::arg("algorithm"), py::arg("context"), py::arg("batch"), py::arg("engine"), py::arg("config_dir"),
     py::arg("paths"));

  // A seeded synthetic trace (`specdse trace-gen`): the rank paths, or the CLI's file when `output` is set.
  m.def("trace_gen", [](const std::vector<double>& acceptance, long long lines, unsigned long long seed,
                        double depth_decay, const std::vector<double>& drift_to, long long drift_period,
                        int max_depth, const std::string& output) -> py::object {
    search::PositionalModel model;
    model.acceptance = acceptance;
    model.depth_decay = depth_decay;
    model.drift_to = drift_to;
    model.drift_period_lines = drift_period;
    model.max_depth = max_depth;
    const std::vector<search::RankPath> paths = without_gil([&] {
      std::vector<search::RankPath> drawn;
      model.validate("trace_gen");
      if (lines < 0) models::throw_input_error("trace_gen", "lines", "a count >= 0", std::to_string(lines));
      search::require_work_within("trace_gen", "lines", double(lines), search::kMaxTraceLines, "lines",
                                  "write several traces with other seeds");
      if (!output.empty()) {
        experiments::write_file_atomic(output, [&](std::ostream& out) {
          search::write_synthetic_trace(out, model, seed, lines);
        });
      } else {
        // A list of tuples costs ~100 bytes a line in Python: past this, a file (output=) streams.
        if (lines > kMaxTraceLinesInMemory)
          models::throw_input_error("trace_gen", "lines",
                                    fmt::format("at most {} without output= (a file streams any length)",
                                                kMaxTraceLinesInMemory),
                                    std::to_string(lines));
        search::TraceGenerator gen(model, seed, lines);
        drawn.resize(std::size_t(lines));
        for (auto& p : drawn) gen.next(p);
      }
      return drawn;
    });
    if (!output.empty()) return py::none();
    py::list out;
    for (const auto& p : paths) out.append(py::tuple(py::cast(p)));
    return std::move(out);
  }, py::arg("acceptance"), py::arg("lines"), py::arg("seed"), py::arg("depth_decay"), py::arg("drift_to"),
     py::arg("drift_period"), py::arg("max_depth"), py::arg("output"));
}

}  // namespace specdse_py
