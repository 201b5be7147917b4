#!/usr/bin/env python3
"""The fixed per-layer costs of a Mixture-of-Experts decode layer, component by component, at
Llama-4 Scout and Maverick shapes: a component profile for the GPU model's MoE layer.

Why. The GPU model prices an MoE layer mostly as the bytes of the experts it touches (decode is
memory-bound). A fused-MoE layer (vLLM's fused_moe, SGLang, Hugging Face's grouped_mm experts)
also launches a chain of small kernels whose cost does not scale with the weights: the router
GEMM, a top-k with the score function, the token sort by expert (vLLM's moe_align_block_size),
the grouped GEMMs' set-up, the activation, the unpermute and weighted combine. At the few tokens
of a speculative decoding step (T = batch x verify length) those fixed costs can rival the weight
reads. This script times each component alone, the whole layer, and a pure weight-read baseline,
so the model's memory-bound assumption and its per-layer constant can be checked against one GPU.

Shapes: read from configs/models/<model>.yaml (hidden_size, num_experts, experts_per_token,
moe_intermediate_size, shared_experts), which cite meta-llama/Llama-4-Scout-17B-16E and
Llama-4-Maverick-17B-128E config.json: hidden 5120, expert intermediate 8192, 16 or 128 routed
experts, top-1, one shared expert. One layer only, random BF16 weights (the values do not change
the time) drawn on the GPU with a seeded generator: Maverick's 128 experts are 128 x 3 x 5120 x
8192 x 2 B = 32 GB.

Per model and T in --tokens (tokens in the step), per routing:
  uniform  each token's expert drawn uniformly at random (seeded; not balanced: the number of
           distinct experts touched follows the draw, E (1 - (1 - 1/E)^T) on average),
  zipf     expert e drawn with probability proportional to 1 / (e + 1)^s (s = --zipf-exponent,
           1.0): a skewed router, fewer experts touched and larger groups.
The routing is made real, not faked: token t's input row is the router weight row of its drawn
expert (scaled), so the router GEMM and top-k pick that expert by a wide margin; the script checks
that they do (note column router_match).

Components (each timed alone on stored inputs of the same point):
  router       logits = x @ W_router^T: (T x hidden) @ (hidden x E),
  routing      top-k of the logits, sigmoid of the chosen scores (Llama 4: top-1, sigmoid),
  permute      sort the (token, expert) pairs by expert (stable sort), the per-expert row offsets
               (searchsorted over the sorted ids: no host sync), gather the token rows,
  experts      the routed gated MLP over the touched experts only: gate/up (hidden -> 2 inter),
               SiLU(gate) * up, down (inter -> hidden). torch._grouped_mm (one grouped GEMM per
               projection over all E experts; experts with no rows should get no tiles) when this
               torch has it and it gives the right result (checked at start), else a Python loop
               over the touched experts (experts_impl column),
  combine      unpermute and weighted combine: scale each row by its router weight, index_add into
               the T output rows (vLLM applies Llama 4's weight on the input instead: the same one
               elementwise multiply, elsewhere),
  shared       the shared expert's gated MLP on all T tokens,
  layer        1-6 in sequence plus the sum of the routed and shared outputs,
  weight_read  the touched weights read once: a sum over the gate/up and down weights of as many experts
               as the point touched (two read-only reduction kernels over the same bytes).

Paths (path column):
  eager       the component called back to back from Python, --iters calls per round: with short
              kernels this is the host's launch rate (max(host, device) per call);
  graph       the component captured in a CUDA graph (unrolled up to 10 times inside one graph
              when one call is short, so the graph launch does not hide the device time) and
              replayed back to back: device time without host launch cost;
  eager_sync  (layer only) each call followed by torch.cuda.synchronize(), wall clock: the
              latency of one eager layer, host plus device, as a step that waits would see it.
The loop implementation's eager experts read the per-expert row counts to the host (the sync a
loop over experts needs); its graphs use the counts of the point, fixed at capture.

Timing, as the other cuda/ goldens: warm-up calls first (and on a side stream before a graph
capture), then --rounds rounds of --iters calls timed with CUDA events (wall clock for
eager_sync); a round's value is its time over its calls; the rows give the median and the minimum
of the rounds. No L2 flush between calls: the experts' weights (252 MB per expert) and the shared
expert's are far larger than the L2, so they stream from HBM anyway; the router weight (at most
1.3 MB) and the activations stay warm in the L2, which makes the small components slightly
optimistic (a real layer finds them evicted by the previous layer).
bytes_read: weight bytes plus the main activation reads; gb_per_s = bytes_read / median.

Kernels: at one representative T (--profile-tokens, 16; uniform routing) the PyTorch profiler
lists each component's kernels from --profile-iters eager calls, and the whole layer's from its
eager calls and from graph replays: --kernels-out, rows model,tokens,routing,component,path,
kernel,calls,device_us_total,profiled_iters (per call: divide by profiled_iters). The profiles
run after every timing (the last model's layer kept, an earlier one drawn again with the same
seed): the profiler's CUPTI can stay attached when CUDA graphs are in use and slow the launches
that follow it.

Budget: --budget-s (420) for the whole run, the last 30 s of it kept for the kernel profiles;
each model gets an equal share of what is left when it starts (Scout's unused time passes to
Maverick), no new T point starts when the previous point's time, doubled, would overrun the
share, and no measurement starts after the timings' end. Both CSVs are rewritten atomically (a
temporary file, then os.replace) after every point, so a run that is cut off keeps what it measured.

Output: --out CSV after '#' lines (script, date, device, torch, settings, checks):
  date,gpu,torch,model,tokens,routing,component,path,experts_impl,experts_touched,
  max_tokens_per_expert,median_us,min_us,rounds,iters,weight_bytes,bytes_read,gb_per_s,note
Progress goes to stderr. Needs PyTorch with CUDA (torch._grouped_mm: SM90 for the CUTLASS path);
it runs on a lent GPU only. --dry-run prints the shapes, points and byte counts without PyTorch.
Usage:
  python3 cuda/moe_layer_kernels.py --out FILE [--kernels-out FILE]
      [--models llama-4-scout,llama-4-maverick] [--tokens 1,2,4,...,512] [--routing uniform,zipf]
      [--rounds 5] [--iters 50] [--budget-s 420] [--quick] [--experts-impl auto|grouped_mm|loop]
      [--profile-tokens 16] [--dry-run]
"""
import argparse
import csv
import datetime
import gc
import os
import statistics
import sys
import time

