#!/usr/bin/env python3
"""Derives a serving workload preset (configs/serving/NAME.yaml) from SpecDecode-Bench's measured
per-request acceptance traces: github.com/SpecDecode-Bench/simulator, data/llama3.1-8B/combined_DATASET.jsonl
(Llama-3.1-8B-Instruct, vLLM, H100; the paper "Speculative Decoding: Performance or Illusion?",
arXiv 2601.11580). Each record holds a request's prompt and generated tokens and, per output
position, the tokens a speculative step starting there would yield (accepted + bonus, with an
unbounded draft) for EAGLE-3 (`acc_eagle`, which the repository's `eagle3` proposer reads) and
n-gram (`acc_ngram`).

The repository has no licence file, so the raw traces are not copied: this script writes their
statistics only (the rule in the project's brief): the prompt and output length quantiles, and per
method the marginal distribution of the per-position yield (capped at --max-yield, the last
bucket holding every larger yield) with the transition matrix between consecutive positions
(a first-order Markov chain the serving simulator draws each request's yields from), plus the
mean yield and the lag-1 correlation of successive steps along an unbounded walk, for checking.

Usage: derive_serving_workload.py JSONL NAME DATASET COMMIT > configs/serving/NAME.yaml
"""
import json
import sys

MAX_YIELD = 16
QUANTILES = [i / 20 for i in range(21)]

# The source's own assumption for n-gram (its simulator.py NGRAM_MATCHING_PROBABILITY): a
# position whose n-gram yield is 1 found a match (and verified a draft) with this probability;
# otherwise the step proposed nothing and verified the one token.
NGRAM_MATCH = {"sharegpt": 0.2, "cnn": 0.4, "gsm8k": 0.2, "instructcoder": 0.8}


def quantiles(values):
    v = sorted(values)
    out = []
    for q in QUANTILES:
        pos = q * (len(v) - 1)
        lo = int(pos)
        hi = min(lo + 1, len(v) - 1)
        out.append(v[lo] + (v[hi] - v[lo]) * (pos - lo))
    return out


def chain_stats(sequences):
    cap = lambda y: min(max(int(y), 1), MAX_YIELD)
    marginal = [0] * MAX_YIELD
    trans = [[0] * MAX_YIELD for _ in range(MAX_YIELD)]
    firsts = [0] * MAX_YIELD
    for seq in sequences:
        if not seq:
            continue
        firsts[cap(seq[0]) - 1] += 1
        for i, y in enumerate(seq):
            marginal[cap(y) - 1] += 1
            if i + 1 < len(seq):
                trans[cap(y) - 1][cap(seq[i + 1]) - 1] += 1
    total = sum(marginal)
    rows = []
    for r in trans:
        s = sum(r)
        rows.append([round(c / s, 6) for c in r] if s else [1.0 if j == 0 else 0.0 for j in range(MAX_YIELD)])
    # Successive steps of an unbounded walk (position += yield): their yields' lag-1 correlation.
    pairs = []
    for seq in sequences:
        p = 0
        prev = None
        while p < len(seq):
            y = seq[p]
            if prev is not None:
                pairs.append((prev, y))
            prev = y
            p += max(int(y), 1)
    n = len(pairs)
    mx = sum(a for a, _ in pairs) / n
    my = sum(b for _, b in pairs) / n
    cov = sum((a - mx) * (b - my) for a, b in pairs) / n
    vx = sum((a - mx) ** 2 for a, _ in pairs) / n
    vy = sum((b - my) ** 2 for _, b in pairs) / n
    lag1 = cov / (vx * vy) ** 0.5 if vx > 0 and vy > 0 else 0.0
    mean = sum(y for seq in sequences for y in seq) / total
    return {
        "positions": total,
        "mean_yield": round(mean, 6),
        "walk_lag1_correlation": round(lag1, 6),
        "first": [round(c / sum(firsts), 6) for c in firsts],
        "marginal": [round(c / total, 6) for c in marginal],
        "transitions": rows,
    }


def main():
    path, name, dataset, commit = sys.argv[1:5]
    records = [json.loads(line) for line in open(path) if line.strip()]
    prompts = [len(r["prompt_token_ids"]) for r in records]
    outputs = [len(r["generated_token_ids"]) for r in records]
    acc = lambda r, key: (r[key]["acc_len"] if key in r else r["acc"]["acc_len"])
    eagle = [acc(r, "acc_eagle") for r in records]
    ngram = [acc(r, "acc_ngram") for r in records]
    fmt = lambda xs: "[" + ", ".join(f"{x:g}" for x in xs) + "]"
    print(f"# Serving workload preset written by scripts/derive_serving_workload.py from")
    print(f"# github.com/SpecDecode-Bench/simulator@{commit} data/llama3.1-8B/combined_{dataset}.jsonl")
    print(f"# ({len(records)} requests of {dataset}, Llama-3.1-8B-Instruct on vLLM / H100; arXiv 2601.11580).")
    print("# The repository has no licence file: only these statistics are shipped, not the traces.")
    print("# yield: tokens a speculative step starting at an output position would give (accepted + bonus,")
    print(f"# unbounded draft), capped at {MAX_YIELD} (the last bucket holds every larger yield).")
    print(f"name: {name}")
    print(f'source: "github.com/SpecDecode-Bench/simulator@{commit} data/llama3.1-8B/combined_{dataset}.jsonl (arXiv 2601.11580)"')
    print(f"target: llama-3.1-8b-instruct")
    print(f"requests: {len(records)}")
    print(f"quantiles: {fmt(QUANTILES)}")
    print(f"prompt_tokens: {fmt(round(q, 3) for q in quantiles(prompts))}")
    print(f"output_tokens: {fmt(round(q, 3) for q in quantiles(outputs))}")
    print("acceptance:")
    for method, seqs in (("eagle3", eagle), ("ngram", ngram)):
        s = chain_stats(seqs)
        print(f"  {method}:")
        if method == "ngram":
            print(f"    match_probability: {NGRAM_MATCH[dataset]}  # the source simulator's assumption for a yield-1 position")
        for key in ("positions", "mean_yield", "walk_lag1_correlation"):
            print(f"    {key}: {s[key]}")
        print(f"    first: {fmt(s['first'])}")
        print(f"    marginal: {fmt(s['marginal'])}")
        print("    transitions:")
        for row in s["transitions"]:
            print(f"      - {fmt(row)}")


if __name__ == "__main__":
    main()
