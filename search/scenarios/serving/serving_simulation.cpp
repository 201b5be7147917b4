#include "search/scenarios/serving/serving_simulation.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <fstream>
#include <memory>

#include "models/config_error.hpp"
#include "models/input_file.hpp"
#include "search/scenarios/serving/serving_instance.hpp"
#include "search/scenarios/serving/serving_scheduler.hpp"
#include "sim/io/csv.hpp"

namespace search::serving {

double gamma_unit_mean(std::mt19937_64& rng, double shape) {
  // Marsaglia and Tsang (2000) for shape >= 1; below, Gamma(shape) = Gamma(shape + 1) U^(1/shape).
  const bool boost = shape < 1;
  const double a = boost ? shape + 1 : shape;
  const double d = a - 1.0 / 3, c = 1 / std::sqrt(9 * d);
  double x = 0;
  while (true) {
    // A standard normal by Box-Muller from two uniforms.
    const double u1 = 1 - uniform01(rng), u2 = uniform01(rng);
    const double z = std::sqrt(-2 * std::log(u1)) * std::cos(2 * M_PI * u2);
    const double v = std::pow(1 + c * z, 3);
    if (v <= 0) continue;
    const double u = 1 - uniform01(rng);
    if (std::log(u) < 0.5 * z * z + d - d * v + d * std::log(v)) {
      x = d * v;
      break;
    }
  }
  if (boost) x *= std::pow(1 - uniform01(rng), 1 / shape);
  return x / shape;  // mean 1
}

std::vector<TracedRequest> read_arrival_trace(const std::string& path) {
  std::ifstream in = models::open_input_file(path, "arrival trace");
  sim::CsvReader reader(in, path);
  sim::CsvRecord header;
  if (!reader.next(header)) throw models::InputError(fmt::format("{}: empty arrival trace (expected a header line)", path));
  auto column = [&](const std::string& name) {
    const auto it = std::find(header.cells.begin(), header.cells.end(), name);
    if (it == header.cells.end())
      throw models::InputError(fmt::format("{}: no column '{}' (expected arrival_s, prompt_tokens, output_tokens)", path, name));
    return std::size_t(it - header.cells.begin());
  };
  const std::size_t at = column("arrival_s"), prompt = column("prompt_tokens"), output = column("output_tokens");
  std::vector<TracedRequest> out;
  for (sim::CsvRecord r; reader.next(r);) {
    auto number = [&](std::size_t k, const char* name, double lo, double hi) {
      double v = 0;
      std::size_t used = 0;
      const std::string cell = k < r.cells.size() ? r.cells[k] : "";
      try {
        v = std::stod(cell, &used);
      } catch (const std::exception&) {
        used = 0;
      }
      if (used == 0 || used != cell.size() || !(v >= lo && v <= hi))
        throw models::InputError(fmt::format("{}: line {}: {}: expected a number in [{:g}, {:g}], got '{}'", path, r.line,
                                             name, lo, hi, cell));
      return v;
    };
    TracedRequest q;
    q.arrival_s = number(at, "arrival_s", 0, 1e9);
    q.prompt_tokens = (long long)number(prompt, "prompt_tokens", 1, 1e7);
    q.output_tokens = (long long)number(output, "output_tokens", 1, 1e7);
    if (!out.empty() && q.arrival_s < out.back().arrival_s)
      throw models::InputError(fmt::format("{}: line {}: arrival_s {} is before the previous request's {}", path, r.line,
                                           q.arrival_s, out.back().arrival_s));
    out.push_back(q);
  }
  if (out.empty()) throw models::InputError(fmt::format("{}: the arrival trace holds no request", path));
  return out;
}

double percentile(std::vector<double> values, double p) {
  if (values.empty()) return 0;
  std::sort(values.begin(), values.end());
  const double rank = std::ceil(p / 100 * double(values.size()));
  const std::size_t i = std::size_t(std::clamp(rank, 1.0, double(values.size()))) - 1;
  return values[i];
}

ServingRun simulate_serving(const ServingWorkload& workload, const ServingConfig& config, const ServingStepCosts& costs) {
  const std::unique_ptr<ServingScheduler> scheduler = make_serving_scheduler(config.scheduler);
  ServingInstance instance(workload, config, costs, *scheduler);
  return instance.run();
}

}  // namespace search::serving
