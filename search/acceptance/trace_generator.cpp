#include "search/acceptance/trace_generator.hpp"

#include <fmt/format.h>

#include <cmath>
#include <cstdlib>
#include <ostream>
#include <sstream>

#include "models/config_error.hpp"

namespace search {

namespace {

void validate_vector(const std::string& source, const std::string& key, const std::vector<double>& p) {
  if (p.empty()) models::throw_input_error(source, key, "at least one acceptance probability", "none");
  double sum = 0;
  for (double v : p) {
    if (!std::isfinite(v) || v < 0 || v > 1)
      models::throw_input_error(source, key, "probabilities in [0, 1]", fmt::format("{}", v));
    sum += v;
  }
  // At most one child of a node is accepted, so the per-rank probabilities are exclusive.
  if (sum > 1 + 1e-9)
    models::throw_input_error(source, key, "probabilities summing to at most 1", fmt::format("sum {}", sum));
}

}  // namespace

void PositionalModel::validate(const std::string& source) const {
  validate_vector(source, "acceptance", acceptance);
  if (!std::isfinite(depth_decay) || depth_decay <= 0 || depth_decay > 1)
    models::throw_input_error(source, "depth_decay", "a factor in (0, 1]", fmt::format("{}", depth_decay));
  if (!drift_to.empty()) {
    validate_vector(source, "drift_to", drift_to);
    if (drift_to.size() != acceptance.size())
      models::throw_input_error(source, "drift_to", fmt::format("{} probabilities (as many as acceptance)", acceptance.size()),
                                fmt::format("{}", drift_to.size()));
  }
  if (drift_period_lines < 0)
    models::throw_input_error(source, "drift_period_lines", "a period >= 0 (0: linear drift)",
                              fmt::format("{}", drift_period_lines));
  if (max_depth < 1 || max_depth > 100000)
    models::throw_input_error(source, "max_depth", "a depth in 1..100000", fmt::format("{}", max_depth));
}

std::vector<double> PositionalModel::acceptance_at(std::int64_t line, std::int64_t total_lines) const {
  if (drift_to.empty()) return acceptance;
  double t = 0;
  if (drift_period_lines > 0) {
    // Triangle wave: start -> drift_to over half a period, and back.
    const double phase = double(line % drift_period_lines) / double(drift_period_lines);
    t = 1 - std::abs(2 * phase - 1);
  } else if (total_lines > 1) {
    t = std::min(1.0, double(line) / double(total_lines - 1));
  }
  std::vector<double> p(acceptance.size());
  for (std::size_t k = 0; k < p.size(); ++k) p[k] = (1 - t) * acceptance[k] + t * drift_to[k];
  return p;
}

double PositionalModel::path_probability(const RankPath& path) const {
  if (int(path.size()) > max_depth) return 0;
  double prob = 1, scale = 1;
  for (int r : path) {
    if (r < 0 || r >= int(acceptance.size())) return 0;
    prob *= acceptance[std::size_t(r)] * scale;
    scale *= depth_decay;
  }
  return prob;
}

double PositionalModel::expected_accepted_length() const {
  double sum_p = 0;
  for (double v : acceptance) sum_p += v;
  // P(accepted length >= d) = prod_{h <= d} (sum_k p_k decay^(h-1)).
  double expected = 0, reach = 1, scale = 1;
  for (int d = 1; d <= max_depth; ++d) {
    reach *= sum_p * scale;
    if (reach < 1e-300) break;
    expected += reach;
    scale *= depth_decay;
  }
  return expected;
}

std::vector<double> parse_acceptance_vector(const std::string& option, const std::string& text) {
  std::vector<double> values;
  std::stringstream ss(text);
  std::string item;
  while (std::getline(ss, item, ',')) {
    const auto b = item.find_first_not_of(" \t");
    const auto e = item.find_last_not_of(" \t");
    const std::string trimmed = b == std::string::npos ? "" : item.substr(b, e - b + 1);
    char* end = nullptr;
    const double v = std::strtod(trimmed.c_str(), &end);
    if (trimmed.empty() || end != trimmed.c_str() + trimmed.size())
      models::throw_input_error("command line", option, "comma-separated probabilities like 0.6,0.1,0.05",
                                "'" + text + "'");
    values.push_back(v);
  }
  validate_vector("command line", option, values);
  return values;
}

TraceGenerator::TraceGenerator(PositionalModel model, std::uint64_t seed, std::int64_t total_lines)
    : model_(std::move(model)), rng_(seed), total_lines_(total_lines) {
  model_.validate();
  current_ = model_.acceptance;
  depth_scale_.resize(std::size_t(model_.max_depth));
  double scale = 1;
  for (auto& s : depth_scale_) {
    s = scale;
    scale *= model_.depth_decay;
  }
}

double TraceGenerator::uniform() {
  // 53 random bits -> [0, 1): the same double on every platform.
  return double(rng_() >> 11) * 0x1.0p-53;
}

void TraceGenerator::next(RankPath& accepted) {
  accepted.clear();
  if (!model_.drift_to.empty()) current_ = model_.acceptance_at(line_, total_lines_);
  ++line_;
  for (int depth = 0; depth < model_.max_depth; ++depth) {
    const double u = uniform();
    const double scale = depth_scale_[std::size_t(depth)];
    double cumulative = 0;
    int chosen = -1;
    for (std::size_t k = 0; k < current_.size(); ++k) {
      cumulative += current_[k] * scale;
      if (u < cumulative) {
        chosen = int(k);
        break;
      }
    }
    if (chosen < 0) return;
    accepted.push_back(chosen);
  }
}

void write_synthetic_trace(std::ostream& out, const PositionalModel& model, std::uint64_t seed,
                           std::int64_t lines, const std::function<void(const RankPath&)>& on_path) {
  TraceGenerator gen(model, seed, lines);
  TraceWriter writer(out);
  auto join = [](const std::vector<double>& v) {
    std::string s;
    for (std::size_t i = 0; i < v.size(); ++i) s += (i ? "," : "") + fmt::format("{}", v[i]);
    return s;
  };
  writer.comment(fmt::format("specdse trace-gen: acceptance_vector={} depth_decay={} max_depth={} seed={} lines={}",
                             join(model.acceptance), model.depth_decay, model.max_depth, seed, lines));
  if (!model.drift_to.empty())
    writer.comment(fmt::format("drift_to={} drift_period_lines={}", join(model.drift_to),
                               model.drift_period_lines));
  RankPath path;
  for (std::int64_t i = 0; i < lines; ++i) {
    gen.next(path);
    writer.write(path);
    if (on_path) on_path(path);
    // A stream that stopped taking lines (a full disk, a closed pipe) ends the generation now,
    // not after every line asked for (up to 10^12); its writer reports the failure, naming it.
    if ((i & 0xFFFF) == 0xFFFF && !out.flush()) return;
  }
}

}  // namespace search
