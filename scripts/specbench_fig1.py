#!/usr/bin/env python3
"""Predicts the end-to-end EAGLE-3 and n-gram speed-ups of "Speculative Decoding: Performance or Illusion?"
(arXiv 2601.11580; its site's Figure 1, Llama-3.1-8B-Instruct on one H100 under vLLM 0.10.1, 3
draft tokens a step) with `specdse serve`, from the study's own per-request acceptance traces, and
prints them beside the measured speed-ups (configs/reference/specdecode_bench_fig1_speedups.yaml).

The traces are github.com/SpecDecode-Bench/simulator's data/llama3.1-8B/combined_DATASET.jsonl.
That repository has no licence file, so the project ships none: point --traces at your copy.

Each trace record is run as the study's simulator runs an experiment (`simulate_like_experiment`):
a closed batch of B copies of the request (`serve --arrivals batch:B --trace-record I`), once with
plain decoding and once speculating 3 tokens a step (`--method eagle3-chain --k 3`: an EAGLE-3 head
drafting a chain; or `--method ngram`: prompt lookup, the study's N-gram-Fixed-3), under the stack the study ran (`--stack vllm-v1-inprocess` by default). The speed-up at batch B is
the study's: the mean over records of the speculative run's throughput over the mean of the plain
runs'. With --method ngram each dataset's run takes the serving preset
scripts/derive_serving_workload.py writes from its trace file, for the one figure a trace does not
hold: how often an n-gram position that yields one token found a match and verified a draft (the
study's simulator's assumption per dataset).
Nothing is fitted to the speed-ups: they are predictions.

Usage: specbench_fig1.py --traces DIR [--datasets sharegpt gsm8k ...] [--batches 1,16,64,128]
                         [--method eagle3-chain|ngram] [--stack NAME|PATH] [--engine roofline|sim]
                         [--records N] [--jobs N]
                         [--specdse EXE] [--out FILE.csv]
"""
import argparse
import concurrent.futures
import csv
import io
import math
import os
import shutil
import subprocess
import sys
import tempfile

import yaml

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
REFERENCE = os.path.join(ROOT, "configs", "reference", "specdecode_bench_fig1_speedups.yaml")
TARGET = "llama-3.1-8b-instruct"
HARDWARE = "h100-sxm"
DRAFT_TOKENS = 3  # the study's k
# serve's method -> the method's key in the reference file
FIGURE_KEY = {"eagle3-chain": "eagle3", "ngram": "ngram"}


def fail(message):
    print(f"specbench_fig1.py: {message}", file=sys.stderr)
    sys.exit(2)


class RunError(Exception):
    """A serve run that failed, raised from a worker thread so that main reports it once."""


def first_line(text, last=False):
    """One line of a tool's stderr: specdse's errors are their first line, a traceback's its last."""
    lines = [line for line in text.strip().splitlines() if line.strip()]
    return (lines[-1] if last else lines[0]) if lines else "(no message)"


def find_specdse(given):
    if given:
        return given
    for candidate in (os.environ.get("SPECDSE_EXE"), os.path.join(ROOT, "build", "specdse"), shutil.which("specdse")):
        if candidate and os.path.isfile(candidate) and os.access(candidate, os.X_OK):
            return candidate
    fail("no specdse executable: build it (scripts/build.sh), or pass --specdse or set SPECDSE_EXE")


def load_reference(method):
    with open(REFERENCE) as f:
        ref = yaml.safe_load(f)
    return ref["batches"], {name: entry[FIGURE_KEY[method]] for name, entry in ref["datasets"].items()}


def derive_workload(trace, dataset, folder):
    """The serving preset of `trace` (scripts/derive_serving_workload.py), as a file in `folder`."""
    path = os.path.join(folder, f"{dataset}-llama3.1-8b.yaml")
    command = [sys.executable, os.path.join(ROOT, "scripts", "derive_serving_workload.py"), trace,
               f"{dataset}-llama3.1-8b", dataset, "local copy"]
    done = subprocess.run(command, capture_output=True, text=True)
    if done.returncode != 0:
        fail(f"{trace}: deriving its serving preset failed: {first_line(done.stderr, last=True)}")
    with open(path, "w") as f:
        f.write(done.stdout)
    return path


def run_record(exe, trace, workload, record, batch, args):
    """Plain and speculative throughput (tokens/s) and tokens per step of one closed batch."""
    command = [exe, "serve", "--hw", HARDWARE, "--model", TARGET, "--stack", args.stack, "--engine", args.engine,
               "--acceptance-trace", trace, "--trace-record", str(record), "--arrivals", f"batch:{batch}",
               "--method", args.method, "--k", str(DRAFT_TOKENS), "--format", "csv"]
    if workload:
        command += ["--workload", workload]
    done = subprocess.run(command, capture_output=True, text=True)
    if done.returncode != 0:
        raise RunError(f"specdse serve ... --trace-record {record} --arrivals batch:{batch}: exit {done.returncode}: "
                       f"{first_line(done.stderr)}")
    rows = list(csv.DictReader(line for line in io.StringIO(done.stdout) if not line.startswith("#")))
    by_method = {row["method"]: row for row in rows}
    if "no SD" not in by_method or args.method not in by_method:
        raise RunError(f"specdse serve ... --trace-record {record} --arrivals batch:{batch}: expected a 'no SD' and "
                       f"an '{args.method}' row, got {sorted(by_method)}")
    return (float(by_method["no SD"]["throughput_tokens_per_s"]),
            float(by_method[args.method]["throughput_tokens_per_s"]),
            float(by_method[args.method]["tokens_per_step"]))


