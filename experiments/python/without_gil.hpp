#pragma once
// The bindings compute in C++ with the GIL released, so other Python threads (a notebook's
// progress bar, a thread pool of sweeps) run meanwhile, and convert the result to Python objects
// once it is held again. without_gil is that release-compute-reacquire step, written once.
#include <pybind11/pybind11.h>

#include <utility>

namespace specdse_py {

// Runs `work` with the GIL released and returns its result; `work` must not touch Python
// objects. An exception it throws passes through with the GIL held again.
template <class Work>
auto without_gil(Work&& work) {
  pybind11::gil_scoped_release release;
  return std::forward<Work>(work)();
}

}  // namespace specdse_py
