#include "search/acceptance/acceptance_statistics.hpp"
#include "models/yaml_text.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <filesystem>
#include <cmath>
#include <map>
#include <set>
#include <sstream>

#include "models/closest_name.hpp"
#include "models/config_error.hpp"
#include "models/registry.hpp"

namespace search {

namespace {
// Bounds on a statistic's size (each evaluated hundreds of times by a fit).
constexpr int kMaxStatisticChainLength = 1024;
constexpr long long kMaxStatisticTreeNodes = 1024;

using models::InputError;
using models::YamlReader;

struct StatisticKind {
  std::vector<std::string> keys;
  std::string help;
  StatisticBuilder build;
};

models::Registry<std::string, StatisticKind>& kinds() {
  static models::Registry<std::string, StatisticKind> r("statistic kinds");
  return r;
}

std::vector<std::string> string_list(const YamlReader& r, const std::string& key) {
  const YAML::Node n = r.node()[key];
  if (!n || !n.IsSequence()) r.fail(key, "a list of names", n ? "something else" : "nothing");
  std::vector<std::string> out;
  for (const auto& e : n) {
    if (!e.IsScalar()) r.fail(key, "a list of names", "a nested value");
    out.push_back(e.as<std::string>());
  }
  return out;
}

// Bounds on what a statistics file or a band may ask for: each open value is a fit, each band
// member a run of every scenario that reads the band; the shipped files use at most 6 of either.
constexpr std::size_t kMaxOpenValues = 64, kMaxStatistics = 256, kMaxBandMembers = 1024;
// The largest fit tolerance: residuals are probabilities (hit rates) and tokens per call, so a
// tolerance of 1 lets every fit through and the band would say nothing.
constexpr double kMaxFitTolerance = 1.0;

// A fit tolerance (the file's, or a statistic's own) at `key`.
double fit_tolerance(const YamlReader& r, const std::string& key) {
  const double t = r.positive(key);
  if (t >= kMaxFitTolerance)
    r.fail(key, fmt::format("a tolerance below {} (residuals are probabilities and tokens)", kMaxFitTolerance),
           fmt::format("{}", t));
  return t;
}

std::vector<double> number_list(const YamlReader& r, const std::string& key) {
  const YAML::Node n = r.node()[key];
  if (!n || !n.IsSequence() || n.size() == 0) r.fail(key, "a non-empty list of numbers", "something else");
  std::vector<double> out;
  for (const auto& e : n) {
    double v = NAN;
    try {
      v = e.as<double>();
    } catch (const YAML::Exception&) {
    }
    if (!std::isfinite(v)) r.fail(key, "a list of finite numbers", e.IsScalar() ? e.as<std::string>() : "a nested value");
    out.push_back(v);
  }
  return out;
}

RankPath rank_path_of(const YamlReader& r, const std::string& text) {
  RankPath p;
  std::istringstream in(text);
  std::string tok;
  while (in >> tok) {
    char* end = nullptr;
    const long v = std::strtol(tok.c_str(), &end, 10);
    if (*end != '\0' || v < 0 || v > 1000) r.fail("tree", "rank paths of ranks 0..1000 such as \"0 1\"", "'" + text + "'");
    p.push_back(int(v));
  }
  if (p.empty()) r.fail("tree", "non-empty rank paths (the root is implicit)", "an empty one");
  return p;
}

void set_start(AcceptanceProcessParams& p, const YamlReader& start) {
  std::vector<std::string> known = process_parameter_names();
  known.push_back("alpha_cap");
  known.push_back("confidence");
  start.allow_only(known);
  for (const auto& name : process_parameter_names())
    if (start.has(name)) set_process_parameter(p, name, start.number(name));
  if (start.has("alpha_cap")) p.alpha_cap = start.number("alpha_cap");
  if (start.has("confidence")) p.confidence = parse_draft_confidence(start.key_path("confidence"), start.string("confidence"));
}

const StatisticKindRegistration chain_tpc_kind(
    "chain_tpc", {"length"}, "tokens per call of a chain of `length` draft tokens (AAT(length + 1))",
    [](const YamlReader& row) {
      // A fit evaluates the statistic hundreds of times, at a cost that grows with the square of
      // the length: 1024 fits in about a second, 4096 in a quarter of a minute.
      const int length = row.int_in("length", 1, kMaxStatisticChainLength);
      statistic_value_in(row, 1, length + 1, fmt::format("tokens per call of a chain of {}: 1 to {}", length, length + 1));
      return std::function<double(const AcceptanceProcess&)>(
          [length](const AcceptanceProcess& p) { return p.chain_tpc(length); });
    });
const StatisticKindRegistration tree_tpc_kind(
    "tree_tpc", {"tree"}, "tokens per call of a tree given as rank paths (\"0\", \"0 1\", ...)",
    [](const YamlReader& row) {
      std::vector<RankPath> tree;
      for (const auto& s : string_list(row, "tree")) tree.push_back(rank_path_of(row, s));
      AcceptanceProcess::independent(0.5).tree_tpc(tree);  // prefix-closed check, now
      std::size_t depth = 0;
      for (const auto& path : tree) depth = std::max(depth, path.size());
      statistic_value_in(row, 1, double(depth + 1), fmt::format("tokens per call of a tree of depth {}: 1 to {}", depth, depth + 1));
      return std::function<double(const AcceptanceProcess&)>(
          [tree](const AcceptanceProcess& p) { return p.tree_tpc(tree); });
    });
const StatisticKindRegistration level_tree_kind(
    "level_tree_tpc", {"widths"},
    "tokens per call of the best tree (by the process's own prior) with these nodes per depth, e.g. \"4 16 16\" "
    "(paper 000's prior-score trees)",
    [](const YamlReader& row) {
      std::vector<int> widths;
      for (int r : rank_path_of(row, row.string("widths"))) widths.push_back(r);
      long long nodes = 0;
      for (int w : widths) {
        if (w < 1) row.fail("widths", "nodes per depth, each >= 1", "'" + row.string("widths") + "'");
        nodes += w;
      }
      // The best tree of these widths is searched at every evaluation of the fit: 1024 nodes
      // take seconds, 4000 a minute and a half.
      if (nodes > kMaxStatisticTreeNodes)
        row.fail("widths", fmt::format("at most {} nodes in all", kMaxStatisticTreeNodes),
                 fmt::format("'{}' ({} nodes)", row.string("widths"), nodes));
      statistic_value_in(row, 1, double(widths.size() + 1),
                         fmt::format("tokens per call of a tree of depth {}: 1 to {}", widths.size(), widths.size() + 1));
      return std::function<double(const AcceptanceProcess&)>(
          [widths](const AcceptanceProcess& p) { return p.tree_tpc(p.best_tree_with_widths(widths)); });
    });
const StatisticKindRegistration top_k_kind(
    "top_k_hit", {"k", "depth"}, "share of positions whose target token is among the draft's top k",
    [](const YamlReader& row) {
      const int k = row.int_in("k", 1, 4096), depth = row.int_in_or("depth", 1, 4096, 1);
      statistic_value_in(row, 0, 1, "a share of positions: 0 to 1");
      return std::function<double(const AcceptanceProcess&)>(
          [k, depth](const AcceptanceProcess& p) { return p.top_k_hit(k, depth); });
    });
const StatisticKindRegistration mean_kind(
    "mean_acceptance", {"depth"}, "mean top-1 acceptance of a position at a draft depth (no selection)",
    [](const YamlReader& row) {
      const int depth = row.int_in_or("depth", 1, 4096, 1);
      statistic_value_in(row, 0, 1, "a probability: 0 to 1");
      return std::function<double(const AcceptanceProcess&)>(
          [depth](const AcceptanceProcess& p) { return p.mean_acceptance(depth); });
    });

// Statistics whose expectation cannot fall as their size grows, checked across rows: a chain's
// tokens per call by its length, a top-k hit by k at one depth (a longer chain accepts at least
// what a shorter one does; the top k + 1 hold the top k). Measured values carry noise (paper 000's
// LongSpec chain of 15 tokens measured 0.024 below its chain of 14), so a pair may fall by as much
// as two residuals within the tolerance can absorb; a larger fall can match no process (every
// process's curve rises), so it is an error naming both rows rather than a fit that fails.
void check_monotone_statistics(const YamlReader& r, double tolerance) {
  struct Point {
    double size, value;
    std::string where;
  };
  std::map<std::string, std::vector<Point>> curves;  // "chain_tpc" / "top_k_hit depth=D" -> points
  for (const auto& row : r.map_list("statistics")) {
    const std::string kind = row.string("kind");
    const std::string where = row.key_path("value");
    if (kind == "chain_tpc")
      curves["chain_tpc"].push_back({double(row.int_in("length", 1, kMaxStatisticChainLength)), row.number("value"), where});
    else if (kind == "top_k_hit")
      curves[fmt::format("top_k_hit depth={}", row.int_in_or("depth", 1, 4096, 1))].push_back(
          {double(row.int_in("k", 1, 4096)), row.number("value"), where});
  }
  for (auto& [curve, points] : curves) {
    std::stable_sort(points.begin(), points.end(), [](const Point& a, const Point& b) { return a.size < b.size; });
    for (std::size_t i = 1; i < points.size(); ++i)
      if (points[i - 1].value - points[i].value > 2 * tolerance)
        throw models::InputError(fmt::format("{}: {}: expected {} not to fall as its size grows (the larger one holds "
                                             "the smaller; by at most twice the tolerance {} as noise), got {} at size "
                                             "{} below {} at size {} ({})",
                                             r.file(), points[i].where, curve, tolerance, points[i].value,
                                             points[i].size, points[i - 1].value, points[i - 1].size,
                                             points[i - 1].where));
  }
}

}  // namespace

double statistic_value_in(const YamlReader& row, double lo, double hi, const std::string& why) {
  const double v = row.number("value");
  if (v < lo || v > hi) row.fail("value", why, fmt::format("{}", v));
  return v;
}

StatisticKindRegistration::StatisticKindRegistration(std::string kind, std::vector<std::string> keys, std::string help,
                                                     StatisticBuilder build) {
  kinds().add(kind, {std::move(keys), std::move(help), std::move(build)});
}

std::vector<std::string> statistic_kinds() { return kinds().keys(); }

StatisticsFile read_statistics_file(const std::string& path) {
  const YamlReader r = YamlReader::open(path);
  r.allow_only({"name", "start", "free", "open", "tolerance", "derivative_step", "borrowed", "statistics"});
  StatisticsFile f;
  f.path = path;
  f.name = r.string("name");
  f.spec.source = f.name;
  if (auto start = r.optional_child("start")) set_start(f.spec.start, *start);
  f.spec.start.validate(r.key_path("start"));
  f.spec.free = string_list(r, "free");
  std::set<std::string> seen;
  for (const auto& name : f.spec.free) {
    const auto& known = process_parameter_names();
    if (std::find(known.begin(), known.end(), name) == known.end())
      r.fail("free", "parameter names (" + fmt::format("{}", fmt::join(known, ", ")) + ")",
             "'" + name + "'" + models::did_you_mean(name, known));
    if (!seen.insert(name).second) r.fail("free", "each parameter once", "'" + name + "' twice");
  }
  const auto is_open = [&f](const std::string& name) {
    return std::find(f.open_parameters.begin(), f.open_parameters.end(), name) != f.open_parameters.end();
  };
  if (auto open = r.optional_child("open")) {
    if (!open->node().IsMap() || open->node().size() == 0)
      r.fail("open", "parameters, each with a list of values", "something else");
    std::size_t points = 1;
    for (const auto& kv : open->node()) {
      const std::string name = kv.first.as<std::string>();
      process_parameter(f.spec.start, name);  // name check with suggestion
      if (seen.count(name)) r.fail("open", "parameters that are not also free", "'" + name + "'");
      if (is_open(name)) r.fail("open", "each parameter once", "'" + name + "' twice");
      std::vector<double> values = number_list(*open, name);
      // A value twice would be one fit counted twice in the band.
      for (std::size_t i = 0; i < values.size(); ++i)
        for (std::size_t j = 0; j < i; ++j)
          if (values[i] == values[j]) open->fail(name, "each value once", fmt::format("{} twice", values[i]));
      for (double v : values) {
        AcceptanceProcessParams probe = f.spec.start;
        set_process_parameter(probe, name, v);
        probe.validate(open->key_path(name));
      }
      points *= values.size();
      // Each grid point is a whole fit (seconds each, minutes with a simulated statistic).
      if (points > kMaxOpenValues)
        open->fail(name, fmt::format("at most {} grid points in all (each one fit)", kMaxOpenValues),
                   fmt::format("{} points", points));
      f.open_parameters.push_back(name);
      f.open_values.push_back(std::move(values));
    }
  }
  if (auto borrowed = r.optional_child("borrowed")) {
    if (!borrowed->node().IsMap()) r.fail("borrowed", "a map of parameter: where its value comes from", "something else");
    for (const auto& kv : borrowed->node()) {
      const std::string name = kv.first.as<std::string>();
      const double value = process_parameter(f.spec.start, name);  // name check with suggestion
      if (seen.count(name) || is_open(name)) r.fail("borrowed", "parameters that are neither free nor open", "'" + name + "'");
      const std::string source = borrowed->string(name);
      f.borrowed.push_back(fmt::format("{} = {:.6g} borrowed ({})", name, value, source));
      f.spec.notes.push_back(f.borrowed.back());
    }
  }
  if (r.has("tolerance")) f.tolerance = fit_tolerance(r, "tolerance");
  if (r.has("derivative_step")) f.spec.derivative_step = r.positive("derivative_step");
  for (const auto& row : r.map_list("statistics")) {
    const std::string kind = row.string("kind");
    const StatisticKind* found = kinds().find(kind);
    if (!found)
      row.fail("kind", fmt::format("a statistic kind ({})", fmt::join(statistic_kinds(), ", ")),
               "'" + kind + "'" + models::did_you_mean(kind, statistic_kinds()));
    std::vector<std::string> allowed = {"kind", "value", "source", "weight", "fitted", "tolerance"};
    allowed.insert(allowed.end(), found->keys.begin(), found->keys.end());
    row.allow_only(allowed);
    AcceptanceStatistic s;
    s.value = row.number("value");
    s.weight = row.has("weight") ? row.positive("weight") : 1.0;
    if (row.has("fitted")) s.fitted = row.boolean("fitted");
    if (row.has("tolerance")) s.tolerance = fit_tolerance(row, "tolerance");
    // The label names the statistic by its kind-specific keys, then its source.
    std::string keys;
    for (const auto& key : found->keys)
      if (row.node()[key] && row.node()[key].IsScalar()) keys += fmt::format(" {}={}", key, row.node()[key].as<std::string>());
    s.label = fmt::format("{}{}{}", kind, keys, row.has("source") ? " (" + row.string("source") + ")" : "");
    s.predict = found->build(row);
    f.spec.statistics.push_back(std::move(s));
  }
  if (f.spec.statistics.empty()) r.fail("statistics", "at least one statistic", "none");
  if (f.spec.statistics.size() > kMaxStatistics)
    r.fail("statistics", fmt::format("at most {} statistics", kMaxStatistics), fmt::format("{}", f.spec.statistics.size()));
  check_monotone_statistics(r, f.tolerance);
  return f;
}

StatisticsFitReport fit_statistics(const StatisticsFile& file,
                                   const std::function<void(std::size_t, std::size_t)>& progress) {
  StatisticsFitReport rep;
  rep.band.name = file.name;
  rep.band.fitted_to = file.path;
  rep.band.borrowed = file.borrowed;
  for (const auto& s : file.spec.statistics) rep.band.statistics.push_back(s.label);
  const std::size_t points = file.open_points();
  ProcessFitSpec spec = file.spec;
  std::vector<std::size_t> missed(file.spec.statistics.size(), 0);  // per checked statistic: fits outside it
  for (std::size_t i = 0; i < points; ++i) {
    // Grid point i: the first open parameter varies slowest.
    spec.notes = file.spec.notes;
    for (std::size_t k = 0, stride = points; k < file.open_parameters.size(); ++k) {
      stride /= file.open_values[k].size();
      const double v = file.open_values[k][(i / stride) % file.open_values[k].size()];
      set_process_parameter(spec.start, file.open_parameters[k], v);
      spec.notes.push_back(fmt::format("{} = {} (left open by the statistics)", file.open_parameters[k], v));
    }
    ProcessFitResult r = fit_acceptance_process(spec);
    r.left_open.insert(r.left_open.end(), file.open_parameters.begin(), file.open_parameters.end());
    // Consistent: every statistic within its tolerance, fitted or only checked.
    bool ok = true, fitted_ok = true;
    for (std::size_t s = 0; s < file.spec.statistics.size(); ++s) {
      const bool within = std::abs(r.residuals[s]) <= file.tolerance_of(s);
      ok = ok && within;
      if (file.spec.statistics[s].fitted) fitted_ok = fitted_ok && within;
      else if (!within) ++missed[s];
    }
    if (ok) rep.band.members.push_back({r.process.params(), r.max_abs_residual});
    if (ok && rep.band.left_open.empty()) rep.band.left_open = r.left_open;
    // Continuation: the next grid point starts from this fit (a neighbour's optimum is close)
    // when it reproduces the fitted statistics; the checked ones do not steer it, so every fit
    // is the same with or without them.
    if (fitted_ok) {
      const AcceptanceProcessParams& q = r.process.params();
      for (const auto& name : spec.free) set_process_parameter(spec.start, name, process_parameter(q, name));
    }
    rep.consistent.push_back(ok);
    rep.fits.push_back(std::move(r));
    if (progress) progress(i + 1, points);
  }
  if (rep.band.members.empty()) {
    double best = INFINITY;
    for (const auto& r : rep.fits) best = std::min(best, r.max_abs_residual);
    // The checked statistic that the most fits miss, if any does.
    const auto worst = std::max_element(missed.begin(), missed.end());
    const std::string checked =
        *worst == 0 ? ""
                    : fmt::format("; the checked statistic '{}' is missed by {} of {} fits",
                                  file.spec.statistics[std::size_t(worst - missed.begin())].label, *worst, points);
    throw InputError(fmt::format("{}: no fit reproduces every statistic within its tolerance ({}; best largest residual of "
                                 "a fitted statistic {:.4f}{})",
                                 file.path, file.tolerance, best, checked));
  }
  return rep;
}

double StatisticsFile::tolerance_of(std::size_t i) const {
  const double own = spec.statistics.at(i).tolerance;
  return std::isnan(own) ? tolerance : own;
}

const ProcessBandMember& ProcessBand::central() const {
  if (members.empty()) throw InputError(fmt::format("process band {}: no members", name));
  if (left_open.size() < 2) return members[members.size() / 2];
  // Each open parameter's middle value among the members, and its spread.
  std::vector<double> middle, spread;
  for (const auto& name_open : left_open) {
    std::vector<double> v;
    for (const auto& m : members) v.push_back(process_parameter(m.params, name_open));
    std::sort(v.begin(), v.end());
    v.erase(std::unique(v.begin(), v.end()), v.end());
    middle.push_back(v[v.size() / 2]);
    spread.push_back(v.back() - v.front() > 0 ? v.back() - v.front() : 1.0);
  }
  std::size_t best = 0;
  double best_distance = INFINITY;
  for (std::size_t i = 0; i < members.size(); ++i) {
    double d = 0;
    for (std::size_t k = 0; k < left_open.size(); ++k)
      d += std::abs(process_parameter(members[i].params, left_open[k]) - middle[k]) / spread[k];
    if (d < best_distance) best_distance = d, best = i;  // ties: the first in band order
  }
  return members[best];
}

std::size_t StatisticsFile::open_points() const {
  std::size_t n = 1;
  for (const auto& v : open_values) n *= v.size();
  return n;
}

std::string ProcessBand::column() const {
  return fmt::format("process band {}: {} fits to {}", name, members.size(), fitted_to);
}

std::string format_process_band(const ProcessBand& band, const std::string& comment) {
  std::string out;
  std::istringstream lines(comment);
  for (std::string line; std::getline(lines, line);) out += "# " + line + "\n";
  // Names and sources come from the user's files: quoted, so any text reads back as written.
  out += fmt::format("name: {}\nfitted_to: {}\nstatistics:\n", models::yaml_quoted(band.name),
                     models::yaml_quoted(band.fitted_to));
  for (const auto& s : band.statistics) out += fmt::format("  - {}\n", models::yaml_quoted(s));
  out += "left_open: [";
  for (std::size_t i = 0; i < band.left_open.size(); ++i) out += (i ? ", " : "") + models::yaml_quoted(band.left_open[i]);
  out += "]\n";
  if (!band.borrowed.empty()) {
    out += "borrowed:\n";
    for (const auto& b : band.borrowed) out += fmt::format("  - {}\n", models::yaml_quoted(b));
  }
  out += "members:\n";
  for (const auto& m : band.members) {
    const auto& p = m.params;
    out += fmt::format(
        "  - {{alpha_easy: {:.9g}, alpha_hard: {:.9g}, easy_share: {:.9g}, persistence: {:.9g}, depth_decay: {:.9g}, "
        "alpha_cap: {:.9g}, confidence: {}, calibration: {:.9g}, lower_rank_share: {:.9g}, rank_tail_shape: {:.9g}, "
        "max_abs_residual: {:.6g}}}\n",
        p.alpha_easy, p.alpha_hard, p.easy_share, p.persistence, p.depth_decay, p.alpha_cap, to_string(p.confidence),
        p.calibration, p.lower_rank_share, p.rank_tail_shape, m.max_abs_residual);
  }
  return out;
}

ProcessBand read_process_band(const std::string& path) {
  const YamlReader r = YamlReader::open(path);
  r.allow_only({"name", "fitted_to", "statistics", "left_open", "borrowed", "members"});
  ProcessBand b;
  b.name = r.string("name");
  b.fitted_to = r.string("fitted_to");
  b.statistics = string_list(r, "statistics");
  b.left_open = string_list(r, "left_open");
  if (r.has("borrowed")) b.borrowed = string_list(r, "borrowed");
  const auto members = r.map_list("members");
  // Every member is a run of each scenario that reads the band.
  if (members.size() > kMaxBandMembers)
    r.fail("members", fmt::format("at most {} fitted processes (each one run of a scenario)", kMaxBandMembers),
           fmt::format("{}", members.size()));
  for (const auto& m : members) {
    ProcessBandMember member;
    std::vector<std::string> keys = process_parameter_names();
    keys.insert(keys.end(), {"alpha_cap", "confidence", "max_abs_residual"});
    m.allow_only(keys);
    for (const auto& name : process_parameter_names()) {
      // Bands written before the log-logistic tail existed have the geometric one.
      if (name == "rank_tail_shape" && !m.has(name)) continue;
      set_process_parameter(member.params, name, m.number(name));
    }
    member.params.alpha_cap = m.number("alpha_cap");
    member.params.confidence = parse_draft_confidence(m.key_path("confidence"), m.string("confidence"));
    member.max_abs_residual = m.non_negative("max_abs_residual");
    const std::string where = m.key_path("alpha_easy").substr(0, m.key_path("alpha_easy").rfind('.'));
    member.params.validate(where);
    // A member listed twice would count twice in every spread over the band.
    for (std::size_t i = 0; i < b.members.size(); ++i)
      if (b.members[i].params == member.params)
        throw InputError(fmt::format("{}: {}: expected each fitted process once, got the same parameters as "
                                     "members[{}]", r.file(), where, i));
    b.members.push_back(member);
  }
  if (b.members.empty()) r.fail("members", "at least one fitted process", "none");
  return b;
}

ProcessBand resolve_process_band(const std::string& name_or_path, const std::string& config_dir,
                                 const std::string& option) {
  namespace fs = std::filesystem;
  std::error_code ec;
  if (fs::is_regular_file(name_or_path, ec)) return read_process_band(name_or_path);
  const fs::path folder = fs::path(config_dir) / "acceptance" / "processes";
  const fs::path shipped = folder / (name_or_path + ".yaml");
  if (fs::is_regular_file(shipped, ec)) return read_process_band(shipped.string());
  std::vector<std::string> names;
  std::vector<fs::path> files;
  for (const auto& e : fs::directory_iterator(folder, ec))
    if (e.path().extension() == ".yaml") files.push_back(e.path());
  std::sort(files.begin(), files.end());
  // Outputs name a band by its `name:` (the pair it describes); that name is taken too. A file
  // that does not read is skipped here: it is not the band asked for, and naming it would only
  // confuse; asked for by its own name it reports its error.
  for (const auto& f : files) {
    names.push_back(f.stem().string());
    try {
      ProcessBand band = read_process_band(f.string());
      if (band.name == name_or_path) return band;
    } catch (const InputError&) {
    }
  }
  throw InputError(fmt::format("{}acceptance process '{}': no such file and no band of that name in {} (bands: {}){}",
                               option.empty() ? "" : option + ": ", name_or_path, folder.string(), fmt::join(names, ", "),
                               models::did_you_mean(name_or_path, names)));
}

}  // namespace search