try:  # --help and --dry-run work without PyTorch (they never touch the GPU)
    import torch
    import torch.nn.functional as F
except ImportError:
    torch = None
    F = None

from kernel_tally import kernel_tally  # this script's folder; imports torch only when called

HERE = os.path.dirname(os.path.abspath(__file__))
CONFIG_DIR = os.path.join(HERE, "..", "configs", "models")
BF16_BYTES = 2
WEIGHT_STD = 0.02  # the scale of the random weights; the input rows are router rows / WEIGHT_STD
INIT_CHUNK = 1 << 28  # elements per normal_ call when drawing weights (512 MB of BF16)
MAX_UNROLL = 10  # copies of a short component inside one captured graph
UNROLL_TARGET_US = 200.0  # unroll a graph until one replay is about this long
PROFILE_RESERVE_S = 30.0  # of --budget-s, kept for the kernel profiles at the end
COLUMNS = ["date", "gpu", "torch", "model", "tokens", "routing", "component", "path", "experts_impl",
           "experts_touched", "max_tokens_per_expert", "median_us", "min_us", "rounds", "iters",
           "weight_bytes", "bytes_read", "gb_per_s", "note"]
KERNEL_COLUMNS = ["model", "tokens", "routing", "component", "path", "kernel", "calls", "device_us_total",
                  "profiled_iters"]


LOG_START = time.monotonic()


def log(message):
    """A progress line on stderr with the seconds since the script started (flushed: a 10-minute
    limit must not pass silently)."""
    print(f"[{time.monotonic() - LOG_START:7.1f}s] {message}", file=sys.stderr, flush=True)


def int_list(text):
    return [int(v) for v in text.split(",") if v]


def load_shape(name, config_dir=CONFIG_DIR):
    """The MoE shape of configs/models/<name>.yaml (flat 'key: value' lines; '#' comments)."""
    values = {}
    with open(os.path.join(config_dir, name + ".yaml")) as f:
        for line in f:
            line = line.split("#", 1)[0].strip()
            if ":" in line:
                key, value = line.split(":", 1)
                values[key.strip()] = value.strip()
    missing = [k for k in ("hidden_size", "num_experts", "experts_per_token", "moe_intermediate_size")
               if k not in values]
    if missing:
        raise ValueError(f"{name}: not an MoE config (missing {', '.join(missing)})")
    return dict(name=name, hidden=int(values["hidden_size"]), experts=int(values["num_experts"]),
                top_k=int(values["experts_per_token"]), inter=int(values["moe_intermediate_size"]),
                shared=int(values.get("shared_experts", "0")))


def expert_bytes(shape):
    """One expert's gated MLP: gate and up (hidden x inter each) and down (inter x hidden)."""
    return 3 * shape["hidden"] * shape["inter"] * BF16_BYTES


def component_bytes(shape, tokens, touched):
    """(weight_bytes, bytes_read) per component: the weights a call reads plus the main activation
    reads (rows through a GEMM, the logits, the gathered rows). Touched: distinct experts."""
    h, i, e, k, s = shape["hidden"], shape["inter"], shape["experts"], shape["top_k"], shape["shared"]
    rows = tokens * k
    routed_w = touched * expert_bytes(shape)
    shared_w = s * expert_bytes(shape)
    out = {
        "router": (e * h * BF16_BYTES, e * h * BF16_BYTES + tokens * h * BF16_BYTES),
        "routing": (0, tokens * e * BF16_BYTES),
        "permute": (0, rows * 8 + rows * h * BF16_BYTES),  # int64 ids, the gathered rows
        "experts": (routed_w, routed_w + rows * (h + 2 * i + i) * BF16_BYTES),  # x, gate/up out, act
        "combine": (0, rows * h * BF16_BYTES + rows * BF16_BYTES),
        "shared": (shared_w, shared_w + tokens * (h + 2 * s * i + s * i) * BF16_BYTES),
        "weight_read": (routed_w, routed_w),
    }
    parts = ("router", "routing", "permute", "experts", "combine", "shared")
    out["layer"] = (sum(out[p][0] for p in parts), sum(out[p][1] for p in parts) + tokens * h * BF16_BYTES)
    return out


