#pragma once
// The engines count time in int64 cycles (or picoseconds). A config whose numbers are far out of
// scale (a clock of 1e300 MHz, a launch cost of 1e14 us, an efficiency of 1e-10) would put a
// count past what an int64 holds, and the time would wrap negative or saturate. These checks
// turn that into an InputError instead of a number.
#include <cstdint>
#include <string>

namespace models {

// The largest count one kernel or instruction may take: 2^53 (exact in a double, and a sum of a
// thousand of them still fits an int64). At 2 GHz it is 52 days.
constexpr double kMaxUnitCycles = 9007199254740992.0;

// ceil(cycles) as an int64; InputError naming `what` when it is not finite, negative or above
// kMaxUnitCycles.
std::int64_t checked_cycles(double cycles, const std::string& what);
// a + b and a * count without overflow; InputError naming `what` otherwise.
std::int64_t checked_add(std::int64_t a, std::int64_t b, const std::string& what);
std::int64_t checked_mul(std::int64_t a, std::int64_t count, const std::string& what);

}  // namespace models
