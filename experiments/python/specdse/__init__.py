"""specdse from Python: latency engines, AAT fits, the x optimiser, token-tree search, speculation
windows and window policies, every registered scenario, system steps and sweeps.

    import specdse
    hw = specdse.hardware("v80")                 # a name, a YAML path, or a dict
    m = specdse.model("llama-3.1-8b-instruct")
    df = specdse.latency(hw, m, x=range(1, 129), context=[1024, 16384])
    best, curve = specdse.optimize(hw, m, "longspec-tree", context=[1024])
    trace = specdse.trace_gen([0.6, 0.1, 0.05], lines=2000, seed=1)
    trees = specdse.tree_search(trace, max_nodes=32, hw=hw, model=m, algorithm="longspec-tree", context=1024)
    gam = specdse.window(alpha=0.8, cost_ratio=[0.05, 0.2])
    pol = specdse.policies(synthetic="2000:0.9,2000:0.5", cost_ratio=0.1)
    specdse.scenarios()                          # the registered scenarios and their parameters
    specdse.list("hardware")                     # what there is to name, as `specdse list`
    sp = specdse.scenario.specpipe(model="llama-3.1-70b", w=[16, 64], k=16, tokens=200)
    rows = specdse.sweep("configs/sweeps/compute_bandwidth_ratio.yaml", threads=2)

Results are pandas DataFrames (``frame=False`` gives the dict of numpy columns they are
built from). Bad inputs raise ``specdse.InputError`` (a ValueError) with the CLI's one-line
message. Calls release the GIL, so threads calling specdse run in parallel.
"""

import builtins
import contextlib
import json
import os
import tempfile

import numpy as np

from . import _specdse
from ._specdse import Hardware, InputError, Model, System

__all__ = [
    "Hardware", "Model", "System", "InputError", "hardware", "model", "system", "configs", "engines",
    "latency", "fit", "optimize", "golden", "system_step", "sweep", "trace_gen", "tree_methods", "tree_search", "tree",
    "window", "window_policies", "policies", "scenarios", "scenario",
]


def _config_dir(config_dir):
    return "" if config_dir is None else os.fspath(config_dir)


@contextlib.contextmanager
def _dict_file(d, what):
    # JSON is YAML, so a dict goes through the same loader (and the same checks) as a file: a
    # temporary one that lives for the call. Its name means nothing to the caller, so an error
    # that names it names the dict instead.
    fd, path = tempfile.mkstemp(prefix=f"specdse-{what}-", suffix=".yaml")
    try:
        with os.fdopen(fd, "w") as f:
            json.dump(d, f)
        try:
            yield path
        except InputError as e:
            text = str(e)
            if path not in text:
                raise
            raise InputError(text.replace(path, f"{what} (a dict)")) from None
    finally:
        os.unlink(path)


def _from_dict(loader, d, config_dir, what):
    with _dict_file(d, what) as path:
        return loader(path, _config_dir(config_dir))


def _load(loader, cls, spec, config_dir, what):
    if isinstance(spec, cls):
        return spec
    if isinstance(spec, dict):
        return _from_dict(loader, spec, config_dir, what)
    if isinstance(spec, (str, os.PathLike)):
        return loader(os.fspath(spec), _config_dir(config_dir))
    raise TypeError(f"{what}: expected a name, a YAML path, a dict or a specdse.{cls.__name__}, "
                    f"got {type(spec).__name__}")


def hardware(spec, config_dir=None):
    """A hardware config: name (configs/hardware), path to a YAML file, or a dict of its keys."""
    return _load(_specdse.load_hardware, Hardware, spec, config_dir, "hardware")


def model(spec, config_dir=None):
    """A model config: name (``NAME@FORMAT`` for a weight format), YAML path, or dict."""
    return _load(_specdse.load_model, Model, spec, config_dir, "model")


# `model` is also a parameter name of the calls below (the CLI's --model): they load through this.
_load_model = model


def system(spec, config_dir=None):
    """A system config (configs/systems): name, YAML path, or dict."""
    return _load(_specdse.load_system, System, spec, config_dir, "system")