def expected_touched(experts, tokens, top_k):
    """Distinct experts a uniform draw touches on average (top-1: E (1 - (1 - 1/E)^T))."""
    return experts * (1.0 - (1.0 - top_k / experts) ** tokens)


def zipf_probabilities(experts, exponent):
    weights = [1.0 / (e + 1) ** exponent for e in range(experts)]
    total = sum(weights)
    return [w / total for w in weights]


def write_csv_atomic(path, comments, columns, rows):
    """'#' comment lines, the header and the rows, written to a temporary file then renamed over
    path: a reader (or a run cut off mid-write) never sees half a file."""
    tmp = f"{path}.tmp{os.getpid()}"
    with open(tmp, "w", newline="") as f:
        for line in comments:
            f.write(f"# {line}\n")
        writer = csv.DictWriter(f, fieldnames=columns, extrasaction="ignore", lineterminator="\n")
        writer.writeheader()
        writer.writerows(rows)
    os.replace(tmp, path)


# ---------------------------------------------------------------------------------------------
# GPU side (PyTorch only below this line)
# ---------------------------------------------------------------------------------------------

def probe_grouped_mm(device):
    """torch._grouped_mm if this torch has it and it multiplies BF16 2-D x 3-D with offsets right
    (an empty group included), else None; and a line saying why."""
    gmm = getattr(torch, "_grouped_mm", None)
    if gmm is None:
        return None, "torch._grouped_mm is missing in this torch"
    try:
        gen = torch.Generator(device=device).manual_seed(123)
        sizes, k, n = [3, 0, 5, 8], 256, 128
        a = torch.randn(sum(sizes), k, device=device, dtype=torch.bfloat16, generator=gen)
        w = torch.randn(len(sizes), n, k, device=device, dtype=torch.bfloat16, generator=gen)  # [E, out, in]
        offs = torch.tensor(sizes, device=device).cumsum(0).to(torch.int32)
        # mat_b is [E, K, N]: the nn.Linear-layout weights transposed (a view, stride(-2) == 1).
        out = gmm(a, w.transpose(-2, -1), offs=offs)
        ref, start = [], 0
        for e, c in enumerate(sizes):
            ref.append(a[start:start + c].float() @ w[e].float().t())
            start += c
        ref = torch.cat(ref)
        err = ((out.float() - ref).abs().max() / ref.abs().max()).item()
        if not err < 2e-2:
            return None, f"torch._grouped_mm gives a wrong result (relative error {err:.3g})"
        return gmm, f"torch._grouped_mm ok (relative error {err:.2g} on a 4-group probe)"
    except Exception as error:
        return None, f"torch._grouped_mm failed: {error!r}"


