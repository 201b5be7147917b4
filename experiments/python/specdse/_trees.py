"""Token trees, acceptance traces, speculation windows and window policies: the
``specdse.trace_gen``, ``tree_search``, ``tree``, ``window`` and ``policies`` functions."""

import builtins
import operator
import os

import numpy as np

from . import _specdse
from . import (_config_dir, _flag, _frame, _ints, _one_int, _optional_hw, _real, _short, _spec_path,  # defined before
               _text)  # this module is imported
from ._specdse import InputError, Model


# The fixed shape the width-first and depth-first baselines fill (nodes per depth), as
# `specdse tree-search --baseline-shape` defaults to.
PAPER_BASELINE_SHAPE = "4 16 16 16 16 16"


def _trace_arg(trace, what):
    # A path stays a path (the C++ reader streams it); rank paths go over as lists of ints.
    if trace is None:
        return None
    if isinstance(trace, (str, os.PathLike)):
        return os.fspath(trace)
    try:
        paths = [[operator.index(r) for r in p] for p in trace]
        if any(isinstance(r, (bool, np.bool_)) for p in trace for r in p):
            raise TypeError("a boolean rank")  # True is an int to operator.index; as a rank it is a slip
        return paths
    except (TypeError, ValueError):  # operator.index refuses 1.5 and "1" instead of truncating them
        raise InputError(f"{what}: expected a trace file path or a sequence of rank paths (sequences of "
                         f"integers), got {type(trace).__name__}") from None


def _floats(values, what):
    if values is None:
        return []
    if isinstance(values, str):
        try:
            return [float(v) for v in values.split(",")]
        except ValueError:
            raise InputError(f"{what}: expected comma-separated numbers, got '{values}'") from None
    if isinstance(values, (bool, np.bool_)):
        raise InputError(f"{what}: expected a number or a sequence of numbers, got {values!r}")
    if isinstance(values, (int, float, np.number)):
        return [float(values)]
    try:
        if any(isinstance(v, (bool, np.bool_, str, bytes)) for v in values):
            raise ValueError("not a number")
        arr = np.asarray(values, dtype=float)
    except (ValueError, TypeError):  # ragged nesting, text or objects
        arr = None
    if arr is None or arr.ndim != 1:
        raise InputError(f"{what}: expected a number or a sequence of numbers, got {_short(values)}")
    return arr.tolist()


def _one_float(value, what):
    values = _floats(value, what)
    if len(values) != 1:
        raise InputError(f"{what}: expected one number, got {_short(value)}")
    return values[0]


def _bool_columns(cols, names):
    for n in names:
        if n in cols:
            cols[n] = np.asarray(cols[n]).astype(bool)
    return cols


def _seed(value):
    # The generators take an unsigned 64-bit seed; the command line's is a signed 64-bit integer.
    seed = _one_int(value, "seed")
    if seed < 0:
        raise InputError(f"seed: expected an integer >= 0, got {_short(value)}")
    return seed


def trace_gen(acceptance_vector, lines, seed=0, depth_decay=1.0, drift_to=None, drift_period=0, max_depth=64,
              output=None):
    """A seeded synthetic acceptance trace, as ``specdse trace-gen``.

    At every accepted node its k-th ranked child is accepted with probability
    ``acceptance_vector[k]`` (times ``depth_decay ** (depth - 1)``), optionally drifting to
    ``drift_to`` over the trace (or with period ``drift_period`` lines).

    Returns the accepted rank paths, one tuple per iteration (pass them to ``tree_search``);
    with ``output`` writes the CLI's trace file (same bytes for the same seed) and returns None.
    A returned list holds at most 10^7 lines; ``output`` streams any length to the file.
    """
    return _specdse.trace_gen(_floats(acceptance_vector, "acceptance_vector"), _one_int(lines, "lines"),
                              _seed(seed), _one_float(depth_decay, "depth_decay"),
                              _floats(drift_to, "drift_to"), _one_int(drift_period, "drift_period"),
                              _one_int(max_depth, "max_depth"), os.fspath(output or ""))


def tree_methods():
    """Registered token-tree methods: {name: what it needs beyond a trace ('' for nothing)}."""
    return dict(_specdse.tree_methods())


