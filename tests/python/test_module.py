"""import specdse: latency, configs, errors, fits, optimize, system steps, threads.

Run by CTest with the interpreter CMake built the module for (PYTHONPATH=build/python);
plain asserts, no pytest needed. Each check is a function; all run, failures are counted.
"""
import os
import subprocess
import sys
import threading
import time
import traceback

import numpy as np
import pandas as pd

import specdse

SPECDSE_EXE = os.environ.get("SPECDSE_EXE", "")


def test_latency_monotone_in_x_and_context():
    df = specdse.latency("v80", "llama-3.1-8b-instruct", x=range(1, 129), context=[1024, 16384])
    assert isinstance(df, pd.DataFrame)
    assert len(df) == 2 * 128
    for L, g in df.groupby("context"):
        t = g.sort_values("x")["t_verify_s"].to_numpy()
        assert np.all(np.diff(t) >= -1e-15), f"T_v not monotone in x at context {L}"
        assert np.all(t > 0)
    # A longer context reads more KV cache: never faster.
    t1 = df[df.context == 1024].sort_values("x")["t_verify_s"].to_numpy()
    t2 = df[df.context == 16384].sort_values("x")["t_verify_s"].to_numpy()
    assert np.all(t2 >= t1)


def test_latency_columns_and_dtypes():
    df = specdse.latency("a100-80gb", "llama-3.1-8b-instruct", x=[1, 2, 4], context=512, batch=4,
                         draft="eagle3-tree")
    assert list(df.columns[:8]) == ["hw", "model", "engine", "batch", "x", "context", "t_verify_s",
                                    "tokens_per_s_total"], list(df.columns)
    for c in ["draft", "draft_passes", "t_draft_s", "t_step_s"]:
        assert c in df.columns, c
    assert df["x"].dtype == np.int64 and df["context"].dtype == np.int64 and df["batch"].dtype == np.int64
    assert df["t_verify_s"].dtype == np.float64 and df["t_step_s"].dtype == np.float64
    assert df["hw"].dtype == object and set(df["hw"]) == {"a100-80gb"}
    # Tokens of the whole batch: x * batch / T_v.
    np.testing.assert_allclose(df["tokens_per_s_total"], df["x"] * 4 / df["t_verify_s"])
    np.testing.assert_allclose(df["t_step_s"], df["t_verify_s"] + df["t_draft_s"])
    # frame=False: the numpy columns the frame is built from.
    cols = specdse.latency("a100-80gb", "llama-3.1-8b-instruct", x=np.arange(1, 5), frame=False)
    assert isinstance(cols["t_verify_s"], np.ndarray) and cols["t_verify_s"].shape == (4,)


def test_latency_takes_the_commands_options():
    # stack, host, several batches, breakdown, sample: the command's options, the command's rows.
    kw = dict(x=[1, 4], context=1024, batch=[1, 8], stack="huggingface-transformers")
    py = specdse.latency("h200", "llama-3.1-8b-instruct", **kw)
    assert list(py["batch"]) == [1, 1, 8, 8]
    assert (py["t_verify_s"] != specdse.latency("h200", "llama-3.1-8b-instruct", x=[1, 4], context=1024,
                                                 batch=[1, 8])["t_verify_s"]).any()
    sampled = specdse.latency("h200", "llama-3.1-8b-instruct", stack="huggingface-transformers", sample=True)
    assert sampled["t_verify_s"][0] > py["t_verify_s"][0]  # the sampler's kernels cost something
    ops = specdse.latency("h200", "llama-3.1-8b-instruct", breakdown=True)
    assert "op" in ops.columns and len(ops) > 3
    if SPECDSE_EXE:
        import io
        out = subprocess.run([SPECDSE_EXE, "latency", "--hw", "h200", "--model", "llama-3.1-8b-instruct", "--x", "1,4",
                              "--context", "1024", "--batch", "1,8", "--stack", "huggingface-transformers",
                              "--format", "csv"], check=True, capture_output=True, text=True).stdout
        cli = pd.read_csv(io.StringIO(out), comment="#")
        np.testing.assert_allclose(py["t_verify_s"], cli["t_verify_s"], rtol=1e-8)
    try:
        specdse.latency("v80", "llama-3.1-8b-instruct", stack="huggingface-transformers")
    except specdse.InputError as e:
        assert "stack" in str(e) and "ignored" in str(e)
    else:
        raise AssertionError("expected an InputError: an FPGA runs no software stack")