def configs(folder="hardware", config_dir=None):
    """Config names in a folder: hardware, models, algorithms, systems, ..."""
    return _specdse.config_names(folder, _config_dir(config_dir))


def list(what="", frame=True, config_dir=None):  # noqa: A001 (the CLI's name; builtins.list inside this module)
    """What there is to name, as ``specdse list WHAT``: ``what`` is a category (models, hardware,
    systems, links, stacks, algorithms, acceptance, scenarios; "" for the categories with counts)
    or one name. One row each: name, description and the category's facts. Not in ``__all__``, so
    ``from specdse import *`` leaves the builtin alone."""
    return _frame(_specdse.list_configs(what, _config_dir(config_dir)), frame)


def engines():
    """Registered latency engine names."""
    return _specdse.engine_names()


# The C++ side's integers are 64-bit: a larger Python int is refused here in one line.
_INT64 = (-(2 ** 63), 2 ** 63 - 1)


def _ints(values, what):
    # A 0-d array is its one value.
    if isinstance(values, np.ndarray) and values.ndim == 0:
        values = values[()]
    # True is an int to Python; as a batch or a context it is a slip, not 1.
    if isinstance(values, (bool, np.bool_)):
        raise InputError(f"{what}: expected an integer, got {values!r}")
    if isinstance(values, (int, np.integer)):
        if not _INT64[0] <= int(values) <= _INT64[1]:
            raise InputError(f"{what}: expected an integer of at most 64 bits, got {values!r}")
        return [int(values)]
    # A mapping or a set iterates its keys in no meaningful order: not a list of values.
    if (isinstance(values, (str, bytes, dict, set, frozenset))
            or not (isinstance(values, np.ndarray) or hasattr(values, "__iter__"))):
        raise InputError(f"{what}: expected an integer or a non-empty sequence of integers, got {_short(values)}")
    if not isinstance(values, np.ndarray):
        values = builtins.list(values)
        if any(isinstance(v, (bool, np.bool_)) for v in values):
            raise InputError(f"{what}: expected integers, got a boolean among {_short(values)}")
        if any(isinstance(v, int) and not _INT64[0] <= v <= _INT64[1] for v in values):
            raise InputError(f"{what}: expected integers of at most 64 bits, got {_short(values)}")
    try:
        arr = np.asarray(builtins.list(values) if not isinstance(values, np.ndarray) else values)
    except (ValueError, TypeError):  # a ragged nesting, e.g. [[1, 2], [3]]
        arr = None
    if arr is None or arr.ndim != 1 or arr.size == 0 or not np.issubdtype(arr.dtype, np.integer):
        raise InputError(f"{what}: expected an integer or a non-empty sequence of integers, got {_short(values)}")
    if arr.size > MAX_LIST_VALUES:
        raise InputError(f"{what}: at most {MAX_LIST_VALUES} values (as the command line's lists), got {arr.size}")
    values = [int(v) for v in arr]
    # An unsigned array can hold 2**63 and more.
    if any(not _INT64[0] <= v <= _INT64[1] for v in values):
        raise InputError(f"{what}: expected integers of at most 64 bits, got {_short(arr)}")
    return values


def _reals(values, what):
    # A non-empty flat sequence of numbers (numpy's too): never text, booleans, or a nesting.
    if isinstance(values, np.ndarray) and values.ndim == 0:
        values = values[()]
    if isinstance(values, (int, float, np.integer, np.floating)) and not isinstance(values, (bool, np.bool_)):
        return [float(values)]
    if (isinstance(values, (str, bytes, dict, set, frozenset, bool, np.bool_))
            or not (isinstance(values, np.ndarray) or hasattr(values, "__iter__"))):
        raise InputError(f"{what}: expected a number or a non-empty sequence of numbers, got {_short(values)}")
    items = values if isinstance(values, np.ndarray) else builtins.list(values)
    if isinstance(items, np.ndarray):
        if items.ndim != 1 or not (np.issubdtype(items.dtype, np.integer) or np.issubdtype(items.dtype, np.floating)):
            raise InputError(f"{what}: expected a flat sequence of numbers, got {_short(values)}")
        out = [float(v) for v in items]
    else:
        bad = [v for v in items if isinstance(v, (bool, np.bool_))
               or not isinstance(v, (int, float, np.integer, np.floating))]
        if bad:
            raise InputError(f"{what}: expected numbers, got {_short(bad[0])} among {_short(values)}")
        out = [float(v) for v in items]
    if not out:
        raise InputError(f"{what}: expected a number or a non-empty sequence of numbers, got {_short(values)}")
    if len(out) > MAX_LIST_VALUES:
        raise InputError(f"{what}: at most {MAX_LIST_VALUES} values (as the command line's lists), got {len(out)}")
    return out


