#pragma once
// Worker processes for sweeps on the SystemC engines. SystemC keeps one simulation context per
// process, so the simulations of several threads take turns on it (sim/sc_session.hpp) and a
// sweep on the sim engine gains little from threads; forked workers each have their own
// kernel. The parent hands out one point at a time (the next to whoever finishes, so cheap and
// expensive points balance) and receives each result through a pipe; what a point computes
// does not depend on which worker ran it, so the rows are the same bytes as with threads.
//
// Forking is safe only while the calling process has no other thread (a thread holding a lock
// at the fork would leave it locked in the child forever): fork_is_safe() checks that, and
// callers fall back to threads otherwise (inside MPI ranks or a threaded Python host, say).
#include <cstddef>
#include <functional>
#include <string>
#include <vector>

namespace experiments {

// Whether this process may fork workers now: Linux, this is its only thread, and it is not
// itself a worker (a sweep inside a worker's reproduction runs on threads, not grandchildren).
bool fork_is_safe();

// Runs compute(k) for k = 0..n-1 on `workers` forked processes; on_result(k, text) runs in this
// process for each, in the order k = 0, 1, ... as soon as a result and every earlier one are in.
// Points are handed out in `hand_out_order` (a permutation of 0..n-1; empty: 0, 1, ...), which
// changes only when each one starts. An exception in a worker is rethrown here as the same
// kind (models::InputError for bad input, std::bad_alloc, else std::runtime_error, with its
// message) after the other workers are stopped; a worker that dies is reported as an error
// naming its signal. Output buffered before the call is flushed first. On Linux the workers
// die with this process (SIGKILL when it ends, however it ends), so none outlives a killed
// parent still holding its descriptors (an output's lock).
void run_in_worker_processes(std::size_t n, unsigned workers,
                             const std::function<std::string(std::size_t)>& compute,
                             const std::function<void(std::size_t, const std::string&)>& on_result,
                             const std::vector<std::size_t>& hand_out_order = {});

}  // namespace experiments
