"""import specdse: every registered scenario through specdse.scenario, equal to the CLI's
`specdse scenario NAME --format csv` for the same inputs; the registry drives the Python side
(a scenario registered in C++ is callable without binding code). Run by CTest.
"""
import json
import os
import sys
import tempfile

sys.dont_write_bytecode = True  # importing cli_compare must not write __pycache__ into the source tree

import numpy as np
import pandas as pd

import specdse
from cli_compare import SPECDSE_EXE, assert_same_table, cli_csv, cli_error, run_tests

# Small inputs per scenario (fast runs); the same ones go to the CLI.
CASES = {
    "tree-sd": dict(hw="v80", model="llama-3.1-8b-instruct", algorithm="longspec-tree", context=[1024, 4096],
                    params={"x-max": 64}),
    "specpipe": dict(model="llama-3.1-70b", params={"w": [16, 64], "k": 16, "tokens": 200}),
    "duodecoding": dict(model="llama-2-7b", params={"tokens": 256}),
    "chain-sd": dict(model="llama-2-7b", context=512,
                     params={"system": "duodecoding-a800-xeon", "draft": "llama-68m", "gamma": [2, 4], "alpha": 0.8}),
    "eagle-dispatcher": dict(hw="h100-sxm", model="llama-3.1-8b-instruct", algorithm="eagle3-tree", context=1024,
                             params={"batch": [1, 8]}),
    "plan": dict(hw="h100-sxm", model="llama-3.1-8b-instruct", context=1024, params={"alpha": 0.8}),
    "serve": dict(hw="h100-sxm", model="llama-3.1-8b-instruct", params={"rate": [1, 8], "duration-s": 20}),
}


def _cli_args(name, case):
    args = ["scenario", name]
    for k in ["hw", "model", "algorithm"]:
        if k in case:
            args += [f"--{k}", case[k]]
    if "context" in case:
        c = case["context"]
        args += ["--context", ",".join(map(str, c)) if isinstance(c, list) else c]
    for k, v in case["params"].items():
        args += ["--param", f"{k}=" + (",".join(map(str, v)) if isinstance(v, list) else str(v))]
    return args


def test_registry_listed():
    s = specdse.scenarios()
    assert {"tree-sd", "specpipe", "duodecoding", "eagle-dispatcher"} <= set(s["scenario"])
    for name, params in zip(s["scenario"], s["params"]):
        assert hasattr(specdse.scenario, name.replace("-", "_")), name
        doc = getattr(specdse.scenario, name.replace("-", "_")).__doc__
        for key in params:
            assert key.replace("-", "_") in doc, (name, key)
    assert {n.replace("-", "_") for n in s["scenario"]} <= set(dir(specdse.scenario))


def test_every_scenario_equals_cli():
    for name in specdse.scenarios()["scenario"]:
        case = CASES.get(name)
        assert case is not None, f"scenario {name} has no test case here: add one to CASES"
        py = specdse.scenario(name, **{k: v for k, v in case.items() if k != "params"}, params=case["params"])
        assert len(py) > 0 and py.attrs.get("footer") is not None, name
        for c in py.columns:  # no NaN or inf where the CLI prints a number
            if py[c].dtype == np.float64:
                assert np.isfinite(py[c].dropna()).all(), (name, c)
        cli = cli_csv(*_cli_args(name, case))
        if cli is not None:
            assert_same_table(py, cli, list(cli.columns[:3]))


def test_attribute_call_equals_named_call():
    a = specdse.scenario.tree_sd("v80", "llama-3.1-8b-instruct", "longspec-tree", 2048, x_max=48)
    b = specdse.scenario("tree-sd", hw="v80", model="llama-3.1-8b-instruct", algorithm="longspec-tree",
                         context=2048, params={"x-max": "48"})
    pd.testing.assert_frame_equal(a, b)
    assert a["best_x"].iloc[0] <= 48


def test_scenarios_are_top_level_functions_with_the_cli_names():
    # specdse.chain_sd(...) is specdse.scenario.chain_sd(...): keyword arguments are the CLI's
    # flags (--draft-device -> draft_device), and the numbers are the generated subcommand's.
    kw = dict(model="llama-2-7b", context=512, system="duodecoding-a800-xeon", draft="llama-68m", gamma=[2, 4],
              alpha=0.8)
    a = specdse.chain_sd(**kw)
    pd.testing.assert_frame_equal(a, specdse.scenario.chain_sd(**kw))
    assert list(a["gamma"]) == [2, 4] and a["best"].dtype == bool and a["best"].sum() == 1
    same = specdse.chain_sd(**kw, draft_device="gpu")
    assert (same["t_transfer_s"] == 0).all()
    if SPECDSE_EXE:
        cli = cli_csv("chain-sd", "--model", "llama-2-7b", "--context", "512", "--system", "duodecoding-a800-xeon",
                      "--draft", "llama-68m", "--gamma", "2,4", "--alpha", "0.8")
        assert_same_table(a, cli, list(cli.columns[:3]))
    for name in specdse.scenarios()["scenario"]:
        assert callable(getattr(specdse, name.replace("-", "_"))), name


