#include "experiments/cli/acceptance_source.hpp"

#include <fmt/format.h>

#include <cmath>
#include <filesystem>

#include "experiments/cli/cli_common.hpp"
#include "experiments/cli/workload_setup.hpp"
#include "models/config_error.hpp"
#include "search/acceptance/acceptance_statistics.hpp"
#include "search/acceptance/process_aat.hpp"
#include "search/trees/path_counts.hpp"
#include "search/trees/tree_search.hpp"

namespace experiments {

using models::InputError;

void add_acceptance_options(CLI::App& sub, AcceptanceOptions& o) {
  auto* data = sub.add_option("--data", o.data,
                              "AAT CSV (default: <config dir>/acceptance/aat_measurements.csv)");
  auto* from = sub.add_option("--aat-from", o.aat_from,
                              "Use the measured AAT of another workload, MODEL/ALGORITHM/TASK "
                              "(e.g. llama-3.1-8b-instruct/longspec-tree/govreport)");
  auto* alpha = sub.add_option("--alpha", o.alpha,
                               "Per-token acceptance probability of a chain draft: AAT(x) = (1 - a^x) / (1 - a)")
                   ->check(open_probability());
  auto* trace = sub.add_option("--trace", o.trace,
                               "Acceptance trace (DESIGN.md format): AAT of the chain, or of the prior-score tree");
  auto* process = sub.add_option("--acceptance", o.process,
                                 "Acceptance process band, NAME (configs/acceptance/processes) or FILE: AAT of its "
                                 "chain or best-first tree (specdse fit --statistics writes one)");
  alpha->excludes(from)->excludes(trace)->excludes(data);
  trace->excludes(from)->excludes(data);
  process->excludes(alpha)->excludes(trace)->excludes(from)->excludes(data);
  sub.add_option("--source-table", o.source_table, "Only AAT rows from this source table");
}

void check_acceptance_options(const AcceptanceOptions& o) {
  // -1 means not given; anything else must be a probability (NaN included: never ignored).
  if (o.alpha != -1 && !(o.alpha > 0 && o.alpha < 1))
    throw InputError(fmt::format("--alpha: expected a probability in (0, 1), got {}", o.alpha));
  const std::vector<std::pair<const char*, bool>> given = {{"--alpha", o.alpha >= 0},
                                                           {"--trace", !o.trace.empty()},
                                                           {"--acceptance", !o.process.empty()},
                                                           {"--aat-from", !o.aat_from.empty()},
                                                           {"--data", !o.data.empty()}};
  // --data and --aat-from go together; every other pair excludes each other.
  for (std::size_t i = 0; i < given.size(); ++i)
    for (std::size_t j = i + 1; j < given.size(); ++j)
      if (given[i].second && given[j].second && !(i == 3 && j == 4))
        throw InputError(fmt::format("{} and {}: give one source of acceptance", given[i].first, given[j].first));
}

std::string acceptance_csv_path(const models::ConfigRegistry& reg, const std::string& data_option) {
  return data_option.empty() ? reg.dir() + "/acceptance/aat_measurements.csv" : data_option;
}

double geometric_chain_aat(double alpha, int x) {
  if (x <= 1) return 1.0;
  // 1 + alpha + ... + alpha^(x-1); the closed form loses precision as alpha -> 1.
  double sum = 1.0, term = 1.0;
  for (int i = 1; i < x; ++i) sum += (term *= alpha);
  return sum;
}

namespace {

AatKey parse_aat_from(const std::string& text) {
  const auto a = text.find('/');
  const auto b = a == std::string::npos ? a : text.find('/', a + 1);
  if (b == std::string::npos || text.find('/', b + 1) != std::string::npos || a == 0 || b == a + 1 ||
      b + 1 == text.size())
    throw InputError(fmt::format("--aat-from: expected MODEL/ALGORITHM/TASK, got '{}'", text));
  return {text.substr(0, a), text.substr(a + 1, b - a - 1), text.substr(b + 1)};
}

}  // namespace

AatResolver::AatResolver(const models::ConfigRegistry& reg, AcceptanceOptions options, AatKey own,
                         const models::AlgorithmSpec* algorithm, int x_max)
    : o_(std::move(options)), key_(own), own_(std::move(own)), x_max_(std::max(x_max, search::kMinExactAatPoints)) {
  if (o_.alpha >= 0) {
    if (!(o_.alpha > 0 && o_.alpha < 1))
      throw InputError(fmt::format("--alpha: expected a probability in (0, 1), got {}", o_.alpha));
    if (algorithm && algorithm->tree_kind != models::TreeKind::chain)
      throw InputError(fmt::format("--alpha: describes a chain draft, but algorithm '{}' drafts trees "
                                   "(use a chain algorithm, --trace or --aat-from)", algorithm->name));
    return;
  }
  if (!o_.process.empty()) {
    const search::ProcessBand band = search::resolve_process_band(o_.process, reg.dir(), "--acceptance");
    const search::AcceptanceProcess proc(band.central().params, band.name);
    const bool chain = !algorithm || algorithm->tree_kind == models::TreeKind::chain;
    trace_aat_ = search::process_aat(proc, chain, x_max_);
    trace_what_ = fmt::format("acceptance process {} ({}; fitted to {})", band.name,
                              chain ? "chain" : "best-first trees", band.fitted_to);
    return;
  }
  if (!o_.trace.empty()) {
    const auto counts = search::PathCounts::from_trace_file(o_.trace);
    search::NodeRanking ranking;
    const bool chain = !algorithm || algorithm->tree_kind == models::TreeKind::chain;
    if (chain) {
      ranking.method = "chain";
      for (int n = 1; n < x_max_; ++n) ranking.paths.push_back(search::RankPath(std::size_t(n), 0));
    } else {
      ranking = search::prior_score_ranking(counts, x_max_ - 1);
    }
    trace_aat_ = search::nested_aat(ranking, counts);
    trace_what_ = fmt::format("trace {} ({} iterations; {})", std::filesystem::path(o_.trace).filename().string(),
                              counts.lines(), chain ? "chain" : "prior-score trees");
    return;
  }
  if (!o_.aat_from.empty()) key_ = parse_aat_from(o_.aat_from);
  csv_ = acceptance_csv_path(reg, o_.data);
  data_ = search::AcceptanceData::load(csv_);
}

std::string AatResolver::borrowed() const {
  if (o_.aat_from.empty()) return "";
  std::vector<std::string> differs;
  if (key_.model != own_.model) differs.push_back("another target model");
  if (key_.algorithm != own_.algorithm) differs.push_back("another draft algorithm");
  if (key_.task != own_.task) differs.push_back("another task");
  if (differs.empty()) return "";
  return fmt::format("measured for {}/{}/{}, not the workload's {}/{}/{} ({}): acceptance depends on the draft and "
                     "target pair and the text",
                     key_.model, key_.algorithm, key_.task, own_.model, own_.algorithm, own_.task,
                     fmt::join(differs, ", "));
}

ResolvedAat AatResolver::at(long long context) const {
  if (o_.alpha >= 0) {
    std::vector<double> aat;
    for (int x = 1; x <= x_max_; ++x) aat.push_back(geometric_chain_aat(o_.alpha, x));
    const std::string what = fmt::format("alpha {} (geometric chain)", o_.alpha);
    return {search::exact_aat_source(aat, what), what, ""};
  }
  if (!trace_aat_.empty()) return {search::exact_aat_source(trace_aat_, trace_what_), trace_what_, ""};
  search::AatQuery any;
  any.algorithm = key_.algorithm;
  any.target_model = key_.model;
  any.task = key_.task;
  if (data_->contexts(any).empty())
    throw InputError(fmt::format(
        "{}: no AAT measurements for model {}, algorithm {}, task {}; name a source with "
        "--aat-from MODEL/ALGORITHM/TASK, --alpha A (chain), --trace FILE or --acceptance BAND",
        data_->path(), key_.model, key_.algorithm, key_.task));
  ResolvedAat r{aat_source(*data_, {key_.algorithm, key_.model, key_.task, o_.source_table}, context), "", ""};
  r.description = fmt::format("measured {}/{}/{}{}{}", key_.model, key_.algorithm, key_.task,
                              o_.aat_from.empty() ? "" : " (--aat-from)",
                              r.source.note.empty() ? "" : ", " + r.source.note);
  // Without --source-table the fit pools every table measured for this key: say which.
  search::AatQuery at = any;
  at.context = context;
  if (!o_.source_table.empty()) at.source_table = o_.source_table;
  if (!r.source.note.empty()) at.context.reset();  // interpolated: the tables of every context
  r.source_tables = fmt::format("{}", fmt::join(data_->source_tables(at), " + "));
  return r;
}

}  // namespace experiments