def tree_search(trace, *, validation=None, validation_fraction=0.0, max_nodes=128, acceptance_vector=None,
                baseline_shape=PAPER_BASELINE_SHAPE, hw=None, model=None, algorithm=None, context=None,
                batch=1, engine="roofline", paths=False, frame=True, config_dir=None):
    """Token trees for every verification length x = 2..max_nodes, as ``specdse tree-search``.

    trace: a trace file (one accepted rank path per line) or the rank paths themselves (e.g. from
    ``trace_gen``). Every registered tree method (``tree_methods()``: prior-score, the
    width-first / depth-first baselines over ``baseline_shape``, and sequoia-dp when
    ``acceptance_vector`` is given) gives one row per tree: method, x, draft_nodes, depth,
    tree_shape, aat (in sample); validation_aat with ``validation`` (another trace) or
    ``validation_fraction`` (the last fraction of ``trace`` held out); model_aat with
    ``acceptance_vector``. With ``hw``, ``model``, ``algorithm`` and ``context``: t_verify_s,
    t_draft_s, p_eff_tokens_per_s, best (each method's best tree) and the hardware-aware rows
    (depth_bound: the depth limit chosen for that x, 0 = none) for ``batch`` sequences per step,
    each verifying its own tree (``tree-search --batch``); ``df.attrs["summary"]`` then holds
    AD's tokens/s, the paper's x-only choice, the hardware-aware choice and its gain.
    ``paths=True`` adds rank_paths: each tree's nodes as rank-path tuples, parents first.
    ``frame=False`` returns (columns, summary).
    """
    h = _optional_hw(hw, config_dir)
    with _spec_path(model, Model) as m:
        cols, summary = _specdse.tree_search(
            _trace_arg(trace, "trace"), _trace_arg(validation, "validation"),
            _real(validation_fraction, "validation_fraction"), _one_int(max_nodes, "max_nodes"), _floats(acceptance_vector, "acceptance_vector"), str(baseline_shape), h, m,
            algorithm or "", -1 if context is None else _one_int(context, "context"), _one_int(batch, "batch"), engine,
            _config_dir(config_dir), _flag(paths, "paths"))
    _bool_columns(cols, ["best"])
    if not frame:
        return cols, summary
    df = _frame(cols, True)
    if "depth_bound" in df:
        df["depth_bound"] = df["depth_bound"].astype("Int64")  # <NA>: no depth bound searched
    df.attrs["summary"] = summary
    return df


def tree(trace, x, method="prior-score", **kwargs):
    """The token tree of one method for verification length x, as rank-path tuples (parents first).

    ``method`` is a registered tree method or "hardware-aware" (needs hw, model, algorithm,
    context); other keyword arguments as ``tree_search``.
    """
    x = _one_int(x, "x")
    if x < 2:
        raise InputError(f"tree: x: expected a verification length >= 2, got {x}")
    cols, _ = tree_search(trace, max_nodes=x, paths=True, frame=False, **kwargs)
    for m, xx, p in zip(cols["method"], cols["x"], cols["rank_paths"]):
        if m == method and xx == x:
            return p
    known = ", ".join(sorted(set(cols["method"])))
    raise InputError(f"tree: method: expected one of {known} with a tree of x = {x}, got '{method}'")


# ---- speculation window and window policies (paper 001) ---------------------------------------

def window(alpha=None, cost_ratio=None, *, acceptance=None, t_verify_s=None, hw=None, model=None, draft=None, context=None, gamma_max=16,
           map=False, engine="roofline", frame=True, config_dir=None):
    """Expected tokens and tokens/s per speculation window gamma of a chain draft, as ``specdse window``.

    Either paper 001's idealisation (``cost_ratio`` c: draft time per token = c * T_v, T_v =
    ``t_verify_s``, 1 s by default) or latencies from an engine (``hw``, ``model``, ``draft`` — a chain algorithm
    or a draft model — and ``context``). ``alpha`` and ``cost_ratio`` / ``context`` may be lists:
    every combination is evaluated. ``best`` marks the best gamma; ``map=True`` gives only gamma*
    (paper 001 Fig. 5). ``acceptance`` (a process band's name or path) replaces ``alpha``: each of
    the band's fits gives the expected tokens per window (column ``acceptance`` names the fit).
    """
    h = _optional_hw(hw, config_dir)
    ctx = [] if context is None else _ints(context, "context")
    with _spec_path(model, Model) as m, _spec_path(draft, Model) as d:
        cols = _specdse.window([] if alpha is None else _floats(alpha, "alpha"), os.fspath(acceptance or ""),
                               _floats(cost_ratio, "cost_ratio"), 1.0 if t_verify_s is None else _real(t_verify_s, "t_verify_s"),
                               t_verify_s is not None, h, m,
                               d, ctx, _one_int(gamma_max, "gamma_max"), _flag(map, "map"),
                               _text(engine, "engine", "roofline"), _config_dir(config_dir))
    return _frame(_bool_columns(cols, ["best"]), frame)