# The command line's cap on an integer list (experiments/cli/cli_common.cpp, parse_int_list).
MAX_LIST_VALUES = 1_000_000


def _short(value):
    # An error names the value, not a million of them, on one line (a 2-D array's repr has several).
    text = " ".join(repr(value).split())
    return text if len(text) <= 80 else text[:77] + "..."


def _one_int(value, what):
    values = _ints(value, what)
    if len(values) != 1:
        raise InputError(f"{what}: expected one integer, got {_short(value)}")
    return values[0]


def _real(value, what):
    # One number: an int or a float (numpy's too), never text, a boolean or a container.
    if isinstance(value, (bool, np.bool_)) or not isinstance(value, (int, float, np.integer, np.floating)):
        if isinstance(value, np.ndarray) and value.ndim == 0 and np.issubdtype(value.dtype, np.number):
            return float(value)
        raise InputError(f"{what}: expected a number, got {_short(value)}")
    return float(value)


def _flag(value, what):
    # A switch: True or False (numpy's too); the text 'false' is truthy to Python, so it is refused.
    if not isinstance(value, (bool, np.bool_)):
        raise InputError(f"{what}: expected True or False, got {_short(value)}")
    return bool(value)


def _text_or_path(value, what):
    # A config given by name or YAML path (str or os.PathLike); None: not given.
    if value is None:
        return ""
    if not isinstance(value, (str, os.PathLike)):
        raise InputError(f"{what}: expected a name or a YAML path, got {_short(value)}")
    return value


def _text(value, what, default=None):
    # A name: text; None gives `default` where the argument is optional.
    if value is None and default is not None:
        return default
    if not isinstance(value, str):
        raise InputError(f"{what}: expected text, got {_short(value)}")
    return value


def _frame(columns, frame, order=None):
    # A scenario table marks its best row with "*" (the CLI's text cell); Python has it as a
    # boolean, as window's and tree_search's `best` columns are.
    best = columns.get("best") if isinstance(columns, dict) else None
    if isinstance(best, builtins.list) and all(v in ("", "*", None) for v in best):
        columns = dict(columns)
        columns["best"] = np.array([v == "*" for v in best], dtype=bool)
    if not frame:
        return columns
    import pandas as pd
    if order:
        columns = {k: columns[k] for k in order if k in columns} | {k: v for k, v in columns.items() if k not in order}
    return pd.DataFrame(columns)


_LATENCY_ORDER = ["hw", "model", "engine", "batch", "x", "context", "t_verify_s", "tokens_per_s_total",
                  "draft", "draft_passes", "t_draft_s", "t_step_s"]


