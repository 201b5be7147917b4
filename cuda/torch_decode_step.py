#!/usr/bin/env python3
"""A measured decode/verify step of a dense Llama model, the golden reference for the GPU model's
whole step (T_v(x, B) at a context L), where cuda_golden.cu checks single kernels.

Every sequence of a batch of B verifies x new tokens (x = 1: plain decoding; x > 1: a random
token tree, masked to each node's ancestors) against its own KV cache of L tokens, through all
decoder layers and the LM head, in BF16 with random weights (values do not change the time).
Each layer: RMSNorm, fused QKV projection, RoPE, the new K/V written into the cache, attention
over the cache plus the tree (PyTorch scaled_dot_product_attention: flash attention without a
mask, memory-efficient attention with the tree mask; or, --tree-attention split, the GPU model's
form: flash attention over the cache, the masked tree suffix, a log-sum-exp merge), O projection, residual, RMSNorm, fused
gate/up projection, SiLU * up, down projection, residual; then the final norm and the LM head.

Two timings per point, minimum of --repeats after warm-up (CUDA events, L2 flushed before each):
  graph_s: the step captured once and replayed as a CUDA graph (what a CUDA-graph engine such as
           vLLM launches; host launch costs gone),
  eager_s: the same step launched kernel by kernel from Python (eager PyTorch: host-bound when
           the GPU work per kernel is short).

--attention instead times production attention kernels alone, as the GPU model's mask-free
prefix kernel: PyTorch's FlashAttention-2 (scaled_dot_product_attention with only the flash
backend allowed; it splits the KV sequence over CTAs, flash-decoding, when the grid is small) for
x queries per sequence over L cached keys, the query heads of a KV head packed as rows (GQA),
B sequences; minimum of --repeats isolated, event-timed runs after an L2 flush. Output rows
flash_attention_h<H>_kv<KV>_b<B>,x,L,head_dim,measured_s (the kernel CSV of cuda_golden.cu).

Output: CSV model,batch,x,context,kernels,graph_s,eager_s on stdout (kernels: launches per step
of one eager step, from the PyTorch profiler). Needs PyTorch with CUDA; it runs
on a lent GPU only (see docs/gpu-model.md). Usage:
  python3 cuda/torch_decode_step.py [--model 8b] [--batch 1,4,16,64,128] [--x 1,4,16,64]
                                    [--context 1024] [--repeats 10] [--attention]
                                    [--tree-attention masked|split] [--contention]
                                    [--kernel-times FILE]
"""
import argparse
import math
import sys

import torch
import torch.nn.functional as F

from kernel_tally import kernel_tally  # this script's folder (python3 cuda/torch_decode_step.py)

# Published config.json shapes (the same as configs/models/*.yaml).
MODELS = {
    "8b": dict(name="llama-3.1-8b-instruct", layers=32, hidden=4096, ffn=14336, heads=32, kv_heads=8,
               head_dim=128, vocab=128256),
    "70b": dict(name="llama-3.1-70b", layers=80, hidden=8192, ffn=28672, heads=64, kv_heads=8,
                head_dim=128, vocab=128256),  # --attention only on one GPU: 140 GB of weights
    "1b": dict(name="llama-3.2-1b", layers=16, hidden=2048, ffn=8192, heads=32, kv_heads=8, head_dim=64,
               vocab=128256),
}


def int_list(text):
    return [int(v) for v in text.split(",") if v]


def random_tree_mask(x, generator):
    """Boolean [x, x] mask: node i sees its ancestors and itself (parents drawn uniformly)."""
    parent = [-1] + [int(torch.randint(0, i, (1,), generator=generator)) for i in range(1, x)]
    mask = torch.zeros(x, x, dtype=torch.bool)
    for i in range(x):
        j = i
        while j >= 0:
            mask[i, j] = True
            j = parent[j]
    return mask


