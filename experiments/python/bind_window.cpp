// _specdse: paper 001's speculation window of a chain draft and its window policies, from
// search/window, as `specdse window` and `specdse policies` compute them: per window gamma the
// expected tokens and tokens/s (or gamma* alone), and every registered policy replayed over a
// chain trace with engine (or constant-ratio) latencies.
#include <pybind11/stl.h>

#include <fmt/format.h>

#include <memory>
#include <optional>

#include "experiments/cli/cli_common.hpp"
#include "experiments/cli/workload_setup.hpp"
#include "experiments/python/columns.hpp"
#include "experiments/python/without_gil.hpp"
#include "models/config_error.hpp"
#include "experiments/cli/policy_trace.hpp"
#include "experiments/cli/window_table.hpp"
#include "search/acceptance/chain_trace.hpp"
#include "search/window/chain_sd.hpp"
#include "search/window/policies.hpp"
#include "search/window/policy_registry.hpp"
#include "search/work_bound.hpp"
#include "sim/system/system_costs.hpp"

namespace specdse_py {
namespace {

// Where the latencies come from: a constant cost ratio (T_v fixed) or an engine for a workload.
struct LatencySource {
  const models::HardwareSpec* hw = nullptr;
  std::string model, draft, engine, config_dir;
};

bool engine_mode(const LatencySource& s) { return s.hw || !s.model.empty() || !s.draft.empty(); }

void require_engine_inputs(const std::string& what, const LatencySource& s, bool have_context) {
  if (!s.hw || s.model.empty() || s.draft.empty() || !have_context)
    throw models::InputError(what + ": engine mode: expected hw, model, draft and context, got only some of them");
}

Columns window_table(const std::vector<double>& alphas, const std::string& band, const std::vector<double>& cost_ratios,
                     double t_verify_s, bool t_verify_given, const LatencySource& src,
                     const std::vector<long long>& contexts, int gamma_max, bool map) {
  experiments::WindowRequest q;
  q.names = {"alpha", "acceptance", "cost_ratio", "t_verify_s", "hw", "model", "draft", "context", "gamma_max",
             "a draft placement"};
  q.alphas = alphas;
  q.band = band;
  q.cost_ratios = cost_ratios;
  q.t_verify_s = t_verify_s;
  q.t_verify_given = t_verify_given;
  q.hw = src.hw;
  q.model = src.model;
  q.draft = src.draft;
  q.engine = src.engine;
  q.contexts = contexts;
  q.gamma_max = gamma_max;
  q.map = map;
  q.config_dir = src.config_dir;
  const experiments::WindowTable w = experiments::compute_window_table(q);
  Columns c;
  for (const experiments::WindowRow& r : w.rows) {
    const experiments::WindowCase& k = w.cases[r.case_index];
    if (w.engine_mode) {
      c.s("hw").push_back(k.hw);
      c.s("model").push_back(k.model);
      c.s("draft").push_back(k.draft);
      c.s("engine").push_back(k.engine);
      c.i("context").push_back(k.context);
    }
    c.f("cost_ratio").push_back(k.cost_ratio);
    const experiments::WindowAcceptance& acc = w.acceptances.cases[r.acceptance_index];
    if (w.acceptances.from_band) c.s("acceptance").push_back(acc.label);
    else c.f("alpha").push_back(acc.alpha);
    if (map) {
      c.i("gamma_star").push_back(r.gamma);
      c.f("expected_tokens").push_back(r.expected_tokens);
      c.f("tokens_per_s").push_back(r.tokens_per_s);
      c.f("speedup").push_back(r.speedup);
      continue;
    }
    c.i("gamma").push_back(r.gamma);
    c.f("expected_tokens").push_back(r.expected_tokens);
    c.f("t_draft_s").push_back(r.t_draft_s);
    c.f("t_verify_s").push_back(r.t_verify_s);
    c.f("t_iteration_s").push_back(r.t_iteration_s);
    c.f("tokens_per_s").push_back(r.tokens_per_s);
    c.f("speedup").push_back(r.speedup);
    c.i("best").push_back(r.best ? 1 : 0);
  }
  return c;
}

struct PoliciesArgs {
  std::optional<std::string> trace_path;
  std::string synthetic, acceptance;
  long long iterations = -1;  // not given
  std::uint64_t seed = 1;
  LatencySource src;
  long long context = -1;
  double cost_ratio = -1;
  search::PolicyOptions options;
  std::string q_reward = "both";
  std::vector<std::string> families;
};

struct PoliciesOut {
  Columns cols;
  std::vector<search::PolicyResult> results;
  search::ChainTrace trace;
  std::string description;  // the trace's source
  std::string where;
  double cost_ratio = 0;
};

PoliciesOut policies(PoliciesArgs a) {
  if (a.q_reward != "both") a.options.q_rewards = {search::parse_q_reward("q_reward", a.q_reward)};
  a.options.q.seed = a.seed;
  search::validate(a.options);
  PoliciesOut out;
  experiments::PolicyTraceSource source;
  source.trace = a.trace_path.value_or("");
  if (a.trace_path && a.trace_path->empty()) throw models::InputError("policies: trace: an empty path");
  source.synthetic = a.synthetic;
  source.acceptance = a.acceptance;
  source.iterations = a.iterations;
  source.seed = a.seed;
  source.config_dir = registry(a.src.config_dir).dir();
  source.trace_option = "trace";
  source.synthetic_option = "synthetic";
  source.acceptance_option = "acceptance";
  source.iterations_option = "iterations";
  experiments::PolicyTrace generated = experiments::policy_trace(source);
  out.trace = std::move(generated.trace);
  out.description = generated.description;
  const bool constant = a.cost_ratio >= 0;
  if (constant == engine_mode(a.src))
    throw models::InputError(std::string("policies: expected either cost_ratio or hw, model, draft and context, got ") +
                             (constant ? "both" : "neither"));
  search::ChainLatency latency = search::ChainLatency::constant(0, 1, 1);
  if (constant) {
    latency = search::ChainLatency::constant(a.cost_ratio, 1.0, a.options.gamma_max);
    out.where = fmt::format("constant T_v = 1 s, cost ratio {}", a.cost_ratio);
  } else {
    require_engine_inputs("policies", a.src, a.context >= 0);
    const auto reg = registry(a.src.config_dir);
    const auto w = experiments::make_workload(reg, a.src.model, a.src.draft);
    const auto device = sim::deploy_device(*a.src.hw, a.src.engine);  // forwards memoised, as in scenarios
    const models::LatencyEngine* const e = &device->engine(0);
    latency = search::ChainLatency::from_engine(*e, w, a.context, a.options.gamma_max);
    out.where = fmt::format("{} {} + {} at L = {} ({})", a.src.hw->name, w.target.name, w.algorithm->name, a.context,
                            e->name());
  }
  out.cost_ratio = latency.cost_ratio();
  out.results = search::replay_all_policies(out.trace, latency, a.options, a.families);
  Columns& c = out.cols;
  for (const auto& r : out.results)
    c.add_row({{"policy", r.policy}, {"iterations", r.iterations}, {"tokens", r.tokens}, {"time_s", r.time_s},
               {"tokens_per_s", r.tokens_per_s}, {"acceptance_rate", r.acceptance_rate},
               {"mean_gamma", r.mean_gamma}, {"speedup", r.speedup}});
  return out;
}

}  // namespace

void bind_window(py::module_& m) {
  m.def("window", [](const std::vector<double>& alpha, const std::string& acceptance,
                     const std::vector<double>& cost_ratio, double t_verify_s, bool t_verify_given,
                     const models::HardwareSpec* hw, const std::string& model, const std::string& draft,
                     const std::vector<long long>& context, int gamma_max, bool map, const std::string& engine,
                     const std::string& config_dir) {
    return without_gil([&] {
             return window_table(alpha, acceptance, cost_ratio, t_verify_s, t_verify_given,
                                 LatencySource{hw, model, draft, engine, config_dir},
                                 context, gamma_max, map);
           })
        .to_python();
  }, py::arg("alpha"), py::arg("acceptance"), py::arg("cost_ratio"), py::arg("t_verify_s"), py::arg("t_verify_given"),
     py::arg("hw").none(true), py::arg("model"), py::arg("draft"), py::arg("context"), py::arg("gamma_max"), py::arg("map"), py::arg("engine"),
     py::arg("config_dir"));

  m.def("window_policy_names", &search::window_policy_names);

  m.def("policies", [](std::optional<std::string> trace, const std::string& synthetic, const std::string& acceptance,
                       long long iterations, std::uint64_t seed,
                       const models::HardwareSpec* hw, const std::string& model, const std::string& draft,
                       long long context, double cost_ratio, int gamma_max, int gamma_min, int gamma_init, int history,
                       double acc_max, double prior_alpha, const std::string& q_reward,
                       const std::vector<std::string>& families, double q_learning_rate, double q_discount,
                       double q_epsilon, bool q_optimistic, const std::string& engine, const std::string& config_dir) {
    PoliciesArgs a;
    a.trace_path = std::move(trace);
    a.synthetic = synthetic;
    a.acceptance = acceptance;
    a.iterations = iterations;
    a.seed = seed;
    a.src = LatencySource{hw, model, draft, engine, config_dir};
    a.context = context;
    a.cost_ratio = cost_ratio;
    a.options.gamma_max = gamma_max;
    a.options.gamma_min = gamma_min;
    a.options.gamma_init = gamma_init;
    a.options.history = history;
    a.options.acc_max = acc_max;
    a.options.prior_accuracy = prior_alpha;
    a.options.q.learning_rate = q_learning_rate;
    a.options.q.discount = q_discount;
    a.options.q.epsilon = q_epsilon;
    a.options.q.optimistic_start = q_optimistic;
    a.q_reward = q_reward;
    a.families = families;
    const PoliciesOut r = without_gil([&] { return policies(std::move(a)); });
    py::dict info;
    info["trace"] = r.trace.source;
    info["trace_source"] = r.description;
    info["trace_iterations"] = r.trace.iterations.size();
    info["mean_top1_run"] = r.trace.mean_matched();
    info["latency"] = r.where;
    info["cost_ratio"] = r.cost_ratio;
    return py::make_tuple(r.cols.to_python(), info);
  }, py::arg("trace").none(true), py::arg("synthetic"), py::arg("acceptance"), py::arg("iterations"), py::arg("seed"),
     py::arg("hw").none(true), py::arg("model"),
     py::arg("draft"), py::arg("context"), py::arg("cost_ratio"), py::arg("gamma_max"), py::arg("gamma_min"),
     py::arg("gamma_init"), py::arg("history"), py::arg("acc_max"), py::arg("prior_alpha"), py::arg("q_reward"),
     py::arg("policies"), py::arg("q_learning_rate"), py::arg("q_discount"), py::arg("q_epsilon"),
     py::arg("q_optimistic"), py::arg("engine"), py::arg("config_dir"));
}

}  // namespace specdse_py
