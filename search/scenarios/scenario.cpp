#include "search/scenarios/scenario.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <map>
#include <mutex>
#include <utility>

#include "models/closest_name.hpp"
#include "models/config_error.hpp"
#include "models/registry.hpp"

namespace search {

namespace {

models::Registry<std::string, ScenarioInfo>& scenario_table() {
  static models::Registry<std::string, ScenarioInfo> r("scenarios");
  return r;
}

// A list parameter may name at most this many values: a range like 1-1000000000 is refused
// instead of growing memory for minutes.
constexpr std::size_t kMaxListValues = 4096;

std::string trim(const std::string& s) {
  const auto b = s.find_first_not_of(" \t");
  if (b == std::string::npos) return "";
  return s.substr(b, s.find_last_not_of(" \t") - b + 1);
}

std::vector<std::string> split_commas(const std::string& s) {
  std::vector<std::string> out;
  std::size_t start = 0;
  while (true) {
    const auto end = s.find(',', start);
    out.push_back(trim(s.substr(start, end == std::string::npos ? std::string::npos : end - start)));
    if (end == std::string::npos) return out;
    start = end + 1;
  }
}

// Whole text as a finite number; false otherwise (never throws).
bool parse_real(const std::string& s, double& v) {
  if (s.empty()) return false;
  try {
    std::size_t used = 0;
    v = std::stod(s, &used);
    return used == s.size() && std::isfinite(v);
  } catch (const std::exception&) {
    return false;
  }
}

// Whole text as an integer that fits a long long; false otherwise.
bool parse_integer(const std::string& s, long long& v) {
  if (s.empty()) return false;
  try {
    std::size_t used = 0;
    v = std::stoll(s, &used);
    return used == s.size();
  } catch (const std::exception&) {
    return false;
  }
}

bool in_range(const ScenarioParam& p, double v) { return v >= p.min && v <= p.max; }

std::string bound(double v) {
  if (std::isinf(v)) return v < 0 ? "-inf" : "inf";
  return fmt::format("{}", v);
}

// An integer list's values (ranges expanded); false on any bad item.
bool parse_integer_list(const ScenarioParam& p, const std::string& text, std::vector<long long>& out) {
  for (const auto& item : split_commas(text)) {
    long long lo = 0, hi = 0;
    const auto dash = item.find('-', 1);  // a leading '-' is a sign
    if (dash == std::string::npos) {
      if (!parse_integer(item, lo)) return false;
      hi = lo;
    } else if (!parse_integer(item.substr(0, dash), lo) || !parse_integer(item.substr(dash + 1), hi) || hi < lo) {
      return false;
    }
    if (!in_range(p, double(lo)) || !in_range(p, double(hi))) return false;
    if (double(hi) - double(lo) + double(out.size()) >= double(kMaxListValues)) return false;
    for (long long v = lo; v <= hi; ++v) out.push_back(v);
  }
  return !out.empty();
}

bool parse_real_list(const ScenarioParam& p, const std::string& text, std::vector<double>& out) {
  for (const auto& item : split_commas(text)) {
    double v = 0;
    if (!parse_real(item, v) || !in_range(p, v) || out.size() >= kMaxListValues) return false;
    out.push_back(v);
  }
  return !out.empty();
}

const ScenarioParam& declaration_of(const ScenarioContext& ctx, const std::string& key) {
  for (const auto& p : ctx.declared)
    if (p.key == key) return p;
  throw models::InputError(fmt::format("scenario {}: parameter '{}' is not declared", ctx.scenario, key));
}

const std::string& value(const ScenarioContext& ctx, const std::string& key) {
  auto it = ctx.params.find(key);
  if (it == ctx.params.end())
    throw models::InputError(fmt::format("scenario {}: parameter '{}' is not declared", ctx.scenario, key));
  return it->second;
}

}  // namespace

std::string to_string(ParamType type) {
  switch (type) {
    case ParamType::integer: return "integer";
    case ParamType::real: return "real";
    case ParamType::text: return "text";
    case ParamType::choice: return "choice";
    case ParamType::boolean: return "boolean";
    case ParamType::integer_list: return "integer list";
    case ParamType::real_list: return "real list";
  }
  return "?";
}

namespace param {
ScenarioParam integer(std::string key, long long default_value, double min, double max, std::string unit,
                      std::string help) {
  return {std::move(key), ParamType::integer, std::to_string(default_value), std::move(unit), min, max, {}, std::move(help)};
}
ScenarioParam real(std::string key, double default_value, double min, double max, std::string unit, std::string help) {
  return {std::move(key), ParamType::real, fmt::format("{}", default_value), std::move(unit), min, max, {}, std::move(help)};
}
ScenarioParam optional_real(std::string key, double min, double max, std::string unit, std::string help) {
  return {std::move(key), ParamType::real, "", std::move(unit), min, max, {}, std::move(help)};
}
ScenarioParam text(std::string key, std::string default_value, std::string help) {
  ScenarioParam p;
  p.key = std::move(key);
  p.default_value = std::move(default_value);
  p.help = std::move(help);
  return p;
}
ScenarioParam choice(std::string key, std::string default_value, std::vector<std::string> choices, std::string help) {
  ScenarioParam p = text(std::move(key), std::move(default_value), std::move(help));
  p.type = ParamType::choice;
  p.choices = std::move(choices);
  return p;
}
ScenarioParam boolean(std::string key, bool default_value, std::string help) {
  ScenarioParam p = text(std::move(key), default_value ? "true" : "false", std::move(help));
  p.type = ParamType::boolean;
  return p;
}
ScenarioParam integers(std::string key, std::string default_value, double min, double max, std::string unit,
                       std::string help) {
  return {std::move(key), ParamType::integer_list, std::move(default_value), std::move(unit), min, max, {}, std::move(help)};
}
ScenarioParam reals(std::string key, std::string default_value, double min, double max, std::string unit,
                    std::string help) {
  return {std::move(key), ParamType::real_list, std::move(default_value), std::move(unit), min, max, {}, std::move(help)};
}
ScenarioParam system(std::string default_value, const std::string& detail) {
  return text("system", std::move(default_value),
              "system config (configs/systems) or path" + (detail.empty() ? "" : ", " + detail));
}
ScenarioParam draft_device() {
  return text("draft-device", "", "device running the draft (default: the system's placement.draft)");
}
ScenarioParam acceptance_band(std::string default_value, const std::string& use) {
  return text("acceptance", std::move(default_value),
              "acceptance process band (configs/acceptance/processes/NAME.yaml, or a path)" + use);
}
ScenarioParam seed(const std::string& of) {
  // Any 63-bit seed: the generators take std::uint64_t, the CLI parses a signed long long.
  return integer("seed", 1, 0, 9.0e18, "", "seed of " + of);
}
}  // namespace param

std::string describe_param(const ScenarioParam& p) {
  const std::string unit = p.unit.empty() ? "" : " " + p.unit;
  const std::string range = fmt::format("[{}, {}]", bound(p.min), bound(p.max));
  switch (p.type) {
    case ParamType::integer: return fmt::format("an integer in {}{}", range, unit);
    case ParamType::real: return fmt::format("a number in {}{}", range, unit);
    case ParamType::integer_list: return fmt::format("integers or ranges a-b in {}{}, comma separated", range, unit);
    case ParamType::real_list: return fmt::format("numbers in {}{}, comma separated", range, unit);
    case ParamType::boolean: return "true or false";
    case ParamType::choice: {
      std::string s;
      for (const auto& c : p.choices) s += (s.empty() ? "" : ", ") + c;
      return "one of " + s;
    }
    case ParamType::text: return "a name";
  }
  return "a value";
}

std::string param_problem(const ScenarioParam& p, const std::string& raw) {
  const std::string v = trim(raw);
  // An optional number (declared without a default) may stay unset.
  if (v.empty() && p.default_value.empty() && p.type != ParamType::boolean && p.type != ParamType::choice) return "";
  bool ok = true;
  switch (p.type) {
    case ParamType::integer: {
      long long n = 0;
      ok = parse_integer(v, n) && in_range(p, double(n));
      break;
    }
    case ParamType::real: {
      double x = 0;
      ok = parse_real(v, x) && in_range(p, x);
      break;
    }
    case ParamType::integer_list: {
      std::vector<long long> xs;
      ok = parse_integer_list(p, v, xs);
      break;
    }
    case ParamType::real_list: {
      std::vector<double> xs;
      ok = parse_real_list(p, v, xs);
      break;
    }
    case ParamType::boolean: ok = v == "true" || v == "false"; break;
    case ParamType::choice:
      ok = std::find(p.choices.begin(), p.choices.end(), v) != p.choices.end();
      if (!ok) return fmt::format("expected {}, got '{}'{}", describe_param(p), raw, models::did_you_mean(v, p.choices));
      break;
    case ParamType::text: break;  // a name the scenario resolves (and reports) itself
  }
  return ok ? "" : fmt::format("expected {}, got '{}'", describe_param(p), raw);
}

std::string validate_param(const std::string& scenario_name, const ScenarioParam& p, const std::string& raw) {
  const std::string problem = param_problem(p, raw);
  if (!problem.empty()) throw models::InputError(fmt::format("scenario {}: --param {}: {}", scenario_name, p.key, problem));
  const std::string v = trim(raw);
  if (p.type != ParamType::integer_list && p.type != ParamType::real_list) return v;
  std::string normalised;  // lists without spaces
  for (const auto& item : split_commas(v)) normalised += (normalised.empty() ? "" : ",") + item;
  return normalised;
}

models::SystemSpec ScenarioContext::system_spec() const {
  if (system) return *system;
  require(configs != nullptr, "a config registry");
  const std::string& name = text("system");
  require(!name.empty(), "--system");
  return models::load_system(configs->path("systems", name), *configs);
}

void ScenarioContext::require(bool given, const std::string& option) const {
  if (!given) throw models::InputError(fmt::format("scenario {}: expected {}, got none", scenario, option));
}

long long ScenarioContext::integer(const std::string& key) const {
  long long n = 0;
  if (!parse_integer(value(*this, key), n))
    throw models::InputError(fmt::format("scenario {}: --param {}: expected an integer, got '{}'", scenario, key,
                                         value(*this, key)));
  return n;
}

double ScenarioContext::real(const std::string& key) const {
  double x = 0;
  if (!parse_real(value(*this, key), x))
    throw models::InputError(fmt::format("scenario {}: --param {}: expected a number, got '{}'", scenario, key,
                                         value(*this, key)));
  return x;
}

const std::string& ScenarioContext::text(const std::string& key) const { return value(*this, key); }

bool ScenarioContext::flag(const std::string& key) const {
  const std::string& v = value(*this, key);
  if (v == "true") return true;
  if (v == "false") return false;
  throw models::InputError(fmt::format("scenario {}: --param {}: expected true or false, got '{}'", scenario, key, v));
}

std::vector<long long> ScenarioContext::integers(const std::string& key) const {
  std::vector<long long> out;
  if (!parse_integer_list(declaration_of(*this, key), value(*this, key), out))
    throw models::InputError(fmt::format("scenario {}: --param {}: expected {}, got '{}'", scenario, key,
                                         describe_param(declaration_of(*this, key)), value(*this, key)));
  // As the CLI's integer lists: sorted, each value once.
  std::sort(out.begin(), out.end());
  out.erase(std::unique(out.begin(), out.end()), out.end());
  return out;
}

std::vector<double> ScenarioContext::reals(const std::string& key) const {
  std::vector<double> out;
  if (!parse_real_list(declaration_of(*this, key), value(*this, key), out))
    throw models::InputError(fmt::format("scenario {}: --param {}: expected {}, got '{}'", scenario, key,
                                         describe_param(declaration_of(*this, key)), value(*this, key)));
  return out;
}

ScenarioRegistration::ScenarioRegistration(ScenarioInfo info) {
  const std::string name = info.name;
  scenario_table().add(name, std::move(info));
}

std::vector<ScenarioInfo> scenarios() { return scenario_table().values(); }

ScenarioInfo scenario(const std::string& name) {
  if (const ScenarioInfo* info = scenario_table().find(name)) return *info;
  std::string known;
  const std::vector<std::string> names = scenario_table().keys();
  for (const auto& n : names) known += (known.empty() ? "" : ", ") + n;
  throw models::InputError(fmt::format("scenario '{}' is not registered{} (available: {})", name,
                                       models::did_you_mean(name, names), known.empty() ? "none" : known));
}

const ScenarioParam* find_param(const ScenarioInfo& info, const std::string& key) {
  for (const auto& p : info.params)
    if (p.key == key) return &p;
  return nullptr;
}

std::map<std::string, std::string> scenario_params(const ScenarioInfo& info,
                                                   const std::vector<std::string>& settings) {
  std::map<std::string, std::string> params;
  for (const auto& p : info.params) params[p.key] = validate_param(info.name, p, p.default_value);
  std::map<std::string, std::string> given;  // key -> the setting that gave it
  for (const auto& s : settings) {
    const auto eq = s.find('=');
    const std::string key = s.substr(0, eq);
    // A key given twice: which value should win is not for the tool to guess.
    if (eq != std::string::npos) {
      if (const auto it = given.find(key); it != given.end())
        throw models::InputError(fmt::format("scenario {}: --param {} and --param {}: {} given twice", info.name,
                                             it->second, s, key));
      given.emplace(key, s);
    }
    const ScenarioParam* p = eq == std::string::npos ? nullptr : find_param(info, key);
    if (!p) {
      std::string known;
      std::vector<std::string> keys;
      for (const auto& q : info.params) known += (known.empty() ? "" : ", ") + q.key, keys.push_back(q.key);
      throw models::InputError(fmt::format("scenario {}: --param: expected KEY=VALUE with KEY one of {}, got '{}'{}",
                                           info.name, known.empty() ? "none (it takes no parameters)" : known, s,
                                           models::did_you_mean(key, keys)));
    }
    params[key] = validate_param(info.name, *p, s.substr(eq + 1));
  }
  return params;
}

}  // namespace search
