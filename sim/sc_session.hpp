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
//
// A model that runs many times on one thread may instead keep its modules in an ScContext, a
// context that outlives its sessions: each ScSession(context) re-enters it under the same lock,
// and the modules elaborated there once serve every later run (each one more sc_start).
#include <systemc>

#include <memory>
#include <mutex>

namespace sim {

class ScContext {
 public:
  ScContext();
  ~ScContext();  // its modules must be gone (destroy them in a session on it first)
  ScContext(const ScContext&) = delete;
  ScContext& operator=(const ScContext&) = delete;
  sc_core::sc_simcontext* get() const { return context_; }

 private:
  sc_core::sc_simcontext* context_ = nullptr;
};

class ScSession {
 public:
  ScSession();                             // a fresh context, deleted with the session
  explicit ScSession(ScContext& context);  // re-enters `context`, which stays
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
  bool owned_ = true;  // context_ is the session's own (deleted with it)
};

}  // namespace sim
