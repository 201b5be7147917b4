#!/usr/bin/env python3
"""The operators of one GPT-3 175B decoder layer, each timed alone from Python the way LLMCompass's
real-hardware numbers were measured (PrincetonUniversity/LLMCompass, software_model/*.py
run_on_gpu), so that its per-operator comparison can be reproduced on this GPU.

The layer is one tensor-parallel shard of 4: d_model 12288, 96 heads -> 24 per shard, head dim
128, FFN 4 * 12288 / 4 = 12288 per shard, fp16, random inputs (values do not change the time).
Method, as LLMCompass's: the inputs are made first; 3 warm-up calls, each followed by
torch.cuda.synchronize(); then --iterations calls, each timed with time.perf_counter() around
the call and a torch.cuda.synchronize(); the op's time is the median. Plain eager PyTorch: no
CUDA graphs, no torch.compile, no L2 flush (LLMCompass has none), so the host launch cost and a
warm L2 are in the small ops' times, as they are in LLMCompass's numbers.

Sets (--sets):
  alone    calibration sweeps: GEMMs over m and over n = k, batched matmuls, softmax, layernorm
           and GELU over their shapes;
  decode   the layer's ops for batch 8, one new token, 3072 keys in the cache;
  prefill  the layer's ops for batch 8 x 2048 tokens (16384 rows).
measured_s = count x the median of one call (count is 3 for qkv: Q, K and V are three GEMMs).

Output: CSV set,op,kind,m,n,k,batch,count,measured_s to --out, after '#' lines naming the date,
device, torch version and iterations. Needs PyTorch with CUDA; it runs on a lent GPU only (see
docs/gpu-model.md). Usage:
  python3 cuda/op_by_op_layer.py --out FILE [--iterations 50] [--sets alone,decode,prefill]
"""
import argparse
import datetime
import statistics
import sys
import time

import torch
import torch.nn.functional as F

HEADER = "set,op,kind,m,n,k,batch,count,measured_s"
DT = torch.float16
D, HEADS_SHARD, HEAD_DIM, FFN_SHARD = 12288, 24, 128, 12288  # TP-4 shard of GPT-3 175B


def gemm(name, m, n, k, count=1):
    return (name, "gemm", m, n, k, 1, count)


def bmm(name, batch, m, n, k):
    return (name, "bmm", m, n, k, batch, 1)


def rowwise(name, kind, m, n):
    return (name, kind, m, n, 0, 1, 1)  # softmax / layernorm / gelu: m rows of n


def alone_rows():
    rows = [gemm(f"gemm_m{m}_n{D}_k{D}", m, D, D) for m in (1, 8, 64, 256, 1024, 4096)]
    rows += [gemm(f"gemm_m8192_n{nk}_k{nk}", 8192, nk, nk) for nk in (64, 1024, 4096)]
    for b, m, n, k in ((192, 1, 3072, 128), (192, 1, 128, 3072), (192, 1, 64, 64), (8, 64, 64, 64)):
        rows.append(bmm(f"bmm_b{b}_m{m}_n{n}_k{k}", b, m, n, k))
    for kind, shapes in (("softmax", ((4096, 32), (4096, 1024), (4096, 32768), (32, 4096))),
                         ("layernorm", ((4096, 32), (4096, 4096), (32768, 4096))),
                         ("gelu", ((1, 1024), (1, 2 ** 20), (1, 2 ** 28)))):
        rows += [rowwise(f"{kind}_m{m}_n{n}", kind, m, n) for m, n in shapes]
    return rows


