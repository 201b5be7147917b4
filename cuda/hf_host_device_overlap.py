#!/usr/bin/env python3
"""Does the Hugging Face decode loop overlap its host work with the GPU's, or add them?

The golden for the software stack's synchronisation rule. Transformers' `generate` launches every
kernel of a token asynchronously, then waits for the device once or twice a token (the stopping
check's `.max() == 0`, a device-to-host copy). Whether a token costs max(host, device) or
host + device decides how the stack's host work enters a GPU-bound step, and the two readings
differ most where the two are alike.

The experiment separates them directly. The same decode loop runs on models of one layer count at
two widths (random BF16 weights, the published vocabulary, so the logits and generate's
bookkeeping are the same):

  narrow  hidden 256, 4 query heads of 64, 1 KV head, FFN 512: every kernel is a few
          microseconds on the GPU, so the token's wall time is the host program's (H);
  wide    a published shape (Llama-3.1-8B, Llama-3.2-1B, Llama-68M): the token's kernels keep
          the GPU busy D (the profiler's kernel durations, summed), and its wall time is W.

Per point: W, D, kernels per token, and the time the host spent blocked in synchronising CUDA
calls (cudaStreamSynchronize, cudaDeviceSynchronize, cudaMemcpy*) per token under the profiler.
The reading: W = H + D says the host waits for every token's kernels before it starts the next
token's work (serial); W = max(H, D) says the launches run ahead. Narrow models of 2, 16 and 32
layers give the host's per-step and per-layer work apart (H = a + b * layers).

Timing as cuda/hf_generate_step.py: generate(max_new_tokens = 1 + N) minus max_new_tokens = 1,
over N, wall clock with the GPU synchronised, minimum of --repeats rounds after a warm-up (each round
times every point, every context, batch and model, in turn; --rounds FILE keeps each round's time);
the profiler columns over 5 tokens minus 1, over 4.

Output: CSV model,width,layers,hidden,batch,context,new_tokens,kernels_per_token,
device_busy_per_token_s,sync_wait_per_token_s,per_token_s on stdout. Needs PyTorch with CUDA and
transformers; it runs on a lent GPU only. Usage:
  python3 cuda/hf_host_device_overlap.py [--model 8b,1b,68m,narrow32,narrow16,narrow2]
      [--batch 1,4,16,32] [--context 1024] [--new-tokens 24] [--repeats 5] [--rounds FILE]
"""
import argparse
import math
import os
import sys
import time

import torch

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from hf_generate_step import MODELS, build_model, int_list, run_generate, timed  # noqa: E402


def narrow(layers):
    """A model of `layers` decoder layers whose kernels are too small to matter: its wall time
    is the host's. The vocabulary is Llama-3's, as the 8B's and the 1B's."""
    return dict(name=f"narrow-{layers}l", layers=layers, hidden=256, ffn=512, heads=4, kv_heads=1, head_dim=64,
                vocab=128256, tie=False)


SHAPES = dict(MODELS)
SHAPES.update({"narrow32": narrow(32), "narrow16": narrow(16), "narrow2": narrow(2)})

BLOCKING = ("Synchronize", "cudaMemcpy")  # CUDA runtime calls the host waits in


def profile_token(model, ids, mask):
    """Kernels, device busy time and host wait per decoded token: 5 tokens minus 1, over 4."""
    from torch.profiler import ProfilerActivity, profile
    tallies = []
    for tokens in (5, 1):
        with profile(activities=[ProfilerActivity.CPU, ProfilerActivity.CUDA]) as prof:
            run_generate(model, ids, mask, tokens, False)
            torch.cuda.synchronize()
        kernels = busy_us = wait_us = 0.0
        for e in prof.events():
            if e.device_type == torch.autograd.DeviceType.CUDA:
                kernels += 1
                busy_us += e.time_range.elapsed_us()
            elif any(b in e.name for b in BLOCKING) and e.name.startswith("cuda"):
                wait_us += e.time_range.elapsed_us()
        tallies.append((kernels, busy_us, wait_us))
    (k5, b5, w5), (k1, b1, w1) = tallies
    return (k5 - k1) / 4, (b5 - b1) / 4 * 1e-6, (w5 - w1) / 4 * 1e-6