def test_tree_sd_equals_optimize():
    sc = specdse.scenario.tree_sd(hw="v80", model="llama-3.1-8b-instruct", algorithm="longspec-tree",
                                  context=[1024, 8192])
    best, _ = specdse.optimize("v80", "llama-3.1-8b-instruct", "longspec-tree", context=[1024, 8192])
    assert list(sc["best_x"]) == list(best["best_x"])
    for c in ["ar_tokens_per_s", "best_tokens_per_s", "speedup", "t_verify_s"]:
        np.testing.assert_allclose(sc[c], best[c], rtol=1e-12, err_msg=c)


def test_specpipe_properties():
    df = specdse.scenario.specpipe(model="llama-3.1-70b", w=[16, 64], k=16, tokens=200, seed=2)
    sp = df[df.method == "specpipe"]
    assert len(sp) == 2 and ((sp["hit_rate"] >= 0) & (sp["hit_rate"] <= 1)).all()
    assert (df["tbt_p50_s"] <= df["tbt_p99_s"] + 1e-15).all()
    pp = df[df.method == "pp"].iloc[0]
    np.testing.assert_allclose(df["speedup_vs_pp"], pp["tbt_mean_s"] / df["tbt_mean_s"], rtol=1e-9)
    # Constant draft confidence (the model before the calibrated one) through the scenario: at
    # w = 1 only the draft's first choice is in a level, so the hit rate is about H(1) = 0.396 of
    # the curve with the shared slope (no level-accuracy calibration).
    const = specdse.scenario.specpipe(model="llama-3.1-70b", w=1, k=16, tokens=400, seed=2, confidence="constant",
                                      level_accuracy="none")
    assert abs(const[const.method == "specpipe"]["hit_rate"].iloc[0] - 0.396) < 0.1
    # Same seed: the same run, in a second call too.
    pd.testing.assert_frame_equal(df, specdse.scenario.specpipe(model="llama-3.1-70b", w=[16, 64], k=16,
                                                                tokens=200, seed=2))


def _raises(f, *needles):
    try:
        f()
    except specdse.InputError as e:
        msg = str(e)
        assert msg and "\n" not in msg, msg
        for n in needles:
            assert n in msg, (n, msg)
        return msg
    raise AssertionError("expected specdse.InputError")


