"""Deprecated names (docs/conventions.md) still work for one release, with a warning.

Every old argument name gives the same result as the new one, bit for bit (compared with the
golden file's encoding), and warns; every old result attribute returns the renamed field and
warns. The tables below must list every alias the public API declares.
"""

import dataclasses
import importlib
import importlib.util
import inspect
import pathlib
import warnings

import numpy as np
import pytest

import fastfair
from fastfair import planning
from fastfair._deprecation import (
    DEPRECATED_SINCE,
    REMOVED_IN,
    renamed_arguments,
    renamed_attributes,
)

_spec = importlib.util.spec_from_file_location(
    "golden", pathlib.Path(__file__).with_name("golden.py")
)
golden = importlib.util.module_from_spec(_spec)
_spec.loader.exec_module(golden)


def _binary(n=300, seed=0):
    rng = np.random.default_rng(seed)
    g = rng.integers(0, 2, n)
    s = rng.random(n)
    y = (rng.random(n) < s).astype(int)
    return y, s, g


COUNTS = np.array([[30, 10, 20, 40], [25, 15, 30, 30]])


def _results():
    """(result, old attribute, new attribute) for every renamed result field."""
    y, s, g = _binary()
    yhat = (s > 0.5).astype(int)
    curve = fastfair.calibration_curve(y, s, g, grid=5)
    marginal = fastfair.marginal_outcome_test(y, s, g, 0.5)
    parity = fastfair.predictive_parity_test(y, s, g, grid=5, n_bootstrap=49, random_state=0)
    pilot = fastfair.plan_from_data(y, yhat, g, "tpr", tau=0.1, n_bootstrap=20, random_state=0)
    sim = fastfair.simulate_power(
        "tpr", rates={"tpr": [0.7, 0.8], "prevalence": [0.5, 0.5]}, n_per_group=[50, 50],
        n_sim=5, test="wald", random_state=0,
    )  # fmt: skip
    plan = fastfair.sample_size(sigma2=[0.25, 0.2, 0.2], tau=0.1, reference_index=1)
    X = np.random.default_rng(1).normal(size=(y.size, 2))
    favorable = fastfair.wasserstein_test(X, y, g, [1.0, -0.5], return_favorable=True).favorable
    return [
        (fastfair.permutation_test_from_counts(COUNTS), "difference_interval",
         "confidence_interval"),
        (fastfair.mean_difference_test(s, g, method="asymptotic"), "difference_interval",
         "confidence_interval"),
        (fastfair.auc_test(y, s, g, method="delong"), "difference_interval",
         "confidence_interval"),
        (curve, "std_error", "standard_error"),
        (marginal, "std_error", "standard_error"),
        (marginal, "difference_se", "difference_standard_error"),
        (parity, "difference_se", "difference_standard_error"),
        (pilot, "rates_se", "rates_standard_error"),
        (pilot, "n_resamples", "n_bootstrap"),
        (sim, "se", "standard_error"),
        (sim, "ci", "confidence_interval"),
        (plan, "reference", "reference_index"),
        (fastfair.power(sigma2=[0.25, 0.2], tau=0.1, n=500), "reference", "reference_index"),
        (fastfair.detectable_difference(sigma2=[0.25, 0.2], n=500), "reference",
         "reference_index"),
        (favorable, "a", "group"),
        (favorable, "y", "y_true"),
    ]  # fmt: skip


RESULTS = _results()


@pytest.mark.parametrize(
    ("result", "old", "new"),
    RESULTS,
    ids=[f"{type(r).__name__}.{old}" for r, old, _ in RESULTS],
)
def test_old_attribute_warns_and_returns_the_renamed_field(result, old, new):
    assert new in {f.name for f in dataclasses.fields(result)}
    with pytest.warns(DeprecationWarning, match=f"'{old}' is deprecated.*use '{new}'"):
        value = getattr(result, old)
    assert value is getattr(result, new)


PUBLIC_MODULES = (
    "auc", "calibration", "resampling", "parity", "permutation", "planning", "sweep", "tolerance",
    "wasserstein", "simulate", "stats",
)  # fmt: skip