class Step:
    """Weights, caches and buffers of one (batch, x, context) point; __call__ runs one step."""

    def __init__(self, cfg, batch, x, context, device, tree_attention="masked"):
        dt = torch.bfloat16
        h, f, d = cfg["hidden"], cfg["ffn"], cfg["head_dim"]
        nh, nkv = cfg["heads"], cfg["kv_heads"]
        self.cfg, self.batch, self.x, self.context = cfg, batch, x, context
        self.tree_attention = tree_attention
        std = 0.02

        def w(*shape):
            return torch.empty(*shape, dtype=dt, device=device).normal_(0, std)

        self.layers = []
        for _ in range(cfg["layers"]):
            self.layers.append(dict(
                norm1=torch.ones(h, dtype=dt, device=device), qkv=w((nh + 2 * nkv) * d, h), o=w(h, nh * d),
                norm2=torch.ones(h, dtype=dt, device=device), gate_up=w(2 * f, h), down=w(h, f),
                k_cache=w(batch, nkv, context + x, d), v_cache=w(batch, nkv, context + x, d)))
        self.final_norm = torch.ones(h, dtype=dt, device=device)
        self.lm_head = w(cfg["vocab"], h)
        self.tokens = w(batch, x, h)  # the embedded input tokens (the lookup is a gather)
        gen = torch.Generator().manual_seed(1)
        if x > 1:
            tree = random_tree_mask(x, gen)
            mask = torch.ones(x, context + x, dtype=torch.bool)
            mask[:, context:] = tree
            self.mask = mask.to(device)
        else:
            self.mask = None
        # GQA without copies: the query heads sharing a KV head become rows of one attention
        # problem per KV head (row r: token r // group), as cuda_golden.cu packs them; the mask
        # repeats each token's row for its heads.
        self.group = nh // nkv
        if self.mask is not None:
            self.mask = self.mask.repeat_interleave(self.group, dim=0)
            # The split form's suffix: 0 where a row's token sees the key, -inf elsewhere.
            tree_rows = self.mask[:, context:]
            self.suffix_bias = torch.zeros(tree_rows.shape, dtype=torch.float32, device=device).masked_fill(
                ~tree_rows, float("-inf"))
        pos = torch.arange(context, context + x, device=device, dtype=torch.float32)
        inv = 1.0 / (500000.0 ** (torch.arange(0, d, 2, device=device, dtype=torch.float32) / d))
        angles = torch.outer(pos, inv)[:, None, :]  # [x, 1, d/2]: broadcast over heads
        self.cos = torch.cat([angles.cos(), angles.cos()], -1).to(dt)
        self.sin = torch.cat([angles.sin(), angles.sin()], -1).to(dt)
        self.out = None

    def rope(self, t):
        half = t.shape[-1] // 2
        rotated = torch.cat([-t[..., half:], t[..., :half]], -1)
        return t * self.cos + rotated * self.sin

    def attention(self, q, lw):
        """Attention of the packed queries q [b, kv heads, x * group, d] over the cache and tree."""
        if self.mask is None or self.tree_attention == "masked":
            return F.scaled_dot_product_attention(q, lw["k_cache"], lw["v_cache"], attn_mask=self.mask)
        # "split" (paper 004 §3.1, the GPU model's form): FlashAttention-2 over the cache without a
        # mask, the tree's own keys under the mask, merged by log-sum-exp.
        ctx, x = self.context, self.x
        prefix = torch.ops.aten._scaled_dot_product_flash_attention(
            q, lw["k_cache"][:, :, :ctx], lw["v_cache"][:, :, :ctx])
        o1, lse1 = prefix[0].float(), prefix[1]
        kn, vn = lw["k_cache"][:, :, ctx:ctx + x].float(), lw["v_cache"][:, :, ctx:ctx + x].float()
        scores = (q.float() @ kn.transpose(-1, -2)) * (q.shape[-1] ** -0.5) + self.suffix_bias
        lse2 = torch.logsumexp(scores, -1)
        o2 = torch.exp(scores - lse2[..., None]) @ vn
        top = torch.maximum(lse1, lse2)
        w1, w2 = torch.exp(lse1 - top)[..., None], torch.exp(lse2 - top)[..., None]
        return ((o1 * w1 + o2 * w2) / (w1 + w2)).to(q.dtype)

    def __call__(self):
        cfg, b, x, ctx = self.cfg, self.batch, self.x, self.context
        nh, nkv, d = cfg["heads"], cfg["kv_heads"], cfg["head_dim"]
        hs = self.tokens
        for lw in self.layers:
            a = F.rms_norm(hs, (hs.shape[-1],), lw["norm1"], 1e-5)
            qkv = F.linear(a, lw["qkv"])
            q, k, v = qkv.split([nh * d, nkv * d, nkv * d], -1)
            q = self.rope(q.view(b, x, nh, d))
            k = self.rope(k.view(b, x, nkv, d))
            lw["k_cache"][:, :, ctx:ctx + x] = k.transpose(1, 2)
            lw["v_cache"][:, :, ctx:ctx + x] = v.view(b, x, nkv, d).transpose(1, 2)
            q = q.view(b, x, nkv, self.group, d).transpose(1, 2).reshape(b, nkv, x * self.group, d)
            attn = self.attention(q, lw)
            attn = attn.reshape(b, nkv, x, self.group, d).transpose(1, 2).reshape(b, x, nh * d)
            hs = hs + F.linear(attn, lw["o"])
            m = F.rms_norm(hs, (hs.shape[-1],), lw["norm2"], 1e-5)
            gate, up = F.linear(m, lw["gate_up"]).chunk(2, -1)
            hs = hs + F.linear(F.silu(gate) * up, lw["down"])
        hs = F.rms_norm(hs, (hs.shape[-1],), self.final_norm, 1e-5)
        self.out = F.linear(hs, self.lm_head)
        return self.out


