#!/usr/bin/env bash
# Configures and builds specdse into ./build (Release, -j2). Never writes into the source folders.
set -euo pipefail
cd "$(dirname "$0")/.."
cmake -S . -B build -DCMAKE_BUILD_TYPE=Release >/dev/null
cmake --build build -j"${SPECDSE_JOBS:-2}"
