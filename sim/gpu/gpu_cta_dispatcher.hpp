#pragma once
// The CTA dispatcher over the SMs. A CTA may start on an SM only while the SM has room for it:
// the sums of resident threads, registers and shared memory, and the resident CTA count, stay
// within the SM's limits (GpuSpec::sm_*), so occupancy follows from each kernel's CTA resources
// and CTAs of concurrent kernels compete for the same SM slots. The SM's tensor/CUDA-core
// throughput is shared equally by its resident CTAs (their warps interleave): a CTA holding W
// SM-cycles of work progresses 1 / r per cycle while r CTAs are resident on its SM.
// Placement is breadth-first, as the hardware block scheduler spreads a grid: each CTA goes to
// the SM with the fewest resident CTAs (ties: least resident work left, then the resident
// list), so a lone kernel's makespan is ceil(ctas / SMs) CTA times (wave quantisation).
//
// Two implementations of the same rules:
//  - GroupedSmArray (event-driven): SMs in identical states form one group (a grid's CTAs keep
//    most SMs identical), the next CTA completion is computed, time jumps there;
//  - ClockedSmArray (reference): every SM on its own, every resident CTA counted down cycle by
//    cycle.
#include <cstdint>
#include <utility>
#include <vector>

#include "models/hardware_spec.hpp"
#include "sim/gpu/gpu_kernel_model.hpp"

namespace sim {

// A CTA on an SM: which kernel launch it belongs to and the SM-cycles of work it has left.
struct ResidentCta {
  int launch = 0;
  double remaining = 0;
  const CtaResources* resources = nullptr;
};

// Completed CTAs per launch: (launch id, count).
using CtaCompletions = std::vector<std::pair<int, std::int64_t>>;

// Work below this many SM-cycles counts as done (absorbs floating-point rounding of the shares).
constexpr double kCtaWorkEpsilon = 1e-6;

// Resident CTAs of one SM; the ordering key of the placement policy.
struct SmState {
  std::vector<ResidentCta> residents;
  bool fits(const CtaResources& cta, const models::GpuSpec& gpu) const;
  double remaining_work() const;
  // Placement preference: fewer residents, then less work left, then the resident list.
  bool preferred_over(const SmState& other) const;
};

class GroupedSmArray {
 public:
  explicit GroupedSmArray(const models::GpuSpec& gpu);
  // Places up to `count` CTAs of `cta_cycles` work each; returns how many found room.
  std::int64_t place(int launch, const CtaResources& cta, std::int64_t cta_cycles, std::int64_t count);
  void advance(std::int64_t cycles);
  // Cycles until the next CTA completes, or -1 when no CTA is resident.
  std::int64_t next_completion() const;
  void take_completions(CtaCompletions& out);
  std::size_t groups() const { return groups_.size(); }

 private:
  struct Group {
    int sms = 0;
    SmState state;
  };
  void merge_identical();
  const models::GpuSpec& gpu_;
  std::vector<Group> groups_;
};

class ClockedSmArray {
 public:
  explicit ClockedSmArray(const models::GpuSpec& gpu);
  std::int64_t place(int launch, const CtaResources& cta, std::int64_t cta_cycles, std::int64_t count);
  void tick();  // one cycle on every SM
  void take_completions(CtaCompletions& out);

 private:
  const models::GpuSpec& gpu_;
  std::vector<SmState> sms_;
};

}  // namespace sim