def window_policies():
    """Registered window-policy families, in output order."""
    return _specdse.window_policy_names()


def _segments(synthetic):
    # "2000:0.9,2000:0.5" as the CLI takes it, or [(2000, 0.9), (2000, 0.5, 0.3)].
    if synthetic is None or isinstance(synthetic, str):
        return synthetic or ""
    return ",".join(":".join(repr(v) if isinstance(v, float) else str(v) for v in seg) for seg in synthetic)


def policies(trace=None, *, synthetic=None, acceptance=None, iterations=None, seed=1, hw=None, model=None, draft=None, context=None, cost_ratio=None,
             gamma_max=8, gamma_min=1, gamma_init=4, history=6, acc_max=0.95, prior_alpha=0.5, q_reward="both",
             policies=None, q_learning_rate=0.1, q_discount=0.0, q_epsilon=0.1, q_optimistic=False,
             engine="roofline", frame=True, config_dir=None):
    """Paper 001's window policies replayed over a chain trace, as ``specdse policies``.

    The trace is a file (``trace``) or generated (``synthetic``: "ITERATIONS:ACCURACY[:CACHE_HIT_P],.."
    or a list of such tuples; or ``acceptance``: a process band's name or path, whose central fit
    draws ``iterations`` iterations, 4000 by default), seeded by ``seed``. Latencies from ``cost_ratio`` (T_v = 1 s) or an
    engine (``hw``, ``model``, ``draft``, ``context``). ``policies`` picks families (default: every
    registered one, ``window_policies()``). One row per policy: iterations, tokens, time_s,
    tokens_per_s, acceptance_rate, mean_gamma, speedup (over AD). ``df.attrs["info"]`` names the
    trace and the latencies. ``frame=False`` returns (columns, info).
    """
    h = _optional_hw(hw, config_dir)
    fams = [] if policies is None else ([policies] if isinstance(policies, str) else builtins.list(policies))
    if any(not isinstance(p, str) for p in fams):
        raise InputError(f"policies: expected a family name or a list of names, got {_short(policies)}")
    fams = [f for p in fams for f in p.split(",")]
    with _spec_path(model, Model) as m, _spec_path(draft, Model) as d:
        cols, info = _specdse.policies(
            None if trace is None else os.fspath(trace), _segments(synthetic), os.fspath(acceptance or ""),
            -1 if iterations is None else _one_int(iterations, "iterations"), _seed(seed), h, m, d,
            -1 if context is None else _one_int(context, "context"),
            -1.0 if cost_ratio is None else _real(cost_ratio, "cost_ratio"),
            _one_int(gamma_max, "gamma_max"), _one_int(gamma_min, "gamma_min"), _one_int(gamma_init, "gamma_init"),
            _one_int(history, "history"), _real(acc_max, "acc_max"), _real(prior_alpha, "prior_alpha"),
            _text(q_reward, "q_reward"), fams, _real(q_learning_rate, "q_learning_rate"), _real(q_discount, "q_discount"),
            _real(q_epsilon, "q_epsilon"), _flag(q_optimistic, "q_optimistic"),
            _text(engine, "engine", "roofline"), _config_dir(config_dir))
    if not frame:
        return cols, info
    df = _frame(cols, True)
    df.attrs["info"] = info
    return df


# ---- scenarios (search/scenarios/scenario.hpp): specdse/_scenarios.py ---------------------------