def count_records(path):
    with open(path) as f:
        return sum(1 for line in f if line.strip())


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0],
                                     formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--traces", required=True, help="folder holding combined_DATASET.jsonl (the study's traces)")
    parser.add_argument("--datasets", nargs="+", help="datasets to run (default: every one with a trace file and a measured figure)")
    parser.add_argument("--batches", default=None, help="comma-separated batch sizes (default: the figure's)")
    parser.add_argument("--method", default="eagle3-chain", choices=sorted(FIGURE_KEY),
                        help="the speculation compared with plain decoding (3 draft tokens a step)")
    parser.add_argument("--stack", default="vllm-v1-inprocess", help="software stack (configs/stacks name or YAML path)")
    parser.add_argument("--engine", default="roofline", choices=["roofline", "sim"])
    parser.add_argument("--records", type=int, default=0, help="the first N records of each file (0: all)")
    parser.add_argument("--jobs", type=int, default=os.cpu_count() or 1)
    parser.add_argument("--specdse", help="the specdse executable (default: $SPECDSE_EXE, build/specdse, then PATH)")
    parser.add_argument("--out", help="also write the table as CSV here (atomically)")
    args = parser.parse_args()
    if args.records < 0 or args.jobs < 1:
        fail(f"--records >= 0 and --jobs >= 1 expected, got {args.records} and {args.jobs}")
    exe = find_specdse(args.specdse)
    figure_batches, measured = load_reference(args.method)
    batches = figure_batches
    if args.batches:
        try:
            batches = [int(b) for b in args.batches.split(",")]
        except ValueError:
            fail(f"--batches: expected comma-separated integers, got '{args.batches}'")
        if any(b < 1 for b in batches):
            fail(f"--batches: expected sizes >= 1, got '{args.batches}'")
    datasets = args.datasets or [d for d in measured if os.path.isfile(os.path.join(args.traces, f"combined_{d}.jsonl"))]
    if not datasets:
        fail(f"--traces {args.traces}: no combined_DATASET.jsonl for any of {', '.join(measured)}")
    for dataset in datasets:
        if dataset not in measured:
            fail(f"--datasets: '{dataset}' has no measured figure (expected one of {', '.join(measured)})")
        trace = os.path.join(args.traces, f"combined_{dataset}.jsonl")
        if not os.path.isfile(trace):
            fail(f"--traces {args.traces}: no combined_{dataset}.jsonl")
        if count_records(trace) == 0:
            fail(f"{trace}: no records")

    table = []
    presets = tempfile.TemporaryDirectory()
    for dataset in datasets:
        trace = os.path.join(args.traces, f"combined_{dataset}.jsonl")
        workload = derive_workload(trace, dataset, presets.name) if args.method == "ngram" else None
        records = count_records(trace)
        if args.records:
            records = min(records, args.records)
        for batch in batches:
            print(f"{dataset}: batch {batch}, {records} records ...", file=sys.stderr, flush=True)
            try:
                with concurrent.futures.ThreadPoolExecutor(args.jobs) as pool:
                    runs = list(pool.map(lambda r: run_record(exe, trace, workload, r, batch, args), range(records)))
            except RunError as e:
                fail(str(e))
            plain = sum(r[0] for r in runs) / len(runs)
            speculative = sum(r[1] for r in runs) / len(runs)
            speedup = speculative / plain
            figure = None
            if dataset in measured and batch in figure_batches:
                figure = measured[dataset][figure_batches.index(batch)]
            error = 100 * (speedup / figure - 1) if figure else math.nan
            table.append({"dataset": dataset, "batch": batch, "records": len(runs),
                          "tokens_per_step": f"{sum(r[2] for r in runs) / len(runs):.3f}",
                          "model_speedup": f"{speedup:.3f}", "measured_speedup": "" if figure is None else f"{figure:.3f}",
                          "error_pct": "" if figure is None else f"{error:.1f}"})

    columns = ["dataset", "batch", "records", "tokens_per_step", "model_speedup", "measured_speedup", "error_pct"]
    print(f"# {args.method}, {DRAFT_TOKENS} draft tokens a step; stack {args.stack}, engine {args.engine}, {HARDWARE}, {TARGET}; "
          f"measured: {os.path.relpath(REFERENCE, ROOT)}")
    widths = {c: max(len(c), *(len(str(row[c])) for row in table)) for c in columns}
    print("  ".join(c.rjust(widths[c]) for c in columns))
    for row in table:
        print("  ".join(str(row[c]).rjust(widths[c]) for c in columns))
    if args.out:
        folder = os.path.dirname(os.path.abspath(args.out))
        with tempfile.NamedTemporaryFile("w", dir=folder, delete=False, newline="") as f:
            writer = csv.DictWriter(f, fieldnames=columns)
            writer.writeheader()
            writer.writerows(table)
        os.replace(f.name, args.out)


if __name__ == "__main__":
    main()