def layer_rows(tokens, queries, keys):
    """One layer's ops: `tokens` rows through the GEMMs; per (sequence, head) pair (batch 8 x 24
    heads = 192) `queries` query rows against `keys` keys in the attention."""
    bh = 8 * HEADS_SHARD
    return [gemm("qkv", tokens, D // 4, D, count=3),  # Q, K, V: each 12288 -> 24 x 128 = 3072
            bmm("qk", bh, queries, keys, HEAD_DIM),
            rowwise("softmax", "softmax", bh * queries, keys),
            bmm("av", bh, queries, HEAD_DIM, keys),
            gemm("wo", tokens, D, D // 4),
            gemm("w1", tokens, FFN_SHARD, D),
            rowwise("gelu", "gelu", tokens, FFN_SHARD),
            gemm("w2", tokens, D, FFN_SHARD),
            rowwise("layernorm_attn", "layernorm", tokens, D),
            rowwise("layernorm_mlp", "layernorm", tokens, D)]


SETS = {
    "alone": alone_rows,
    "decode": lambda: layer_rows(tokens=8, queries=1, keys=3072),
    "prefill": lambda: layer_rows(tokens=8 * 2048, queries=2048, keys=2048),
}


def make_op(kind, m, n, k, batch, device):
    """The inputs (made before any timing, as LLMCompass does) and a closure running the op."""
    def randn(*shape):
        return torch.randn(*shape, dtype=DT, device=device)
    if kind == "gemm":
        a, b = randn(m, k), randn(k, n)
        return (a, b), lambda: torch.matmul(a, b)
    if kind == "bmm":
        a, b = randn(batch, m, k), randn(batch, k, n)
        return (a, b), lambda: torch.matmul(a, b)
    x = randn(m, n)
    if kind == "softmax":
        return (x,), lambda: torch.softmax(x, dim=-1)
    if kind == "layernorm":
        return (x,), lambda: F.layer_norm(x, [n])  # no weight / bias, as LLMCompass's test
    if kind == "gelu":
        return (x,), lambda: F.gelu(x, approximate="tanh")
    raise ValueError(f"unknown kind {kind}")


def time_median(op, iterations):
    """LLMCompass's run_on_gpu loop: wall clock around one call plus a synchronize, the median."""
    for _ in range(3):
        op()
        torch.cuda.synchronize()
    times = []
    for _ in range(iterations):
        start = time.perf_counter()
        out = op()
        torch.cuda.synchronize()
        end = time.perf_counter()
        times.append(end - start)
        del out  # freed before the next call, so the big prefill outputs do not pile up
    return statistics.median(times)


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--out", required=True, help="CSV file to write")
    parser.add_argument("--iterations", type=int, default=50, help="timed calls per op (median)")
    parser.add_argument("--sets", default="alone,decode,prefill", help="comma list of " + ",".join(SETS))
    args = parser.parse_args()
    sets = [s for s in args.sets.split(",") if s]
    unknown = [s for s in sets if s not in SETS]
    if unknown:
        parser.error(f"unknown set(s) {','.join(unknown)}; choose from {','.join(SETS)}")
    if args.iterations < 1:
        parser.error("--iterations must be >= 1")
    if not torch.cuda.is_available():
        print("op_by_op_layer.py: CUDA is not available (needs a GPU and PyTorch with CUDA)", file=sys.stderr)
        sys.exit(2)
    device = torch.device("cuda")
    name = torch.cuda.get_device_name()
    print(f"device: {name}, torch {torch.__version__}", file=sys.stderr)
    with open(args.out, "w") as out:
        out.write("# op_by_op_layer.py: GPT-3 175B layer, TP-4 shard, ops timed alone (LLMCompass's method)\n")
        out.write(f"# date: {datetime.datetime.now(datetime.timezone.utc).isoformat(timespec='seconds')}\n")
        out.write(f"# device: {name}\n# torch: {torch.__version__}\n")
        out.write(f"# iterations: {args.iterations} (median)\n{HEADER}\n")
        for set_name in sets:
            for op_name, kind, m, n, k, batch, count in SETS[set_name]():
                inputs, op = make_op(kind, m, n, k, batch, device)
                measured = count * time_median(op, args.iterations)  # plain eager, as LLMCompass
                out.write(f"{set_name},{op_name},{kind},{m},{n},{k},{batch},{count},{measured:.9g}\n")
                out.flush()  # rows written so far survive a later out-of-memory or time-out
                print(f"{set_name:8s} {op_name:28s} {kind:9s} m={m} n={n} k={k} batch={batch} "
                      f"count={count}: {measured * 1e6:.1f} us", file=sys.stderr)
                # Free this op's tensors before the next one's, so the prefill rows fit.
                del inputs, op
                torch.cuda.empty_cache()


if __name__ == "__main__":
    main()