def test_same_numbers_as_cli():
    if not SPECDSE_EXE:
        return
    out = subprocess.run([SPECDSE_EXE, "latency", "--hw", "v80", "--model", "llama-3.1-8b-instruct", "--x", "1,8,64",
                          "--context", "2048", "--format", "csv"], check=True, capture_output=True, text=True).stdout
    import io
    cli = pd.read_csv(io.StringIO(out), comment="#")
    py = specdse.latency("v80", "llama-3.1-8b-instruct", x=[1, 8, 64], context=2048)
    np.testing.assert_allclose(py["t_verify_s"].to_numpy(), cli["t_verify_s"].to_numpy(), rtol=1e-8)


def _model_dict(name):
    # The YAML files are flat key: value maps; read them without a YAML package.
    path = os.path.join(specdse._specdse.default_config_dir(), "models", name + ".yaml")
    d = {}
    for line in open(path):
        line = line.split("#", 1)[0].rstrip()
        if not line or line.startswith(" ") or ":" not in line:
            continue
        k, v = line.split(":", 1)
        v = v.strip().strip('"')
        try:
            d[k.strip()] = int(v)
        except ValueError:
            try:
                d[k.strip()] = float(v)
            except ValueError:
                d[k.strip()] = {"true": True, "false": False}.get(v, v)
    return d


def test_model_from_dict():
    d = _model_dict("llama-3.1-8b-instruct")
    base = specdse.model("llama-3.1-8b-instruct")
    deeper = dict(d, name="llama-deeper", layers=2 * d["layers"])
    m = specdse.model(deeper)
    assert m.name == "llama-deeper" and m.layers == 2 * base.layers
    a = specdse.latency("v80", base, x=4, context=1024)["t_verify_s"][0]
    b = specdse.latency("v80", m, x=4, context=1024)["t_verify_s"][0]
    assert b > 1.5 * a, (a, b)  # twice the layers: about twice the time


def test_input_error_message_matches_cli():
    try:
        specdse.latency("no-such-board", "llama-3.1-8b-instruct")
    except specdse.InputError as e:
        msg = str(e)
        assert "no-such-board" in msg and "\n" not in msg
        assert isinstance(e, ValueError)
    else:
        raise AssertionError("no InputError for an unknown hardware name")
    if SPECDSE_EXE:
        r = subprocess.run([SPECDSE_EXE, "latency", "--hw", "no-such-board", "--model", "llama-3.1-8b-instruct"],
                           capture_output=True, text=True)
        assert r.returncode == 2
        assert r.stderr.strip() == "specdse: error: " + msg, (r.stderr, msg)
    for bad in [lambda: specdse.latency("v80", "llama-3.1-8b-instruct", x=0),
                lambda: specdse.latency("v80", "llama-3.1-8b-instruct", engine="no-engine"),
                lambda: specdse.fit([2, 3], [1.5, 1.7]),
                lambda: specdse.model({"name": "broken", "layers": -1}),
                # Counts are integers: a fraction, a bool or a nested list is refused, not coerced.
                lambda: specdse.latency("v80", "llama-3.1-8b-instruct", batch=4.7),
                lambda: specdse.latency("v80", "llama-3.1-8b-instruct", batch=True),
                lambda: specdse.latency("v80", "llama-3.1-8b-instruct", context=[[128, 256]]),
                lambda: specdse.system_step("eagle-8xh100-nvlink", "llama-3.1-70b", x=4.5, context=2048),
                # A ragged nesting or text where numbers go is an InputError, not numpy's ValueError.
                lambda: specdse.latency("v80", "llama-3.1-8b-instruct", x=[[1, 2], [3]]),
                lambda: specdse.trace_gen([[0.6], [0.1, 0.2]], lines=3),
                lambda: specdse.trace_gen(["0.6"], lines=3),
                lambda: specdse.trace_gen([0.6], lines=4.7),
                lambda: specdse.tree([(0, 1.5)], 3),
                # Lists are bounded as on the command line; a list trace is bounded by memory.
                lambda: specdse.latency("v80", "llama-3.1-8b-instruct", x=range(1, 1_000_002)),
                lambda: specdse.trace_gen([0.6], lines=10**9)]:
        try:
            bad()
        except specdse.InputError as e:
            assert str(e) and "\n" not in str(e)
        else:
            raise AssertionError("expected an InputError")


