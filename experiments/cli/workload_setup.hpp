#pragma once
// Builds what optimize / reproduce need from names: the workload (target + algorithm) and the
// AAT source (measured points + Ceres fit) for one (algorithm, model, task, context).
#include <memory>
#include <string>

#include "models/config_registry.hpp"
#include "models/latency_engine.hpp"
#include "search/acceptance/aat_resolver.hpp"
#include "search/scenarios/scenario_runner.hpp"
#include "search/optimizer.hpp"

namespace experiments {

using search::make_workload;  // search/scenarios/scenario_runner.hpp

// A design that does not fit the device's memory is infeasible, not timed: InputError
// "infeasible: ..." (sim/system/memory_fit) when the workload's weights, the KV cache of `context`
// + `max_x` tokens per sequence and the step's activations exceed the device's stated capacity.
void require_workload_fits(const models::HardwareSpec& hw, const models::Workload& w, long long context,
                           int max_x);

// Measured AAT at a context (search/acceptance/aat_resolver.hpp), by the names commands use.
using search::aat_source;
using search::AatSelection;
using search::interpolated_aat_source;

}  // namespace experiments
