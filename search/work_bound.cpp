#include "search/work_bound.hpp"

#include <fmt/format.h>

#include "models/config_error.hpp"

namespace search {

void require_work_within(const std::string& what, const std::string& factors, double amount, double bound,
                         const std::string& unit, const std::string& advice) {
  if (amount <= bound) return;
  // Whole numbers as they are, astronomical ones (a golden grid's FLOPs) in scientific notation.
  auto number = [](double v) { return v < 1e15 ? fmt::format("{:.0f}", v) : fmt::format("{:.3g}", v); };
  throw models::InputError(fmt::format("{}: {} = {} {}, more than the {} one run computes; {}", what, factors,
                                       number(amount), unit, number(bound), advice));
}

}  // namespace search
