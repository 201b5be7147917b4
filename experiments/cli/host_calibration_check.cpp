#include "experiments/cli/host_calibration_check.hpp"

#include <fmt/format.h>

#include <fstream>

#include "sim/golden/golden_host_calibration.hpp"

namespace experiments {

const char* const kCalibratedInThisRun = "this host's calibration (made in this run)";

std::string foreign_host_warning(const models::HardwareSpec& hw, int host_cores) {
  std::ifstream in(hw.source_file);
  std::string first;
  std::getline(in, first);
  const bool calibrated_here = hw.source_file == kCalibratedInThisRun ||
                               first.find("calibrated by `specdse calibrate-host`") != std::string::npos;
  if (calibrated_here && hw.cpu->cores == host_cores) return "";
  return fmt::format(
      "warning: '{}' ({} cores) is not a calibration of this host ({} cores){}: the kernels run here, so "
      "error_pct compares two different machines, not the model with its hardware; run `specdse "
      "calibrate-host` and `specdse golden --hw host` to validate the CPU model on this machine",
      hw.name, hw.cpu->cores, host_cores, calibrated_here ? ", calibrated on another machine" : "");
}

std::string foreign_host_warning(const models::HardwareSpec& hw) {
  return foreign_host_warning(hw, sim::host_core_count());
}

}  // namespace experiments
