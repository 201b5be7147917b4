// specdse draft-select: which chain draft model (and window) to pair with a target on a board
// (paper 001 §5). Token accuracies are given per draft or predicted from a prompt's feature
// vector by per-draft OLS models fitted to training prompts; latencies come from an engine.
#include <fmt/format.h>

#include <algorithm>
#include <sstream>

#include "experiments/cli/cli_common.hpp"
#include "experiments/cli/draft_placement_options.hpp"
#include "experiments/cli/heartbeat.hpp"
#include "experiments/cli/workload_setup.hpp"
#include "models/config_error.hpp"
#include "search/window/draft_select.hpp"
#include "sim/system/system_costs.hpp"

namespace experiments {
namespace {

// Longest answer Theorem 2 is asked about: the decode lengths the scenario commands accept.
constexpr long long kMaxAnswerTokens = 1'000'000;

struct DraftSelectArgs {
  std::string hw, model, drafts, alpha, training, features, engine, format;
  long long context = 1024, answer_tokens = 256;
  int gamma_max = 16;
  DraftPlacementNames placement;
};

std::vector<std::string> split_names(const std::string& option, const std::string& text) {
  std::vector<std::string> out;
  std::istringstream in(text);
  std::string item;
  while (std::getline(in, item, ',')) {
    if (item.empty()) throw models::InputError(fmt::format("{}: expected names separated by commas, got '{}'", option, text));
    out.push_back(item);
  }
  if (out.empty()) throw models::InputError(fmt::format("{}: expected at least one name, got none", option));
  return out;
}

// Keeps a predicted accuracy usable by objective (1); the clamping is reported in alpha_source.
constexpr double kPredictedAccuracyFloor = 1e-3, kPredictedAccuracyCeiling = 1 - 1e-3;

int run_draft_select(const DraftSelectArgs& a, const GlobalOptions& g) {
  const Heartbeat beat("draft-select");  // a line on a terminal's stderr while a large grid runs
  search::require_gamma_max("--gamma-max", a.gamma_max);
  if (a.context < 0) throw models::InputError(fmt::format("--context: expected tokens >= 0, got {}", a.context));
  const auto names = split_names("--drafts", a.drafts);
  const bool given = !a.alpha.empty();
  const bool predicted = !a.training.empty() || !a.features.empty();
  if (given == predicted)
    throw models::InputError(fmt::format(
        "draft-select: expected either --alpha a1,a2,.. or --training FILE with --features u1,u2,.., got {}",
        given ? "both" : "neither"));
  std::vector<double> accuracies;
  std::vector<std::string> sources;
  if (given) {
    accuracies = parse_double_list("--alpha", a.alpha);
    if (accuracies.size() != names.size())
      throw models::InputError(fmt::format("--alpha: expected one accuracy per draft ({}), got {}", names.size(),
                                           accuracies.size()));
    for (double al : accuracies) search::require_accuracy("--alpha", al);
    sources.assign(names.size(), "given");
  } else {
    if (a.training.empty() || a.features.empty())
      throw models::InputError("draft-select: expected both --training FILE and --features u1,u2,.., got only one");
    const auto set = search::read_accuracy_training(a.training);
    const auto u = parse_double_list("--features", a.features);
    for (const auto& n : names) {
      const double raw = set.fit(n).predict(u);
      const double clamped = std::clamp(raw, kPredictedAccuracyFloor, kPredictedAccuracyCeiling);
      accuracies.push_back(clamped);
      sources.push_back(clamped == raw ? "ols" : "ols-clamped");
    }
  }

  const auto reg = registry(g);
  const auto hw = reg.hardware(a.hw);
  // Through a one-device deployment: its forwards are memoised like every scenario's.
  const auto device = sim::deploy_device(hw, a.engine);
  const models::LatencyEngine* const engine = &device->engine(0);
  const auto placement = resolve_draft_placement(reg, a.placement, a.engine, hw.name);
  std::vector<search::DraftCandidate> candidates;
  std::string target_name;
  for (std::size_t i = 0; i < names.size(); ++i) {
    const auto w = make_workload(reg, a.model, names[i]);
    target_name = w.target.name;
    candidates.push_back({names[i], accuracies[i], sources[i],
                          search::ChainLatency::from_engine(*engine, w, a.context, a.gamma_max, placement)});
  }
  const auto evals = search::evaluate_drafts(candidates, a.answer_tokens);
  Table t({"hw", "model", "engine", "context", "draft", "alpha", "alpha_source", "cost_ratio", "gamma",
           "expected_tokens", "t_draft_s", "t_verify_s", "tokens_per_s", "speedup", "rho", "steps", "delta_n",
           "theorem2_bound", "theorem2", "faster_than_baseline", "chosen", "at_search_limit"});
  t.set_narrow_columns({"draft", "alpha", "gamma", "expected_tokens", "tokens_per_s", "speedup", "theorem2",
                        "chosen", "at_search_limit"});
  for (std::size_t i = 0; i < evals.size(); ++i) {
    const auto& e = evals[i];
    const auto& lat = candidates[i].latency;
    t.add_row({hw.name, target_name, engine->name(), integer(a.context), e.name, num(e.accuracy), e.accuracy_source,
               num(e.cost_ratio), integer(e.best.gamma), num(e.best.expected_tokens), num(lat.draft_s(e.best.gamma)),
               num(lat.verify_s(e.best.gamma)), num(e.best.tokens_per_s), num(e.speedup), num(e.rho), num(e.steps),
               num(e.delta_n), num(e.theorem2_bound), e.theorem2,
               text(e.theorem2 == "baseline" ? "-" : (e.faster_than_baseline ? "yes" : "no")),
               text(e.chosen ? "yes" : "no"),
               // A best window on the largest one searched may only be the edge of the search.
               e.best.gamma >= a.gamma_max ? fmt::format("gamma = {}: raise --gamma-max", a.gamma_max) : std::string()});
  }
  t.set_footer(fmt::format("Theorem 2 (paper 001): a larger draft wins if delta_n > (delta_c / delta_rho) L, "
                           "L = {} answer tokens, against the draft with the smallest cost ratio",
                           a.answer_tokens) +
               (placement.is_same_device()
                    ? std::string()
                    : fmt::format("; drafts on {} over {}: t_draft_s is their passes there plus both link transfers",
                                  placement.device(), placement.link())));
  print_table(t, a.format);
  return 0;
}

const RegisterCommand draft_select_registration{
    "draft-select",
    "Choose the chain draft model and window for a target on a board (paper 001 §5, Theorem 2)",
    [](CLI::App& sub, const GlobalOptions& g) -> CommandRunner {
      auto a = std::make_shared<DraftSelectArgs>();
      sub.add_option("--hw", a->hw, "Hardware config name")->required();
      sub.add_option("--model", a->model, "Target model: config name (configs/models), NAME@FORMAT, or a YAML path")->required();
      sub.add_option("--drafts", a->drafts,
                     "Candidate drafts: chain algorithms or draft model names, e.g. llama-68m,longspec-chain")
          ->required();
      sub.add_option("--alpha", a->alpha, "Token accuracy of each draft, in the order of --drafts");
      sub.add_option("--training", a->training,
                     "Instead of --alpha: CSV 'draft,alpha,<features..>' of training prompts (OLS per draft)");
      sub.add_option("--features", a->features, "With --training: the new prompt's feature vector u1,u2,..");
      sub.add_option("--context", a->context, "Context length L")->default_val(1024)->check(integer_in(0, kMaxContext));
      sub.add_option("--gamma-max", a->gamma_max, "Largest window considered (>= 1)")->default_val(16);
      sub.add_option("--answer-tokens", a->answer_tokens, "L of Theorem 2: answer length in tokens")
          ->default_val(256)
          ->check(integer_in(1, kMaxAnswerTokens));
      add_draft_placement_options(sub, a->placement);
      add_engine_option(sub, a->engine);
      add_format_option(sub, a->format);
      return [a, &g] { return run_draft_select(*a, g); };
    },
    62};

}  // namespace
}  // namespace experiments
