#pragma once
// A step's cost from a run of its launch plan (one stream), for both GPU engines: the closed-form
// schedule (roofline/gpu_stream_schedule.hpp) and the SystemC model (sim/gpu/gpu_device.hpp)
// produce the same records, and this turns them into the same StepCost rows.
#include "models/hardware_spec.hpp"
#include "models/latency_engine.hpp"
#include "models/operator_graph.hpp"
#include "roofline/gpu_launch_plan.hpp"

namespace roofline {

// `run.end_cycle` cycles at `clock_hz`; with `breakdown`, one row per op of the graph (layer ops
// from a middle layer, the steady state; tail ops once) and a row each for the stack's extra
// kernels of a layer and of the step. An op's time is the stream time from the previous kernel's
// end to its last kernel's end, so host-bound gaps land on the op that waited; compute and memory
// are the spans its CTAs and its DRAM stream were in flight; stall is what neither covers
// (launch, host idle). `workload`/`run` must hold stream 0's launches when `breakdown` is set.
models::StepCost step_cost_from_run(const models::HardwareSpec& hw, double clock_hz, const models::StepGraph& graph,
                                    const GpuWorkload& workload, const DeviceRun& run, bool breakdown);

}  // namespace roofline
