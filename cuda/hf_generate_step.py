#!/usr/bin/env python3
"""A measured Hugging Face decode loop: the golden reference for the host program that papers 002
and 003 ran their baselines and drafts on (Transformers' `LlamaForCausalLM.generate`, eager
PyTorch, one Python module call per decoder layer), where torch_decode_step.py times a hand-written
layer.

For each model (Llama-3.1-8B, Llama-3.2-1B, Llama-2-7B or Llama-68M shapes from their published
config.json, random
BF16 weights: the values do not change the time), batch B and prompt length L it times, wall
clock with the GPU synchronised, the minimum of --repeats runs after a warm-up:

  generate_greedy  model.generate(max_new_tokens = 1 + N) minus max_new_tokens = 1, over N: the
                   time per decoded token of Hugging Face's loop (its logits processors, the
                   argmax, the stopping criteria, the DynamicCache's concatenations);
  generate_sample  the same with do_sample (temperature 0.7, top-k 50, top-p 0.9: a softmax and a
                   sort over the vocabulary and a multinomial draw per token);
  generate_hooks   generate_greedy with accelerate's AlignDevicesHook on every decoder layer (what
                   `device_map` dispatch puts on each layer of a pipelined model; here every
                   layer's device is the same GPU, so the hooks move nothing and time their host
                   work alone);
  forward_loop     the model's forward per token with the cache and the argmax, no generate:
                   the eager forward that the stack's kernels and dispatch costs must explain.

Kernels per token (the PyTorch profiler's CUDA device events, copies and memsets included, over 4
tokens of each loop, over 4)
go in the same rows; the kernels of generate_greedy's tokens go to --kernels FILE (name, launches
and device microseconds per token) for the stack's per-layer kernel list and the GPU's busy time. --copies times a synchronous GPU -> host -> GPU
copy of one token's hidden state per batch (accelerate's hand-off between two GPUs without
peer-to-peer goes through host memory).

Output: CSV model,variant,batch,context,new_tokens,kernels_per_token,per_token_s on stdout.
Needs PyTorch with CUDA, transformers and accelerate; it runs on a lent GPU only. Usage:
  python3 cuda/hf_generate_step.py [--model 8b,1b] [--batch 1,16] [--context 1024]
      [--new-tokens 32] [--repeats 3] [--kernels FILE] [--copies FILE]
"""
import argparse
import math
import sys
import time

import torch

from kernel_tally import kernel_tally  # this script's folder (python3 cuda/hf_generate_step.py)

# Published config.json shapes (the same as configs/models/*.yaml).
MODELS = {
    "8b": dict(name="llama-3.1-8b-instruct", layers=32, hidden=4096, ffn=14336, heads=32, kv_heads=8,
               head_dim=128, vocab=128256, tie=False),
    "1b": dict(name="llama-3.2-1b", layers=16, hidden=2048, ffn=8192, heads=32, kv_heads=8, head_dim=64,
               vocab=128256, tie=True),
    # Paper 003's target and draft (multi-head attention, a 32,000-token vocabulary).
    "7b2": dict(name="llama-2-7b", layers=32, hidden=4096, ffn=11008, heads=32, kv_heads=32, head_dim=128,
                vocab=32000, tie=False),
    "68m": dict(name="llama-68m", layers=2, hidden=768, ffn=3072, heads=12, kv_heads=12, head_dim=64,
                vocab=32000, tie=False),
}
VARIANTS = ("generate_greedy", "generate_sample", "generate_hooks", "forward_loop")


def int_list(text):
    return [int(v) for v in text.split(",") if v]


