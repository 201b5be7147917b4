#include "sim/gpu/gpu_cta_dispatcher.hpp"

#include <algorithm>
#include <cmath>

namespace sim {

bool SmState::fits(const CtaResources& cta, const models::GpuSpec& gpu) const {
  if (int(residents.size()) + 1 > gpu.sm_max_ctas) return false;
  long long threads = cta.threads, registers = (long long)cta.threads * cta.registers_per_thread;
  double shared = cta.shared_memory_bytes;
  for (const auto& r : residents) {
    threads += r.resources->threads;
    registers += (long long)r.resources->threads * r.resources->registers_per_thread;
    shared += r.resources->shared_memory_bytes;
  }
  return threads <= gpu.sm_max_threads && registers <= gpu.sm_registers &&
         shared <= gpu.sm_shared_memory_kib * 1024.0;
}

double SmState::remaining_work() const {
  double w = 0;
  for (const auto& r : residents) w += r.remaining;
  return w;
}

bool SmState::preferred_over(const SmState& other) const {
  if (residents.size() != other.residents.size()) return residents.size() < other.residents.size();
  const double mine = remaining_work(), theirs = other.remaining_work();
  if (mine != theirs) return mine < theirs;
  for (std::size_t i = 0; i < residents.size(); ++i) {
    if (residents[i].launch != other.residents[i].launch) return residents[i].launch < other.residents[i].launch;
    if (residents[i].remaining != other.residents[i].remaining)
      return residents[i].remaining < other.residents[i].remaining;
  }
  return false;
}

namespace {

bool same_state(const SmState& a, const SmState& b) {
  if (a.residents.size() != b.residents.size()) return false;
  for (std::size_t i = 0; i < a.residents.size(); ++i)
    if (a.residents[i].launch != b.residents[i].launch || a.residents[i].remaining != b.residents[i].remaining)
      return false;
  return true;
}

// Removes the finished CTAs of one SM state; returns them per launch (one SM's worth).
void retire_finished(SmState& s, std::int64_t sms, CtaCompletions& out) {
  auto& rs = s.residents;
  for (const auto& r : rs)
    if (r.remaining <= kCtaWorkEpsilon) {
      if (!out.empty() && out.back().first == r.launch) out.back().second += sms;
      else out.emplace_back(r.launch, sms);
    }
  rs.erase(std::remove_if(rs.begin(), rs.end(), [](const ResidentCta& r) { return r.remaining <= kCtaWorkEpsilon; }),
           rs.end());
}

}  // namespace

// --- event-driven: groups of identical SMs -------------------------------------------------------

GroupedSmArray::GroupedSmArray(const models::GpuSpec& gpu) : gpu_(gpu) {
  groups_.push_back(Group{gpu.sms, SmState{}});
}

std::int64_t GroupedSmArray::place(int launch, const CtaResources& cta, std::int64_t cta_cycles,
                                   std::int64_t count) {
  std::int64_t placed = 0;
  while (count > 0) {
    // The preferred group that fits (SmState::preferred_over), with each group's remaining work
    // summed once per pass rather than once per comparison: fewer residents first, then less
    // work, then the residents in order.
    int best = -1;
    double best_work = 0;
    for (int g = 0; g < int(groups_.size()); ++g) {
      const SmState& s = groups_[std::size_t(g)].state;
      if (!s.fits(cta, gpu_)) continue;
      if (best >= 0) {
        const SmState& b = groups_[std::size_t(best)].state;
        if (s.residents.size() != b.residents.size()) {
          if (s.residents.size() > b.residents.size()) continue;
        } else {
          const double w = s.remaining_work();
          if (w != best_work ? w > best_work : !s.preferred_over(b)) continue;
        }
      }
      best = g;
      best_work = s.remaining_work();
    }
    if (best < 0) break;  // every SM is full for this CTA shape
    const int take = int(std::min<std::int64_t>(groups_[best].sms, count));
    if (take < groups_[best].sms) {
      // Only some of the group's SMs receive a CTA: they become a group of their own.
      groups_[best].sms -= take;
      groups_.push_back(Group{take, groups_[best].state});
      best = int(groups_.size()) - 1;
    }
    // Fields written in place: a temporary built from narrow stores and copied with a wide load
    // stalls on store forwarding (it was most of this function's time in specpipe-fig16).
    ResidentCta& r = groups_[best].state.residents.emplace_back();
    r.launch = launch;
    r.remaining = double(cta_cycles);
    r.resources = &cta;
    count -= take;
    placed += take;
  }
  merge_identical();
  return placed;
}

void GroupedSmArray::advance(std::int64_t cycles) {
  if (cycles <= 0) return;
  for (auto& g : groups_) {
    const double share = double(cycles) / double(g.state.residents.size());
    for (auto& r : g.state.residents) r.remaining -= share;
  }
}

std::int64_t GroupedSmArray::next_completion() const {
  std::int64_t next = -1;
  for (const auto& g : groups_) {
    if (g.state.residents.empty()) continue;
    double least = g.state.residents.front().remaining;
    for (const auto& r : g.state.residents) least = std::min(least, r.remaining);
    // First whole cycle t at which least - t / r <= epsilon.
    const auto t = std::max<std::int64_t>(
        1, std::int64_t(std::ceil((least - kCtaWorkEpsilon) * double(g.state.residents.size()))));
    if (next < 0 || t < next) next = t;
  }
  return next;
}

void GroupedSmArray::take_completions(CtaCompletions& out) {
  bool any = false;
  for (auto& g : groups_) {
    const std::size_t before = g.state.residents.size();
    retire_finished(g.state, g.sms, out);
    any |= g.state.residents.size() != before;
  }
  if (any) merge_identical();
}

void GroupedSmArray::merge_identical() {
  for (std::size_t i = 0; i < groups_.size(); ++i)
    for (std::size_t j = i + 1; j < groups_.size();)
      if (same_state(groups_[i].state, groups_[j].state)) {
        groups_[i].sms += groups_[j].sms;
        groups_.erase(groups_.begin() + std::ptrdiff_t(j));
      } else {
        ++j;
      }
}

// --- clocked reference: every SM, every cycle ----------------------------------------------------

ClockedSmArray::ClockedSmArray(const models::GpuSpec& gpu) : gpu_(gpu), sms_(std::size_t(gpu.sms)) {}

std::int64_t ClockedSmArray::place(int launch, const CtaResources& cta, std::int64_t cta_cycles,
                                   std::int64_t count) {
  std::int64_t placed = 0;
  for (; placed < count; ++placed) {
    int best = -1;
    for (int s = 0; s < int(sms_.size()); ++s)
      if (sms_[s].fits(cta, gpu_) && (best < 0 || sms_[s].preferred_over(sms_[best]))) best = s;
    if (best < 0) break;
    sms_[best].residents.push_back(ResidentCta{launch, double(cta_cycles), &cta});
  }
  return placed;
}

void ClockedSmArray::tick() {
  for (auto& sm : sms_) {
    if (sm.residents.empty()) continue;
    const double share = 1.0 / double(sm.residents.size());
    for (auto& r : sm.residents) r.remaining -= share;
  }
}

void ClockedSmArray::take_completions(CtaCompletions& out) {
  for (auto& sm : sms_) retire_finished(sm, 1, out);
}

}  // namespace sim
