#include "sim/sim_engine.hpp"

namespace sim {

std::unique_ptr<models::LatencyEngine> make_sim_engine(const std::string& engine,
                                                      const models::HardwareSpec& hw) {
  SimMode mode;
  if (engine == "sim") mode = SimMode::event_driven;
  else if (engine == "sim-clocked") mode = SimMode::clocked;
  else return nullptr;
  switch (hw.kind) {
    case models::HardwareKind::fpga: return make_fpga_sim_engine(hw, mode);
    case models::HardwareKind::gpu: return make_gpu_sim_engine(hw, mode);
    case models::HardwareKind::cpu: return make_cpu_sim_engine(hw, mode);
  }
  return nullptr;
}

}  // namespace sim