def latency(hw, model, x=1, context=1024, batch=1, engine="roofline", draft=None, stack=None, host=None,
            breakdown=False, sample=False, frame=True, config_dir=None):
    """T_v(x, L) per (batch, context, x) — and T_d, T_v + T_d with a draft (algorithm or draft
    model) — as ``specdse latency`` computes them (one builder for both).

    ``tokens_per_s_total`` is x * batch / T_v: tokens of the whole batch per second. ``stack`` and
    ``host`` are ``--stack`` and ``--host`` (the software stack ``hw`` runs, the host CPU that runs
    it); ``breakdown=True`` gives one row per operator (one batch), ``sample=True`` a sampled step.
    """
    h = hardware(hw, config_dir)
    m = _load_model(model, config_dir)
    cols = _specdse.latency(h, m, _ints(x, "x"), _ints(context, "context"), _ints(batch, "batch"),
                            _text(engine, "engine", "roofline"),
                            draft.source_file or draft.name if isinstance(draft, Model) else _text(draft, "draft", ""),
                            os.fspath(_text_or_path(stack, "stack")), os.fspath(_text_or_path(host, "host")),
                            _flag(breakdown, "breakdown"), _flag(sample, "sample"), _config_dir(config_dir))
    return _frame(cols, frame, _LATENCY_ORDER)


def fit(x=None, aat=None, *, algorithm=None, model=None, task="govreport", context=None, source_table="",
        data=None, statistics=None, out=None, scenario=None, scenario_args=None, frame=True, config_dir=None):
    """AAT(x) = A + B ln(x - C) (Ceres), or the acceptance process fitted to a statistics file.

    ``fit(x, aat)`` fits the given points; ``fit(algorithm=, model=, context=)`` gives the fit the
    optimiser uses for measured data (plus ``measured_x``/``measured_aat``). Returns a dict with
    a, b, c, r2, rmse, n and ``curve(x)`` evaluating the fitted AAT.

    ``fit(statistics=FILE, out=BAND)`` is ``specdse fit --statistics FILE --out BAND``: a dict with
    ``table`` (one row per fit and statistic: parameters, value, predicted, residual, tolerance,
    fitted or only checked, consistent), ``summary`` (the CLI table's footer: how many fits are
    consistent, within which tolerances, what is left open), ``left_open`` (parameters the
    statistics do not fix), ``borrowed`` (parameters held at the file's start values, with their
    sources) and ``consistent_fits``. With
    ``scenario=NAME`` (one that draws from a band: ``chain-sd``, ``duodecoding``, ``specpipe``,
    ``tree-sd``) it is ``specdse fit
    --statistics FILE --scenario NAME``: the result's ``scenario`` is that scenario run on the fitted
    band (its rows' low / high over the band), ``scenario_args`` its keyword arguments (model=, ...).
    """
    if statistics is not None:
        if x is not None or algorithm is not None:
            raise InputError("fit: statistics= fits the acceptance process and takes no points or measured source")
        if model is not None or context is not None:
            raise InputError("fit: statistics= takes no model= or context=; a scenario's inputs go in "
                             "scenario_args=dict(model=..., context=...)")
        run = None
        if scenario is not None:
            # Checked before the fit, which can take a minute.
            declared = {r[0]: [p[0] for p in r[2]] for r in _specdse.scenario_list()}
            if scenario not in declared or "acceptance" not in declared[scenario]:
                takes = ", ".join(n for n, ps in declared.items() if "acceptance" in ps)
                raise InputError(f"fit: scenario={scenario!r} does not draw from an acceptance process band "
                                 f"(scenarios that do: {takes})")
            args = dict(scenario_args or {})
            if "acceptance" in args:
                raise InputError("fit: scenario_args acceptance=: the scenario runs on the band this fit writes")
            run = globals()["scenario"]._runner(scenario, "", [])
        elif scenario_args is not None:
            raise InputError("fit: scenario_args= needs scenario=")
        with contextlib.ExitStack() as stack:
            band = os.fspath(out or "")
            if run is not None and not band:
                band = os.path.join(stack.enter_context(tempfile.TemporaryDirectory()), "band.yaml")
            res = _specdse.fit_statistics(os.fspath(statistics), band)
            res["table"] = _frame(res["table"], frame)
            if run is not None:
                res["scenario"] = run(acceptance=band, config_dir=config_dir, frame=frame, **args)
        return res
    if out is not None:
        raise InputError("fit: out= writes a process band and needs statistics=")
    if scenario is not None or scenario_args is not None:
        raise InputError("fit: scenario= runs a scenario on a fitted band and needs statistics=")
    if x is not None:
        if algorithm is not None:
            raise InputError("fit: expected either points (x, aat) or a measured source (algorithm=...), got both")
        if aat is None:
            raise InputError("fit: expected aat values with x, got none")
        out = _specdse.fit_points(_reals(x, "x"), _reals(aat, "aat"))
    else:
        if algorithm is None or model is None or context is None:
            raise InputError("fit: expected points (x, aat) or algorithm=, model= and context=, got neither")
        m = model.name if isinstance(model, Model) else os.fspath(model)
        out = _specdse.fit_measured(algorithm, m, task, _one_int(context, "context"), source_table, os.fspath(data or ""),
                                    _config_dir(config_dir))
    a, b, c = out["a"], out["b"], out["c"]

    def curve(xs):
        # The clamp of AatFit::operator(): exactly 1 at x = 1, else the curve within [1, x].
        xs = np.asarray(xs, dtype=float)
        with np.errstate(invalid="ignore", divide="ignore"):
            y = np.clip(a + b * np.log(xs - c), 1.0, xs)
        return np.where(xs == 1.0, 1.0, y)

    out["curve"] = curve
    return out