class MoELayer:
    """One decoder layer's MoE block in BF16: router, E routed experts (top-k), shared expert(s).
    Weights in nn.Linear layout [out, in]; gate rows before up rows in gate_up."""

    def __init__(self, shape, device, seed, gmm):
        self.shape, self.device, self.gmm = shape, device, gmm
        h, i, e, s = shape["hidden"], shape["inter"], shape["experts"], shape["shared"]
        self.dt = torch.bfloat16
        self.gen = torch.Generator(device=device).manual_seed(seed)
        self.router_w = self.weights((e, h))
        self.gate_up = self.weights((e, 2 * i, h))
        self.down = self.weights((e, h, i))
        # grouped_mm multiplies [rows, K] by [E, K, N]: the transposed views cost nothing.
        self.gate_up_t = self.gate_up.transpose(-2, -1)
        self.down_t = self.down.transpose(-2, -1)
        # s shared experts of width i sum to one gated MLP of width s * i.
        self.shared_gate_up = self.weights((2 * s * i, h)) if s else None
        self.shared_down = self.weights((h, s * i)) if s else None
        self.expert_range = torch.arange(e, device=device)  # searchsorted's queries: one per expert

    def weights(self, shape):
        """torch.empty + normal_ in chunks on the GPU (a fixed-seed generator): no host copy and
        no float32 temporary of Maverick's 32 GB."""
        t = torch.empty(shape, dtype=self.dt, device=self.device)
        flat = t.view(-1)
        for start in range(0, flat.numel(), INIT_CHUNK):
            flat[start:start + INIT_CHUNK].normal_(0.0, WEIGHT_STD, generator=self.gen)
        return t

    # The components. None of them synchronises with the host (graph-capturable), except the loop
    # experts called without static counts.
    def router(self, x):
        return F.linear(x, self.router_w)

    def route(self, logits):
        scores, ids = torch.topk(logits, self.shape["top_k"], dim=-1)
        return torch.sigmoid(scores.float()).to(self.dt), ids

    def permute(self, x, ids):
        flat = ids.reshape(-1)
        sorted_ids, order = torch.sort(flat, stable=True)
        # offs[e] = rows routed to experts 0..e: the cumulative group ends grouped_mm takes.
        offs = torch.searchsorted(sorted_ids, self.expert_range, right=True, out_int32=True)
        k = self.shape["top_k"]
        token_of_row = order if k == 1 else torch.div(order, k, rounding_mode="floor")
        return x.index_select(0, token_of_row), offs, token_of_row, order

    def experts_grouped(self, xs, offs):
        h = self.gmm(xs, self.gate_up_t, offs=offs)
        gate, up = h.chunk(2, -1)
        return self.gmm(F.silu(gate) * up, self.down_t, offs=offs)

    def experts_loop(self, xs, offs, counts=None):
        """One gate/up GEMM, SiLU * up and one down GEMM per touched expert. counts: rows per
        expert on the host; None reads them from offs (a device-to-host sync, as a loop must)."""
        if counts is None:
            ends = offs.tolist()
            counts = [end - begin for begin, end in zip([0] + ends[:-1], ends)]
        ys = torch.empty(xs.shape[0], self.shape["hidden"], dtype=self.dt, device=self.device)
        start = 0
        for e, c in enumerate(counts):
            if c == 0:
                continue
            gate, up = F.linear(xs[start:start + c], self.gate_up[e]).chunk(2, -1)
            torch.mm(F.silu(gate) * up, self.down_t[e], out=ys[start:start + c])
            start += c
        return ys

    def combine(self, ys, token_of_row, order, weights, tokens):
        w = weights.reshape(-1).index_select(0, order)
        out = torch.zeros(tokens, self.shape["hidden"], dtype=self.dt, device=self.device)
        return out.index_add_(0, token_of_row, ys * w.unsqueeze(1))

    def shared(self, x):
        gate, up = F.linear(x, self.shared_gate_up).chunk(2, -1)
        return F.linear(F.silu(gate) * up, self.shared_down)

    def forward(self, x, experts):
        """The whole layer; experts(xs, offs) is the routed-experts implementation."""
        weights, ids = self.route(self.router(x))
        xs, offs, token_of_row, order = self.permute(x, ids)
        routed = self.combine(experts(xs, offs), token_of_row, order, weights, x.shape[0])
        return routed + self.shared(x) if self.shared_gate_up is not None else routed

    def weight_read(self, n):
        """Read the weights of n experts once (contiguous: the first n), nothing else."""
        return self.gate_up[:n].sum(), self.down[:n].sum()


class Point:
    """The inputs and stored intermediates of one (T, routing) point, so that every component
    can be timed alone on the data the previous one produced."""

    def __init__(self, layer, tokens, routing, zipf_exponent, seed):
        shape, device = layer.shape, layer.device
        e, k = shape["experts"], shape["top_k"]
        self.tokens, self.routing = tokens, routing
        gen = torch.Generator().manual_seed(seed * 1000003 + tokens * 2 + (routing == "zipf"))
        if routing == "zipf":
            probs = torch.tensor(zipf_probabilities(e, zipf_exponent), dtype=torch.float64)
        else:
            probs = torch.full((e,), 1.0 / e, dtype=torch.float64)
        drawn = torch.multinomial(probs.expand(tokens, e).contiguous(), k, replacement=False, generator=gen)  # [T, k]
        drawn = drawn.to(device)
        # Token t's row is the sum of its experts' router rows over WEIGHT_STD: its logit for a
        # drawn expert is about hidden (5120) and for the others about +-sqrt(hidden) * 3, so the
        # router's top-k picks the drawn experts, and the rows are about N(0, 1) per element.
        self.x = (layer.router_w[drawn].float().sum(1) / WEIGHT_STD).to(layer.dt).contiguous()
        with torch.inference_mode():
            self.logits = layer.router(self.x)
            self.weights, self.ids = layer.route(self.logits)
            got, want = self.ids.sort(1).values, drawn.sort(1).values
            self.router_match = int((got == want).all(1).sum().item())
            self.xs, self.offs, self.token_of_row, self.order = layer.permute(self.x, self.ids)
        ends = self.offs.tolist()
        self.counts = [end - begin for begin, end in zip([0] + ends[:-1], ends)]
        self.touched = sum(1 for c in self.counts if c)
        self.max_tokens = max(self.counts)
        self.ys = None  # set by the caller with the experts implementation in use


def warm_up(fn, calls=3):
    """Calls on a side stream before a capture (cuBLAS heuristics, allocator pools), as
    torch_decode_step.py does."""
    side = torch.cuda.Stream()
    side.wait_stream(torch.cuda.current_stream())
    with torch.cuda.stream(side):
        for _ in range(calls):
            fn()
    torch.cuda.current_stream().wait_stream(side)
    torch.cuda.synchronize()


def capture(fn, unroll):
    """fn captured `unroll` times in sequence in one CUDA graph."""
    warm_up(fn)
    graph = torch.cuda.CUDAGraph()
    with torch.cuda.graph(graph):
        for _ in range(unroll):
            fn()
    graph.replay()
    torch.cuda.synchronize()
    return graph


