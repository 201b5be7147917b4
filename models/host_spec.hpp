#pragma once
// The host CPU that dispatches a device's work: the Python program, the framework's kernel
// launches, the serving engine's bookkeeping. A software stack's host figures
// (configs/stacks: per kernel, per layer, per step, per sequence, per draft pass, per graph
// launch, a staged copy's fixed cost) were each measured on one host; a host here says how long
// the same work takes on another one, relative to that. A system's device entries name their
// node's host (`host:`), a one-device run takes `--host`; without one a device runs on the
// reference host (every stack's figures as measured). Engines charge host work through
// host_time_scale(); nothing else reads it.
#include <string>

namespace models {

struct HostSpec {
  std::string name = "reference";
  std::string source_file;  // empty: the built-in reference host
  std::string description = "the host each stack's figures were measured on";
  std::string cpu;          // the CPU model, as a note (e.g. "Intel Xeon Gold 6338")
  // Host time of the same framework work relative to the host each stack's figures were measured
  // on: 1 as fast, 1.3 slower by 30 %. One factor for every host figure of every stack: dispatch
  // is single-threaded Python and C++ on one core, so the figures move together with that
  // core's speed (a first-order model; docs/gpu-model.md#the-host-that-dispatches says how to
  // measure a host's factor and what it leaves out).
  double dispatch_time_scale = 1.0;

  // Host microseconds of work measured on the stacks' hosts, on this one.
  double host_us(double measured_us) const { return measured_us * dispatch_time_scale; }
};

// configs/hosts/NAME.yaml: name, description, cpu (optional), dispatch_time_scale (> 0, at most
// kMaxDispatchTimeScale). Unknown keys and bad values are one-line InputErrors naming file and key.
HostSpec load_host(const std::string& path);

// A host 100x slower than the stacks' hosts is a typo, not a machine.
inline constexpr double kMaxDispatchTimeScale = 100.0;

}  // namespace models
