#include "experiments/cli/workload_setup.hpp"

#include <fmt/format.h>

#include "models/config_error.hpp"
#include "sim/system/memory_fit.hpp"

namespace experiments {

models::Workload make_workload(const models::ConfigRegistry& reg, const std::string& model,
                               const std::string& algorithm, int batch) {
  models::Workload w;
  w.target = reg.model(model);
  w.batch = batch;
  if (!algorithm.empty()) w.algorithm = std::make_shared<models::AlgorithmSpec>(reg.algorithm(algorithm));
  return w;
}

void require_workload_fits(const models::HardwareSpec& hw, const models::Workload& w, long long context,
                           int max_x) {
  sim::MemoryQuery q;
  q.batch = w.batch;
  q.step_tokens = max_x;
  q.kv_tokens = context + max_x;
  sim::require_workload_fit(hw, w.target, w.algorithm.get(), q);
}

search::AatSource aat_source(const search::AcceptanceData& data, const AatSelection& sel,
                             long long context) {
  search::AatQuery q;
  q.algorithm = sel.algorithm;
  q.target_model = sel.model;
  q.task = sel.task;
  q.context = context;
  if (!sel.source_table.empty()) q.source_table = sel.source_table;
  const auto rows = data.select(q);
  if (rows.empty()) {
    q.context.reset();
    const auto have = data.contexts(q);
    throw models::InputError(fmt::format(
        "{}: no AAT measurements for algorithm {}, model {}, task {}, context {} (contexts with data: {})",
        data.path(), sel.algorithm, sel.model, sel.task, context,
        have.empty() ? std::string("none") : fmt::format("{}", fmt::join(have, ","))));
  }
  return search::AatSource::from_measurements(
      rows, fmt::format("{}: {} {} {} context {}", data.path(), sel.algorithm, sel.model, sel.task, context));
}

}  // namespace experiments
