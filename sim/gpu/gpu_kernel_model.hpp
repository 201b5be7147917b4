#pragma once
// The GPU kernel model (which CUDA kernels each operator-graph op launches, their CTAs, CTA
// resources and DRAM bytes, and their closed-form time) is shared with the analytic engine, so
// it lives in roofline/gpu_roofline.hpp (sim links roofline, not the other way round). The sim
// engine takes the same kernels and simulates their timing (gpu_device.hpp).
#include "roofline/gpu_roofline.hpp"

namespace sim {

using roofline::CtaResources;
using roofline::GpuKernel;
using roofline::GpuKernelModel;
using roofline::KernelTiming;

}  // namespace sim