def warm_up(step):
    """Three steps on a side stream (cuBLAS / SDPA heuristics, allocations), as graph capture needs."""
    side = torch.cuda.Stream()
    side.wait_stream(torch.cuda.current_stream())
    with torch.cuda.stream(side):
        for _ in range(3):
            step()
    torch.cuda.current_stream().wait_stream(side)
    torch.cuda.synchronize()


def capture(step):
    """The step captured as a CUDA graph (after warm_up)."""
    graph = torch.cuda.CUDAGraph()
    with torch.cuda.graph(graph):
        step()
    return graph


def time_min(fn, repeats, flush):
    start, end = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)
    best = math.inf
    for r in range(repeats):
        flush.fill_(r & 0xFF)  # evict the L2: decode streams its weights from HBM
        start.record()
        fn()
        end.record()
        end.synchronize()
        best = min(best, start.elapsed_time(end) * 1e-3)
    return best


def check_split(step):
    """The split form equals the masked attention (max |difference| to stderr; exit 3 if off)."""
    cfg, b, x = step.cfg, step.batch, step.x
    lw = step.layers[0]
    q = torch.randn(b, cfg["kv_heads"], x * step.group, cfg["head_dim"], dtype=torch.bfloat16, device=lw["o"].device)
    masked = F.scaled_dot_product_attention(q, lw["k_cache"], lw["v_cache"], attn_mask=step.mask)
    diff = (step.attention(q, lw).float() - masked.float()).abs().max().item()
    print(f"split tree attention b={b} x={x} L={step.context}: max |split - masked| = {diff:.3g}", file=sys.stderr)
    if not diff <= 2e-2:
        print("the split tree attention disagrees with the masked one", file=sys.stderr)
        sys.exit(3)


def count_kernels(step):
    """GPU kernels one eager step launches (the profiler's CUDA kernel events), or -1."""
    try:
        return sum(calls for calls, _ in kernel_tally(step).values())
    except Exception as error:  # the profiler is a convenience: the timings stand without it
        print(f"kernel count unavailable: {error}", file=sys.stderr)
        return -1


def time_attention(cfg, a, device, flush):
    """FlashAttention-2 over the cache per (context, batch, x): the kernel CSV rows."""
    from torch.nn.attention import SDPBackend, sdpa_kernel
    nh, nkv, d = cfg["heads"], cfg["kv_heads"], cfg["head_dim"]
    group = nh // nkv
    print("kernel,m,n,k,measured_s", flush=True)
    for context in int_list(a.context):
        for batch in int_list(a.batch):
            for x in int_list(a.x):
                try:
                    q = torch.randn(batch, nkv, x * group, d, dtype=torch.bfloat16, device=device)
                    k = torch.randn(batch, nkv, context, d, dtype=torch.bfloat16, device=device)
                    v = torch.randn(batch, nkv, context, d, dtype=torch.bfloat16, device=device)
                    with sdpa_kernel([SDPBackend.FLASH_ATTENTION]):
                        def run():
                            return F.scaled_dot_product_attention(q, k, v)
                        run()
                        torch.cuda.synchronize()
                        t = time_min(run, a.repeats, flush)
                    print(f"flash_attention_h{nh}_kv{nkv}_b{batch},{x},{context},{d},{t:.9g}", flush=True)
                except Exception as error:
                    print(f"attention batch {batch} x {x} context {context}: {error!r}", file=sys.stderr)
                q = k = v = None
                torch.cuda.empty_cache()