def time_events(fn, rounds, iters, warmup, per_call_div=1):
    """Median and minimum over rounds of (event time of `iters` back-to-back calls) / (iters *
    per_call_div), in microseconds."""
    for _ in range(warmup):
        fn()
    torch.cuda.synchronize()
    start, end = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)
    values = []
    for _ in range(rounds):
        start.record()
        for _ in range(iters):
            fn()
        end.record()
        end.synchronize()
        values.append(start.elapsed_time(end) * 1e3 / (iters * per_call_div))
    return statistics.median(values), min(values)


def time_wall_sync(fn, rounds, iters, warmup):
    """The same over wall-clock time, each call followed by a synchronize (host + device)."""
    for _ in range(warmup):
        fn()
        torch.cuda.synchronize()
    values = []
    for _ in range(rounds):
        t0 = time.perf_counter()
        for _ in range(iters):
            fn()
            torch.cuda.synchronize()
        values.append((time.perf_counter() - t0) * 1e6 / iters)
    return statistics.median(values), min(values)


class Run:
    """The settings, the rows so far and the CSV writers of one run."""

    def __init__(self, a, device):
        self.a, self.device = a, device
        self.rows, self.kernel_rows = [], []
        self.date = datetime.datetime.now(datetime.timezone.utc).isoformat(timespec="seconds")
        props = torch.cuda.get_device_properties(device)
        self.gpu = props.name
        self.comments = [
            "moe_layer_kernels.py: fixed per-layer costs of an MoE decode layer, by component (BF16, one layer)",
            f"date: {self.date}",
            f"device: {props.name}, {props.multi_processor_count} SMs, "
            f"{props.total_memory / 2**30:.0f} GiB, L2 {getattr(props, 'L2_cache_size', 0) / 2**20:.0f} MiB",
            f"torch: {torch.__version__}, CUDA {torch.version.cuda}",
            f"rounds: {a.rounds} x iters {a.iters} (median and min of the rounds' per-call times), "
            f"warm-up {a.warmup}; graph rows unroll short components up to {MAX_UNROLL}x per replay "
            f"(iters counts calls); routing: {a.routing}, zipf exponent {a.zipf_exponent}; seed {a.seed}",
        ]

    def add(self, shape, point, component, path, impl, median, minimum, iters, weight_bytes, bytes_read, note=""):
        self.rows.append(dict(
            date=self.date[:10], gpu=self.gpu, torch=torch.__version__, model=shape["name"],
            tokens=point.tokens, routing=point.routing, component=component, path=path, experts_impl=impl,
            experts_touched=point.touched, max_tokens_per_expert=point.max_tokens,
            median_us=f"{median:.3f}", min_us=f"{minimum:.3f}", rounds=self.a.rounds, iters=iters,
            weight_bytes=weight_bytes, bytes_read=bytes_read,
            gb_per_s=f"{bytes_read / (median * 1e-6) / 1e9:.1f}" if median > 0 else "", note=note))

    def write(self):
        write_csv_atomic(self.a.out, self.comments, COLUMNS, self.rows)
        if self.a.kernels_out:
            write_csv_atomic(self.a.kernels_out, self.comments[:4], KERNEL_COLUMNS, self.kernel_rows)


def check_experts(layer, point, run):
    """grouped_mm against the loop on the model's shapes (first point): a wrong fast path would
    time the wrong work. Returns False when they disagree."""
    try:
        ref = layer.experts_loop(point.xs, point.offs, point.counts).float()
        got = layer.experts_grouped(point.xs, point.offs).float()
        err = ((got - ref).abs().max() / ref.abs().max().clamp_min(1e-30)).item()
        line = f"{layer.shape['name']} T={point.tokens}: grouped_mm vs loop relative error {err:.3g}"
        ok = err < 5e-2
    except Exception as error:  # the probe passed but the model's shapes fail: time the loop
        line = f"{layer.shape['name']} T={point.tokens}: grouped_mm failed on the model's shapes: {error!r}"
        ok = False
    run.comments.append(f"check: {line}")
    log(line)
    return ok


