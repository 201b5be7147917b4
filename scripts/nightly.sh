#!/usr/bin/env bash
# The whole sanitized suite, nothing left out but GCC 12's known ASan false positives with
# SystemC's stack switching (.ci/run says which and why): .ci/run's ASan pass leaves five heavy
# scenario tests to this script to keep CI under 30 minutes. Builds build-asan/ if needed.
set -euo pipefail
cd "$(dirname "$0")/.."
scripts/build.sh asan
ASAN_OPTIONS="${ASAN_OPTIONS:-detect_leaks=0}" \
UBSAN_OPTIONS="${UBSAN_OPTIONS:-print_stacktrace=1:halt_on_error=1}" \
  ctest --test-dir build-asan --output-on-failure -j"${SPECDSE_JOBS:-2}" --timeout 900 \
    -E "sim::cpu: every CPU config runs under the sim engine|sim::gpu sim: many simulations in one process|config fuzz: one board of each kind through the SystemC engine"
