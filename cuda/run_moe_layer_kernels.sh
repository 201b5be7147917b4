#!/usr/bin/env bash
# The fixed per-layer costs of an MoE decode layer (cuda/moe_layer_kernels.py: router GEMM, top-1
# sigmoid routing, permute, routed experts through torch._grouped_mm, combine, shared expert, the
# whole layer eager and as a CUDA graph, and a read of the touched weights) at Llama-4 Scout and Maverick
# shapes, T = 1..512 tokens, uniform and Zipf routing, on this machine's GPU. Writes into OUT_DIR
# (flat, four files):
#   gpu.txt                              GPU, driver, host CPU, versions, date (record_machine.sh)
#   <gpu>_moe_layer_<date>.csv           the timings, one row per model, T, routing, component, path
#   <gpu>_moe_layer_kernels_<date>.csv   the kernels of each component at T = 16, with device time
#   log.txt                              progress lines and errors
# <gpu> is the lower-cased GPU model of nvidia-smi without "NVIDIA" (h200), <date> the UTC day
# (2026-11-29): the names the measurements keep in notebooks_out/golden/. The script stops adding
# points after --budget-s 420 s and rewrites its CSVs after every point, so a run cut off by the
# timeout keeps what it measured. About 3-4 minutes on an H200 (Maverick's 32 GB of expert
# weights dominate). Extra arguments go to the script (e.g. --quick for a smoke test).
# Usage (a machine with an NVIDIA GPU and PyTorch): cuda/run_moe_layer_kernels.sh OUT_DIR [ARGS...]
set -uo pipefail
cd "$(dirname "$0")/.."
out="${1:?usage: cuda/run_moe_layer_kernels.sh OUT_DIR [ARGS...]}"
shift
mkdir -p "$out"
log="$out/log.txt"
export PYTHONUNBUFFERED=1
source cuda/record_machine.sh
record_machine "$out" "$log" torch transformers
gpu=$(nvidia-smi --query-gpu=name --format=csv,noheader 2>>"$log" | head -n 1 | sed 's/^NVIDIA //' \
  | awk '{print tolower($1)}')
gpu="${gpu:-gpu}"
day=$(date -u +%F)
csv="$out/${gpu}_moe_layer_${day}.csv"
kernels="$out/${gpu}_moe_layer_kernels_${day}.csv"
timeout 500 python3 cuda/moe_layer_kernels.py --out "$csv" --kernels-out "$kernels" "$@" >>"$log" 2>&1
echo "moe_layer rc=$?" >>"$log"
rm -f "$out"/*.tmp* # a temporary CSV left by a run killed mid-write
cat "$out/gpu.txt"
# The layer's graph replays and the weight-read rows at a glance (model,tokens,routing,component,
# path,experts_touched,median_us); the whole CSVs are in OUT_DIR.
grep -v '^#' "$csv" 2>/dev/null | awk -F, 'NR == 1 || ($7 == "layer" && $8 == "graph") || $7 == "weight_read"' \
  | cut -d, -f4-8,10,12
tail -n 25 "$log"
