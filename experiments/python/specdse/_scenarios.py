"""Scenarios in Python: every scenario of the C++ registry (search/scenarios/scenario.hpp),
callable by name (``specdse.scenario("chain-sd", ...)``), as an attribute
(``specdse.scenario.chain_sd(...)``) or as a top-level function (``specdse.chain_sd(...)``), with
the CLI's parameter names (dashes as underscores). Generated from the declarations: a scenario
registered in C++ needs no binding code here.
"""

import os

import numpy as np

from . import _specdse
from . import _config_dir, _frame, _ints, _one_int, _optional_hw, _spec_path, _text  # defined before this module is imported
from ._specdse import Hardware, InputError, Model, System


def scenarios(frame=True):
    """The registered scenarios: name, description, their parameters (key: default, help, type,
    unit and accepted values, as the CLI's flags declare them) and their own command, if any."""
    rows = _specdse.scenario_list()
    cols = {"scenario": [r[0] for r in rows], "description": [r[1] for r in rows],
            "params": [{k: {"default": d, "help": h, "type": t, "unit": u, "accepts": a} for k, d, h, t, u, a in r[2]}
                       for r in rows],
            "command": [f"specdse {r[3]}" if r[3] else "" for r in rows]}
    return _frame(cols, frame)


# Parameter types that take one value (the declarations' type names, search::to_string(ParamType)).
_ONE_VALUE_TYPES = ("integer", "real", "boolean", "choice")


def _check_kind(v, key, kind):
    # A number refuses text and booleans, a switch anything but True/False (the text "false"
    # would read as a switch turned on in most languages): what docs/python.md promises.
    is_bool = isinstance(v, (bool, np.bool_))
    key = key.replace("-", "_")  # the keyword argument's name
    if kind == "integer" and (is_bool or not isinstance(v, (int, np.integer))):
        raise InputError(f"{key}: expected an integer, got {v!r}")
    if kind == "real" and (is_bool or not isinstance(v, (int, float, np.integer, np.floating))):
        raise InputError(f"{key}: expected a number, got {v!r}")
    if kind == "boolean" and not is_bool:
        raise InputError(f"{key}: expected True or False, got {v!r}")


def _param_value(v, key="", nested=False, type_name="", check=True):
    # Scenario parameters are KEY=VALUE text, as after --param: lists comma-joined, bools lower case.
    # A list holds values, not lists: a nested one (or a 2-D array) would be flattened silently.
    # A parameter of one value takes no list, not even of one value (it would read as a list).
    # `type_name` is the parameter's declared type ("integer", "real list", ...): its values are
    # checked for their kind here, before they become text.
    kind = type_name.split(" ")[0] if type_name and check else ""
    if not isinstance(v, (list, tuple, range, np.ndarray)) or (isinstance(v, np.ndarray) and v.ndim == 0):
        _check_kind(v.item() if isinstance(v, np.ndarray) else v, key, kind)
    if isinstance(v, (bool, np.bool_)):
        return "true" if v else "false"
    if isinstance(v, np.ndarray) and v.ndim == 0:
        return _param_value(v.item(), key, nested, type_name)
    if isinstance(v, (list, tuple, range, np.ndarray)):
        if nested:
            raise InputError(f"{key}: expected a value or a flat list of values, got a nested list")
        if type_name in _ONE_VALUE_TYPES:
            raise InputError(f"{key}: expected one value ({type_name}), got a list {v!r}")
        return ",".join(_param_value(e, key, True, kind, check) for e in v)
    if isinstance(v, (Model, Hardware, System)):
        return v.source_file or v.name
    if isinstance(v, (dict, set, frozenset)):
        raise InputError(f"{key}: expected a value or a list of values, got a {type(v).__name__}")
    return str(v)


