"""A hostile-input probe of the surfaces beyond numeric flags: input files that are not files
(a folder, a FIFO with no writer, an empty or binary file, /dev/zero), configs with a key given
twice (at the top or in a nested table, an integer key spelt two ways) or a unit-named number off
its physical scale (1e300, 1e-300), outputs that are special files (/dev/null, a FIFO, a folder,
a path through a file, the run's own input) and a standard output that cannot be written
(/dev/full), and the Python module's inputs (lossy, ragged, over-long; natural numpy ones must
run). Each run must end as a one-line error with exit 2, or as a result with exit 0 and no
NaN, inf or negative time in it; never a hang (30 s), a crash, a multi-line error, a special file
replaced, or a hidden temporary left beside an output. Prints the counts per class; exits 1
listing the cases that fail.

    SPECDSE_EXE=build/specdse python3 tests/probe/surfaces.py
"""
import os
import re
import shutil
import stat
import subprocess
import sys
import tempfile

from probe_support import report, run_classified

EXE = os.path.abspath(os.environ.get("SPECDSE_EXE", "build/specdse"))
CONFIGS = os.environ.get("SPECDSE_CONFIG_DIR") or os.path.join(os.path.dirname(__file__), "..", "..", "configs")

# Commands that read one input file each, the input's place marked {}.
INPUTS = {
    "hardware": "latency --hw {} --model llama-3.2-1b --context 1024 --x 1,2",
    "model": "latency --hw h100-sxm --model {} --context 1024 --x 1,2",
    "algorithm": "optimize --hw v80 --model llama-3.1-8b-instruct --algorithm {} --context 1024 --alpha 0.7",
    "system": "system --system {} --model llama-3.1-70b --context 1024",
    "sweep spec": "sweep --spec {} --quiet",
    "statistics": "fit --statistics {}",
    "workload": "plan --hw h100-sxm --model llama-3.1-8b-instruct --workload {}",
    "hf config.json": "import-model {}",
    "trace": "tree-search --trace {} --x-max 8",
    "aat data": "fit --data {}",
    "level accuracy": "specpipe --system specpipe-8x3090-pcie --model llama-3.1-70b --tokens 50 --w 16 --k 4 "
                      "--no-boundary --level-accuracy {}",
    "arrivals": "serve --hw h100-sxm --model llama-3.1-8b-instruct --rate 1 --duration-s 5 --arrivals {}",
}

# Commands that write one output each, the output's place marked {}.
OUTPUTS = {
    "trace-gen -o": "trace-gen --acceptance-vector 0.6,0.1 --lines 100 -o {}",
    "plan --trace-out": "plan --hw h100-sxm --model llama-3.1-8b-instruct --context 1024 --trace-out {}",
    "serve --trace-out": "serve --hw h100-sxm --model llama-3.1-8b-instruct --rate 1 --duration-s 5 --trace-out {}",
    "sweep --out": "sweep --spec {cfg}/sweeps/compute_bandwidth_ratio.yaml --quiet --out {}",
    # The cheapest statistics to fit (0.2 s; paper 002's take 15 s, over the probe's 30 s under load).
    "fit --out": "fit --statistics {cfg}/acceptance/statistics/paper000-longspec-govreport-1024.yaml --out {}",
    "plan --report": "plan --hw h100-sxm --model llama-3.1-8b-instruct --context 1024 --report {}",
}

# Config files whose keys are mutated, with a command that loads each under --config-dir.
MUTATED = {
    "hardware/h100-sxm.yaml": "latency --hw h100-sxm --model llama-3.2-1b --context 1024 --x 1,2",
    "hardware/v80.yaml": "optimize --hw v80 --model llama-3.1-8b-instruct --algorithm longspec-tree --context 1024",
    "hardware/xeon-16c.yaml": "latency --hw xeon-16c --model llama-3.2-1b --context 1024 --x 1,2",
    "links/eth-10g.yaml": "system --system specpipe-2srv-3090-4090-eth --model llama-3.1-70b --context 1024",
    "algorithms/longspec-tree.yaml": "optimize --hw v80 --model llama-3.1-8b-instruct --algorithm longspec-tree "
                                     "--context 1024",
}
UNIT_KEY = re.compile(r"^(\s*)([a-z0-9_]+(_gbs|_tflops_fp16|_mhz|_ghz|_us|_gib|_mib|_kib|_bytes)):\s*([0-9.eE+-]+)")


