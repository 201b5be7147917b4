#include "search/acceptance/aat_resolver.hpp"

#include <fmt/format.h>
#include <fmt/ranges.h>

#include <algorithm>
#include <cmath>
#include <filesystem>
#include <iterator>

#include "models/config_error.hpp"
#include "search/acceptance/aat_fit.hpp"
#include "search/acceptance/acceptance_statistics.hpp"
#include "search/acceptance/process_aat.hpp"
#include "search/trees/path_counts.hpp"
#include "search/trees/tree_search.hpp"

namespace search {

using models::InputError;

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
  // --source-table picks measured rows: beside a source that reads none it would be ignored.
  if (!o.source_table.empty())
    for (std::size_t i = 0; i < 3; ++i)
      if (given[i].second)
        throw InputError(fmt::format("--source-table {} picks measured AAT rows; {} reads none", o.source_table,
                                     given[i].first));
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
    : o_(std::move(options)), key_(own), own_(std::move(own)), x_max_(std::max(x_max, kMinExactAatPoints)) {
  if (o_.alpha >= 0) {
    if (!(o_.alpha > 0 && o_.alpha < 1))
      throw InputError(fmt::format("--alpha: expected a probability in (0, 1), got {}", o_.alpha));
    if (algorithm && algorithm->tree_kind != models::TreeKind::chain)
      throw InputError(fmt::format("--alpha: describes a chain draft, but algorithm '{}' drafts trees "
                                   "(use a chain algorithm, --trace or --aat-from)", algorithm->name));
    return;
  }
  if (!o_.process.empty()) {
    const ProcessBand band = resolve_process_band(o_.process, reg.dir(), "--acceptance");
    const AcceptanceProcess proc(band.central().params, band.name);
    const bool chain = !algorithm || algorithm->tree_kind == models::TreeKind::chain;
    trace_aat_ = process_aat(proc, chain, x_max_);
    trace_what_ = fmt::format("acceptance process {} ({}; fitted to {})", band.name,
                              chain ? "chain" : "best-first trees", band.fitted_to);
    return;
  }
  if (!o_.trace.empty()) {
    const auto counts = PathCounts::from_trace_file(o_.trace);
    NodeRanking ranking;
    const bool chain = !algorithm || algorithm->tree_kind == models::TreeKind::chain;
    if (chain) {
      ranking.method = "chain";
      for (int n = 1; n < x_max_; ++n) ranking.paths.push_back(RankPath(std::size_t(n), 0));
    } else {
      ranking = prior_score_ranking(counts, x_max_ - 1);
    }
    trace_aat_ = nested_aat(ranking, counts);
    trace_what_ = fmt::format("trace {} ({} iterations; {})", std::filesystem::path(o_.trace).filename().string(),
                              counts.lines(), chain ? "chain" : "prior-score trees");
    return;
  }
  if (!o_.aat_from.empty()) key_ = parse_aat_from(o_.aat_from);
  csv_ = acceptance_csv_path(reg, o_.data);
  data_ = AcceptanceData::load(csv_);
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
    return {exact_aat_source(aat, what), what, ""};
  }
  if (!trace_aat_.empty()) return {exact_aat_source(trace_aat_, trace_what_), trace_what_, ""};
  AatQuery any;
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
  AatQuery at = any;
  at.context = context;
  if (!o_.source_table.empty()) at.source_table = o_.source_table;
  if (!r.source.note.empty()) at.context.reset();  // interpolated: the tables of every context
  r.source_tables = fmt::format("{}", fmt::join(data_->source_tables(at), " + "));
  return r;
}

AatSource interpolated_aat_source(const AatSource& lo, const AatSource& hi, long long lo_context,
                                          long long hi_context, long long context, const std::string& what) {
  // AAT at every x measured at both contexts, linear in ln(context) between them (AAT falls with
  // the context as the text moves away from the prompt, roughly by the log); the trees' shapes
  // are the lower context's.
  const double t = (std::log(double(context)) - std::log(double(lo_context))) /
                   (std::log(double(hi_context)) - std::log(double(lo_context)));
  AatSource s;
  std::vector<AatPoint> pts{{1.0, 1.0}};
  for (const auto& [x, a] : lo.measured) {
    const auto other = hi.measured.find(x);
    if (other == hi.measured.end()) continue;
    const double v = a + t * (other->second - a);
    s.measured[x] = v;
    if (x > 1) pts.push_back({double(x), v});
    const auto widths = lo.measured_widths.find(x);
    if (widths != lo.measured_widths.end()) s.measured_widths[x] = widths->second;
  }
  if (pts.size() < 3)
    throw models::InputError(fmt::format("{}: contexts {} and {} share too few measured x to interpolate", what,
                                         lo_context, hi_context));
  s.fit = fit_aat(pts, what);
  s.note = fmt::format("interpolated between contexts {} and {} (linear in ln context)", lo_context, hi_context);
  return s;
}

AatSource aat_source(const AcceptanceData& data, const AatSelection& sel,
                             long long context) {
  AatQuery q;
  q.algorithm = sel.algorithm;
  q.target_model = sel.model;
  q.task = sel.task;
  q.context = context;
  if (!sel.source_table.empty()) q.source_table = sel.source_table;
  const auto rows = data.select(q);
  if (rows.empty()) {
    q.context.reset();
    const auto have = data.contexts(q);
    // Between two measured contexts: interpolated (below the smallest or above the largest the
    // data say nothing, and that stays an error).
    const auto above = std::upper_bound(have.begin(), have.end(), context);
    if (above != have.begin() && above != have.end()) {
      const long long lo = *std::prev(above), hi = *above;
      return interpolated_aat_source(aat_source(data, sel, lo), aat_source(data, sel, hi), lo, hi, context,
                                     fmt::format("{}: {} {} {} context {}", data.path(), sel.algorithm, sel.model,
                                                 sel.task, context));
    }
    throw models::InputError(fmt::format(
        "{}: no AAT measurements for algorithm {}, model {}, task {}, context {} (contexts with data: {})",
        data.path(), sel.algorithm, sel.model, sel.task, context,
        have.empty() ? std::string("none") : fmt::format("{}", fmt::join(have, ","))));
  }
  return AatSource::from_measurements(
      rows, fmt::format("{}: {} {} {} context {}", data.path(), sel.algorithm, sel.model, sel.task, context));
}

}  // namespace search