def run_point(layer, shape, point, impl, run, hard_deadline):
    """Time every component of one point on both paths; the layer also eager_sync."""
    a = run.a
    t, routing = point.tokens, point.routing
    if impl == "grouped_mm":
        experts_eager = experts_graph = layer.experts_grouped
    else:
        experts_eager = layer.experts_loop  # reads the counts from the device on each call

        def experts_graph(xs, offs):  # the point's counts, fixed at capture
            return layer.experts_loop(xs, offs, point.counts)
    point.ys = experts_graph(point.xs, point.offs)
    nbytes = component_bytes(shape, t, point.touched)
    p = point
    comps = [
        ("router", lambda: layer.router(p.x), None),
        ("routing", lambda: layer.route(p.logits), None),
        ("permute", lambda: layer.permute(p.x, p.ids), None),
        ("experts", lambda: experts_eager(p.xs, p.offs), lambda: experts_graph(p.xs, p.offs)),
        ("combine", lambda: layer.combine(p.ys, p.token_of_row, p.order, p.weights, t), None),
        ("shared", lambda: layer.shared(p.x), None),
        ("layer", lambda: layer.forward(p.x, experts_eager), lambda: layer.forward(p.x, experts_graph)),
    ]
    if layer.shared_gate_up is None:
        comps = [c for c in comps if c[0] != "shared"]
    note_base = f"router_match={point.router_match}/{t}"
    if impl == "loop":
        note_base += "; loop graphs use the point's counts"
    for name, eager_fn, graph_fn in comps:
        graph_fn = graph_fn or eager_fn
        wb, br = nbytes[name]
        paths = ["eager", "graph"] + (["eager_sync"] if name == "layer" else [])
        eager_us = None
        for path in paths:
            if time.monotonic() > hard_deadline:
                log(f"budget spent: {shape['name']} T={t} {routing} stops before {name} {path}")
                return False
            try:
                if path == "eager":
                    med, mn = time_events(eager_fn, a.rounds, a.iters, a.warmup)
                    iters, eager_us = a.iters, med
                elif path == "graph":
                    # Unroll short components so one replay is ~UNROLL_TARGET_US of device work.
                    # (The eager time over-states a host-bound call's device time: fewer copies.)
                    unroll = 1
                    if eager_us is not None:
                        unroll = max(1, min(MAX_UNROLL, int(UNROLL_TARGET_US / max(eager_us, 1.0))))
                    graph = capture(graph_fn, unroll)
                    med, mn = time_events(graph.replay, a.rounds, a.iters, a.warmup, per_call_div=unroll)
                    iters = a.iters * unroll
                    del graph
                else:
                    med, mn = time_wall_sync(eager_fn, a.rounds, a.iters, a.warmup)
                    iters = a.iters
                run.add(shape, point, name, path, impl, med, mn, iters, wb, br, note_base)
                log(f"{shape['name']} T={t} {routing} {name:8s} {path:10s} {med:10.2f} us "
                    f"(touched {point.touched}, {br / (med * 1e-6) / 1e9:7.1f} GB/s)")
            except Exception as error:  # one failed measurement must not lose the others
                log(f"{shape['name']} T={t} {routing} {name} {path}: {error!r}")
                run.add(shape, point, name, path, impl, float("nan"), float("nan"), 0, wb, br,
                        f"{note_base}; error: {type(error).__name__}: {str(error)[:160]}")
                torch.cuda.synchronize()
    # The touched experts' weights read once (a torch sum: on an H200 it reads one expert at 3.1 TB/s, below a cuBLAS GEMV's 3.5, so it is a reference, not a floor).
    wb, br = nbytes["weight_read"]
    try:
        med, mn = time_events(lambda: layer.weight_read(point.touched), a.rounds, a.iters, a.warmup)
        run.add(shape, point, "weight_read", "eager", impl, med, mn, a.iters, wb, br,
                f"{note_base}; sum over the first {point.touched} experts' gate_up and down")
        log(f"{shape['name']} T={t} {routing} weight_read eager      {med:10.2f} us "
            f"({br / (med * 1e-6) / 1e9:7.1f} GB/s)")
    except Exception as error:
        log(f"{shape['name']} T={t} {routing} weight_read: {error!r}")
    return True


def profile_point(layer, shape, tokens, impl, run):
    """The kernels each component launches, with their device time, at T = tokens (uniform)."""
    a = run.a
    n = a.profile_iters
    p = Point(layer, tokens, "uniform", a.zipf_exponent, a.seed)
    t = tokens
    experts = layer.experts_grouped if impl == "grouped_mm" else layer.experts_loop
    p.ys = experts(p.xs, p.offs)
    comps = [
        ("router", "eager", lambda: layer.router(p.x)),
        ("routing", "eager", lambda: layer.route(p.logits)),
        ("permute", "eager", lambda: layer.permute(p.x, p.ids)),
        ("experts", "eager", lambda: experts(p.xs, p.offs)),
        ("combine", "eager", lambda: layer.combine(p.ys, p.token_of_row, p.order, p.weights, t)),
        ("layer", "eager", lambda: layer.forward(p.x, experts)),
    ]
    if layer.shared_gate_up is not None:
        comps.insert(5, ("shared", "eager", lambda: layer.shared(p.x)))
    try:
        if impl == "grouped_mm":
            graph = capture(lambda: layer.forward(p.x, experts), 1)
        else:
            graph = capture(lambda: layer.forward(p.x, lambda xs, offs: layer.experts_loop(xs, offs, p.counts)), 1)
        comps.append(("layer", "graph", graph.replay))
    except Exception as error:
        log(f"profile: layer graph capture failed: {error!r}")
    for name, path, fn in comps:
        try:
            fn()
            torch.cuda.synchronize()
            tally = kernel_tally(fn, n)
        except Exception as error:
            log(f"profile {name} {path}: {error!r}")
            continue
        for kernel, (calls, busy) in sorted(tally.items(), key=lambda kv: -kv[1][1]):
            run.kernel_rows.append(dict(model=shape["name"], tokens=t, routing=p.routing, component=name,
                                        path=path, kernel=kernel, calls=calls, device_us_total=f"{busy:.3f}",
                                        profiled_iters=n))
        total_calls = sum(c for c, _ in tally.values())
        total_us = sum(b for _, b in tally.values())
        log(f"profile {shape['name']} T={t} {name:8s} {path:5s}: {total_calls / n:.0f} device ops per call, "
            f"{total_us / n:.1f} us device per call, {len(tally)} distinct")
    run.write()


