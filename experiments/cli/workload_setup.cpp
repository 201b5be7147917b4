#include "experiments/cli/workload_setup.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <iterator>

#include "models/config_error.hpp"
#include "search/acceptance/aat_fit.hpp"
#include "models/system_spec.hpp"
#include "sim/system/system_costs.hpp"

namespace experiments {

void require_workload_fits(const models::HardwareSpec& hw, const models::Workload& w, long long context,
                           int max_x) {
  sim::MemoryQuery q;
  q.batch = w.batch;
  q.step_tokens = max_x;
  q.kv_tokens = context + max_x;
  // The one memory rule, as the device's deployment applies it (no engine is built for it).
  sim::SystemCosts(models::single_device_system(hw), "roofline").require_workload_fit(0, w.target, w.algorithm.get(), q);
}

}  // namespace experiments
