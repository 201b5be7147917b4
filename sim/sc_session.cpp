#include "sim/sc_session.hpp"

#include <cstdlib>
#include <iostream>
#include <mutex>

namespace sim {

namespace {

std::recursive_mutex& kernel_mutex() {
  static std::recursive_mutex m;
  return m;
}

// SystemC's default handler prints reports on stdout, which carries the CSV and JSON results:
// print them on stderr and leave the other actions (log, stop, throw, abort) to the default.
void report_to_stderr(const sc_core::sc_report& report, const sc_core::sc_actions& actions) {
  if (actions & sc_core::SC_DISPLAY) std::cerr << sc_core::sc_report_compose_message(report) << std::endl;
  sc_core::sc_report_handler::default_handler(report, actions & ~sc_core::sc_actions(sc_core::SC_DISPLAY));
}

// Process-wide SystemC settings, made once before the first session (setenv is not thread-safe
// against other threads reading the environment, so it must not run per simulation).
void configure_systemc_once() {
  static std::once_flag once;
  std::call_once(once, [] {
    // SystemC prints a banner to stdout on first use unless told not to; stdout carries CSV.
    setenv("SYSTEMC_DISABLE_COPYRIGHT_MESSAGE", "1", 1);
    // The models elaborate with sc_start(SC_ZERO_TIME) before they post their first event; where
    // every process waits for that event (the event-driven FPGA and CPU models have no thread to
    // start), SystemC warns (W571). Nothing is wrong then: stay quiet.
    sc_core::sc_report_handler::set_actions(sc_core::SC_ID_NO_SC_START_ACTIVITY_, sc_core::SC_DO_NOTHING);
    sc_core::sc_report_handler::set_handler(report_to_stderr);
  });
}

}  // namespace

ScContext::ScContext() {
  std::lock_guard<std::recursive_mutex> lock(kernel_mutex());
  configure_systemc_once();
  // Created as a session's is; it becomes current only inside sessions on it.
  sc_core::sc_simcontext* const previous = sc_core::sc_curr_simcontext;
  context_ = new sc_core::sc_simcontext();
  sc_core::sc_curr_simcontext = previous;
  sc_core::sc_default_global_context = previous;
}

ScContext::~ScContext() {
  std::lock_guard<std::recursive_mutex> lock(kernel_mutex());
  sc_core::sc_simcontext* const previous = sc_core::sc_curr_simcontext;
  sc_core::sc_curr_simcontext = context_;
  sc_core::sc_default_global_context = context_;
  delete context_;
  sc_core::sc_curr_simcontext = previous;
  sc_core::sc_default_global_context = previous;
}

ScSession::ScSession() : lock_(kernel_mutex()) {
  configure_systemc_once();
  previous_ = sc_core::sc_curr_simcontext;
  context_ = new sc_core::sc_simcontext();
  sc_core::sc_curr_simcontext = context_;
  sc_core::sc_default_global_context = context_;
}

ScSession::ScSession(ScContext& context) : lock_(kernel_mutex()), context_(context.get()), owned_(false) {
  previous_ = sc_core::sc_curr_simcontext;
  sc_core::sc_curr_simcontext = context_;
  sc_core::sc_default_global_context = context_;
}

ScSession::~ScSession() {
  if (owned_) delete context_;
  sc_core::sc_curr_simcontext = previous_;
  sc_core::sc_default_global_context = previous_;
}

void ScSession::run() { sc_core::sc_start(); }

sc_core::sc_time ScSession::now() const { return sc_core::sc_time_stamp(); }

}  // namespace sim