def time_contention(a, device, flush):
    """Llama-3.1-8B (the target) and Llama-3.2-1B (a draft), x tokens each at the context, on two
    CUDA streams of one GPU: each alone, then both at once (paper 002 §3.4's co-located draft).
    Rows: stream,model,batch,x,context,alone_s,together_s (minimum of --repeats, L2 flushed)."""
    x, context = int_list(a.x)[0], int_list(a.context)[0]
    batch = int_list(a.batch)[0]
    steps = [("target", Step(MODELS["8b"], batch, x, context, device)),
             ("draft", Step(MODELS["1b"], batch, x, context, device))]
    graphs = []
    for _, step in steps:
        warm_up(step)
        graphs.append(capture(step))
    streams = [torch.cuda.Stream(), torch.cuda.Stream()]
    alone = [time_min(g.replay, a.repeats, flush) for g in graphs]
    together = [math.inf, math.inf]
    for r in range(a.repeats):
        flush.fill_(r & 0xFF)
        start = torch.cuda.Event(enable_timing=True)
        start.record()
        ends = []
        for g, st in zip(graphs, streams):
            st.wait_event(start)
            with torch.cuda.stream(st):
                g.replay()
                end = torch.cuda.Event(enable_timing=True)
                end.record()
            ends.append(end)
        for e in ends:
            e.synchronize()
        for i, e in enumerate(ends):
            together[i] = min(together[i], start.elapsed_time(e) * 1e-3)
    print("stream,model,batch,x,context,alone_s,together_s")
    for i, (role, step) in enumerate(steps):
        print(f"{role},{step.cfg['name']},{batch},{x},{context},{alone[i]:.9g},{together[i]:.9g}", flush=True)


def kernel_times(fn, flush, path, head, source):
    """Append fn's kernels (one call after an L2 flush, the profiler's device durations, summed by
    kernel name) to path: head,source,kernel,count,device_us. A CUDA graph's replay lists the
    kernels as the GPU ran them inside the graph, for a per-kernel comparison with the model."""
    flush.fill_(7)
    tally = kernel_tally(fn)
    with open(path, "a") as f:
        for name, (count, busy) in sorted(tally.items(), key=lambda kv: -kv[1][1]):
            f.write(f"{head},{source},\"{name.replace(chr(34), chr(39))}\",{count},{busy:.3f}\n")
    return len(tally)


def main():
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--model", default="8b", choices=sorted(MODELS))
    p.add_argument("--batch", default="1,4,16,64,128")
    p.add_argument("--x", default="1,4,16,64")
    p.add_argument("--context", default="1024")
    p.add_argument("--repeats", type=int, default=10)
    p.add_argument("--attention", action="store_true", help="time FlashAttention-2 alone (kernel CSV)")
    p.add_argument("--contention", action="store_true",
                   help="the 8B target and the 1B draft (first --batch, --x, --context) alone and on two streams at once")
    p.add_argument("--tree-attention", default="masked", choices=["masked", "split"],
                   help="x > 1: one masked attention over cache and tree (PyTorch picks its memory-"
                        "efficient kernel), or the split form: FlashAttention-2 over the cache, the "
                        "masked tree suffix and a log-sum-exp merge, as the GPU model times it")
    p.add_argument("--kernel-times", metavar="FILE",
                   help="append each point's kernels with their device time (graph replay and eager step) to FILE")
    a = p.parse_args()
    cfg = MODELS[a.model]
    device = torch.device("cuda")
    props = torch.cuda.get_device_properties(device)
    print(f"device: {props.name}, {props.multi_processor_count} SMs, torch {torch.__version__}", file=sys.stderr)
    flush = torch.empty(256 << 20, dtype=torch.uint8, device=device)
    if a.attention:
        time_attention(cfg, a, device, flush)
        return 0
    if a.contention:
        time_contention(a, device, flush)
        return 0
    print("model,batch,x,context,kernels,graph_s,eager_s", flush=True)
    for context in int_list(a.context):
        for batch in int_list(a.batch):
            for x in int_list(a.x):
                try:
                    step = Step(cfg, batch, x, context, device, a.tree_attention)
                    if a.tree_attention == "split" and x > 1:
                        check_split(step)
                    warm_up(step)
                    eager = time_min(step, a.repeats, flush)
                    graph = capture(step)
                    graph.replay()
                    torch.cuda.synchronize()
                    replay = time_min(graph.replay, a.repeats, flush)
                    kernels = count_kernels(step)
                    if a.kernel_times:
                        head = f"{cfg['name']},{batch},{x},{context}"
                        for source, fn in (("graph", graph.replay), ("eager", step)):
                            if kernel_times(fn, flush, a.kernel_times, head, source) == 0:
                                print(f"{head} {source}: the profiler listed no kernels", file=sys.stderr)
                    print(f"{cfg['name']},{batch},{x},{context},{kernels},{replay:.9g},{eager:.9g}", flush=True)
                except torch.cuda.OutOfMemoryError:
                    print(f"{cfg['name']},{batch},{x},{context},-1,oom,oom", flush=True)
                except Exception as error:  # one failed point must not lose the others
                    print(f"batch {batch} x {x} context {context}: {error!r}", file=sys.stderr)
                    print(f"{cfg['name']},{batch},{x},{context},-1,error,error", flush=True)
                step = graph = None
                torch.cuda.empty_cache()
    return 0


if __name__ == "__main__":
    sys.exit(main())
