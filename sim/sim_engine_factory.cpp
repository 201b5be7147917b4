#include "sim/sim_engine.hpp"

#include "models/engine_registry.hpp"

namespace sim {

// Each device's sim engine registers itself as "sim" and "sim-clocked" in its own file.
std::unique_ptr<models::LatencyEngine> make_sim_engine(const std::string& engine,
                                                      const models::HardwareSpec& hw) {
  if (engine != "sim" && engine != "sim-clocked") return nullptr;
  return models::make_engine(engine, hw);
}

}  // namespace sim
