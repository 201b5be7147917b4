"""specdse.sweep: the DataFrame holds the rows `specdse sweep` writes, typed per column; a spec
given as a dict works; with out= the file is byte-identical to the CLI's for any thread count.
"""
import io
import os
import subprocess
import sys
import tempfile
import time
import traceback

import numpy as np
import pandas as pd

import specdse

SPECDSE_EXE = os.environ.get("SPECDSE_EXE", "")

SPEC = {
    "name": "py_small",
    "x_max": 64,
    "axes": {
        "hardware": "v80",
        "model": "llama-3.1-8b-instruct",
        "algorithm": "longspec-tree",
        "source_table": "t3-4",
        "context": [128, 1024],
        "memory.bandwidth_gbs": {"from": 100, "to": 100000, "count": 4, "scale": "log"},
    },
}


def test_sweep_frame_types_and_cli_bytes():
    with tempfile.TemporaryDirectory() as d:
        spec = os.path.join(d, "s.yaml")
        with open(spec, "w") as f:
            import json
            json.dump(SPEC, f)
        df = specdse.sweep(spec, threads=2)
        assert len(df) == 8
        assert list(df["index"]) == list(range(8))
        for c in ["index", "context", "batch", "best_x", "aat_context"]:
            assert df[c].dtype == np.int64, (c, df[c].dtype)
        for c in ["bandwidth_gbs", "speedup", "best_tokens_per_s", "memory.bandwidth_gbs"]:
            assert df[c].dtype == np.float64, (c, df[c].dtype)
        assert df["regime"].dtype == object
        assert np.all(df["speedup"] >= 1.0)
        # More bandwidth never makes AD slower.
        for _, g in df.groupby("context"):
            assert np.all(np.diff(g.sort_values("bandwidth_gbs")["ar_tokens_per_s"].to_numpy()) >= 0)
        # A dict spec gives the same frame.
        pd.testing.assert_frame_equal(specdse.sweep(SPEC, threads=1), df)
        if SPECDSE_EXE:
            cli_out = os.path.join(d, "cli.csv")
            subprocess.run([SPECDSE_EXE, "sweep", "--quiet", "--threads", "1", "--spec", spec, "--out", cli_out],
                           check=True)
            py_out = os.path.join(d, "py.csv")
            again = specdse.sweep(spec, threads=2, out=py_out)
            assert open(cli_out, "rb").read() == open(py_out, "rb").read()
            pd.testing.assert_frame_equal(again, df)
            cli = pd.read_csv(cli_out, comment="#")  # the fingerprint lines lead the file
            assert list(cli.columns) == list(df.columns)
            np.testing.assert_allclose(cli["speedup"].to_numpy(), df["speedup"].to_numpy())


def test_sweep_damaged_journal_row_is_recomputed_with_a_warning():
    import warnings
    import zlib
    with tempfile.TemporaryDirectory() as d:
        out = os.path.join(d, "out.csv")
        specdse.sweep(SPEC, threads=1, out=out)
        full = open(out, "rb").read()
        lines = full.split(b"\n")
        # The '# key: value' lines that lead it say what its rows were computed under.
        fingerprint = [l for l in lines if l.startswith(b"# ")]
        lines = lines[len(fingerprint):]
        # The journal a killed run leaves: each row ends in the CRC-32 of the output row.
        journal = fingerprint + [lines[0] + b",row_crc32"] + [r + b",%08x" % zlib.crc32(r) for r in lines[1:4]]
        row2 = len(fingerprint) + 2
        journal[row2] = journal[row2].replace(b",v80,", b",v80,,", 1)  # row 2 changed after it was written
        os.remove(out)
        with open(out + ".partial", "wb") as f:
            f.write(b"\n".join(journal) + b"\n")
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always")
            specdse.sweep(SPEC, threads=1, out=out)
        assert open(out, "rb").read() == full
        assert not os.path.exists(out + ".partial")
        messages = [str(w.message) for w in caught if issubclass(w.category, RuntimeWarning)]
        assert any("row 2: its checksum does not match" in m for m in messages), messages


def test_sweep_bad_spec_is_input_error():
    bad = dict(SPEC, axes=dict(SPEC["axes"], hardware="no-such-board"))
    try:
        specdse.sweep(bad)
    except specdse.InputError as e:
        assert "no-such-board" in str(e)
    else:
        raise AssertionError("expected an InputError")


def test_scenario_sweep_matches_cli():
    # A spec with `scenario:` runs in Python as `specdse sweep` runs it: same rows, same numbers,
    # `best` a boolean; bad thread counts are InputErrors, not a binding's TypeError.
    spec = dict(name="chain_small", scenario="chain-sd",
                axes={"system": "duodecoding-a800-xeon", "model": "llama-2-7b", "draft": "llama-68m",
                      "context": [256, 1024], "alpha": [0.6, 0.8]})
    py = specdse.sweep(spec, threads=2)
    assert len(py) > 0 and py["best"].dtype == bool and list(py.columns[:5]) == list(spec["axes"])
    if SPECDSE_EXE:
        with tempfile.TemporaryDirectory() as tmp:
            path = os.path.join(tmp, "spec.yaml")
            import json
            with open(path, "w") as f:
                json.dump(spec, f)  # JSON is YAML
            cli = subprocess.run([SPECDSE_EXE, "sweep", "--quiet", "--spec", path, "--format", "csv"],
                                 capture_output=True, text=True, check=True)
            ref = pd.read_csv(io.StringIO(cli.stdout), comment="#")
            assert list(ref.columns) == list(py.columns) and len(ref) == len(py)
            for c in ("t_step_s", "tokens_per_s"):
                if c in ref:
                    assert np.allclose(ref[c], py[c], rtol=1e-8), c
    for bad in (-1, 5000):
        try:
            specdse.sweep(spec, threads=bad)
        except specdse.InputError as e:
            assert "threads" in str(e)
        else:
            raise AssertionError(f"expected an InputError for threads={bad}")


def main():
    tests = [(n, f) for n, f in sorted(globals().items()) if n.startswith("test_") and callable(f)]
    failed = 0
    for name, f in tests:
        t0 = time.perf_counter()
        try:
            f()
            print(f"PASS {name} ({time.perf_counter() - t0:.2f} s)")
        except Exception:
            failed += 1
            print(f"FAIL {name}")
            traceback.print_exc()
    print(f"{len(tests) - failed} passed, {failed} failed")
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