def build_model(cfg, device):
    from transformers import LlamaConfig, LlamaForCausalLM
    config = LlamaConfig(vocab_size=cfg["vocab"], hidden_size=cfg["hidden"], intermediate_size=cfg["ffn"],
                         num_hidden_layers=cfg["layers"], num_attention_heads=cfg["heads"],
                         num_key_value_heads=cfg["kv_heads"], head_dim=cfg["head_dim"],
                         max_position_embeddings=131072, rms_norm_eps=1e-5, tie_word_embeddings=cfg["tie"],
                         bos_token_id=None, eos_token_id=None, pad_token_id=0)
    try:
        config._attn_implementation = "sdpa"  # Transformers' default on CUDA: PyTorch's SDPA
    except Exception as error:
        print(f"attention implementation left at the default: {error!r}", file=sys.stderr)
    previous = torch.get_default_dtype()
    torch.set_default_dtype(torch.bfloat16)
    try:
        with torch.device(device):
            model = LlamaForCausalLM(config)
    finally:
        torch.set_default_dtype(previous)
    model = model.to(device=device, dtype=torch.bfloat16).eval()
    model.generation_config.eos_token_id = None
    model.generation_config.bos_token_id = None
    model.generation_config.pad_token_id = 0
    return model


def generation_config(model, new_tokens, sample):
    import copy
    gc = copy.deepcopy(model.generation_config)
    gc.max_new_tokens = new_tokens
    gc.min_new_tokens = None
    gc.do_sample = sample
    gc.eos_token_id = None
    gc.pad_token_id = 0
    if sample:
        gc.temperature, gc.top_k, gc.top_p = 0.7, 50, 0.9
    else:
        gc.temperature, gc.top_k, gc.top_p = None, None, None
    return gc


def run_generate(model, ids, mask, new_tokens, sample):
    out = model.generate(input_ids=ids, attention_mask=mask, generation_config=generation_config(model, new_tokens, sample))
    return out.shape[1] - ids.shape[1]


def run_forward_loop(model, ids, mask, new_tokens):
    out = model(input_ids=ids, attention_mask=mask, use_cache=True)
    nxt = out.logits[:, -1:].argmax(-1)
    for _ in range(new_tokens - 1):
        mask = torch.cat([mask, mask.new_ones(mask.shape[0], 1)], dim=1)
        out = model(input_ids=nxt, attention_mask=mask, past_key_values=out.past_key_values, use_cache=True)
        nxt = out.logits[:, -1:].argmax(-1)
    return new_tokens


def run_variant(model, variant, ids, mask, new_tokens):
    if variant == "forward_loop":
        return run_forward_loop(model, ids, mask, new_tokens)
    return run_generate(model, ids, mask, new_tokens, variant == "generate_sample")


def timed(fn):
    torch.cuda.synchronize()
    start = time.perf_counter()
    produced = fn()
    torch.cuda.synchronize()
    return time.perf_counter() - start, produced


def kernels_per_token(fn_long, fn_short, tokens):
    """CUDA kernel events of fn_long minus fn_short, over the tokens between them, or -1."""
    try:
        counts = [sum(calls for calls, _ in kernel_tally(fn).values()) for fn in (fn_long, fn_short)]
        return (counts[0] - counts[1]) / tokens
    except Exception as error:  # the profiler is a convenience: the timings stand without it
        print(f"kernel count unavailable: {error!r}", file=sys.stderr)
        return -1


def kernel_names(model, ids, mask, path, name):
    """Kernels of generate_greedy's decode tokens (5 tokens minus 1, over 4) into path: name,
    launches per token and their device time per token (the profiler's kernel durations), so the
    GPU's busy time per token stands beside the wall time."""
    long, short = [kernel_tally(lambda t=tokens: run_generate(model, ids, mask, t, False)) for tokens in (5, 1)]
    rows = []
    for kernel in set(long) | set(short):
        count = (long[kernel][0] - short[kernel][0]) / 4
        busy = (long[kernel][1] - short[kernel][1]) / 4
        if count:
            rows.append((kernel, count, busy))
    with open(path, "a") as f:
        for kernel, count, busy in sorted(rows, key=lambda r: (-r[1], r[0])):
            f.write(f"{name},\"{kernel.replace(chr(34), chr(39))}\",{count:g},{busy:.3f}\n")
    print(f"{name}: {sum(r[1] for r in rows):g} kernels, {sum(r[2] for r in rows) / 1e3:.3f} ms of kernel time per token",
          file=sys.stderr)


def time_copies(path, cfg, batches, device):
    """Synchronous GPU -> host -> GPU copies of a [B, 1, hidden] BF16 tensor (min of 50)."""
    with open(path, "a") as f:
        for batch in batches:
            x = torch.randn(batch, 1, cfg["hidden"], dtype=torch.bfloat16, device=device)
            best = math.inf
            for _ in range(50):
                t, _ = timed(lambda: x.to("cpu").to(device) is not None)
                best = min(best, t)
            f.write(f"{cfg['name']},{batch},{x.numel() * 2},{best:.9g}\n")


