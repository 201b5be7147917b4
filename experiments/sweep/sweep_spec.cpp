#include "experiments/cli/cli_common.hpp"
#include "experiments/sweep/sweep_spec.hpp"

#include <fmt/format.h>
#include <yaml-cpp/yaml.h>

#include <algorithm>
#include <cmath>
#include <limits>
#include <set>

#include "experiments/sweep/sweep_spec_file.hpp"
#include "models/closest_name.hpp"
#include "models/config_error.hpp"

namespace experiments {
namespace {

const std::vector<std::string> kWorkloadFields = {"hardware", "model", "algorithm", "task",
                                                  "source_table", "context", "batch", "draft_hw",
                                                  "draft_link", "system", "draft_device"};
const std::vector<std::string> kDraftPlacementFields = {"draft_hw", "draft_link", "system", "draft_device"};

std::string describe(const YAML::Node& n) {
  if (!n) return "nothing";
  if (n.IsScalar()) return "'" + n.Scalar() + "'";
  if (n.IsSequence()) return "a list";
  if (n.IsMap()) return "a map";
  return "null";
}

// A map key as text; a key that is itself a list or a map ("? [a, b]: 1") is an InputError, not
// the yaml-cpp conversion error that as<std::string>() would throw.
std::string key_text(const std::string& file, const std::string& where, const YAML::Node& key) {
  if (!key.IsScalar()) models::throw_input_error(file, where, "keys that are names", describe(key));
  return key.Scalar();
}

double parse_number(const std::string& file, const std::string& key, const YAML::Node& n) {
  if (!n || !n.IsScalar()) models::throw_input_error(file, key, "a number", describe(n));
  try {
    std::size_t used = 0;
    const double v = std::stod(n.Scalar(), &used);
    if (used != n.Scalar().size() || !std::isfinite(v)) throw std::invalid_argument("");
    return v;
  } catch (const std::exception&) {
    models::throw_input_error(file, key, "a number", describe(n));
  }
}

std::vector<std::string> generated_values(const std::string& file, const std::string& key,
                                          const YAML::Node& n) {
  for (const auto& kv : n) {
    const auto k = key_text(file, key, kv.first);
    if (k != "from" && k != "to" && k != "count" && k != "scale")
      models::throw_input_error(file, key + "." + k, "one of from, to, count, scale",
                                "'" + k + "'" + models::did_you_mean(k, {"from", "to", "count", "scale"}));
  }
  const double from = parse_number(file, key + ".from", n["from"]);
  const double to = parse_number(file, key + ".to", n["to"]);
  const double count_d = parse_number(file, key + ".count", n["count"]);
  if (count_d < 1 || count_d != std::floor(count_d) || count_d > 1e6)
    models::throw_input_error(file, key + ".count", "an integer in 1..1000000", n["count"].Scalar());
  const int count = int(count_d);
  if (n["scale"] && !n["scale"].IsScalar())
    models::throw_input_error(file, key + ".scale", "linear or log", describe(n["scale"]));
  const std::string scale = n["scale"] ? n["scale"].Scalar() : "linear";
  if (scale != "linear" && scale != "log")
    models::throw_input_error(file, key + ".scale", "linear or log", "'" + scale + "'");
  if (scale == "log" && (from <= 0 || to <= 0))
    models::throw_input_error(file, key, "from and to > 0 for a log scale", fmt::format("{} and {}", from, to));
  std::vector<std::string> values;
  for (int i = 0; i < count; ++i) {
    const double t = count == 1 ? 0.0 : double(i) / double(count - 1);
    const double v = scale == "log" ? from * std::pow(to / from, t) : from + (to - from) * t;
    values.push_back(fmt::format("{:.6g}", v));
  }
  return values;
}

void validate_values(const std::string& file, const std::string& key, const std::vector<std::string>& values) {
  const std::string where = "axes." + key;
  for (const auto& v : values) {
    if (key == "context" || key == "batch") {
      long long n = -1;
      try {
        std::size_t used = 0;
        n = std::stoll(v, &used);
        if (used != v.size()) n = -1;
      } catch (const std::exception&) {
        n = -1;
      }
      if (key == "context" && (n < 0 || n > experiments::kMaxContext))
        models::throw_input_error(file, where, fmt::format("integers in [0, {}]", experiments::kMaxContext), "'" + v + "'");
      // SweepPoint::batch is an int: a larger value would wrap instead of being refused.
      if (key == "batch" && (n < 1 || n > std::numeric_limits<int>::max()))
        models::throw_input_error(file, where, "integers in 1..2147483647", "'" + v + "'");
    } else if (!is_workload_field(key)) {
      YAML::Node n(v);
      try {
        parse_number(file, where, n);
      } catch (const models::InputError& e) {
        // A hardware key takes numbers; a name here may be a misspelt workload axis ("taks").
        const std::string meant = models::closest_name(key, kWorkloadFields);
        if (meant.empty()) throw;
        throw models::InputError(fmt::format("{} (did you mean the axis '{}'?)", e.what(), meant));
      }
    } else if (v.empty()) {
      models::throw_input_error(file, where, "a name", "an empty value");
    }
  }
}

}  // namespace

bool is_draft_placement_field(const std::string& key) {
  for (const auto& f : kDraftPlacementFields)
    if (f == key) return true;
  return false;
}

std::string misspelt_workload_axis(const std::string& key) {
  // A hardware key is either dotted (memory.bandwidth_gbs) or a top-level number of a board
  // (sms, clock_mhz, l2_mib, ...), none of which is near a workload axis name; a test checks
  // every shipped board's top-level keys against this.
  if (is_workload_field(key) || key.find('.') != std::string::npos) return "";
  // Stricter than a "did you mean" hint, since a key taken here is refused: a name cut short or
  // with something added ("batchsize"), or at most 2 edits from a workload name of 5 or more
  // letters ("contexts", "modle"); three edits would take the boards' "sms" and "cores".
  const std::string guess = models::closest_name(key, kWorkloadFields);
  if (guess.empty()) return "";
  const std::string& shorter = key.size() <= guess.size() ? key : guess;
  const std::string& longer = key.size() <= guess.size() ? guess : key;
  const bool prefix = shorter.size() >= 3 && longer.compare(0, shorter.size(), shorter) == 0;
  return prefix || (guess.size() >= 5 && models::edit_distance(key, guess) <= 2) ? guess : "";
}

const std::vector<std::string>& workload_fields() { return kWorkloadFields; }

bool is_workload_field(const std::string& key) {
  for (const auto& f : kWorkloadFields)
    if (f == key) return true;
  return false;
}

std::size_t point_count(const std::vector<SweepAxis>& axes) {
  std::size_t n = 1;
  for (const auto& a : axes) n *= a.values.size();
  return n;
}

std::vector<std::string> axis_values_at(const std::vector<SweepAxis>& axes, std::size_t index) {
  std::vector<std::string> chosen(axes.size());
  std::size_t rest = index;
  for (std::size_t i = axes.size(); i-- > 0;) {
    chosen[i] = axes[i].values[rest % axes[i].values.size()];
    rest /= axes[i].values.size();
  }
  return chosen;
}

std::size_t SweepSpec::size() const { return point_count(axes); }

SweepPoint SweepSpec::point(std::size_t index) const {
  SweepPoint p;
  p.index = index;
  p.engine = engine;
  const std::vector<std::string> chosen = axis_values_at(axes, index);
  for (std::size_t i = 0; i < axes.size(); ++i) {
    const auto& k = axes[i].key;
    const auto& v = chosen[i];
    if (k == "hardware") p.hardware = v;
    else if (k == "model") p.model = v;
    else if (k == "algorithm") p.algorithm = v;
    else if (k == "task") p.task = v;
    else if (k == "source_table") p.source_table = v;
    else if (k == "context") p.context = std::stoll(v);
    else if (k == "batch") p.batch = int(std::stoll(v));
    else if (is_draft_placement_field(k)) p.draft_placement.emplace_back(k, v);
    else p.hardware_overrides.emplace_back(k, v);
  }
  return p;
}

std::vector<std::string> SweepSpec::draft_placement_keys() const {
  std::vector<std::string> keys;
  for (const auto& a : axes)
    if (is_draft_placement_field(a.key)) keys.push_back(a.key);
  return keys;
}

std::vector<std::string> SweepSpec::hardware_keys() const {
  std::vector<std::string> keys;
  for (const auto& a : axes)
    if (!is_workload_field(a.key)) keys.push_back(a.key);
  return keys;
}

SweepSpec load_sweep_spec(const std::string& path) {
  YAML::Node root = read_sweep_spec_file(path);
  if (!root.IsMap()) models::throw_input_error(path, "(top level)", "a map with an axes: entry", describe(root));
  SweepSpec s;
  s.path = path;
  std::set<std::string> seen_top;
  for (const auto& kv : root) {
    const auto k = key_text(path, "(top level)", kv.first);
    // yaml-cpp keeps the first of a repeated key: a repeat is an error, not a silent choice.
    if (!seen_top.insert(k).second) models::throw_input_error(path, k, "each key once", "a repeat");
    const std::vector<std::string> top = {"name", "description", "engine", "x_max", "x_search", "plot", "axes"};
    if (std::find(top.begin(), top.end(), k) == top.end())
      models::throw_input_error(path, k, "one of name, description, engine, x_max, x_search, plot, axes",
                                "'" + k + "'" + models::did_you_mean(k, top));
  }
  s.name = root["name"] && root["name"].IsScalar() ? root["name"].Scalar() : std::string("sweep");
  if (root["engine"]) {
    if (!root["engine"].IsScalar()) models::throw_input_error(path, "engine", "roofline, sim or sim-clocked", describe(root["engine"]));
    s.engine = root["engine"].Scalar();
    if (s.engine != "roofline" && s.engine != "sim" && s.engine != "sim-clocked")
      models::throw_input_error(path, "engine", "roofline, sim or sim-clocked", "'" + s.engine + "'");
  }
  if (root["x_max"]) {
    const double x = parse_number(path, "x_max", root["x_max"]);
    if (x < 1 || x != std::floor(x) || x > 100000) models::throw_input_error(path, "x_max", "an integer >= 1", root["x_max"].Scalar());
    s.x_max = int(x);
  }
  if (root["x_search"]) {
    const YAML::Node v = root["x_search"];
    if (!v.IsScalar() || (v.Scalar() != "every_x" && v.Scalar() != "optimum"))
      models::throw_input_error(path, "x_search", "every_x or optimum", v.IsScalar() ? "'" + v.Scalar() + "'" : describe(v));
    s.every_x = v.Scalar() == "every_x";
  }
  if (root["plot"]) {
    if (!root["plot"].IsScalar()) models::throw_input_error(path, "plot", "a plot script name", describe(root["plot"]));
    s.plot = root["plot"].Scalar();
  }
  const YAML::Node axes = root["axes"];
  if (!axes || !axes.IsMap() || axes.size() == 0)
    models::throw_input_error(path, "axes", "a map of axis names to values", describe(axes));
  std::set<std::string> seen;
  for (const auto& kv : axes) {
    SweepAxis a;
    a.key = key_text(path, "axes", kv.first);
    if (!seen.insert(a.key).second) models::throw_input_error(path, "axes." + a.key, "each axis once", "a repeat");
    if (const std::string meant = misspelt_workload_axis(a.key); !meant.empty())
      throw models::InputError(fmt::format("{}: axes.{}: unknown axis (did you mean '{}'?)", path, a.key, meant));
    const YAML::Node& v = kv.second;
    if (v.IsScalar()) {
      a.values = {v.Scalar()};
    } else if (v.IsSequence()) {
      for (const auto& e : v) {
        if (!e.IsScalar()) models::throw_input_error(path, "axes." + a.key, "a list of scalars", describe(e));
        a.values.push_back(e.Scalar());
      }
    } else if (v.IsMap()) {
      if (is_workload_field(a.key) && a.key != "context" && a.key != "batch")
        models::throw_input_error(path, "axes." + a.key, "a name or a list of names", "a range");
      a.values = generated_values(path, "axes." + a.key, v);
    } else {
      models::throw_input_error(path, "axes." + a.key, "a value, a list or {from, to, count}", describe(v));
    }
    if (a.values.empty()) models::throw_input_error(path, "axes." + a.key, "at least one value", "an empty list");
    validate_values(path, a.key, a.values);
    s.axes.push_back(std::move(a));
  }
  for (const char* required : {"hardware", "model", "algorithm", "context"})
    if (!seen.count(required)) models::throw_input_error(path, std::string("axes.") + required, "a value or a list", "nothing");
  // The product is checked axis by axis: SweepSpec::size() would wrap past 2^64 (five axes of
  // 10^6 generated values) and pass a wrapped count.
  constexpr std::size_t kMaxPoints = 10000000;
  std::size_t points = 1;
  for (const auto& a : s.axes) {
    if (a.values.size() > kMaxPoints / points)
      models::throw_input_error(path, "axes", "at most 10^7 points", fmt::format("more than {}", kMaxPoints));
    points *= a.values.size();
  }
  return s;
}

}  // namespace experiments
