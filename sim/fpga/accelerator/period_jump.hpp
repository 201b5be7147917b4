#pragma once
// The jump both fast-forwards end with, once they have proved that the following periods
// replay the last one shifted by its instructions and cycles: move every queue head and every
// instruction in flight that many periods on, write the skipped instructions' times, wake the
// units asleep on an instruction before the jump and advance the clock.
#include <cstddef>

#include "sim/fpga/accelerator/scoreboard.hpp"

namespace sim::accelerator {

// A jump moves queue k's head `count` entries on from position h (the skipped periods, of
// `per_period` entries each). The skipped instructions' times are each its copy's one period
// earlier plus the period's cycles. A run that reports only its total writes only what the
// next state key reads: the last skipped instruction's (the one before
// the new head), whose copy is the one before h, `skipped_cycles` earlier; every other skipped
// instruction except those in flight (moved by shift_units) has finished by the new clock.
void skip_queue(Scoreboard& board, int k, std::size_t h, std::size_t count, std::size_t per_period,
                long long period_cycles, long long skipped_cycles);

// The rest of a jump of `shift` instructions and `skipped_cycles`: the instructions in flight
// become their copies that far on (the originals finished), units asleep on an instruction
// before the jump wake to name the shifted one, and the clock moves on.
void shift_units(Scoreboard& board, long long shift, long long skipped_cycles);

}  // namespace sim::accelerator