def test_fit_recovers_curve():
    x = np.array([1, 2, 4, 8, 16, 32, 64], dtype=float)
    a, b, c = 1.2, 0.6, 0.5
    y = a + b * np.log(x - c)
    f = specdse.fit(x[1:], y[1:])
    assert f["r2"] > 0.999, f
    np.testing.assert_allclose(f["curve"](x[1:]), y[1:], rtol=1e-3)
    m = specdse.fit(algorithm="longspec-tree", model="llama-3.1-8b-instruct", context=1024)
    assert m["n"] >= 3 and len(m["measured_x"]) == len(m["measured_aat"])
    # AAT never falls as the tree grows.
    xs = np.arange(1, 129)
    assert np.all(np.diff(m["curve"](xs)) >= -1e-12)


def test_optimize_best_beats_ad():
    best, curve = specdse.optimize("v80", "llama-3.1-8b-instruct", "longspec-tree", context=[1024, 16384])
    assert list(best["context"]) == [1024, 16384]
    assert np.all(best["speedup"] >= 1.0)
    for L, g in curve.groupby("context"):
        row = best[best.context == L].iloc[0]
        # The best x is the argmax of the curve, and P_eff there is what the summary says.
        assert g.loc[g["tokens_per_s"].idxmax(), "x"] == row["best_x"]
        np.testing.assert_allclose(g["tokens_per_s"].max(), row["best_tokens_per_s"])
    # The command's table: same columns and numbers as `specdse optimize`.
    if SPECDSE_EXE:
        import io
        out = subprocess.run([SPECDSE_EXE, "optimize", "--hw", "v80", "--model", "llama-3.1-8b-instruct", "--algorithm",
                              "longspec-tree", "--context", "1024,16384", "--format", "csv"],
                             check=True, capture_output=True, text=True).stdout
        cli = pd.read_csv(io.StringIO(out), comment="#")
        assert list(best.columns) == list(cli.columns)
        assert list(best["best_x"]) == list(cli["best_x"]) and list(best["regime"]) == list(cli["regime"])
        for c in ["best_tokens_per_s", "speedup", "t_verify_s"]:
            np.testing.assert_allclose(best[c].to_numpy(), cli[c].to_numpy(), rtol=1e-8, err_msg=c)
    # Every CLI acceptance source: a chain algorithm at a per-token alpha, and bad combinations refused.
    chain, _ = specdse.optimize("h100-sxm", "llama-3.1-8b-instruct", "eagle3-chain", context=1024, alpha=0.8)
    assert chain["aat_source"].iloc[0].startswith("alpha") or "0.8" in chain["aat_source"].iloc[0]
    for bad in [dict(alpha=float("nan")), dict(alpha=0.8, trace="x.trace"), dict(x_search="fastest"), dict(x_max=0)]:
        try:
            specdse.optimize("h100-sxm", "llama-3.1-8b-instruct", "eagle3-chain", context=1024, **bad)
        except specdse.InputError:
            continue
        raise AssertionError(f"expected an InputError for {bad}")


def test_system_step():
    r = specdse.system_step("eagle-8xh100-nvlink", "llama-3.1-70b", x=4, context=2048)
    assert r["step_s"] > 0 and r["step_s"] >= r["target_s"]
    assert isinstance(r["devices"], pd.DataFrame) and len(r["devices"]) >= 2
    assert r["feasible"] == bool(r["devices"]["fits"].all())
    r8 = specdse.system_step("eagle-8xh100-nvlink", "llama-3.1-70b", x=64, context=2048)
    assert r8["step_s"] >= r["step_s"]  # more tokens per step never take less time


