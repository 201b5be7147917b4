#include "search/scenarios/scenario.hpp"

#include <fmt/format.h>

#include <map>
#include <mutex>
#include <utility>

#include "models/config_error.hpp"

namespace search {

namespace {

// Function-local statics: registrations run during static initialisation, in any order.
std::map<std::string, ScenarioInfo>& registered() {
  static std::map<std::string, ScenarioInfo> s;
  return s;
}
std::mutex& registry_mutex() {
  static std::mutex m;
  return m;
}

const std::string& param(const ScenarioContext& ctx, const std::string& key) {
  auto it = ctx.params.find(key);
  if (it == ctx.params.end())
    throw models::InputError(fmt::format("scenario {}: parameter '{}' is not declared", ctx.scenario, key));
  return it->second;
}

}  // namespace

void ScenarioContext::require(bool given, const std::string& option) const {
  if (!given) throw models::InputError(fmt::format("scenario {}: expected {}, got none", scenario, option));
}

long long ScenarioContext::int_param(const std::string& key) const {
  const std::string& v = param(*this, key);
  std::size_t used = 0;
  long long n = 0;
  try {
    n = std::stoll(v, &used);
  } catch (const std::exception&) {
    used = 0;
  }
  if (used == 0 || used != v.size())
    throw models::InputError(fmt::format("scenario {}: --param {}: expected an integer, got '{}'", scenario, key, v));
  return n;
}

bool ScenarioContext::bool_param(const std::string& key) const {
  const std::string& v = param(*this, key);
  if (v == "true") return true;
  if (v == "false") return false;
  throw models::InputError(fmt::format("scenario {}: --param {}: expected true or false, got '{}'", scenario, key, v));
}

ScenarioRegistration::ScenarioRegistration(ScenarioInfo info) {
  std::lock_guard<std::mutex> lock(registry_mutex());
  auto name = info.name;
  registered()[name] = std::move(info);
}

std::vector<ScenarioInfo> scenarios() {
  std::lock_guard<std::mutex> lock(registry_mutex());
  std::vector<ScenarioInfo> all;
  for (const auto& [name, info] : registered()) all.push_back(info);
  return all;
}

ScenarioInfo scenario(const std::string& name) {
  std::lock_guard<std::mutex> lock(registry_mutex());
  auto it = registered().find(name);
  if (it != registered().end()) return it->second;
  std::string known;
  for (const auto& [n, info] : registered()) known += (known.empty() ? "" : ", ") + n;
  throw models::InputError(
      fmt::format("scenario '{}' is not registered (available: {})", name, known.empty() ? "none" : known));
}

std::map<std::string, std::string> scenario_params(const ScenarioInfo& info,
                                                   const std::vector<std::string>& settings) {
  std::map<std::string, std::string> params;
  for (const auto& p : info.params) params[p.key] = p.default_value;
  for (const auto& s : settings) {
    const auto eq = s.find('=');
    const std::string key = s.substr(0, eq);
    if (eq == std::string::npos || params.count(key) == 0) {
      std::string known;
      for (const auto& p : info.params) known += (known.empty() ? "" : ", ") + p.key;
      throw models::InputError(fmt::format("scenario {}: --param: expected KEY=VALUE with KEY one of {}, got '{}'",
                                           info.name, known.empty() ? "none (it takes no parameters)" : known, s));
    }
    params[key] = s.substr(eq + 1);
  }
  return params;
}

}  // namespace search
