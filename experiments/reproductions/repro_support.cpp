#include "experiments/reproductions/repro_support.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <filesystem>
#include <map>

#include "models/config_error.hpp"

namespace experiments {

PlotRequest plot_script(const std::string& name, std::vector<std::string> args) {
  return {std::string(SPECDSE_SOURCE_DIR) + "/experiments/plots/" + name + ".py", std::move(args)};
}

std::vector<PlotRequest> reproduction_plots(const std::string& name, const ReproductionResult& res) {
  if (!res.plots.empty()) return res.plots;
  std::string script = name;
  std::replace(script.begin(), script.end(), '-', '_');
  PlotRequest conventional = plot_script(script);
  if (!std::filesystem::exists(conventional.script)) return {};
  return {conventional};
}

namespace {
std::string trim(std::string s) {
  while (!s.empty() && (s.back() == '\r' || s.back() == ' ')) s.pop_back();
  std::size_t i = 0;
  while (i < s.size() && s[i] == ' ') ++i;
  return s.substr(i);
}
}  // namespace

std::optional<double> reference_value(const ReferenceRows& rows,
                                      const std::vector<std::pair<std::string, std::string>>& match,
                                      const std::string& column) {
  for (const auto& raw : rows) {
    std::map<std::string, std::string> row;
    for (const auto& [k, v] : raw) row[trim(k)] = trim(v);
    bool ok = true;
    for (const auto& [k, v] : match) {
      auto it = row.find(k);
      if (it == row.end() || trim(it->second) != v) { ok = false; break; }
    }
    if (!ok) continue;
    auto it = row.find(column);
    if (it == row.end() || trim(it->second).empty()) return std::nullopt;
    return std::stod(trim(it->second));
  }
  return std::nullopt;
}

Cell optional_num(const std::optional<double>& v, int digits) {
  return v ? num(*v, digits) : text("");
}

Cell optional_int(const std::optional<double>& v) {
  return v ? integer(std::llround(*v)) : text("");
}

Cell error_pct(double ours, const std::optional<double>& paper) {
  if (!paper || *paper == 0) return text("");
  return num(100.0 * (ours - *paper) / *paper, 3);
}

std::vector<search::AatMeasurement> select_by_source_prefix(const search::AcceptanceData& data,
                                                            const std::string& algorithm,
                                                            const std::string& model,
                                                            const std::string& task,
                                                            std::optional<long long> context,
                                                            const std::string& prefix) {
  search::AatQuery q;
  q.algorithm = algorithm;
  q.target_model = model;
  q.task = task;
  q.context = context;
  std::vector<search::AatMeasurement> out;
  for (const auto& r : data.select(q))
    if (r.source_table.compare(0, prefix.size(), prefix) == 0) out.push_back(r);
  return out;
}

std::vector<TreeMethodPoint> load_tree_methods(const std::string& path) {
  std::vector<TreeMethodPoint> points;
  for (const auto& raw : load_reference(path)) {
    // The data files may have CRLF line ends: trim keys and cells.
    std::map<std::string, std::string> row;
    for (const auto& [k, v] : raw) row[trim(k)] = trim(v);
    auto cell = [&](const char* key) {
      auto it = row.find(key);
      if (it == row.end())
        throw models::InputError(fmt::format("{}: {}: expected a column, got none", path, key));
      return trim(it->second);
    };
    TreeMethodPoint p;
    p.method = cell("method");
    try {
      p.context = std::stoll(cell("context"));
      p.draft_nodes = std::stoi(cell("draft_nodes"));
      p.aat = std::stod(cell("aat"));
    } catch (const std::exception&) {
      throw models::InputError(fmt::format("{}: row of method {}: expected numbers in context, "
                                           "draft_nodes and aat, got '{}', '{}', '{}'",
                                           path, p.method, cell("context"), cell("draft_nodes"), cell("aat")));
    }
    p.tree_shape = cell("tree_shape");
    if (p.draft_nodes < 1 || !std::isfinite(p.aat) || p.aat < 1)
      throw models::InputError(fmt::format("{}: method {} draft_nodes {}: expected AAT >= 1 and nodes >= 1, got {}",
                                           path, p.method, p.draft_nodes, p.aat));
    points.push_back(p);
  }
  return points;
}

std::vector<std::string> tree_method_names(const std::vector<TreeMethodPoint>& points) {
  std::vector<std::string> names;
  for (const auto& p : points)
    if (std::find(names.begin(), names.end(), p.method) == names.end()) names.push_back(p.method);
  return names;
}

search::AatSource tree_method_source(const std::vector<TreeMethodPoint>& points,
                                     const std::string& method, const std::string& what) {
  std::vector<search::AatMeasurement> rows;
  for (const auto& p : points) {
    if (p.method != method) continue;
    search::AatMeasurement m;
    m.context = p.context;
    m.draft_nodes = p.draft_nodes;
    m.tree_shape = p.tree_shape;
    m.aat = p.aat;
    rows.push_back(m);
  }
  return search::AatSource::from_measurements(rows, what);
}

search::AatSource geometric_mean_source(const std::vector<search::AatSource>& sources,
                                        const std::string& what) {
  search::AatSource out;
  if (sources.empty()) throw models::InputError(what + ": expected at least one AAT curve, got none");
  std::vector<search::AatPoint> pts{{1.0, 1.0}};
  for (const auto& [x, first] : sources.front().measured) {
    double log_sum = 0;
    bool all = true;
    for (const auto& s : sources) {
      auto it = s.measured.find(x);
      if (it == s.measured.end()) { all = false; break; }
      log_sum += std::log(it->second);
    }
    if (!all) continue;
    const double g = std::exp(log_sum / double(sources.size()));
    out.measured[x] = g;
    pts.push_back({double(x), g});
    auto w0 = sources.front().measured_widths.find(x);
    bool same_shape = w0 != sources.front().measured_widths.end();
    for (const auto& s : sources) {
      auto it = s.measured_widths.find(x);
      if (!same_shape || it == s.measured_widths.end() || it->second != w0->second) same_shape = false;
    }
    if (same_shape) out.measured_widths[x] = w0->second;
  }
  out.fit = search::fit_aat(pts, what);
  return out;
}

double r_squared(const search::AatFit& fit, const std::vector<search::AatPoint>& points) {
  if (points.empty()) return 0;
  double mean = 0;
  for (const auto& p : points) mean += p.aat;
  mean /= double(points.size());
  double ss_res = 0, ss_tot = 0;
  for (const auto& p : points) {
    ss_res += (p.aat - fit(p.x)) * (p.aat - fit(p.x));
    ss_tot += (p.aat - mean) * (p.aat - mean);
  }
  return ss_tot > 0 ? 1.0 - ss_res / ss_tot : 1.0;
}

double first_sign_change(const std::vector<double>& x, const std::vector<double>& y) {
  for (std::size_t i = 1; i < x.size() && i < y.size(); ++i)
    if ((y[i - 1] > 0) != (y[i] > 0)) return x[i - 1] + (x[i] - x[i - 1]) * y[i - 1] / (y[i - 1] - y[i]);
  return std::nan("");
}

}  // namespace experiments
