#!/usr/bin/env bash
# Configures and builds specdse (Release, -j2). Never writes into the source folders.
#   scripts/build.sh         -> build/       the normal build (product, Python module, tests, tools)
#   scripts/build.sh product -> build/       the `specdse` command alone (what `reproduce` needs:
#                               no test binaries, no CUDA golden program; a later plain
#                               scripts/build.sh adds the rest to the same folder)
#   scripts/build.sh asan    -> build-asan/  every target under ASan + UBSan (SPECDSE_SANITIZE), at -O1;
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
  asan)
    # -O1, as AddressSanitizer's documentation advises for reasonable speed: the sanitized
    # build compiles in about half the time of -O3 (cmd_golden.cpp 37.5 -> 19.6 s here), which is
    # most of .ci/run's time, and its tests are functional, not timed.
    cmake -S . -B build-asan -DCMAKE_BUILD_TYPE=Release -DCMAKE_CXX_FLAGS_RELEASE="-O1 -DNDEBUG" \
      -DSPECDSE_SANITIZE=address,undefined \
      -DSPECDSE_PYTHON_MODULE=OFF -DSPECDSE_MPI=OFF -DSPECDSE_CUDA=OFF "${launcher[@]}" >/dev/null
    cmake --build build-asan -j"${SPECDSE_JOBS:-2}"
    ;;
  *)
    echo "usage: scripts/build.sh [product|asan]" >&2
    exit 2
    ;;
esac
