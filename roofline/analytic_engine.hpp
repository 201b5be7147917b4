#pragma once
// The analytic engine for any hardware kind.
#include <memory>

#include "models/latency_engine.hpp"

namespace roofline {

std::unique_ptr<models::LatencyEngine> make_analytic_engine(const models::HardwareSpec& hw);

}  // namespace roofline
