"""Helpers shared by the Python tests: run the specdse CLI, read its CSV, compare with a frame.

Other parts of the project rename CLI options and columns over time; the comparisons use the
columns both sides have and require the core ones to be there, so a rename fails loudly only
where the two really disagree.
"""
import io
import os
import subprocess
import traceback
import time

import numpy as np
import pandas as pd

SPECDSE_EXE = os.environ.get("SPECDSE_EXE", "")


def cli_csv(*args):
    """The CLI's --format csv output as a DataFrame (None when no executable is given)."""
    if not SPECDSE_EXE:
        return None
    r = subprocess.run([SPECDSE_EXE, *map(str, args), "--format", "csv"], capture_output=True, text=True)
    assert r.returncode == 0, f"specdse {' '.join(map(str, args))}: exit {r.returncode}: {r.stderr.strip()}"
    # CSV output: the footer's fields as '#' lines, then the table; a blank line would end it.
    body = r.stdout.split("\n\n", 1)[0]
    return pd.read_csv(io.StringIO(body), comment="#")


def cli_error(*args):
    """(exit status, stderr line) of a CLI call expected to fail."""
    r = subprocess.run([SPECDSE_EXE, *map(str, args)], capture_output=True, text=True)
    return r.returncode, r.stderr.strip()


def assert_same_table(py, cli, required, rtol=1e-7):
    """Every column both share is equal (numbers within rtol: the CSV prints 9 significant digits)."""
    missing = [c for c in required if c not in py.columns or c not in cli.columns]
    assert not missing, f"columns missing: {missing} (python {list(py.columns)}, cli {list(cli.columns)})"
    assert len(py) == len(cli), (len(py), len(cli))
    for c in [c for c in py.columns if c in cli.columns]:
        a, b = py[c], cli[c]
        if pd.api.types.is_bool_dtype(a) and not pd.api.types.is_bool_dtype(b):
            # A text table's best row is "*" on the command line, True in Python.
            b = b.fillna("").astype(str).str.len() > 0
        if pd.api.types.is_numeric_dtype(a) and pd.api.types.is_numeric_dtype(b):
            x = a.to_numpy(dtype=float, na_value=np.nan)  # nullable ints (<NA>) become NaN
            y = b.to_numpy(dtype=float, na_value=np.nan)
            np.testing.assert_allclose(x, y, rtol=rtol, atol=1e-12, err_msg=c, equal_nan=True)
        else:
            assert [str(v) for v in a.fillna("")] == [str(v) for v in b.fillna("")], c


def run_tests(namespace):
    """Runs every test_* function of a module; all run, failures are counted; exit status 1 on any."""
    tests = [(n, f) for n, f in sorted(namespace.items()) if n.startswith("test_") and callable(f)]
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
