#include "roofline/analytic_engine.hpp"

#include "roofline/cpu_roofline.hpp"
#include "roofline/fpga_roofline.hpp"
#include "roofline/gpu_roofline.hpp"

namespace roofline {

std::unique_ptr<models::LatencyEngine> make_analytic_engine(const models::HardwareSpec& hw) {
  switch (hw.kind) {
    case models::HardwareKind::fpga: return std::make_unique<FpgaRooflineEngine>(hw);
    case models::HardwareKind::gpu: return std::make_unique<GpuRooflineEngine>(hw);
    case models::HardwareKind::cpu: return std::make_unique<CpuRooflineEngine>(hw);
  }
  return nullptr;
}

}  // namespace roofline
