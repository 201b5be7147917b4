#include "roofline/analytic_engine.hpp"

#include "models/engine_registry.hpp"

namespace roofline {

// The per-kind analytic engines register themselves as "roofline" in their own files.
std::unique_ptr<models::LatencyEngine> make_analytic_engine(const models::HardwareSpec& hw) {
  return models::make_engine("roofline", hw);
}

}  // namespace roofline
