#include "models/cycle_range.hpp"

#include <fmt/format.h>

#include <cmath>

#include "models/config_error.hpp"

namespace models {
namespace {

[[noreturn]] void out_of_range(const std::string& what, const std::string& count) {
  throw InputError(fmt::format("{}: {} cycles is beyond what the engine can count (a clock, bandwidth, efficiency or "
                               "launch cost of the hardware config out of scale)",
                               what, count));
}

}  // namespace

std::int64_t checked_cycles(double cycles, const std::string& what) {
  if (!(cycles >= 0) || !(cycles <= kMaxUnitCycles)) out_of_range(what, fmt::format("{:.3g}", cycles));
  return std::int64_t(std::ceil(cycles));
}

std::int64_t checked_add(std::int64_t a, std::int64_t b, const std::string& what) {
  std::int64_t out = 0;
  if (__builtin_add_overflow(a, b, &out)) out_of_range(what, fmt::format("{} + {}", a, b));
  return out;
}

std::int64_t checked_mul(std::int64_t a, std::int64_t count, const std::string& what) {
  std::int64_t out = 0;
  if (__builtin_mul_overflow(a, count, &out)) out_of_range(what, fmt::format("{} x {}", a, count));
  return out;
}

}  // namespace models
