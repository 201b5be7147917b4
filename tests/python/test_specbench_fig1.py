"""scripts/specbench_fig1.py: runs `specdse serve` on each trace record as a closed batch of copies,
takes the study's speed-up (mean speculative throughput over mean plain throughput) and sets it
beside the measured figure; bad input is one line and exit 2. Synthetic traces stand in for the
study's (the project ships none).
"""
import csv
import json
import os
import subprocess
import sys

sys.dont_write_bytecode = True  # importing cli_compare must not write __pycache__ into the source tree
import tempfile

import yaml

from cli_compare import run_tests

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
SCRIPT = os.path.join(ROOT, "scripts", "specbench_fig1.py")
REFERENCE = os.path.join(ROOT, "configs", "reference", "specdecode_bench_fig1_speedups.yaml")


def write_traces(folder, acc_len, ngram_acc_len=1):
    """combined_sharegpt.jsonl with two records whose every position yields `acc_len` tokens
    (EAGLE-3) and `ngram_acc_len` (n-gram)."""
    with open(os.path.join(folder, "combined_sharegpt.jsonl"), "w") as f:
        for i, (prompt, output) in enumerate([(40, 64), (120, 96)]):
            record = {"id": str(i), "prompt_token_ids": list(range(prompt)), "generated_token_ids": list(range(output)),
                      "acc_eagle": {"acc_len": [acc_len] * output}, "acc_ngram": {"acc_len": [ngram_acc_len] * output}}
            f.write(json.dumps(record) + "\n")


def run(*args):
    return subprocess.run([sys.executable, SCRIPT, *args], capture_output=True, text=True, env=os.environ)


def test_speedups_beside_the_measured_figure():
    with open(REFERENCE) as f:
        ref = yaml.safe_load(f)
    with tempfile.TemporaryDirectory() as d:
        out = os.path.join(d, "fig1.csv")
        speedups = {}
        for acc_len in (1, 4):
            write_traces(d, acc_len)
            done = run("--traces", d, "--batches", "1,16", "--jobs", "1", "--out", out)
            assert done.returncode == 0, done.stderr
            rows = list(csv.DictReader(open(out)))
            assert [(r["dataset"], int(r["batch"]), int(r["records"])) for r in rows] == [("sharegpt", 1, 2), ("sharegpt", 16, 2)]
            for r in rows:
                i = ref["batches"].index(int(r["batch"]))
                assert float(r["measured_speedup"]) == ref["datasets"]["sharegpt"]["eagle3"][i]
                expected = 100 * (float(r["model_speedup"]) / float(r["measured_speedup"]) - 1)
                assert abs(float(r["error_pct"]) - expected) < 0.1, (r, expected)
            speedups[acc_len] = [float(r["model_speedup"]) for r in rows]
            tokens = [float(r["tokens_per_step"]) for r in rows]
            # A step keeps min(yield, k + 1) tokens: 1 when nothing is accepted, 4 when all 3 are.
            assert all(abs(t - min(acc_len, 4)) < 0.35 for t in tokens), tokens
        # Nothing accepted: drafting only costs; everything accepted: faster than plain decoding.
        assert all(s < 1 for s in speedups[1]), speedups
        assert all(s > 1.5 for s in speedups[4]), speedups


def test_ngram_against_its_own_figure():
    with open(REFERENCE) as f:
        ref = yaml.safe_load(f)
    with tempfile.TemporaryDirectory() as d:
        out = os.path.join(d, "fig1.csv")
        write_traces(d, 1, ngram_acc_len=4)
        done = run("--traces", d, "--method", "ngram", "--batches", "1", "--jobs", "2", "--out", out)
        assert done.returncode == 0, done.stderr
        (row,) = list(csv.DictReader(open(out)))
        assert float(row["measured_speedup"]) == ref["datasets"]["sharegpt"]["ngram"][0]
        assert abs(float(row["tokens_per_step"]) - 4) < 0.35, row
        assert float(row["model_speedup"]) > 1.5, row
        assert "# ngram, 3 draft tokens a step" in done.stdout, done.stdout


def test_bad_input_is_one_line_and_exit_2():
    with tempfile.TemporaryDirectory() as d:
        done = run("--traces", d)
        assert done.returncode == 2 and "no combined_DATASET.jsonl" in done.stderr, done.stderr
        assert len(done.stderr.strip().splitlines()) == 1, done.stderr
        write_traces(d, 2)
        done = run("--traces", d, "--batches", "1,x")
        assert done.returncode == 2 and "--batches" in done.stderr and "1,x" in done.stderr, done.stderr
        done = run("--traces", d, "--datasets", "cnn")
        assert done.returncode == 2 and "combined_cnn.jsonl" in done.stderr, done.stderr
        done = run("--traces", d, "--datasets", "wikitext")
        assert done.returncode == 2 and "'wikitext' has no measured figure" in done.stderr, done.stderr
        # A serve run that fails (an unknown stack) is reported once, whatever --jobs runs at once.
        done = run("--traces", d, "--batches", "1,16", "--jobs", "4", "--stack", "no-such-stack")
        assert done.returncode == 2 and "no-such-stack" in done.stderr, done.stderr
        errors = [line for line in done.stderr.splitlines() if not line.endswith(" records ...")]
        assert len(errors) == 1 and errors[0].startswith("specbench_fig1.py: "), done.stderr
        open(os.path.join(d, "combined_gsm8k.jsonl"), "w").close()
        done = run("--traces", d, "--datasets", "gsm8k")
        assert done.returncode == 2 and "no records" in done.stderr, done.stderr


if __name__ == "__main__":
    sys.exit(run_tests(globals()))
