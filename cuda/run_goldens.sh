#!/usr/bin/env bash
# Runs every GPU golden on the GPU of this machine and writes what it measured into OUT_DIR:
#   gpu.txt          the GPU, its clocks and driver (nvidia-smi)
#   kernels_8b.csv   cuBLAS GEMM/GEMV at Llama-3.1-8B's projection shapes and tree attention of
#                    16 tree tokens (32 query / 8 KV heads) at contexts 1024, 4096, 16384
#   kernels_70b.csv  the same for Llama-3.1-70B's shapes and a 64-token tree (64 / 8 heads)
#   sequences_8b.csv the 8B shapes and an RMSNorm as 32 back-to-back launches, eager and as a
#                    CUDA graph: a kernel's cost inside a step rather than alone
#   attention.csv    FlashAttention-2 (PyTorch) over the KV cache, mask-free, for the 8B's and the
#                    70B's heads: x queries per sequence, B sequences, contexts 1024..16384
#   step_8b.csv      whole Llama-3.1-8B verify steps over batch x tree size (torch_decode_step.py)
#                    (masked tree attention), then Llama-3.2-1B's (a draft) appended
#   step_8b_split.csv the 8B's trees with the split tree attention the GPU model times
#   log.txt          every tool's stderr (correctness checks of the attention kernels included)
# Each file is compared with the GPU model by `specdse golden --hw <gpu> --measured FILE`
# (it tells the kernel CSVs from the step CSVs by their header).
# Not run here (a short extra run): `python3 cuda/torch_decode_step.py --contention --x 16
# --context 4096 --batch 1`, the target and a draft on two streams of one GPU.
# Usage (on a machine with an NVIDIA GPU, nvcc and cuBLAS; PyTorch for the steps):
#   cuda/run_goldens.sh OUT_DIR
set -uo pipefail
cd "$(dirname "$0")/.."
out="${1:?usage: cuda/run_goldens.sh OUT_DIR}"
mkdir -p "$out"
log="$out/log.txt"
nvidia-smi --query-gpu=name,memory.total,clocks.max.sm,clocks.max.mem,driver_version,compute_cap \
  --format=csv >"$out/gpu.txt" 2>>"$log"
date -u +"measured %Y-%m-%dT%H:%MZ" >>"$out/gpu.txt"
bin=$(mktemp -d)/specdse_cuda_golden
# Built here for this GPU (-arch=native): the binary carries this chip's machine code.
nvcc -O2 -std=c++17 -arch=native -o "$bin" cuda/cuda_golden.cu -lcublas 2>>"$log" || { echo "nvcc failed" >>"$log"; exit 1; }
shapes_70b="10240:8192,8192:8192,57344:8192,8192:28672"
timeout 150 "$bin" >"$out/kernels_8b.csv" 2>>"$log"
echo "kernels_8b rc=$?" >>"$log"
timeout 150 "$bin" --shapes "$shapes_70b" --attention 64:8:128 --tree-tokens 64 >"$out/kernels_70b.csv" 2>>"$log"
echo "kernels_70b rc=$?" >>"$log"
timeout 150 "$bin" --sequence-copies 32 --skip-isolated 1 --skip-attention 1 >"$out/sequences_8b.csv" 2>>"$log"
echo "sequences_8b rc=$?" >>"$log"
if python3 -c "import torch; assert torch.cuda.is_available()" 2>>"$log"; then
  for model in 8b 70b; do
    timeout 100 python3 cuda/torch_decode_step.py --model $model --attention --batch 1,16,64 --x 1,16,64 \
      --context 1024,4096,16384 2>>"$log" | { [ $model = 8b ] && cat || tail -n +2; } >>"$out/attention.csv"
    echo "attention $model rc=$?" >>"$log"
  done
  timeout 240 python3 cuda/torch_decode_step.py --model 8b --context 1024,4096 >"$out/step_8b.csv" 2>>"$log"
  echo "step_8b rc=$?" >>"$log"
  timeout 150 python3 cuda/torch_decode_step.py --model 8b --context 1024,4096 --x 4,16,64 --tree-attention split \
    >"$out/step_8b_split.csv" 2>>"$log"
  echo "step_8b_split rc=$?" >>"$log"
  timeout 60 python3 cuda/torch_decode_step.py --model 1b --batch 1,16 --x 1,16 2>>"$log" | tail -n +2 >>"$out/step_8b.csv"
  echo "step_1b rc=$?" >>"$log"
else
  echo "no PyTorch with CUDA: steps not measured" >>"$log"
fi
cat "$out/gpu.txt" "$log"