class _Scenario:
    """Runs registered scenarios: ``specdse.scenario("tree-sd", ...)`` or ``specdse.scenario.tree_sd(...)``.

    Each registered scenario is an attribute (dashes become underscores), so one registered in
    C++ is callable here without binding code; ``help(specdse.scenario.NAME)`` lists its
    parameters.
    """

    def __call__(self, name, hw=None, model=None, algorithm=None, context=None, *, batch=None, task=None,
                 data=None, source_table="", engine=None, params=None, frame=True, config_dir=None, **kwparams):
        """Runs scenario ``name`` as ``specdse scenario NAME`` does.

        Common inputs (each scenario says which it needs): ``hw`` (with ``engine``, default
        roofline), ``model`` and ``algorithm`` (the workload, ``batch`` sequences), ``context``
        (one or a list), and the measured acceptance data (``task``, ``data``, ``source_table``).
        The scenario's own parameters (``scenarios()``) as keyword arguments (``x_max=64`` for
        x-max; lists become comma lists) or ``params={"x-max": 64}``. A scenario with an
        ``engine`` (or ``batch``) parameter gets the keyword there; naming a setting twice (a
        keyword and ``params``, two spellings in ``params``, a keyword and the same setting in a
        ``workload`` file) is an ``InputError``, whatever the values.
        Returns a DataFrame whose ``attrs["footer"]`` holds the summary line and whose other
        ``attrs`` are the footer's fields as ``--format json`` has them; ``frame=False``
        returns (columns, footer).
        """
        info = {r[0]: r for r in _specdse.scenario_list()}.get(name)
        declared = [p[0] for p in info[2]] if info else []
        types = {p[0]: p[3] for p in info[2]} if info else {}
        def declared_key(k):
            # x_max and x-max name one parameter, in params= as in a keyword.
            k = str(k)
            dashed = k.replace("_", "-")
            return dashed if dashed in declared and k not in declared else k

        if params is not None and not isinstance(params, dict):
            raise InputError(f"scenario {name}: params: expected a dict of parameter -> value, got {params!r}")
        settings = {}
        # Keyword arguments are typed Python values and checked for their kind; params= holds
        # values as after --param, where text is the command line's own.
        from_keywords = set()
        # None is "not given", as an omitted keyword: the scenario's default applies.
        spelled = {}
        for k, v in (params or {}).items():
            if v is None:
                continue
            key = declared_key(k)
            # x_max and x-max both in params= name one parameter twice.
            if key in settings:
                raise InputError(f"scenario {name}: params={{{spelled[key]!r}: {settings[key]!r}, {k!r}: {v!r}}}: "
                                 f"give {key} once")
            settings[key], spelled[key] = v, k
        for k, v in kwparams.items():
            key = k.replace("_", "-")
            if info is not None and key not in declared and k not in declared:
                raise InputError(f"scenario {name}: parameter '{key}' is not declared (declared: "
                                 f"{', '.join(declared) or 'none'})")
            if v is None:
                continue
            key = key if key in declared else k
            # Given twice (a keyword and params=): which should win is not for the tool to guess.
            if key in settings:
                raise InputError(f"scenario {name}: {k}={v!r} and params={{{key!r}: {settings[key]!r}}}: "
                                 f"give {key} once")
            settings[key] = v
            from_keywords.add(key)
        # A common input the scenario also declares as a parameter: given both ways is a conflict.
        # (The engine reaches the scenario's own `engine` parameter on the C++ side, as --engine.)
        for common, value in (("engine", engine), ("batch", batch)):
            if value is not None and common in settings:
                raise InputError(f"scenario {name}: {common}={value!r} and the parameter {common}="
                                 f"{settings[common]!r}: give {common} once")
        # A scenario that declares its own `batch` (a list of batch sizes) takes it there, as its
        # command's --batch does.
        if batch is not None and "batch" in declared:
            settings["batch"] = batch
            batch = None
        # The common inputs the caller set (at a default value too): the scenario finds a setting
        # given in two places (a workload file and a keyword) by presence, as the command line does.
        given = [k for k, v in (("batch", batch), ("task", task), ("engine", engine), ("data", data),
                                ("source-table", source_table or None)) if v is not None]
        h = _optional_hw(hw, config_dir)
        ctx = [] if context is None else _ints(context, "context")
        with _spec_path(model, Model) as m, _spec_path(algorithm, Model) as a:
            cols, footer, meta, int_with_gaps = _specdse.run_scenario(
                name, h, m, a, ctx, 1 if batch is None else _one_int(batch, "batch"), _text(task, "task", "govreport"),
                os.fspath(data or ""), _text(source_table, "source_table"), _text(engine, "engine", "roofline"),
                [f"{k}={_param_value(v, k, type_name=types.get(k, ''), check=k in from_keywords)}"
             for k, v in settings.items()], given,
                _config_dir(config_dir))
        if not frame:
            return cols, footer
        df = _frame(cols, True)
        # Integer columns with empty cells (plan's rank of an unranked row) stay integers.
        for c in int_with_gaps:
            df[c] = df[c].astype("Int64")
        df.attrs["footer"] = footer
        df.attrs.update(meta)  # the footer's fields, as --format json has them
        return df

    def _runner(self, name, description, params):
        def run(hw=None, model=None, algorithm=None, context=None, **kwargs):
            return self(name, hw, model, algorithm, context, **kwargs)
        run.__name__ = name.replace("-", "_")
        run.__qualname__ = "scenario." + run.__name__
        lines = [f"Scenario '{name}': {description}.", "",
                 "Common inputs as specdse.scenario() (hw, model, algorithm, context, batch, task, engine, ...).",
                 "Parameters (keyword arguments, default as the CLI's --param):"]
        for k, d, h, _, _, accepts in params:
            lines.append(f"    {k.replace('-', '_')} = {d!r}: {h} ({accepts})")
        run.__doc__ = "\n".join(lines)
        return run

    def __getattr__(self, attr):
        if attr.startswith("__"):
            raise AttributeError(attr)
        for name, description, params, _ in _specdse.scenario_list():
            if name.replace("-", "_") == attr or name == attr:
                return self._runner(name, description, params)
        raise AttributeError(f"specdse.scenario has no scenario '{attr}' (registered: "
                             f"{', '.join(r[0] for r in _specdse.scenario_list())})")

    def __dir__(self):
        return sorted(set(super().__dir__()) | {r[0].replace("-", "_") for r in _specdse.scenario_list()})

    def __repr__(self):
        return f"<specdse.scenario: {', '.join(r[0] for r in _specdse.scenario_list())}>"


scenario = _Scenario()


def scenario_functions():
    """{python_name: function} for every registered scenario (``chain-sd`` -> ``chain_sd``)."""
    return {name.replace("-", "_"): scenario._runner(name, description, params)
            for name, description, params, _ in _specdse.scenario_list()}
