#pragma once
// One SystemC simulation with its own kernel state. SystemC keeps its scheduler in a
// process-wide "current simulation context" and allows one elaboration per context; a
// ScSession swaps in a fresh sc_simcontext for its lifetime, so every simulation (an FPGA step,
// a GPU step, a CPU step; the system timeline is plain C++ and needs none) builds its own
// modules, elaborates, runs sc_start and is torn down, any number of times in one process, as
// DRAMSys' unit tests give each test a new context. Sessions are serialised by a process-wide
// lock (the SystemC kernel is not re-entrant); everything outside a session (graph building,
// memoisation, post-processing) runs in parallel on the caller's threads.
//
// Usage: construct the session, then create modules (they must be destroyed before the
// session: hold them in a std::unique_ptr declared after it), then call run().
#include <systemc>

#include <memory>
#include <mutex>

namespace sim {

class ScSession {
 public:
  ScSession();
  ~ScSession();
  ScSession(const ScSession&) = delete;
  ScSession& operator=(const ScSession&) = delete;

  // Elaborate (first call) and simulate until no event is pending.
  void run();
  sc_core::sc_time now() const;

 private:
  std::unique_lock<std::recursive_mutex> lock_;
  sc_core::sc_simcontext* previous_ = nullptr;
  sc_core::sc_simcontext* context_ = nullptr;
};

}  // namespace sim
