#!/usr/bin/env bash
# The stack-synchronisation golden (cuda/hf_host_device_overlap.py: narrow and published-width
# Llama models under Hugging Face generate, batch 1-32) and the CUDA-graph step's kernels with
# their device time (cuda/torch_decode_step.py --kernel-times) on this machine's GPU. Writes into
# OUT_DIR: gpu.txt (GPU, driver, host CPU, versions, date), hf_overlap.csv (hf_overlap_rounds.csv:
# each round's token time per point, with the host's load), graph_kernels.csv, torch_step.csv, log.txt.
# Usage (a machine with an NVIDIA GPU, PyTorch and transformers): cuda/run_host_device_overlap.sh OUT_DIR
set -uo pipefail
cd "$(dirname "$0")/.."
out="${1:?usage: cuda/run_host_device_overlap.sh OUT_DIR}"
mkdir -p "$out"
log="$out/log.txt"
export PYTHONUNBUFFERED=1
source cuda/record_machine.sh
record_machine "$out" "$log" torch transformers
timeout 240 python3 cuda/hf_host_device_overlap.py --rounds "$out/hf_overlap_rounds.csv" >"$out/hf_overlap.csv" 2>>"$log"
echo "overlap rc=$?" >>"$log"
timeout 60 python3 cuda/hf_host_device_overlap.py --model 8b,narrow32 --repeats 3 --batch 16 --context 4096 2>>"$log" \
  | tail -n +2 >>"$out/hf_overlap.csv"
echo "overlap 4k rc=$?" >>"$log"
echo "model,batch,x,context,source,kernel,count,device_us" >"$out/graph_kernels.csv"
timeout 90 python3 cuda/torch_decode_step.py --model 8b --batch 1,16,64 --x 1,16 --context 1024 --repeats 5 \
  --kernel-times "$out/graph_kernels.csv" >"$out/torch_step.csv" 2>>"$log"
echo "torch_step rc=$?" >>"$log"
cat "$out/gpu.txt" "$out/hf_overlap.csv" "$out/torch_step.csv" "$log"
