#!/usr/bin/env bash
# Configures and builds specdse (Release, -j2). Never writes into the source folders.
#   scripts/build.sh         -> build/       the normal build (product, Python module, tests, tools)
#   scripts/build.sh product -> build/       the `specdse` command alone (what `reproduce` needs:
#                               no test binaries, no CUDA golden program; a later plain
#                               scripts/build.sh adds the rest to the same folder)
#   scripts/build.sh python  -> build/       `specdse` and the Python module (import specdse with
#                               PYTHONPATH=build/python; no test binaries)
#   scripts/build.sh asan    -> build-asan/  every target under ASan + UBSan (SPECDSE_SANITIZE), at -Og;
#                               without the Python module (an instrumented extension cannot load
#                               into an uninstrumented interpreter) and without MPI (Open MPI's
#                               own allocations are reported as leaks); .ci/run runs its tests
set -euo pipefail
cd "$(dirname "$0")/.."
# ccache (when installed) keeps rebuilds of unchanged files cheap; it changes no output.
launcher=()
if command -v ccache >/dev/null; then launcher=(-DCMAKE_CXX_COMPILER_LAUNCHER=ccache); fi
case "${1:-}" in
  "")
    cmake -S . -B build -DCMAKE_BUILD_TYPE=Release "${launcher[@]}" >/dev/null
    cmake --build build -j"${SPECDSE_JOBS:-2}"
    ;;
  product)
    cmake -S . -B build -DCMAKE_BUILD_TYPE=Release "${launcher[@]}" >/dev/null
    cmake --build build -j"${SPECDSE_JOBS:-2}" --target specdse
    ;;
  python)
    cmake -S . -B build -DCMAKE_BUILD_TYPE=Release "${launcher[@]}" >/dev/null
    if ! cmake --build build --target help | grep -q '_specdse'; then
      echo "scripts/build.sh: CMake found no pybind11 or no Python with numpy and pandas, so there is no Python" \
           "module to build (scripts/install-deps.sh installs them; the configure output names the Python)" >&2
      exit 2
    fi
    cmake --build build -j"${SPECDSE_JOBS:-2}" --target specdse _specdse
    ;;
  asan)
    # -Og: the sanitized build is most of .ci/run's time, and its tests are functional, not timed.
    # Under ASan + UBSan, cmd_golden.cpp compiles in 37.5 s at -O3, 19.6-22.9 s at -O1 (what
    # AddressSanitizer's documentation suggests for speed) and 12.7 s at -Og here; -Og keeps the
    # optimisations that do not hinder debugging, so the tests still run at a usable speed.
    cmake -S . -B build-asan -DCMAKE_BUILD_TYPE=Release -DCMAKE_CXX_FLAGS_RELEASE="-Og -DNDEBUG" \
      -DSPECDSE_SANITIZE=address,undefined \
      -DSPECDSE_PYTHON_MODULE=OFF -DSPECDSE_MPI=OFF -DSPECDSE_CUDA=OFF "${launcher[@]}" >/dev/null
    cmake --build build-asan -j"${SPECDSE_JOBS:-2}"
    ;;
  *)
    echo "usage: scripts/build.sh [product|python|asan]" >&2
    exit 2
    ;;
esac
