#include "experiments/plan/plan_scheme.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <filesystem>
#include <limits>
#include <mutex>
#include <variant>

#include "models/config_error.hpp"

namespace experiments {
namespace {

std::vector<PlanSchemeInfo>& table() {
  static std::vector<PlanSchemeInfo> t;
  return t;
}

}  // namespace

PlanSchemeRegistration::PlanSchemeRegistration(PlanSchemeInfo info) { table().push_back(std::move(info)); }

std::vector<PlanSchemeInfo> plan_schemes() {
  auto t = table();
  std::stable_sort(t.begin(), t.end(), [](const auto& a, const auto& b) {
    return a.order != b.order ? a.order < b.order : a.name < b.name;
  });
  return t;
}

PlanCandidate untimed(std::string scheme, std::string placement, std::string status) {
  PlanCandidate c(std::move(scheme), std::move(placement));
  c.status = std::move(status);
  return c;
}

std::optional<search::ScenarioResult> run_candidate_scenario(const PlanSetup& s, const std::string& name,
                                                             const ScenarioInputs& in, const std::string& scheme,
                                                             const std::string& placement,
                                                             std::vector<PlanCandidate>& out) {
  try {
    return run_scenario(name, in, *s.configs);
  } catch (const models::InputError& e) {
    const std::string what = e.what();
    out.push_back(untimed(scheme, placement, (what.find("infeasible") != std::string::npos ? "" : "not applicable: ") + what));
    return std::nullopt;
  }
}

ScenarioInputs PlanSetup::inputs() const {
  ScenarioInputs in;
  // By name when it is a shipped model (scenarios look acceptance up by name), else by its file.
  in.model = configs->has_model(target.name) || target.source_file.empty() ? target.name : target.source_file;
  in.contexts = {context};
  in.batch = batch;
  in.engine = engine;
  in.engine_given = true;
  in.task = task;
  in.want_trace = want_trace;
  if (single_hw) in.system_spec = &system;
  return in;
}

std::string PlanSetup::system_arg() const {
  namespace fs = std::filesystem;
  std::error_code ec;
  const fs::path shipped = fs::path(configs->dir()) / "systems" / (system.name + ".yaml");
  if (system.source_file.empty() || fs::equivalent(shipped, system.source_file, ec)) return system.name;
  return system.source_file;
}

std::vector<std::string> PlanSetup::system_setting() const {
  if (single_hw) return {};
  return {"system=" + system_arg()};
}

bool ResultRows::has(const std::string& column) const {
  return std::find(r_.columns.begin(), r_.columns.end(), column) != r_.columns.end();
}

std::size_t ResultRows::index(const std::string& column) const {
  const auto it = std::find(r_.columns.begin(), r_.columns.end(), column);
  // A scenario's columns are its contract with plan: a missing one is a programming error.
  if (it == r_.columns.end()) throw std::logic_error("plan: scenario result has no column '" + column + "'");
  return std::size_t(it - r_.columns.begin());
}

std::string ResultRows::text(std::size_t row, const std::string& column) const {
  const auto& cell = r_.rows.at(row).at(index(column));
  if (const auto* s = std::get_if<std::string>(&cell)) return *s;
  if (const auto* i = std::get_if<std::int64_t>(&cell)) return std::to_string(*i);
  return fmt::format("{}", std::get<double>(cell));
}

double ResultRows::number(std::size_t row, const std::string& column) const {
  const auto& cell = r_.rows.at(row).at(index(column));
  if (const auto* i = std::get_if<std::int64_t>(&cell)) return double(*i);
  if (const auto* d = std::get_if<double>(&cell)) return *d;
  return std::numeric_limits<double>::quiet_NaN();
}

std::string reproduce_command(const PlanSetup& s, const std::string& args, bool with_batch) {
  std::string cmd = fmt::format("specdse {} --model {} --context {}", args, s.target.name, s.context);
  if (with_batch && s.batch > 1) cmd += fmt::format(" --batch {}", s.batch);
  if (s.engine != "roofline") cmd += " --engine " + s.engine;
  return cmd;
}

}  // namespace experiments
