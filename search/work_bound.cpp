#include "search/work_bound.hpp"

#include <fmt/format.h>

#include "models/config_error.hpp"

namespace search {

void require_work_within(const std::string& what, const std::string& factors, double amount, double bound,
                         const std::string& unit) {
  if (amount <= bound) return;
  throw models::InputError(fmt::format("{}: {} = {:.0f} {}, more than the {:.0f} one run computes; split the grid or "
                                       "run it as a sweep spec (specdse sweep: journalled, resumable, threaded)",
                                       what, factors, amount, unit, bound));
}

}  // namespace search
