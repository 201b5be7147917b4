#pragma once
// Reading a sweep spec file (configs/sweeps/*.yaml) as YAML, before either kind of spec
// (workload sweeps, sweep_spec.hpp; scenario sweeps, scenario_sweep.hpp) looks at its keys: both
// report a missing file and a syntax error as the same one-line InputErrors.
#include <yaml-cpp/yaml.h>

#include <string>

namespace experiments {

// The file's YAML; models::InputError "FILE: cannot open sweep spec" or
// "FILE: line N: YAML syntax error: ...".
YAML::Node read_sweep_spec_file(const std::string& path);

}  // namespace experiments