def test_many_calls_in_one_process_sim_engine():
    # SystemC runs every simulation in its own context: repeated calls give the same numbers.
    first = specdse.latency("v80", "llama-3.1-8b-instruct", x=[1, 16], context=1024, engine="sim")
    for _ in range(20):
        again = specdse.latency("v80", "llama-3.1-8b-instruct", x=[1, 16], context=1024, engine="sim")
        np.testing.assert_array_equal(first["t_verify_s"].to_numpy(), again["t_verify_s"].to_numpy())
    assert first["t_verify_s"][1] >= first["t_verify_s"][0]


def _long_call():
    return specdse.latency("v80", "llama-3.1-8b-instruct", x=range(1, 25), context=[512, 4096],
                           engine="sim", frame=False)


def test_gil_released_during_calls():
    # A Python thread keeps counting while specdse computes; with the GIL held it could not.
    t0 = time.perf_counter()
    expected = _long_call()
    single = time.perf_counter() - t0
    counter = [0]
    stop = threading.Event()

    def count():
        while not stop.is_set():
            counter[0] += 1

    th = threading.Thread(target=count)
    th.start()
    time.sleep(0.05)
    before = counter[0]
    t0 = time.perf_counter()
    _long_call()
    during = time.perf_counter() - t0
    progressed = counter[0] - before
    stop.set()
    th.join()
    assert during > 0.02, "call too short to tell"
    assert progressed > 1000, f"counter moved {progressed} times in {during:.3f} s: GIL held?"
    # Two threads calling concurrently both finish with the sequential result.
    results = [None, None]

    def work(k):
        results[k] = _long_call()

    ts = [threading.Thread(target=work, args=(k,)) for k in range(2)]
    for t in ts:
        t.start()
    for t in ts:
        t.join(timeout=max(60, 20 * single))
    assert all(not t.is_alive() for t in ts), "concurrent calls did not finish"
    for r in results:
        np.testing.assert_array_equal(r["t_verify_s"], expected["t_verify_s"])


def test_configs_by_name_path():
    by_name = specdse.hardware("v80")
    assert by_name.kind == "fpga" and by_name.peak_tflops > 0 and by_name.bandwidth_gbs > 0
    path = os.path.join(specdse._specdse.default_config_dir(), "hardware", "v80.yaml")
    assert specdse.hardware(path).bandwidth_gbs == by_name.bandwidth_gbs
    assert "v80" in specdse.configs("hardware") and "roofline" in specdse.engines()


def test_list_matches_cli():
    """specdse.list(kind) is `specdse list KIND`: the same rows, numbers as numbers."""
    cats = specdse.list()
    assert list(cats.columns) == ["category", "count", "holds"]
    assert "acceptance" in set(cats["category"]) and (cats["count"] > 0).all()
    hw = specdse.list("hardware")
    assert {"h100-sxm", "v80", "xeon-16c"} <= set(hw["name"])
    assert hw["peak_tflops"].dtype == np.float64 and (hw["peak_tflops"] > 0).all()
    assert (hw.loc[hw.name == "v80", "memory_gib"] == 63.3).all()  # the board's HBM and DDR4
    models = specdse.list("models")
    assert models["parameters"].dtype == np.int64 and "llama-3.1-8b-instruct" in set(models["name"])
    assert "gpu0-gpu7: rtx3090" in specdse.list("specpipe-8x3090-pcie")["devices"][0]
    if SPECDSE_EXE:
        import io
        r = subprocess.run([SPECDSE_EXE, "list", "hardware", "--format", "csv"], capture_output=True, text=True)
        assert r.returncode == 0, r.stderr
        cli = pd.read_csv(io.StringIO(r.stdout), comment="#")
        assert list(cli["name"]) == list(hw["name"]) and list(cli.columns) == list(hw.columns)
    try:
        specdse.list("h100")
        raise AssertionError("expected InputError")
    except specdse.InputError as e:
        assert "did you mean 'h100-sxm'" in str(e)
    # The builtin is untouched inside the module (specdse.latency turns ranges into lists).
    assert len(specdse.latency("v80", "llama-3.1-8b-instruct", x=range(1, 3), context=128)) == 2