def main():
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--model", default="8b,1b")
    p.add_argument("--batch", default="1,16")
    p.add_argument("--context", default="1024")
    p.add_argument("--new-tokens", type=int, default=32)
    p.add_argument("--repeats", type=int, default=3)
    p.add_argument("--variants", default=",".join(VARIANTS))
    p.add_argument("--kernels", help="append generate_greedy's kernels per token (model,kernel,count,device_us) here")
    p.add_argument("--copies", help="append GPU -> host -> GPU copy times (model,batch,bytes,seconds) here")
    a = p.parse_args()
    device = torch.device("cuda")
    import transformers
    props = torch.cuda.get_device_properties(device)
    print(f"device: {props.name}, {props.multi_processor_count} SMs, torch {torch.__version__}, "
          f"transformers {transformers.__version__}", file=sys.stderr)
    variants = [v for v in a.variants.split(",") if v]
    for v in variants:
        if v not in VARIANTS:
            p.error(f"--variants: unknown variant '{v}' (one of {', '.join(VARIANTS)})")
    n = a.new_tokens
    print("model,variant,batch,context,new_tokens,kernels_per_token,per_token_s", flush=True)
    for key in a.model.split(","):
        cfg = MODELS[key]
        model = build_model(cfg, device)
        if a.copies:
            time_copies(a.copies, cfg, int_list(a.batch), device)
        generator = torch.Generator(device="cpu").manual_seed(0)
        for context in int_list(a.context):
            for batch in int_list(a.batch):
                ids = torch.randint(1, cfg["vocab"], (batch, context), generator=generator).to(device)
                mask = torch.ones_like(ids)
                if a.kernels and batch == int_list(a.batch)[0] and context == int_list(a.context)[0]:
                    try:
                        kernel_names(model, ids, mask, a.kernels, cfg["name"])
                    except Exception as error:
                        print(f"kernel names: {error!r}", file=sys.stderr)
                for variant in variants:
                    hooks = []
                    try:
                        if variant == "generate_hooks":
                            from accelerate.hooks import AlignDevicesHook, add_hook_to_module, remove_hook_from_module
                            for layer in model.model.layers:
                                add_hook_to_module(layer, AlignDevicesHook(execution_device=device, io_same_device=True))
                                hooks.append(layer)
                        run_variant(model, variant, ids, mask, 4)  # warm-up
                        best_long = best_short = math.inf
                        produced = -1
                        for _ in range(a.repeats):
                            t, produced = timed(lambda: run_variant(model, variant, ids, mask, 1 + n))
                            best_long = min(best_long, t)
                            t, _ = timed(lambda: run_variant(model, variant, ids, mask, 1))
                            best_short = min(best_short, t)
                        if produced != 1 + n:
                            print(f"{variant} b={batch} L={context}: produced {produced} tokens, not {1 + n}",
                                  file=sys.stderr)
                        kernels = kernels_per_token(lambda: run_variant(model, variant, ids, mask, 5),
                                                    lambda: run_variant(model, variant, ids, mask, 1), 4)
                        per_token = (best_long - best_short) / n
                        print(f"{cfg['name']},{variant},{batch},{context},{n},{kernels:g},{per_token:.9g}", flush=True)
                    except torch.cuda.OutOfMemoryError:
                        print(f"{cfg['name']},{variant},{batch},{context},{n},-1,oom", flush=True)
                    except Exception as error:  # one failed point must not lose the others
                        print(f"{variant} batch {batch} context {context}: {error!r}", file=sys.stderr)
                        print(f"{cfg['name']},{variant},{batch},{context},{n},-1,error", flush=True)
                    finally:
                        if hooks:
                            from accelerate.hooks import remove_hook_from_module
                            for layer in hooks:
                                remove_hook_from_module(layer)
                torch.cuda.empty_cache()
        model = None
        torch.cuda.empty_cache()
    return 0


if __name__ == "__main__":
    sys.exit(main())
