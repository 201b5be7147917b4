#pragma once
// Builds what optimize / reproduce need from names: the workload (target + algorithm) and the
// AAT source (measured points + Ceres fit) for one (algorithm, model, task, context).
#include <memory>
#include <string>

#include "models/config_registry.hpp"
#include "models/latency_engine.hpp"
#include "search/acceptance/acceptance_data.hpp"
#include "search/optimizer.hpp"

namespace experiments {

models::Workload make_workload(const models::ConfigRegistry& reg, const std::string& model,
                               const std::string& algorithm, int batch = 1);

// A design that does not fit the device's memory is infeasible, not timed: InputError
// "infeasible: ..." (sim/system/memory_fit) when the workload's weights, the KV cache of `context`
// + `max_x` tokens per sequence and the step's activations exceed the device's stated capacity.
void require_workload_fits(const models::HardwareSpec& hw, const models::Workload& w, long long context,
                           int max_x);

struct AatSelection {
  std::string algorithm, model, task;
  std::string source_table;  // empty: any
};

// The measured AAT at `context`; between two measured contexts, interpolated (AatSource::note says
// so); InputError below the smallest or above the largest measured context, or with no data.
search::AatSource aat_source(const search::AcceptanceData& data, const AatSelection& sel,
                             long long context);

// AAT at `context` between two measured contexts' sources: at each x measured at both, linear in
// ln(context); the fit through those points, the lower context's tree shapes, and the note.
search::AatSource interpolated_aat_source(const search::AatSource& lo, const search::AatSource& hi, long long lo_context,
                                          long long hi_context, long long context, const std::string& what);

}  // namespace experiments
