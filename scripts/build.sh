#!/usr/bin/env bash
# Configures and builds specdse into ./build (Release, -j2). Never writes into the source folders.
set -euo pipefail
cd "$(dirname "$0")/.."
# ccache (when installed) keeps rebuilds of unchanged files cheap; it changes no output.
launcher=()
if command -v ccache >/dev/null; then launcher=(-DCMAKE_CXX_COMPILER_LAUNCHER=ccache); fi
cmake -S . -B build -DCMAKE_BUILD_TYPE=Release "${launcher[@]}" >/dev/null
cmake --build build -j"${SPECDSE_JOBS:-2}"