def _public_objects():
    """Public functions, classes and methods of fastfair and its public modules."""
    seen = {}
    modules = [fastfair] + [importlib.import_module(f"fastfair.{m}") for m in PUBLIC_MODULES]
    for mod in modules:
        for name in getattr(mod, "__all__", None) or dir(mod):
            obj = getattr(mod, name)
            if name.startswith("_") or not getattr(obj, "__module__", "").startswith("fastfair"):
                continue
            seen[id(obj)] = obj
            if inspect.isclass(obj):
                for attr in vars(obj).values():
                    if inspect.isfunction(attr):
                        seen[id(attr)] = attr
    return list(seen.values())


def test_tables_cover_every_declared_alias():
    declared_attrs, declared_args = set(), set()
    for obj in _public_objects():
        if inspect.isclass(obj):
            for klass in obj.__mro__:
                for old, new in vars(klass).get("__deprecated_attributes__", {}).items():
                    declared_attrs.add((obj.__name__, old, new))
        for old, new in getattr(obj, "__deprecated_arguments__", {}).items():
            declared_args.add((obj.__qualname__, old, new))
    tested_attrs = {(type(r).__name__, old, new) for r, old, new in RESULTS}
    missing = {d for d in declared_attrs if d not in tested_attrs}
    assert not missing, f"deprecated attributes without a test: {sorted(missing)}"
    tested_args = {(f.__qualname__, old, new) for f, _, old, new in ARGUMENTS}
    assert declared_args <= tested_args, sorted(declared_args - tested_args)
    assert tested_args <= declared_args, sorted(tested_args - declared_args)


def _arguments():
    """(function, keyword arguments with the NEW names, old name, new name)."""
    y, s, g = _binary()
    yx = dict(y_true=y, y_score=s)
    q = np.arange(y.size) // 3
    rng = np.random.default_rng(1)
    S = rng.random((y.size, 2))
    Y = (rng.random((y.size, 2)) < S).astype(float)
    X = rng.normal(size=(y.size, 2))
    fitted = fastfair.GroupCalibrator().fit(s, y, g)
    multi = fastfair.MultiObjectiveCalibrator().fit(S, Y, g)
    parity = dict(grid=5, n_bootstrap=49, random_state=0)
    yhat = (s > 0.5).astype(int)
    rows = [
        (planning.plan_from_data,
         dict(y_true=y, y_pred=yhat, group=g, metric="tpr", tau=0.1, n_bootstrap=20,
              random_state=0), ["n_resamples"]),
        (planning.sample_size, dict(sigma2=[0.25, 0.2, 0.2], tau=0.1, reference_index=2),
         ["reference"]),
        (planning.power, dict(sigma2=[0.25, 0.2, 0.2], tau=0.1, n=900, reference_index=2),
         ["reference"]),
        (planning.detectable_difference, dict(sigma2=[0.25, 0.2, 0.2], n=900, reference_index=2),
         ["reference"]),
        (fastfair.select_bandwidth, dict(**yx, group=g), ["y", "score"]),
        (fastfair.calibration_curve, dict(**yx, group=g, grid=5), ["y", "score"]),
        (fastfair.predictive_parity_test, dict(**yx, group=g, **parity), ["y", "score"]),
        (fastfair.marginal_outcome_test, dict(**yx, group=g, threshold=0.5), ["y", "score"]),
        (fastfair.fair_thresholds, dict(**yx, group=g, threshold=0.5, grid=20), ["y", "score"]),
        (fastfair.ece, dict(**yx), ["y", "score"]),
        (fastfair.msce, dict(**yx), ["y", "score"]),
        (fastfair.tce_nadaraya_watson, dict(**yx), ["y", "score"]),
        (fastfair.calibration_error, dict(**yx, group=g), ["y", "score"]),
        (fastfair.delta_pcc, dict(**yx, group=g, threshold=0.5), ["y", "score"]),
        (fastfair.delta_rc, dict(**yx, group=g, query=q), ["y", "score"]),
        (fastfair.GroupCalibrator().fit, dict(**yx, group=g), ["y", "score"]),
        (fitted.transform, dict(y_score=s, group=g), ["score"]),
        (fastfair.GroupCalibrator().fit_transform, dict(**yx, group=g), ["y", "score"]),
        (fastfair.MultiObjectiveCalibrator().fit, dict(y_score=S, y_true=Y, group=g),
         ["scores", "outcomes"]),
        (multi.transform, dict(y_score=S, group=g), ["scores"]),
        (fastfair.MultiObjectiveCalibrator().fit_transform, dict(y_score=S, y_true=Y, group=g),
         ["scores", "outcomes"]),
        (fastfair.check_composite_parity,
         dict(y_score=S, y_true=Y, group=g, weights=[[1, 1]], **parity),
         ["scores", "outcomes"]),
        (fastfair.threshold_sweep,
         dict(y_true=y, y_score=s, group=g, thresholds=5, n_permutations=19, random_state=0),
         ["score"]),
        (fastfair.wasserstein_test, dict(X=X, y_true=y, group=g, coef=[1.0, -0.5]), ["y", "a"]),
        (fastfair.correlation_test,
         dict(attribute=s, values=y, n_permutations=19, random_state=0), ["x", "e"]),
    ]  # fmt: skip
    out = []
    for func, kwargs, olds in rows:
        renames = func.__deprecated_arguments__
        out += [(func, kwargs, old, renames[old]) for old in olds]
    return out


