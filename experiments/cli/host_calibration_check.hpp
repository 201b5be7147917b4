#pragma once
// Whether a CPU config describes the host `specdse golden` runs its kernels on. Timing kernels
// here against another machine's config measures the difference between two machines, not the
// model's error, so golden warns when the config is not this host's calibration.
#include <string>

#include "models/hardware_spec.hpp"

namespace experiments {

// The source label of a calibration made in the same run (read in memory, so it has no file
// whose header says calibrate-host wrote it).
extern const char* const kCalibratedInThisRun;

// "" when `hw` is this host's calibration: made in this run, or a file whose first line says
// `specdse calibrate-host` wrote it, on a machine with `host_cores` cores. Otherwise one line
// saying why not and what to run instead.
std::string foreign_host_warning(const models::HardwareSpec& hw, int host_cores);
// The same against this machine's core count.
std::string foreign_host_warning(const models::HardwareSpec& hw);

}  // namespace experiments