def run_model(shape, a, run, gmm, deadline, hard_deadline, keep):
    """All T points of one model within its share of the budget. Returns the experts
    implementation timed and, if keep, the layer (for the kernel profile)."""
    t0 = time.monotonic()
    log(f"{shape['name']}: drawing weights ({(shape['experts'] + shape['shared']) * expert_bytes(shape) / 1e9:.1f} GB "
        f"of experts, BF16, seed {a.seed})")
    layer = MoELayer(shape, run.device, a.seed, gmm)
    torch.cuda.synchronize()
    log(f"{shape['name']}: weights ready in {time.monotonic() - t0:.1f}s; "
        f"{torch.cuda.memory_allocated() / 2**30:.1f} GiB allocated")
    impl = "grouped_mm" if gmm is not None else "loop"
    checked = False
    last_cost = None
    stopped = None
    with torch.inference_mode():
        for t in a.token_list:
            # Point costs grow with T (more experts touched): the previous one, doubled, must fit.
            if last_cost is not None and time.monotonic() + 2 * last_cost > deadline:
                stopped = t
                break
            point_start = time.monotonic()
            for routing in a.routing_list:
                try:
                    point = Point(layer, t, routing, a.zipf_exponent, a.seed)
                    log(f"{shape['name']} T={t} {routing}: {point.touched} experts touched, at most "
                        f"{point.max_tokens} rows per expert, router picks the drawn experts for "
                        f"{point.router_match}/{t} tokens")
                    if impl == "grouped_mm" and not checked:
                        checked = True
                        if not check_experts(layer, point, run):
                            impl = "loop"
                            run.comments.append("grouped_mm disagrees with the loop: the loop is timed instead")
                    if not run_point(layer, shape, point, impl, run, hard_deadline):
                        stopped = t  # the whole budget is spent: no more points, rows kept
                except torch.cuda.OutOfMemoryError as error:
                    log(f"{shape['name']} T={t} {routing}: out of memory: {error!r}")
                except Exception as error:  # one failed point must not lose the others
                    log(f"{shape['name']} T={t} {routing}: {error!r}")
                point = None
                torch.cuda.synchronize()
                torch.cuda.empty_cache()
                run.write()
                if stopped is not None:
                    break
            if stopped is not None:
                break
            last_cost = time.monotonic() - point_start
            log(f"{shape['name']} T={t} done in {last_cost:.1f}s")
    if stopped is not None:
        line = f"budget: {shape['name']} stopped at T={stopped} (its share of --budget-s spent)"
        run.comments.append(line)
        log(line)
    run.comments.append(f"{shape['name']}: experts_impl {impl}")
    run.write()
    if keep:
        return impl, layer
    del layer
    gc.collect()
    torch.cuda.empty_cache()
    return impl, None


def profile_models(shapes, impls, kept, a, run, gmm):
    """The kernel profiles, after every timing: the PyTorch profiler's CUPTI can stay attached
    when CUDA graphs are in use and slow later launches, so no timing follows it. The last
    model's layer is still there; an earlier one is drawn again (same seed)."""
    tokens = min((t for t in a.token_list if t >= a.profile_tokens), default=a.token_list[-1])
    for shape in shapes:
        if shape["name"] not in impls:
            continue
        reuse = kept is not None and kept.shape is shape
        layer = kept if reuse else None
        try:
            with torch.inference_mode():
                if layer is None:
                    layer = MoELayer(shape, run.device, a.seed, gmm)
                profile_point(layer, shape, tokens, impls[shape["name"]], run)
        except Exception as error:  # the timings stand without the profile
            log(f"profile {shape['name']}: {error!r}")
        layer = None
        if reuse:
            kept = None  # the last model: nothing after it needs its weights
        gc.collect()
        torch.cuda.empty_cache()


def dry_run(shapes, a):
    """The plan without PyTorch: shapes, points, expected experts touched and bytes per component."""
    for shape in shapes:
        print(f"{shape['name']}: hidden {shape['hidden']}, {shape['experts']} experts, top-{shape['top_k']}, "
              f"expert intermediate {shape['inter']}, {shape['shared']} shared; one expert "
              f"{expert_bytes(shape) / 1e6:.1f} MB, all experts {shape['experts'] * expert_bytes(shape) / 1e9:.2f} GB")
        zipf = zipf_probabilities(shape["experts"], a.zipf_exponent)
        print(f"  zipf (s={a.zipf_exponent}): expert 0 draws {zipf[0]:.3f}, expert {shape['experts'] - 1} "
              f"{zipf[-1]:.4f}")
        for t in a.token_list:
            touched = expected_touched(shape["experts"], t, shape["top_k"])
            b = component_bytes(shape, t, round(touched))
            print(f"  T={t:4d}: uniform touches ~{touched:6.1f} experts; layer weight bytes "
                  f"{b['layer'][0] / 1e9:.2f} GB, router {b['router'][0] / 1e6:.2f} MB")
    print(f"routing {a.routing_list}; {a.rounds} rounds x {a.iters} iters; budget {a.budget_s}s; "
          f"out {a.out}, kernels {a.kernels_out}")