def run(args, stdout=subprocess.PIPE, cwd=None):
    return run_classified(f"{EXE} {args}", stdout=stdout, cwd=cwd)


def temporaries(folder):
    return [n for n in os.listdir(folder) if n.startswith(".") and n.endswith(".tmp")]


def _no_temp_name(call):
    # An error from a dict config must name the dict, not the temporary file it went through.
    try:
        call()
    except Exception as e:  # noqa: BLE001
        if "/specdse-" in str(e):
            raise RuntimeError(f"names a temporary file: {e}") from None
        raise


def python_cases(record):
    try:
        import numpy as np
        import specdse
    except ImportError:
        return  # the module is not built here: the command-line cases stand alone
    lat = dict(hw="v80", model="llama-3.1-8b-instruct")
    refused = {
        "batch=4.7": lambda: specdse.latency(**lat, batch=4.7),
        "batch=True": lambda: specdse.latency(**lat, batch=True),
        "x ragged": lambda: specdse.latency(**lat, x=[[1, 2], [3]]),
        "x text": lambda: specdse.latency(**lat, x=["1"]),
        "x 2e6 values": lambda: specdse.latency(**lat, x=range(1, 2_000_001)),
        "context 2-D array": lambda: specdse.latency(**lat, context=np.array([[1024]])),
        "trace_gen lines=4.7": lambda: specdse.trace_gen([0.6], lines=4.7),
        "trace_gen ragged": lambda: specdse.trace_gen([[0.6], [0.1, 0.2]], lines=3),
        "trace_gen 1e9 lines in memory": lambda: specdse.trace_gen([0.6], lines=10**9),
        "tree rank 1.5": lambda: specdse.tree([(0, 1.5)], 3),
        "scenario keyword and params": lambda: specdse.scenario(
            "tree-sd", **lat, algorithm="longspec-tree", context=1024, x_max=8, params={"x-max": 16}),
        "scenario unknown keyword": lambda: specdse.scenario("tree-sd", **lat, no_such=1),
        "scenario two spellings in params": lambda: specdse.scenario(
            "tree-sd", **lat, algorithm="longspec-tree", context=1024, params={"x_max": 8, "x-max": 16}),
        "scenario a list for one value": lambda: specdse.scenario(
            "tree-sd", **lat, algorithm="longspec-tree", context=1024, x_max=[8]),
        "plan rate with batch at its default": lambda: specdse.plan(
            hw="h100-sxm", model="llama-3.1-8b-instruct", context=1024, request_rate=1, batch=1),
        "x unsigned past 2^63": lambda: specdse.latency(**lat, x=np.array([2**63], dtype=np.uint64)),
        "fit points as text": lambda: specdse.fit(x=["1", "2", "4"], aat=[1, 1.5, 2]),
        "policies nested list": lambda: specdse.policies(synthetic="100:0.7", cost_ratio=0.1, policies=[["static"]]),
        "trace_gen seed -1": lambda: specdse.trace_gen([0.6], lines=3, seed=-1),
        "dict hardware error names no temp file": lambda: _no_temp_name(lambda: specdse.hardware({"name": "x"})),
        "serve rate bool": lambda: specdse.serve(hw="h100-sxm", model="llama-3.1-8b-instruct", rate=True),
        "plan context 10^5": lambda: specdse.plan(hw="h100-sxm", model="llama-3.1-8b-instruct",
                                                  context=range(10**5)),
    }
    for name, call in refused.items():
        try:
            call()
        except specdse.InputError as e:
            record("clean error" if "\n" not in str(e) else "noisy error", f"python {name}")
        except Exception as e:  # noqa: BLE001 (any other exception is the finding)
            record("crash", f"python {name}: {type(e).__name__}: {str(e)[:120]}")
        else:
            record("silent", f"python {name}: accepted")
    natural = {
        "numpy scalars and arrays": lambda: specdse.latency(**lat, x=np.arange(1, 5), context=np.int32(1024)),
        "numpy bool param": lambda: specdse.scenario("tree-sd", **lat, algorithm="longspec-tree", context=1024,
                                                     x_max=np.int64(8), measured_only=np.bool_(True)),
        "None for an optional": lambda: specdse.scenario("tree-sd", **lat, algorithm="longspec-tree", context=1024,
                                                         x_max=8, alpha=None),
        "params in keyword spelling": lambda: specdse.scenario("tree-sd", **lat, algorithm="longspec-tree",
                                                               context=1024, params={"x_max": 8}),
    }
    for name, call in natural.items():
        try:
            call()
            record("result", f"python {name}")
        except Exception as e:  # noqa: BLE001
            record("refused natural input", f"python {name}: {type(e).__name__}: {str(e)[:120]}")