def test_bad_input_matches_cli_message():
    checks = [
        (lambda: specdse.scenario("no-such-scenario"), ["scenario", "no-such-scenario"], ["no-such-scenario"]),
        (lambda: specdse.scenario("tree-sd", model="llama-3.1-8b-instruct", algorithm="longspec-tree", context=1024),
         ["scenario", "tree-sd", "--model", "llama-3.1-8b-instruct", "--algorithm", "longspec-tree", "--context",
          "1024"], ["--hw"]),
        (lambda: specdse.scenario("tree-sd", params={"nope": 1}), ["scenario", "tree-sd", "--param", "nope=1"],
         ["nope"]),
        (lambda: specdse.scenario.specpipe(model="llama-3.1-70b", params={"tokens": "many"}),
         ["scenario", "specpipe", "--model", "llama-3.1-70b", "--param", "tokens=many"], ["tokens", "many"]),
        (lambda: specdse.scenario.specpipe(model="llama-3.1-70b", confidence="mean"),
         ["scenario", "specpipe", "--model", "llama-3.1-70b", "--param", "confidence=mean"], ["confidence", "mean"]),
        (lambda: specdse.chain_sd(model="llama-2-7b", context=512, gamma=4294967297),
         ["scenario", "chain-sd", "--model", "llama-2-7b", "--context", "512", "--param", "gamma=4294967297"],
         ["gamma", "4294967297"]),
    ]
    for call, cli_args, needles in checks:
        msg = _raises(call, *needles)
        if SPECDSE_EXE:
            rc, err = cli_error(*cli_args)
            assert rc == 2 and err == "specdse: error: " + msg, (err, msg)
    _raises(lambda: specdse.scenario.tree_sd(hw="v80", no_such_param=3), "no-such-param")
    # A keyword is a typed value: text for a number (even "48"), or for a switch (even "false"),
    # is refused naming the keyword; params= keeps the command line's text.
    _raises(lambda: specdse.scenario.specpipe(model="llama-3.1-70b", tokens="many"), "tokens", "an integer", "many")
    _raises(lambda: specdse.scenario.tree_sd(hw="v80", model="llama-3.1-8b-instruct", algorithm="longspec-tree",
                                             context=1024, x_max="48"), "x_max", "an integer", "48")
    _raises(lambda: specdse.serve(hw="h100-sxm", model="llama-3.1-8b-instruct", rate=[1], duration_s="5"),
            "duration_s", "a number")
    _raises(lambda: specdse.scenario.tree_sd(hw="v80", model="llama-3.1-8b-instruct", algorithm="longspec-tree",
                                             context=1024, measured_only="false"), "measured_only", "True or False")
    # A parameter given both as a keyword and in params= is refused, naming both.
    _raises(lambda: specdse.scenario("tree-sd", hw="v80", model="llama-3.1-8b-instruct", algorithm="longspec-tree",
                                     context=1024, x_max=64, params={"x-max": 32}), "x_max=64", "x-max", "once")
    # params= takes the keyword spelling too, and None is "not given" (the default applies).
    base = dict(hw="v80", model="llama-3.1-8b-instruct", algorithm="longspec-tree", context=1024)
    by_keyword = specdse.scenario("tree-sd", **base, x_max=16)
    assert by_keyword.equals(specdse.scenario("tree-sd", **base, params={"x_max": 16}))
    assert specdse.scenario("tree-sd", **base, alpha=None).equals(specdse.scenario("tree-sd", **base))
    # numpy booleans are booleans.
    flag = specdse.scenario("tree-sd", hw="v80", model="llama-3.1-8b-instruct", algorithm="longspec-tree",
                            context=1024, measured_only=np.bool_(True))
    assert len(flag) == 1
    try:
        specdse.scenario.no_such_scenario
    except AttributeError as e:
        assert "tree-sd" in str(e)
    else:
        raise AssertionError("expected AttributeError")


def test_plan_attrs_hold_the_footer_fields_and_rank_stays_integer():
    df = specdse.plan(system="specpipe-8x3090-pcie", model="llama-3.1-70b")
    # Ranked rows have integer ranks; unranked rows have none (pandas' nullable Int64, not floats).
    assert str(df["rank"].dtype) == "Int64", df["rank"].dtype
    assert df["rank"].dropna().tolist() == list(range(1, 6))
    assert df["rank"].isna().sum() == len(df) - 5
    assert df.attrs["winner"].startswith("SpecPipe")
    assert df.attrs["engine"] == "roofline" and isinstance(df.attrs["caveats"], list)
    assert df.attrs["validation"] and "footer" in df.attrs
    if SPECDSE_EXE:
        import json
        import subprocess
        r = subprocess.run([SPECDSE_EXE, "plan", "--system", "specpipe-8x3090-pcie", "--model", "llama-3.1-70b",
                            "--format", "json"], capture_output=True, text=True, check=True)
        j = json.loads(r.stdout)
        for key in ("winner", "runner_up", "bands_overlap", "engine", "caveats", "borrowed", "validation"):
            assert df.attrs[key] == j[key], key


def test_nested_parameter_lists_are_refused_not_flattened():
    for kw in (dict(gamma=[[2, 4], [8]]), dict(gamma=np.array([[2, 4]])), dict(gamma={2: 4})):
        try:
            specdse.scenario("chain-sd", hw="h100-sxm", model="llama-3.1-8b-instruct", context=1024,
                             draft="llama-3.2-1b", alpha=0.7, **kw)
        except specdse.InputError as e:
            assert "gamma" in str(e), str(e)
        else:
            raise AssertionError(f"expected an InputError for {kw}")


def test_a_setting_given_twice_is_refused_whatever_the_values():
    # Two spellings in params=, a keyword and params=, a workload file's setting and the same
    # keyword at its default, a rate with a batch: each an InputError naming the setting.
    tree = dict(hw="v80", model="llama-3.1-8b-instruct", algorithm="longspec-tree", context=1024)
    _raises(lambda: specdse.scenario("tree-sd", params={"x_max": 8, "x-max": 16}, **tree), "x-max", "once")
    _raises(lambda: specdse.scenario("eagle-dispatcher", hw="h100-sxm", model="llama-3.1-8b-instruct",
                                     context=1024, batch=[1, 2], params={"batch": [4]}), "batch", "once")
    _raises(lambda: specdse.scenario("tree-sd", engine="sim", params={"engine": "roofline"}, **tree), "engine")
    with tempfile.TemporaryDirectory() as d:
        wl = os.path.join(d, "wl.yaml")
        with open(wl, "w") as f:
            f.write("context: 1024\nbatch: 4\ntask: govreport\n")
        plan = dict(hw="h100-sxm", model="llama-3.1-8b-instruct", workload=wl)
        _raises(lambda: specdse.plan(batch=1, **plan), "batch")
        _raises(lambda: specdse.plan(task="govreport", **plan), "task")
    _raises(lambda: specdse.plan(hw="h100-sxm", model="llama-3.1-8b-instruct", context=1024, request_rate=1, batch=1),
            "rate", "batch")
    # A parameter of one value takes no list, even of one value.
    _raises(lambda: specdse.scenario("tree-sd", x_max=[8], **tree), "x-max", "one value")


