#!/usr/bin/env python3
"""Derives a serving workload preset's length statistics (configs/serving/NAME.yaml, no acceptance)
from a measured serving benchmark's result JSON as vLLM's benchmarks/benchmark_serving.py saves it
with --save-result: its per-request `input_lens` and `output_lens` (the tokens each request's
prompt had and each generated). A request that generated nothing (output length 0: it stopped at
once, or its stream carried no text) counts as one token, the least a served request produces.

Only statistics are written (the rule in the project's brief for sources without a licence that
allows copying them): the prompt and output length quantiles at every 5 %, by
derive_serving_workload.py's own function. `specdse serve --workload NAME --method none` then draws
each simulated request's lengths from them.

Usage: derive_serving_lengths.py RESULT.json NAME TARGET "SOURCE" > configs/serving/NAME.yaml
  RESULT.json  the benchmark's saved result
  NAME         the preset's name
  TARGET       the target model config the lengths were measured with (configs/models)
  SOURCE       where RESULT.json comes from (repository@commit path), recorded in the preset
"""
import json
import sys

# The quantile levels and their interpolation are the acceptance presets' own (this file's folder
# is on the import path when it runs as a script).
from derive_serving_workload import QUANTILES, quantiles


def main():
    if len(sys.argv) != 5:
        sys.exit(__doc__)
    path, name, target, source = sys.argv[1:5]
    result = json.load(open(path))
    prompts = [int(x) for x in result["input_lens"]]
    outputs = [max(1, int(x)) for x in result["output_lens"]]
    empty = sum(1 for x in result["output_lens"] if int(x) == 0)
    if len(prompts) != len(outputs) or not prompts:
        sys.exit(f"{path}: input_lens and output_lens must be non-empty lists of one length")
    fmt = lambda xs: "[" + ", ".join(f"{x:g}" for x in xs) + "]"
    print("# Serving workload preset written by scripts/derive_serving_lengths.py from")
    print(f"# {source}")
    print(f"# ({len(prompts)} requests; {empty} generated no token and count as one). Length statistics only,")
    print("# no acceptance: plain decoding (--method none).")
    print(f"name: {name}")
    print(f'source: "{source}"')
    print(f"target: {target}")
    print(f"requests: {len(prompts)}")
    print(f"quantiles: {fmt(QUANTILES)}")
    print(f"prompt_tokens: {fmt(round(q, 3) for q in quantiles(prompts))}")
    print(f"output_tokens: {fmt(round(q, 3) for q in quantiles(outputs))}")


if __name__ == "__main__":
    main()
