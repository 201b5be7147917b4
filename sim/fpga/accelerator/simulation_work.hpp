#pragma once
// The statistics every run_on_systemc adds to (fpga_simulation_work, fpga_accelerator.hpp):
// process-wide counters, updated without the SystemC lock, so atomic.

namespace sim::accelerator {

// One run of a program of `instructions` (implicit layer copies included), of which
// `simulated` were issued one by one.
void record_simulation_work(long long instructions, long long simulated);

}  // namespace sim::accelerator
