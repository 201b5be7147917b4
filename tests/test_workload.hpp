#pragma once
// Shared by the engine tests: a workload of one target model from the project's configs, with
// no draft (set `algorithm` for one) at the given batch.
#include <string>

#include "models/config_registry.hpp"
#include "models/latency_engine.hpp"

namespace test_support {

inline models::Workload workload(const std::string& model, int batch = 1) {
  models::Workload w;
  w.target = models::ConfigRegistry().model(model);
  w.batch = batch;
  return w;
}

}  // namespace test_support