def main():
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--model", default="narrow32,narrow16,narrow2,8b,1b,68m")
    p.add_argument("--batch", default="1,4,16,32")
    p.add_argument("--context", default="1024")
    p.add_argument("--new-tokens", type=int, default=24)
    p.add_argument("--repeats", type=int, default=5)
    p.add_argument("--rounds", default="", help="also write each round's token time per point, with the "
                   "host's 1-minute load average, to this CSV")
    a = p.parse_args()
    for key in a.model.split(","):
        if key not in SHAPES:
            p.error(f"--model: unknown shape '{key}' (one of {', '.join(SHAPES)})")
    device = torch.device("cuda")
    import transformers
    props = torch.cuda.get_device_properties(device)
    print(f"device: {props.name}, {props.multi_processor_count} SMs, torch {torch.__version__}, "
          f"transformers {transformers.__version__}", file=sys.stderr)
    n = a.new_tokens
    print("model,width,layers,hidden,batch,context,new_tokens,kernels_per_token,device_busy_per_token_s,"
          "sync_wait_per_token_s,per_token_s", flush=True)
    # Every model stays loaded and each round times every point (context, batch, model) once, in
    # turn: a host that slows down for a while (other tenants, clocks) then slows one round of
    # every point, which the minimum over rounds drops, rather than every round of the points
    # timed during it (the 2026-11-29 runs timed a batch's rounds together: the host-bound narrow
    # rows of one batch came out 35-65 % slower than the same rows at the batches before and after).
    keys = a.model.split(",")
    models = {key: build_model(SHAPES[key], device) for key in keys}
    generator = torch.Generator(device="cpu").manual_seed(0)
    points = [(context, batch, key) for context in int_list(a.context) for batch in int_list(a.batch) for key in keys]
    inputs, best, heads = {}, {}, {}
    for point in points:
        context, batch, key = point
        cfg = SHAPES[key]
        width = "narrow" if key.startswith("narrow") else "wide"
        heads[point] = f"{cfg['name']},{width},{cfg['layers']},{cfg['hidden']},{batch},{context},{n}"
        try:
            ids = torch.randint(1, cfg["vocab"], (batch, context), generator=generator).to(device)
            inputs[point] = (ids, torch.ones_like(ids))
            run_generate(models[key], *inputs[point], 4, False)  # warm-up
            best[point] = [math.inf, math.inf]
        except Exception as error:  # one failed point must not lose the others
            print(f"{heads[point]}: {error!r}", file=sys.stderr)
            inputs.pop(point, None)
    rounds = open(a.rounds, "w") if a.rounds else None
    if rounds:
        rounds.write("round,model,batch,context,per_token_s,loadavg_1min\n")
    for r in range(a.repeats):
        for point in points:
            if point not in inputs:
                continue
            context, batch, key = point
            try:
                long, _ = timed(lambda: run_generate(models[key], *inputs[point], 1 + n, False))
                short, _ = timed(lambda: run_generate(models[key], *inputs[point], 1, False))
            except Exception as error:
                print(f"{heads[point]}: {error!r}", file=sys.stderr)
                inputs.pop(point)
                continue
            best[point][0] = min(best[point][0], long)
            best[point][1] = min(best[point][1], short)
            if rounds:  # each round's own token time and the host's load: the spread the minimum hides
                rounds.write(f"{r},{SHAPES[key]['name']},{batch},{context},{(long - short) / n:.9g},"
                             f"{os.getloadavg()[0]:.2f}\n")
                rounds.flush()
    if rounds:
        rounds.close()
    for point in points:
        if point not in inputs:
            print(f"{heads[point]},-1,error,error,error", flush=True)
            continue
        context, batch, key = point
        try:
            kernels, busy, wait = profile_token(models[key], *inputs[point])
        except Exception as error:  # the wall time stands without the profiler
            print(f"{heads[point]}: profiler: {error!r}", file=sys.stderr)
            kernels, busy, wait = -1, math.nan, math.nan
        per_token = (best[point][0] - best[point][1]) / n
        print(f"{heads[point]},{kernels:g},{busy:.9g},{wait:.9g},{per_token:.9g}", flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
