#pragma once
// The launch plan of a step (which kernels each stream's host thread launches, with what host
// time before each) and the per-launch records of a run are shared with the analytic engine, so
// they live in roofline/gpu_launch_plan.hpp; the SystemC GPU model (gpu_device.hpp) simulates
// the very same plan.
#include "roofline/gpu_launch_plan.hpp"
#include "sim/gpu/gpu_kernel_model.hpp"

namespace sim {

using roofline::decoder_layers_per_unit;
using roofline::DeviceRun;
using roofline::GpuWorkload;
using roofline::KernelLaunch;
using roofline::KernelRecord;
using roofline::lower_step;
using roofline::stack_kernels;
using roofline::StreamPlan;

}  // namespace sim