def test_golden_gpu_measurements_match_cli():
    """specdse.golden reads the lent-GPU CSVs as `specdse golden --measured` does."""
    golden_dir = os.path.join(os.path.dirname(specdse._specdse.default_config_dir()), "notebooks_out", "golden")
    for name, key, hw in (("h100_sxm_torch_step_llama-3.1-8b_2026-11-26.csv", "graph_s", "h100-sxm"),
                          ("h100_sxm_flash_attention_2026-11-26.csv", "measured_s", "h100-sxm"),
                          ("h200_moe_layer_2026-11-29_loop.csv", "experts_touched", "h200")):
        path = os.path.join(golden_dir, name)
        df = specdse.golden(hw, path)
        assert len(df) > 0 and key in df.columns
        assert np.isfinite(df["predicted_s"]).all() and (df["predicted_s"] > 0).all()
        if SPECDSE_EXE:
            r = subprocess.run([SPECDSE_EXE, "golden", "--hw", hw, "--measured", path, "--format", "csv"],
                               capture_output=True, text=True)
            assert r.returncode == 0, r.stderr
            import io
            cli = pd.read_csv(io.StringIO(r.stdout.split("\n\n", 1)[0]), comment="#")
            assert len(cli) == len(df)
            np.testing.assert_allclose(df["predicted_s"].to_numpy(), cli["predicted_s"].to_numpy(), rtol=1e-7)
    try:
        specdse.golden("h100-sxm", "/nonexistent/specdse.csv")
        raise AssertionError("expected InputError")
    except specdse.InputError as e:
        assert "cannot open" in str(e)


def test_optimize_carries_its_footer_and_refuses_wrong_types_as_input_errors():
    best, _ = specdse.optimize("v80", "llama-3.1-8b-instruct", "longspec-tree", context=[1024])
    same = specdse.scenario.tree_sd(hw="v80", model="llama-3.1-8b-instruct", algorithm="longspec-tree", context=1024)
    # The footer and its fields, as the same scenario run (and `optimize --format json`) has them.
    assert best.attrs["footer"] == same.attrs["footer"] and best.attrs["validation"] == same.attrs["validation"]
    # --stack from Python: the same numbers as the command with it, and not those without it.
    plain, _ = specdse.optimize("h100-sxm", "llama-3.1-8b-instruct", "eagle3-chain", context=1024)
    stacked, _ = specdse.optimize("h100-sxm", "llama-3.1-8b-instruct", "eagle3-chain", context=1024,
                                  stack="vllm-cuda-graph")
    assert stacked["ar_tokens_per_s"][0] != plain["ar_tokens_per_s"][0]
    if SPECDSE_EXE:
        sys.dont_write_bytecode = True  # no __pycache__ in the source tree
        sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
        from cli_compare import assert_same_table, cli_csv
        cli = cli_csv("optimize", "--hw", "h100-sxm", "--model", "llama-3.1-8b-instruct", "--algorithm",
                      "eagle3-chain", "--context", "1024", "--stack", "vllm-cuda-graph")
        assert_same_table(stacked, cli, ["ar_tokens_per_s", "best_x", "best_tokens_per_s"])
    bad = [lambda: specdse.optimize("v80", "llama-3.1-8b-instruct", None),
           lambda: specdse.optimize("v80", "llama-3.1-8b-instruct", 3),
           lambda: specdse.optimize(5, "llama-3.1-8b-instruct", "longspec-tree"),
           lambda: specdse.optimize("v80", "llama-3.1-8b-instruct", "longspec-tree", source_table=3),
           lambda: specdse.optimize("v80", "llama-3.1-8b-instruct", "longspec-tree", aat_from=3),
           lambda: specdse.latency("v80", "llama-3.1-8b-instruct", draft=7)]
    for call in bad:
        try:
            call()
        except specdse.InputError as e:
            assert "\n" not in str(e), str(e)  # one line, not a binding's signature dump
        else:
            raise AssertionError("expected an InputError")


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
