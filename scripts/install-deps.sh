#!/usr/bin/env bash
# Installs the Debian 12 packages specdse builds, tests and plots with. Idempotent; run as root.
set -euo pipefail
packages=(
  build-essential cmake pkg-config
  libsystemc-dev        # cycle-accurate hardware models (sim/)
  libboost-graph-dev    # token trees (search/)
  libeigen3-dev         # golden CPU kernels, OLS
  libceres-dev          # AAT curve fit
  libfmt-dev libyaml-cpp-dev libcli11-dev
  nlohmann-json3-dev    # JSON strings in Chrome traces and --format json (sim/io/json_string)
  catch2                # unit tests (v2.13)
  libbenchmark-dev      # benchmarks (bench/ targets)
  python3-matplotlib    # plots
  python3-yaml          # scripts/specbench_fig1.py reads its reference figures
  pybind11-dev python3-dev python3-numpy python3-pandas  # `import specdse` (experiments/python)
  python3-nbconvert python3-nbformat python3-nbclient python3-ipykernel jupyter-nbconvert  # notebooks run as tests
  openmpi-bin libopenmpi-dev  # mpirun specdse sweep (optional at build time)
  chromium              # headless browser: the test that opens plan --report's HTML
)
missing=()
for p in "${packages[@]}"; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
done
if ((${#missing[@]})); then
  echo "install-deps: installing ${missing[*]}" >&2
  export DEBIAN_FRONTEND=noninteractive
  apt-get update -qq
  apt-get install -y -qq --no-install-recommends "${missing[@]}"
else
  echo "install-deps: all packages present" >&2
fi