def main():
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0],
                                formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--out", required=True, help="CSV of the timings (rewritten atomically after each point)")
    p.add_argument("--kernels-out", help="CSV of the profiled kernels at --profile-tokens")
    p.add_argument("--models", default="llama-4-scout,llama-4-maverick",
                   help="names of configs/models/*.yaml with num_experts (in this order)")
    p.add_argument("--tokens", default="1,2,4,8,16,32,64,128,256,512", help="tokens per step T (batch x verify length)")
    p.add_argument("--routing", default="uniform,zipf", help="uniform and/or zipf")
    p.add_argument("--zipf-exponent", type=float, default=1.0)
    p.add_argument("--rounds", type=int, default=5)
    p.add_argument("--iters", type=int, default=50, help="timed calls per round")
    p.add_argument("--warmup", type=int, default=5, help="untimed calls before each measurement")
    p.add_argument("--budget-s", type=float, default=420.0, help="seconds for the whole run (no new T after)")
    p.add_argument("--quick", action="store_true", help="smoke test: T 1,16,128; 3 rounds of 10 (not for the model)")
    p.add_argument("--experts-impl", default="auto", choices=["auto", "grouped_mm", "loop"],
                   help="auto: torch._grouped_mm when it works here, else the loop")
    p.add_argument("--profile-tokens", type=int, default=16, help="T of the kernel profile (first T >= it)")
    p.add_argument("--profile-iters", type=int, default=5, help="calls per profiled component")
    p.add_argument("--seed", type=int, default=0)
    p.add_argument("--config-dir", default=CONFIG_DIR)
    p.add_argument("--dry-run", action="store_true", help="print the plan (no PyTorch, no GPU)")
    a = p.parse_args()
    if a.quick:
        a.tokens, a.rounds, a.iters, a.warmup = "1,16,128", 3, 10, 2
    a.token_list = sorted(set(int_list(a.tokens)))
    a.routing_list = [r for r in a.routing.split(",") if r]
    if not a.token_list or min(a.token_list) < 1:
        p.error("--tokens: positive integers")
    if not a.routing_list or any(r not in ("uniform", "zipf") for r in a.routing_list):
        p.error("--routing: uniform and/or zipf")
    if a.rounds < 1 or a.iters < 1 or a.warmup < 0 or a.profile_iters < 1:
        p.error("--rounds, --iters and --profile-iters >= 1, --warmup >= 0")
    try:
        shapes = [load_shape(name, a.config_dir) for name in a.models.split(",") if name]
    except (OSError, ValueError) as error:
        p.error(f"--models: {error}")
    if a.dry_run:
        dry_run(shapes, a)
        return 0
    if torch is None or not torch.cuda.is_available():
        print("moe_layer_kernels.py: needs PyTorch with CUDA and a GPU", file=sys.stderr)
        return 2
    log(f"start: budget {a.budget_s:.0f}s, T {a.token_list}, routing {a.routing_list}")
    start = time.monotonic()
    # The timings stop PROFILE_RESERVE_S before the budget's end, which the profiles then use.
    hard_deadline = start + a.budget_s - (PROFILE_RESERVE_S if a.kernels_out else 0.0)
    device = torch.device("cuda")
    run = Run(a, device)
    log(run.comments[2] + "; " + run.comments[3])
    if a.experts_impl == "loop":
        gmm, why = None, "the loop was asked for (--experts-impl loop)"
    else:
        gmm, why = probe_grouped_mm(device)
        if gmm is None and a.experts_impl == "grouped_mm":
            print(f"moe_layer_kernels.py: {why}", file=sys.stderr)
            return 3
    run.comments.append(f"experts: {why}")
    log(f"experts: {why}")
    run.write()
    impls, kept = {}, None
    for index, shape in enumerate(shapes):
        now = time.monotonic()
        if now >= hard_deadline:
            run.comments.append(f"budget: {shape['name']} not measured")
            log(f"budget spent: {shape['name']} not measured")
            continue
        # An equal share of what is left: a cheap model's unused time passes to the next.
        deadline = now + (hard_deadline - now) / (len(shapes) - index)
        keep = bool(a.kernels_out) and index == len(shapes) - 1
        try:
            impls[shape["name"]], kept = run_model(shape, a, run, gmm, deadline, hard_deadline, keep)
        except torch.cuda.OutOfMemoryError as error:
            log(f"{shape['name']}: out of memory: {error!r}")
            run.comments.append(f"{shape['name']}: out of memory")
        gc.collect()
        torch.cuda.empty_cache()
    if a.kernels_out:
        profile_models(shapes, impls, kept, a, run, gmm)
        kept = None
    run.write()
    kernels = f", {len(run.kernel_rows)} in {a.kernels_out}" if a.kernels_out else ""
    log(f"done: {len(run.rows)} rows in {a.out}{kernels}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
