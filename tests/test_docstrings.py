"""Every public function has numpydoc Parameters, Returns and Examples sections.

Public: everything in ``fastfair.__all__``, the public functions of the public modules and
the public methods of the estimators (classes with ``fit``). The public methods of the
result classes (``to_frame``, ``plot``, ``to_dict``, ...: every other public class) have
Parameters and Returns sections; the result's class or function carries the example.
Parameters must name every parameter of the signature and nothing else (``a, b : type``
documents two at once); Examples must hold a doctest (pytest runs the doctests of
fastfair/, so they run). A small parser of the numpydoc layout, no dependency.
"""

import importlib
import inspect
import re

import pytest

import fastfair

PUBLIC_MODULES = (
    "auc", "calibration", "cli", "dask", "resampling", "io", "parity", "permutation", "planning",
    "simulate", "spark", "stats", "sweep", "tolerance", "wasserstein",
    # the command line's layers: their public functions are its building blocks
    "cli.arguments", "cli.loading", "cli.writing", "cli.commands", "auditing.results",
    "auditing.ingest", "auditing.api", "auditing.report",
    "cli.output",
)  # fmt: skip


def sections(doc: str | None) -> dict[str, list[str]]:
    """Section title -> its lines (numpydoc: a title line underlined with dashes)."""
    lines = inspect.cleandoc(doc or "").split("\n")
    out: dict[str, list[str]] = {}
    current = None
    for i, line in enumerate(lines):
        underline = i + 1 < len(lines) and re.fullmatch(r"-{3,}", lines[i + 1].strip())
        if underline and line.strip() and not line.startswith(" "):
            current = line.strip()
            out[current] = []
        elif current is not None and not re.fullmatch(r"-{3,}", line.strip()):
            out[current].append(line)
    return out


def documented_names(lines: list[str]) -> list[str]:
    """Names of the entries of a Parameters section (unindented lines, before " : ")."""
    names = []
    for line in lines:
        if line.strip() and not line.startswith(" "):
            head = line.split(" : ")[0]
            names += [n.strip().lstrip("*") for n in head.split(",") if n.strip()]
    return names


def problems(func, examples: bool = True) -> list[str]:
    found = sections(func.__doc__)
    params = [
        p.name
        for p in inspect.signature(func).parameters.values()
        if p.name not in ("self", "cls")
    ]
    out = []
    if params:
        if "Parameters" not in found:
            out.append("no Parameters section")
        else:
            names = documented_names(found["Parameters"])
            missing = [p for p in params if p not in names]
            stale = [n for n in names if n not in params]
            if missing:
                out.append(f"Parameters lacks {missing}")
            if stale:
                out.append(f"Parameters documents {stale}, not in the signature")
    if "Returns" not in found and "Yields" not in found:
        out.append("no Returns section")
    if examples and ">>>" not in "\n".join(found.get("Examples", [])):
        out.append("no Examples section with a doctest")
    return out


def public_functions():
    seen = {}
    for mod in [fastfair] + [importlib.import_module(f"fastfair.{m}") for m in PUBLIC_MODULES]:
        names = getattr(mod, "__all__", None) or [n for n in dir(mod) if not n.startswith("_")]
        for name in names:
            obj = getattr(mod, name)
            if inspect.isfunction(obj) and obj.__module__.startswith("fastfair"):
                seen.setdefault(id(obj), (f"{obj.__module__}.{obj.__qualname__}", obj))
            if (
                inspect.isclass(obj)
                and obj.__module__.startswith("fastfair")
                and "fit" in vars(obj)
            ):
                for attr, method in vars(obj).items():
                    if inspect.isfunction(method) and not attr.startswith("_"):
                        seen.setdefault(
                            id(method), (f"{obj.__module__}.{method.__qualname__}", method)
                        )
    return sorted(seen.values(), key=lambda item: item[0])


FUNCTIONS = public_functions()


def result_methods():
    """Public methods of the public classes without ``fit`` (results), inherited ones too."""
    seen = {}
    for mod in [fastfair] + [importlib.import_module(f"fastfair.{m}") for m in PUBLIC_MODULES]:
        names = getattr(mod, "__all__", None) or [n for n in dir(mod) if not n.startswith("_")]
        for name in names:
            obj = getattr(mod, name)
            if (
                not inspect.isclass(obj)
                or not obj.__module__.startswith("fastfair")
                or issubclass(obj, BaseException | Warning)
                or "fit" in vars(obj)
            ):
                continue
            for klass in obj.__mro__:
                if not klass.__module__.startswith("fastfair"):
                    continue  # inherited from the standard library (Mapping.get, ...)
                for attr, method in vars(klass).items():
                    if inspect.isfunction(method) and not attr.startswith("_"):
                        seen.setdefault(
                            id(method), (f"{klass.__module__}.{method.__qualname__}", method)
                        )
    return sorted(seen.values(), key=lambda item: item[0])


METHODS = result_methods()


def test_the_walk_finds_the_public_api():
    names = {name for name, _ in FUNCTIONS}
    assert len(FUNCTIONS) > 50
    assert {
        "fastfair.calibration.api.ece",
        "fastfair.cli.commands.main",
        "fastfair.engines.dask.delong",
    } <= names
    assert "fastfair.calibration.estimators.GroupCalibrator.transform" in names


@pytest.mark.parametrize(("name", "func"), FUNCTIONS, ids=[name for name, _ in FUNCTIONS])
def test_public_function_has_numpydoc_sections(name, func):
    assert not problems(func), f"{name}: {'; '.join(problems(func))}"


def test_the_walk_finds_the_result_methods():
    names = {name for name, _ in METHODS}
    assert {
        "fastfair.parity.results.CalibrationCurve.to_frame",
        "fastfair.parity.results.PredictiveParityResult.plot",
        "fastfair.planning.results.SampleSizeResult.plot",
        "fastfair.calibration.results._PerGroupValues.to_dict",  # ImpactResult inherits it
        "fastfair.auditing.results.AuditResult.to_json",
        "fastfair.engines.summaries.ConfusionStats.plan",
    } <= names
    assert not any(".fit" in name or "Warning" in name for name in names)


@pytest.mark.parametrize(("name", "func"), METHODS, ids=[name for name, _ in METHODS])
def test_result_method_has_parameters_and_returns(name, func):
    found = problems(func, examples=False)
    assert not found, f"{name}: {'; '.join(found)}"


def test_the_checker_fails_on_missing_and_stale_sections():
    def bare(y_true, y_score):
        """Only a summary."""

    def stale(y_true, *, n_bins=10):
        """Summary.

        Parameters
        ----------
        y, n_bins : array-like
            Old name.

        Returns
        -------
        float

        Examples
        --------
        >>> 1
        1
        """

    assert problems(bare) == [
        "no Parameters section",
        "no Returns section",
        "no Examples section with a doctest",
    ]
    assert problems(bare, examples=False) == ["no Parameters section", "no Returns section"]
    assert problems(stale) == [
        "Parameters lacks ['y_true']",
        "Parameters documents ['y'], not in the signature",
    ]