def main():
    counts = {}
    failures = []

    verbose = os.environ.get("SPECDSE_PROBE_VERBOSE")

    def record(kind, case, p=None, ok_kinds=("clean error", "result")):
        counts[kind] = counts.get(kind, 0) + 1
        if verbose:
            print(kind, "|", case, "|", (p.stderr or "").strip()[-160:] if p is not None else "")
        if kind not in ok_kinds:
            failures.append((kind, case, (p.stderr or "")[-300:] if p is not None else ""))

    work = tempfile.mkdtemp(prefix="specdse_probe_surfaces_")
    try:
        # 1. Input files that are not what they should be.
        folder = os.path.join(work, "a_folder.yaml")
        os.mkdir(folder)
        empty = os.path.join(work, "empty.yaml")
        open(empty, "w").close()
        binary = os.path.join(work, "binary.yaml")
        with open(binary, "wb") as f:
            f.write(bytes(range(256)) * 4)
        fifo = os.path.join(work, "no_writer.fifo")
        os.mkfifo(fifo)
        for what, cmd in INPUTS.items():
            for label, path in [("folder", folder), ("empty", empty), ("binary", binary), ("fifo", fifo),
                                ("/dev/zero", "/dev/zero")]:
                kind, p = run(cmd.format(path))
                # An empty file is refused; for an optional list input (a trace) it may be a result.
                record(kind, f"input {what} = {label}: {cmd.format(path)}", p)

        # 2. Configs with a key twice or a number off its unit's scale.
        for rel, cmd in MUTATED.items():
            with open(os.path.join(CONFIGS, rel)) as f:
                text = f.read()
            lines = text.splitlines(keepends=True)
            variants = []
            # The first top-level key again, and the first nested key again, and for a tree table
            # the x = 3 row spelt 0x3.
            top = next(i for i, l in enumerate(lines) if re.match(r"^[a-z_]+:", l))
            variants.append(("top-level key twice", "".join(lines[:top + 1] + [lines[top]] + lines[top + 1:])))
            nested = next((i for i, l in enumerate(lines) if re.match(r"^\s+[a-z_0-9]+:\s*\S", l)), None)
            if nested is not None:
                variants.append(("nested key twice", "".join(lines[:nested + 1] + [lines[nested]] + lines[nested + 1:])))
            if "    3: [1, 1]\n" in text:
                variants.append(("x key as 0x3", text.replace("    3: [1, 1]\n", "    3: [1, 1]\n    0x3: [2]\n", 1)))
            for i, l in enumerate(lines):
                m = UNIT_KEY.match(l)
                if not m or float(m.group(4)) == 0:
                    continue
                for bad in ("1e300", "1e-300"):
                    changed = lines[:i] + [f"{m.group(1)}{m.group(2)}: {bad}\n"] + lines[i + 1:]
                    variants.append((f"{m.group(2)} = {bad}", "".join(changed)))
            for label, content in variants:
                cfg = os.path.join(work, "cfg")
                shutil.rmtree(cfg, ignore_errors=True)
                shutil.copytree(CONFIGS, cfg)
                with open(os.path.join(cfg, rel), "w") as f:
                    f.write(content)
                kind, p = run(f"--config-dir {cfg} {cmd} --format csv")
                # A key twice is always an error; an out-of-scale number is an error or a sane result.
                if "twice" in label or "0x3" in label:
                    record(kind, f"config {rel}: {label}", p, ok_kinds=("clean error",))
                else:
                    record(kind, f"config {rel}: {label}", p)

        # 3. Outputs that are special files or the run's own input.
        out_dir = os.path.join(work, "outputs")
        os.mkdir(out_dir)
        through_file = os.path.join(out_dir, "plain_file")
        open(through_file, "w").close()
        out_fifo = os.path.join(out_dir, "out.fifo")
        os.mkfifo(out_fifo)
        for what, cmd in OUTPUTS.items():
            for label, path in [("/dev/null", "/dev/null"), ("fifo", out_fifo), ("folder", out_dir),
                                ("through a file", os.path.join(through_file, "x.out"))]:
                kind, p = run(cmd.replace("{cfg}", CONFIGS).format(path), cwd=work)
                record(kind, f"output {what} = {label}", p)
                if not stat.S_ISCHR(os.stat("/dev/null").st_mode):
                    record("special file replaced", f"output {what} = {label}: /dev/null is no longer a device")
                if not stat.S_ISFIFO(os.stat(out_fifo).st_mode):
                    record("special file replaced", f"output {what} = {label}: the FIFO was replaced")
                    os.remove(out_fifo)
                    os.mkfifo(out_fifo)
                if temporaries(out_dir):
                    record("temporary left", f"output {what} = {label}: {temporaries(out_dir)}")
        statistics = os.path.join(work, "s.yaml")
        shutil.copy(os.path.join(CONFIGS, "acceptance/statistics/paper002-specpipe-llama1b-llama70b.yaml"), statistics)
        before = open(statistics).read()
        for spelling in ("s.yaml", "./s.yaml", statistics):
            kind, p = run(f"fit --statistics s.yaml --out {spelling}", cwd=work)
            record(kind, f"output over own input ({spelling})", p, ok_kinds=("clean error",))
        if open(statistics).read() != before:
            record("input overwritten", "fit --statistics s.yaml --out s.yaml changed s.yaml")

        # 4. A standard output that cannot be written.
        for cmd in ("list hardware", "plan --hw h100-sxm --model llama-3.1-8b-instruct --context 1024 --format csv",
                    "trace-gen --acceptance-vector 0.6 --lines 100000", "fit --format csv",
                    "sweep --spec {cfg}/sweeps/compute_bandwidth_ratio.yaml --quiet".replace("{cfg}", CONFIGS)):
            with open("/dev/full", "w") as full:
                kind, p = run(cmd, stdout=full)
            record(kind, f"stdout /dev/full: {cmd}", p, ok_kinds=("clean error",))
        # 5. Conflicts and ignored options, grids past their run's bound, an unusable TMPDIR: each
        # refused up front in one line (never a silent pick, a run of minutes, or a result printed
        # before the error).
        golden_csv = os.path.join(os.path.dirname(os.path.normpath(os.path.abspath(CONFIGS))), "notebooks_out", "golden",
                                  "h100_sxm_cublas_llama-3.1-8b_2026-11-22.csv")
        refused = [
            "duo --system duodecoding-a800-xeon --model llama-2-7b --draft llama-68m --tokens 50 --show sequences "
            "--sps-gamma 4",
            f"golden --hw h100-sxm --measured {golden_csv} --rounds 9",
            "policies --synthetic 200:0.9 --cost-ratio 0.1 --seed -1",
            "latency --hw h100-sxm --model llama-3.2-1b --x 1-65536 --context 1-100",
            "chain-sd --system duodecoding-a800-xeon --model llama-2-7b --draft llama-68m --context 1-100000 "
            "--gamma 1-64 --alpha 0.7",
            "window --hw h100-sxm --model llama-3.1-8b-instruct --draft llama-3.2-1b --alpha 0.8 --context 1-1000000",
            "serve --hw h100-sxm --model llama-3.1-8b-instruct --duration-s 10 --rate "
            + ",".join(str(r) for r in range(1, 2001)),
        ]
        for cmd in refused:
            kind, p = run(cmd + " --format csv")
            record(kind, f"refused: {cmd[:100]}", p, ok_kinds=("clean error",))
        fit_scenario = (f"fit --statistics {CONFIGS}/acceptance/statistics/paper000-longspec-govreport-1024.yaml "
                        "--scenario tree-sd --hw v80 --model llama-3.1-8b-instruct --algorithm longspec-tree "
                        "--context 1024 --param x-max=8")
        kind, p = run_classified(f"TMPDIR=/proc/none {EXE} {fit_scenario}")
        if kind == "clean error" and p.stdout:
            kind = "printed, then failed"
        record(kind, "fit --scenario with TMPDIR unusable", p, ok_kinds=("clean error",))
        # 6. The Python module: lossy, ragged or unnatural inputs are one-line InputErrors (never a
        # truncated number, numpy's own error or a crash); natural ones (numpy scalars and arrays,
        # None for an optional) run.
        python_cases(record)
    finally:
        shutil.rmtree(work, ignore_errors=True)

    return report(counts, failures)


if __name__ == "__main__":
    sys.exit(main())