def optimize(hw, model, algorithm, context=1024, *, task="govreport", batch=1, x_max=128, engine="roofline",
             data=None, aat_from=None, alpha=None, trace=None, acceptance=None, source_table="",
             measured_only=False, x_search="every_x", draft_hw=None, draft_link=None, system=None,
             draft_device=None, stack=None, host=None, frame=True, config_dir=None):
    """Best verification length x per context and batch, as ``specdse optimize`` (the same code,
    options and columns): P_eff = AAT / (T_v + T_d), the speed-up over AD, the regime, where the
    acceptance came from (measured, ``aat_from``, ``alpha``, ``trace`` or an ``acceptance`` band)
    and ``at_search_limit`` (why a best x on the edge of the search or of the data may not be the
    optimum). Returns (summary, curve): the command's table, and P_eff at every evaluated x.
    """
    req = _specdse.OptimizeRequest()
    with _spec_path(hw, Hardware) as h, _spec_path(model, Model) as m, _spec_path(algorithm, Model, "algorithm") as a:
        if not a:
            raise InputError("algorithm: expected an SD algorithm or a draft model name, got None")
        req.hw, req.model, req.algorithm = h, m, a
        req.context = ",".join(str(c) for c in _ints(context, "context"))
        req.batch = ",".join(str(b) for b in _ints(batch, "batch"))
        req.task, req.engine = _text(task, "task", "govreport"), _text(engine, "engine", "roofline")
        req.x_max, req.x_search = _one_int(x_max, "x_max"), _text(x_search, "x_search", "every_x")
        req.measured_only = _flag(measured_only, "measured_only")
        req.data, req.trace = os.fspath(data or ""), os.fspath(trace or "")
        req.aat_from = _text(aat_from, "aat_from", "")
        req.alpha = -1.0 if alpha is None else _real(alpha, "alpha")
        req.acceptance, req.source_table = os.fspath(acceptance or ""), _text(source_table, "source_table", "")
        req.draft_hw, req.draft_link = _text(draft_hw, "draft_hw", ""), _text(draft_link, "draft_link", "")
        req.system, req.draft_device = os.fspath(system or ""), _text(draft_device, "draft_device", "")
        req.stack, req.host = os.fspath(_text_or_path(stack, "stack")), os.fspath(_text_or_path(host, "host"))
        summary, curve, attrs = _specdse.optimize(req, _config_dir(config_dir))
    if not frame:
        return summary, curve
    best = _frame(summary, True)
    best.attrs.update(attrs)  # the footer and its fields, as `optimize --format json` has them
    return best, _frame(curve, True)


