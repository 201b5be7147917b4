"""specdse from Python: latency engines, AAT fits, the x optimiser, system steps and sweeps.

    import specdse
    hw = specdse.hardware("v80")                 # a name, a YAML path, or a dict
    m = specdse.model("llama-3.1-8b-instruct")
    df = specdse.latency(hw, m, x=range(1, 129), context=[1024, 16384])
    best, curve = specdse.optimize(hw, m, "longspec-tree", context=[1024])
    rows = specdse.sweep("configs/sweeps/compute_bandwidth_ratio.yaml", threads=2)

Results are pandas DataFrames (``frame=False`` gives the dict of numpy columns they are
built from). Bad inputs raise ``specdse.InputError`` (a ValueError) with the CLI's one-line
message. Calls release the GIL, so threads calling specdse run in parallel.
"""

import json
import os
import tempfile

import numpy as np

from . import _specdse
from ._specdse import Hardware, InputError, Model, System

__all__ = [
    "Hardware", "Model", "System", "InputError", "hardware", "model", "system", "configs", "engines",
    "latency", "fit", "optimize", "system_step", "sweep",
]


def _config_dir(config_dir):
    return "" if config_dir is None else os.fspath(config_dir)


def _from_dict(loader, d, config_dir, what):
    # JSON is YAML, so a dict goes through the same loader (and the same checks) as a file.
    fd, path = tempfile.mkstemp(prefix=f"specdse-{what}-", suffix=".yaml")
    try:
        with os.fdopen(fd, "w") as f:
            json.dump(d, f)
        return loader(path, _config_dir(config_dir))
    finally:
        os.unlink(path)


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


def system(spec, config_dir=None):
    """A system config (configs/systems): name, YAML path, or dict."""
    return _load(_specdse.load_system, System, spec, config_dir, "system")


def configs(folder="hardware", config_dir=None):
    """Config names in a folder: hardware, models, algorithms, systems, ..."""
    return _specdse.config_names(folder, _config_dir(config_dir))


def engines():
    """Registered latency engine names."""
    return _specdse.engine_names()


def _ints(values, what):
    if isinstance(values, (int, np.integer)):
        return [int(values)]
    arr = np.asarray(list(values) if not isinstance(values, np.ndarray) else values)
    if arr.ndim != 1 or arr.size == 0 or not np.issubdtype(arr.dtype, np.integer):
        raise InputError(f"{what}: expected an integer or a non-empty sequence of integers, got {values!r}")
    return [int(v) for v in arr]


def _frame(columns, frame, order=None):
    if not frame:
        return columns
    import pandas as pd
    if order:
        columns = {k: columns[k] for k in order if k in columns} | {k: v for k, v in columns.items() if k not in order}
    return pd.DataFrame(columns)


_LATENCY_ORDER = ["hw", "model", "engine", "batch", "x", "context", "t_verify_s", "batch_tokens_per_s",
                  "draft", "draft_passes", "t_draft_s", "t_step_s"]


def latency(hw, model_, x=1, context=1024, batch=1, engine="roofline", draft=None, frame=True, config_dir=None):
    """T_v(x, L) per (context, x) — and T_d, T_v + T_d with a draft (algorithm or draft model).

    ``batch_tokens_per_s`` is x * batch / T_v: tokens of the whole batch per second.
    """
    h = hardware(hw, config_dir)
    m = model(model_, config_dir)
    cols = _specdse.latency(h, m, _ints(x, "x"), _ints(context, "context"), int(batch), engine, draft or "",
                            _config_dir(config_dir))
    return _frame(cols, frame, _LATENCY_ORDER)


def fit(x=None, aat=None, *, algorithm=None, model=None, task="govreport", context=None, source_table="",
        data=None, config_dir=None):
    """AAT(x) = A + B ln(x - C) (Ceres).

    ``fit(x, aat)`` fits the given points; ``fit(algorithm=, model=, context=)`` gives the fit the
    optimiser uses for measured data (plus ``measured_x``/``measured_aat``). Returns a dict with
    a, b, c, r2, rmse, n and ``curve(x)`` evaluating the fitted AAT.
    """
    if x is not None:
        if algorithm is not None:
            raise InputError("fit: expected either points (x, aat) or a measured source (algorithm=...), got both")
        if aat is None:
            raise InputError("fit: expected aat values with x, got none")
        out = _specdse.fit_points(np.asarray(x, dtype=float).tolist(), np.asarray(aat, dtype=float).tolist())
    else:
        if algorithm is None or model is None or context is None:
            raise InputError("fit: expected points (x, aat) or algorithm=, model= and context=, got neither")
        m = model.name if isinstance(model, Model) else os.fspath(model)
        out = _specdse.fit_measured(algorithm, m, task, int(context), source_table, os.fspath(data or ""),
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


def optimize(hw, model_, algorithm, context=1024, task="govreport", x_max=128, engine="roofline", batch=1,
             source_table="", data=None, frame=True, config_dir=None):
    """Best verification length x per context (P_eff = AAT / (T_v + T_d)) and the speedup over AD.

    Returns (summary, curve): one row per context, and P_eff at every evaluated x.
    ``at_x_limit`` is 1 where the optimum sits on the largest x searched.
    """
    h = hardware(hw, config_dir)
    m = model_.source_file if isinstance(model_, Model) else os.fspath(model_)
    summary, curve = _specdse.optimize(h, m, algorithm, _ints(context, "context"), task, int(x_max), engine,
                                       int(batch), source_table, os.fspath(data or ""), _config_dir(config_dir))
    return _frame(summary, frame), _frame(curve, frame)


def system_step(system_, model_, draft=None, x=1, context=1024, batch=1, engine="roofline", frame=True,
                config_dir=None):
    """One decode step of a multi-device system on the timeline.

    Returns a dict: step_s, target_s, feasible, tokens_per_s (batch), and per-device and per-lane
    tables (``devices``, ``lanes``).
    """
    s = system(system_, config_dir)
    m = model(model_, config_dir)
    d = model(draft, config_dir) if draft is not None else None
    out = _specdse.system_step(s, m, d, int(x), int(context), int(batch), engine)
    out["devices"] = _frame(out["devices"], frame)
    out["lanes"] = _frame(out["lanes"], frame)
    return out


def sweep(spec, threads=0, engine=None, out=None, frame=True, config_dir=None):
    """The rows of a sweep spec (YAML path or dict with name/axes/...), as `specdse sweep` writes them.

    Numeric columns are int64 or float64 (empty cells, e.g. points that do not fit, are NaN).
    With ``out`` the CSV is written (and resumed) like ``specdse sweep --out``.
    """
    args = (int(threads), engine or "", os.fspath(out or ""), _config_dir(config_dir))
    if isinstance(spec, dict):
        fd, path = tempfile.mkstemp(prefix="specdse-sweep-", suffix=".yaml")
        try:
            with os.fdopen(fd, "w") as f:
                json.dump(spec, f)
            cols = _specdse.sweep(path, *args)
        finally:
            os.unlink(path)
    else:
        cols = _specdse.sweep(os.fspath(spec), *args)
    return _frame(cols, frame)