def test_serve_from_python_names_where_speculation_stops_paying():
    df = specdse.serve(hw="h100-sxm", model="llama-3.1-8b-instruct", rate=[1, 64], duration_s=20)
    assert list(df["method"]) == ["no SD", "eagle3-chain", "no SD", "eagle3-chain"]
    assert df["finished"].dtype == np.int64 and (df["finished"] == df["requests"]).all()
    assert "sd_stops_paying_at_per_s" in df.attrs and df.attrs["workload"] == "sharegpt-llama3.1-8b"
    assert ((df["littles_law_ratio"] - 1).abs() < 1e-6).all()


def test_serve_on_a_system_and_with_a_draft_model_from_python():
    tp = specdse.serve(system="eagle-8xh100-nvlink", model="llama-3.1-70b", rate=1, duration_s=10, method="none")
    assert list(tp["method"]) == ["no SD"] and (tp["finished"] == tp["requests"]).all()
    assert tp.attrs["kv_capacity_tokens"] > 1_000_000
    sps = specdse.serve(hw="h100-sxm", model="llama-3.1-8b-instruct", method="draft-model", draft="llama-3.2-1b",
                        alpha=0.8, k=4, rate=[1], duration_s=10)
    assert list(sps["method"]) == ["no SD", "draft-model"]
    assert sps.attrs["kv_capacity_tokens"] < sps.attrs["kv_capacity_tokens_plain"]
    closed = specdse.serve(hw="h100-sxm", model="llama-3.1-8b-instruct", arrivals="batch:8", method="none")
    assert int(closed["finished"].iloc[0]) == 8
    # The target's own MTP modules at their published acceptance (MiMo-7B: 0.9 for one token).
    mtp = specdse.serve(hw="h100-sxm", model="mimo-7b", method="mtp", k=1, rate=[1], duration_s=20)
    assert list(mtp["method"]) == ["no SD", "mtp"]
    assert abs(float(mtp["tokens_per_step"].iloc[1]) - 1.9) < 0.05
    _raises(lambda: specdse.serve(hw="h100-sxm", model="mimo-7b", method="mtp", k=2), "published for 1 draft position")
    # A pipeline keeps a step per stage in flight unless told one at a time: smaller batches, faster tokens.
    piped = [specdse.serve(system="specpipe-8x3090-pcie", model="llama-3.1-70b", method="none", rate=[2],
                           duration_s=60, virtual_engines=v) for v in (0, 1)]
    assert float(piped[0]["tpot_p50_ms"].iloc[0]) < 0.7 * float(piped[1]["tpot_p50_ms"].iloc[0])
    _raises(lambda: specdse.serve(system="specpipe-8x3090-pcie", model="llama-3.1-70b", virtual_engines=9),
            "at most one step per stage")
    # SpecPipe-DB on the same pipeline: alone, well under plain decoding's time per token.
    db = specdse.serve(system="specpipe-8x3090-pcie", model="llama-3.1-70b", method="specpipe-db", draft="llama-3.2-1b",
                       max_num_seqs=8, rate=[0.002], duration_s=5000)
    assert list(db["method"]) == ["no SD", "specpipe-db"]
    assert float(db["tpot_p50_ms"].iloc[1]) < 0.3 * float(db["tpot_p50_ms"].iloc[0])
    # A measured acceptance trace replayed (one record written here, yields of 4): 4 tokens a step at k = 3.
    path = os.path.join(tempfile.mkdtemp(), "acceptance.jsonl")
    with open(path, "w") as f:
        f.write(json.dumps({"prompt_token_ids": list(range(256)), "acc_eagle": {"acc_len": [4] * 101}}) + "\n")
    replay = specdse.serve(hw="h100-sxm", model="llama-3.1-8b-instruct", acceptance_trace=path, arrivals="batch:4")
    assert abs(float(replay["tokens_per_step"].iloc[1]) - 4) < 1e-9


if __name__ == "__main__":
    sys.exit(run_tests(globals()))