def golden(hw, measured, frame=True, config_dir=None):
    """A CSV that ``cuda/run_goldens.sh`` wrote on a GPU, next to the GPU model (``specdse golden
    --measured``): kernel rows (measured_s, predicted_s, error_pct) or, for a verify-step CSV,
    step rows (graph_s, predicted_s, error_pct, the measured and the model's kernel counts and
    the prediction at the measured kernel count), or, for a MoE layer timed by component
    (``cuda/run_moe_layer_kernels.sh``), a row per CUDA-graph component with the experts the
    point touched and the routing law's expectation.
    """
    h = hardware(hw, config_dir)
    cols = _specdse.golden_gpu(h, os.fspath(measured), _config_dir(config_dir))
    return _frame(cols, frame)


def system_step(system_, model_, draft=None, x=1, context=1024, batch=1, engine="roofline", frame=True,
                config_dir=None):
    """One decode step of a multi-device system on the timeline.

    Returns a dict: step_s, target_s, feasible, tokens_per_s (batch), and per-device and per-lane
    tables (``devices``, ``lanes``).
    """
    s = system(system_, config_dir)
    m = model(model_, config_dir)
    d = model(draft, config_dir) if draft is not None else None
    out = _specdse.system_step(s, m, d, _one_int(x, "x"), _one_int(context, "context"), _one_int(batch, "batch"), engine)
    out["devices"] = _frame(out["devices"], frame)
    out["lanes"] = _frame(out["lanes"], frame)
    return out


def sweep(spec, threads=0, engine=None, out=None, frame=True, config_dir=None):
    """The rows of a sweep spec (YAML path or dict with name/axes/...), as `specdse sweep` writes them.

    Numeric columns are int64 or float64 (empty cells, e.g. points that do not fit, are NaN).
    With ``out`` the CSV is written (and resumed) like ``specdse sweep --out``. A spec with
    ``scenario:`` runs that scenario at every point (its rows: the point's axis values, then the
    scenario's columns), written once at the end.
    """
    n_threads = _one_int(threads, "threads")
    if not 0 <= n_threads <= 1024:  # the CLI's --threads bound
        raise InputError(f"threads: expected 0 (every core) or a count up to 1024, got {n_threads}")
    args = (n_threads, _text(engine, "engine", ""), os.fspath(out or ""), _config_dir(config_dir))
    if isinstance(spec, dict):
        with _dict_file(spec, "sweep") as path:
            cols = _specdse.sweep(path, *args)
    else:
        cols = _specdse.sweep(os.fspath(spec), *args)
    return _frame(cols, frame)


# ---- token trees (paper 000 §III-C) ------------------------------------------------------------

@contextlib.contextmanager
def _spec_path(spec, cls=None, what=None):
    # Configs reach the C++ side by name or path: a loaded object by the file it came from, a
    # dict through a temporary YAML file (JSON is YAML) that lives for the call. `what` names the
    # argument in the error for anything else.
    if spec is None:
        yield ""
    elif cls is not None and isinstance(spec, cls):
        yield spec.source_file or spec.name
    elif isinstance(spec, dict):
        kind = {Hardware: "hardware", Model: "model", System: "system"}.get(cls, "config")
        with _dict_file(spec, kind) as path:
            yield path
    elif isinstance(spec, (str, os.PathLike)):
        yield os.fspath(spec)
    else:
        label = what or {Hardware: "hw", Model: "model", System: "system"}.get(cls, "config")
        raise InputError(f"{label}: expected a name, a path or a dict, got {_short(spec)}")


def _optional_hw(hw, config_dir):
    return hardware(hw, config_dir) if hw is not None else None


# Token trees, traces, windows and window policies (specdse/_trees.py) and the registered
# scenarios (specdse/_scenarios.py) use the helpers above.
from ._trees import (PAPER_BASELINE_SHAPE, policies, trace_gen, tree, tree_methods, tree_search,  # noqa: E402,F401
                     window, window_policies)
from ._scenarios import scenario, scenario_functions, scenarios  # noqa: E402  (uses the helpers above)

# Every registered scenario is also a top-level function with the CLI's parameter names
# (``specdse.chain_sd(model=..., context=1024, system=..., gamma=[2, 4])``), unless a function of
# the module already has that name.
for _name, _function in scenario_functions().items():
    if _name not in globals():
        globals()[_name] = _function
        __all__.append(_name)