ARGUMENTS = _arguments()


@pytest.mark.parametrize(
    ("func", "kwargs", "old", "new"),
    ARGUMENTS,
    ids=[f"{f.__qualname__}({old})" for f, _, old, _ in ARGUMENTS],
)
def test_old_argument_warns_and_gives_the_same_result(func, kwargs, old, new):
    with warnings.catch_warnings():
        warnings.simplefilter("error")  # the new name does not warn
        expected = golden.encode(func(**kwargs))
    renamed = {(old if k == new else k): v for k, v in kwargs.items()}
    with pytest.warns(DeprecationWarning, match=f"'{old}' is deprecated.*use '{new}'"):
        got = golden.encode(func(**renamed))
    assert got == expected
    with pytest.raises(TypeError, match=f"got both '{new}' and its deprecated name '{old}'"):
        func(**renamed, **{new: kwargs[new]})


def test_deprecation_versions_follow_the_package_version():
    # deprecated in the release being developed, removed in the next minor release
    major, minor = (int(v) for v in fastfair.__version__.split(".")[:2])
    assert DEPRECATED_SINCE == f"{major}.{minor}"
    assert REMOVED_IN == f"{major}.{minor + 1}"
    with pytest.warns(DeprecationWarning) as caught:
        fastfair.ece(y=[0, 1], y_score=[0.2, 0.7])
    assert f"since fastfair {major}.{minor} and will be removed in {major}.{minor + 1}" in str(
        caught[0].message
    )


def test_renamed_arguments_keeps_positions_and_points_the_warning_at_the_caller():
    @renamed_arguments(y="y_true", score="y_score")
    def f(y_true, y_score, *, k=1):
        return y_true, y_score, k

    assert list(inspect.signature(f).parameters) == ["y_true", "y_score", "k"]
    assert f(1, 2) == (1, 2, 1)
    with pytest.warns(DeprecationWarning) as caught:
        assert f(y=1, score=2, k=3) == (1, 2, 3)
    assert len(caught) == 2
    assert caught[0].filename == __file__
    with pytest.raises(TypeError, match="cannot rename"):
        renamed_arguments(q="y_true")(lambda y_true, q: None)
    with pytest.raises(TypeError, match="cannot rename"):
        renamed_arguments(y="missing")(lambda y_true: None)


def test_warnings_of_decorated_functions_name_the_callers_line():
    y, s, g = _binary(n=60)
    with pytest.warns(fastfair.SparseGridWarning) as caught:
        fastfair.calibration_curve(y, s, g, grid=40, bandwidth=0.002)
    assert {w.filename for w in caught} == {__file__}
    rates = {"tpr": [0.5, 0.5], "prevalence": [0.5, 0.5]}
    with pytest.warns(UserWarning, match="tau is inf") as caught:
        fastfair.detectable_difference("tpr", rates=rates, n=4, power=0.99)
    assert {w.filename for w in caught} == {__file__}


def test_renamed_attributes_refuses_to_shadow_an_attribute():
    @dataclasses.dataclass
    class R:
        new: int = 0

    with pytest.raises(TypeError, match="already has"):
        renamed_attributes(new="new")(R)
    renamed_attributes(old="new")(R)
    with pytest.warns(DeprecationWarning, match="R: attribute 'old'") as caught:
        assert R(3).old == 3
    assert caught[0].filename == __file__
