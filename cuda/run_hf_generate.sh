#!/usr/bin/env bash
# Measures the Hugging Face decode loop (cuda/hf_generate_step.py) for Llama-3.1-8B and
# Llama-3.2-1B on this machine's GPU, and the hand-written eager step (cuda/torch_decode_step.py)
# at the same points on the same host, so the two host programs compare on one CPU. Writes into
# OUT_DIR: gpu.txt (GPU, driver, host CPU, date), hf_generate.csv, hf_kernels.csv (the kernels
# of one generate token with their device time), hf_copies.csv (GPU -> host -> GPU hand-offs), torch_step.csv, log.txt.
# Usage (a machine with an NVIDIA GPU, PyTorch, transformers and accelerate): cuda/run_hf_generate.sh OUT_DIR
set -uo pipefail
cd "$(dirname "$0")/.."
out="${1:?usage: cuda/run_hf_generate.sh OUT_DIR}"
mkdir -p "$out"
log="$out/log.txt"
export PYTHONUNBUFFERED=1
source cuda/record_machine.sh
record_machine "$out" "$log" torch transformers accelerate
echo "model,kernel,count_per_token,device_us_per_token" >"$out/hf_kernels.csv"
echo "model,batch,bytes,seconds" >"$out/hf_copies.csv"
timeout 240 python3 cuda/hf_generate_step.py --kernels "$out/hf_kernels.csv" --copies "$out/hf_copies.csv" \
  >"$out/hf_generate.csv" 2>>"$log"
echo "hf_generate rc=$?" >>"$log"
timeout 60 python3 cuda/torch_decode_step.py --model 8b --batch 1,16 --x 1 --context 1024 --repeats 5 \
  >"$out/torch_step.csv" 2>>"$log"
echo "torch_step 8b rc=$?" >>"$log"
timeout 40 python3 cuda/torch_decode_step.py --model 1b --batch 1,16 --x 1 --context 1024 --repeats 5 2>>"$log" \
  | tail -n +2 >>"$out/torch_step.csv"
echo "torch_step 1b rc=$?" >>"$log"
cat "$out/gpu.txt" "$out/hf_generate.csv" "$out/torch_step.csv" "$out/hf_copies.csv" "$log"
