"""Property test: hostile inputs to every public function (hypothesis).

Random lengths (mismatched now and then), dtypes, NaN/inf placements, group counts and
label types, weights of any magnitude (zeros, negatives, NaN). Every call must either
raise a clear ValueError/TypeError raised by fastfair's own Python code (not from inside
numpy or the compiled kernels, and naming labels as written) or return a result whose
p-values lie in [0, 1] and which holds NaN only with a warning.
The default run keeps few examples; `pytest -m slow` runs many more.
"""

import dataclasses
import os
import traceback
import warnings

import numpy as np
import pytest

hypothesis = pytest.importorskip("hypothesis")
from hypothesis import HealthCheck, given, settings  # noqa: E402
from hypothesis import strategies as st  # noqa: E402

import fastfair  # noqa: E402
from fastfair import planning  # noqa: E402

PACKAGE = os.path.dirname(fastfair.__file__)
BAD_REPRS = ("np.int64(", "np.str_(", "np.float64(", "np.int32(", "np.bool_(")


@st.composite
def rows(draw):
    """Column arrays for one call: y, binary prediction, score, group, weights, cluster."""
    n = draw(st.integers(0, 40))
    seed = draw(st.integers(0, 2**32 - 1))
    rng = np.random.default_rng(seed)
    k = draw(st.integers(1, 4))
    label_kind = draw(st.sampled_from(["int", "bool", "float", "str", "pm1", "three"]))

    def binary(values):
        if label_kind == "bool":
            return values.astype(bool)
        if label_kind == "float":
            return values.astype(float)
        if label_kind == "str":
            return np.where(values == 1, "yes", "no")
        if label_kind == "pm1":
            return 2 * values - 1
        if label_kind == "three":
            return values + (rng.random(n) < 0.1)
        return values.astype(np.int64)

    y = binary(rng.integers(0, 2, n))
    pred = binary(rng.integers(0, 2, n))
    score = rng.random(n)
    group_kind = draw(st.sampled_from(["int", "str", "float"]))
    codes = rng.integers(0, k, n)
    group = {"int": codes * 7 - 3, "str": np.array(list("abcd"))[codes], "float": codes / 3}[
        group_kind
    ]
    cluster = rng.integers(0, max(1, n // 3), n)
    weights = None
    if draw(st.booleans()):
        exponent = draw(st.integers(-300, 300))
        weights = rng.random(n) * 10.0**exponent
        if draw(st.booleans()) and n:
            weights[rng.integers(0, n)] = draw(st.sampled_from([0.0, -1.0, np.nan, np.inf]))
    if draw(st.booleans()) and n:  # NaN or inf somewhere
        target = draw(st.sampled_from(["score", "y", "group"]))
        bad = draw(st.sampled_from([np.nan, np.inf, -np.inf]))
        i = int(rng.integers(0, n))
        if target == "score":
            score[i] = bad
        elif target == "y" and y.dtype.kind == "f":
            y[i] = bad
        elif target == "group" and group.dtype.kind == "f":
            group = group.copy()
            group[i] = bad
    columns = dict(y=y, pred=pred, score=score, group=group, weights=weights, cluster=cluster)
    if draw(st.booleans()):  # pandas Series, some with their index in another order
        import pandas as pd

        for key in ("y", "score", "group"):
            series = pd.Series(columns[key])
            columns[key] = (
                series.iloc[rng.permutation(len(series))] if rng.random() < 0.5 else series
            )
    if draw(st.integers(0, 4)) == 0 and n > 1:  # one column of another length
        short = draw(st.sampled_from(sorted(k for k, v in columns.items() if v is not None)))
        columns[short] = columns[short][: -draw(st.integers(1, n - 1))]
    return columns


def _y01(d):
    return d["y"]


CALLS = {
    "permutation_test": lambda d: fastfair.permutation_test(
        d["y"], d["pred"], d["group"], sample_weight=d["weights"], n_permutations=19,
        random_state=0, pos_label="yes" if d["y"].dtype.kind == "U" else None,
    ),
    "permutation_test_mse": lambda d: fastfair.permutation_test(
        d["y"], d["score"], d["group"], metric="mse", sample_weight=d["weights"],
        n_permutations=19, n_bootstrap=10, random_state=0,
    ),
    "permutation_test_from_counts": lambda d: fastfair.permutation_test_from_counts(
        fastfair.confusion_counts(d["y"], d["pred"], d["group"])[0], n_permutations=19,
        random_state=0,
    ),
    "confusion_counts": lambda d: fastfair.confusion_counts(
        d["y"], d["pred"], d["group"], sample_weight=d["weights"]
    ),
    "auc_test": lambda d: fastfair.auc_test(
        d["y"], d["score"], d["group"], n_permutations=19, random_state=0
    ),
    "delong": lambda d: fastfair.delong(d["y"], d["score"], d["group"]),
    "mean_difference_test": lambda d: fastfair.mean_difference_test(
        d["score"], d["group"], n_permutations=19, random_state=0
    ),
    "correlation_test": lambda d: fastfair.correlation_test(
        d["score"], d["y"], n_permutations=19, random_state=0
    ),
    "basic_bootstrap_test": lambda d: fastfair.basic_bootstrap_test(
        d["y"], d["pred"], d["group"], n_bootstrap=19, random_state=0
    ),
    "calibration_curve": lambda d: fastfair.calibration_curve(
        d["y"], d["score"], d["group"], cluster=d["cluster"], grid=5
    ),
    "predictive_parity_test": lambda d: fastfair.predictive_parity_test(
        d["y"], d["score"], d["group"], grid=5, n_bootstrap=19, random_state=0
    ),
    "marginal_outcome_test": lambda d: fastfair.marginal_outcome_test(
        d["y"], d["score"], d["group"], threshold=0.3
    ),
    "select_bandwidth": lambda d: fastfair.select_bandwidth(d["y"], d["score"], d["group"]),
    "calibration_error": lambda d: fastfair.calibration_error(d["y"], d["score"], d["group"]),
    "ece": lambda d: fastfair.ece(d["y"], d["score"], n_bins=4),
    "msce": lambda d: fastfair.msce(d["y"], d["score"]),
    "tce_nadaraya_watson": lambda d: fastfair.tce_nadaraya_watson(d["y"], d["score"]),
    "GroupCalibrator": lambda d: fastfair.GroupCalibrator().fit_transform(
        d["score"], d["y"], d["group"]
    ),
    "fair_thresholds": lambda d: fastfair.fair_thresholds(
        d["y"], d["score"], d["group"], 0.5, grid=20
    ),
    "delta_pcc": lambda d: fastfair.delta_pcc(d["y"], d["score"], d["group"], 0.5),
    "delta_rc": lambda d: fastfair.delta_rc(d["y"], d["score"], d["group"], d["cluster"]),
    "wasserstein_test": lambda d: fastfair.wasserstein_test(
        np.column_stack([d["score"], d["score"][::-1]]), d["y"], d["group"], [1.0, -2.0]
    ),
    "threshold_sweep": lambda d: fastfair.threshold_sweep(
        d["y"], d["score"], d["group"], thresholds=5, n_permutations=19, random_state=0
    ),
    "MultiObjectiveCalibrator": lambda d: fastfair.MultiObjectiveCalibrator().fit_transform(
        np.column_stack([d["score"], d["score"] ** 2]), np.column_stack([d["y"], d["y"]]),
        d["group"],
    ),
    "check_composite_parity": lambda d: fastfair.check_composite_parity(
        np.column_stack([d["score"], d["score"] ** 2]), np.column_stack([d["y"], d["y"]]),
        d["group"], [0.5, 0.5], n_bootstrap=19, random_state=0,
    ),
    "audit": lambda d: fastfair.audit(
        d["y"], d["pred"], d["group"], y_score=d["score"], metrics=["tpr", "fpr"],
        min_group_size=2, n_permutations=19,
    ),
    "plan_from_data": lambda d: fastfair.plan_from_data(
        d["y"], d["pred"], d["group"], "tpr", tau=0.1, n_bootstrap=20, random_state=0
    ),
}  # fmt: skip


def _raised_in_fastfair(exc) -> bool:
    """Whether the innermost frame that raised is fastfair's Python code."""
    frames = traceback.extract_tb(exc.__traceback__)
    last = frames[-1].filename if frames else ""
    return last.startswith(PACKAGE) and last.endswith(".py")


def _floats(obj, depth=0):
    """Every float of a result (dataclass fields, arrays, tuples), for the NaN check."""
    if depth > 3 or obj is None or isinstance(obj, (str, bytes)):
        return
    if isinstance(obj, (float, np.floating)):
        yield float(obj)
    elif isinstance(obj, np.ndarray) and obj.dtype.kind == "f":
        yield from obj.ravel().tolist()
    elif isinstance(obj, fastfair.AuditTest) and "note" in obj:
        return  # the audit reports a test's warnings in its row's note, not as warnings
    elif dataclasses.is_dataclass(obj) and not isinstance(obj, type):
        for f in dataclasses.fields(obj):
            if f.name not in ("null_distribution", "favorable"):
                yield from _floats(getattr(obj, f.name), depth + 1)
    elif isinstance(obj, (tuple, list)) and len(obj) < 1000:
        for item in obj:
            yield from _floats(item, depth + 1)


def _check(name, data):
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        try:
            result = CALLS[name](data)
        except (ValueError, TypeError) as exc:
            message = str(exc)
            assert message, f"{name}: empty message"
            assert _raised_in_fastfair(exc), (
                f"{name}: {type(exc).__name__} from outside fastfair's Python code: {message}\n"
                + "".join(traceback.format_tb(exc.__traceback__)[-3:])
            )
            assert not any(b in message for b in BAD_REPRS), f"{name}: numpy repr in {message}"
            return
    values = np.array(list(_floats(result)), dtype=float)
    if np.isnan(values).any():
        assert caught, f"{name}: NaN in the result without a warning"
    for field in ("pvalue", "pvalue_adjusted"):
        p = getattr(result, field, None)
        if p is not None:
            p = np.asarray(p, dtype=float)
            assert np.all((p[np.isfinite(p)] >= 0) & (p[np.isfinite(p)] <= 1)), (name, p)


SETTINGS = dict(deadline=None, suppress_health_check=[HealthCheck.too_slow], derandomize=True)


@pytest.mark.parametrize("name", sorted(CALLS))
@settings(max_examples=10, **SETTINGS)
@given(data=rows())
def test_public_functions_fail_clearly_or_return_documented_results(name, data):
    _check(name, data)


@pytest.mark.slow
@pytest.mark.parametrize("name", sorted(CALLS))
@settings(max_examples=300, **SETTINGS)
@given(data=rows())
def test_public_functions_many_examples(name, data):
    _check(name, data)


@settings(max_examples=40, **SETTINGS)
@given(
    tau=st.floats(-2, 2) | st.sampled_from([1e-12, 1.0, np.nan, np.inf]),
    rate=st.floats(0, 1),
    n=st.floats(0, 1e7) | st.sampled_from([np.nan, -5.0]),
)
def test_planning_fails_clearly_or_returns_finite_sizes(tau, rate, n):
    rates = {"tpr": [rate, 0.5], "prevalence": [0.3, 0.4]}
    for call in (
        lambda: planning.sample_size("tpr", rates=rates, tau=tau),
        lambda: planning.power("tpr", rates=rates, tau=tau, n=n),
        lambda: planning.detectable_difference("tpr", rates=rates, n=n),
        lambda: planning.simulate_power(
            "tpr",
            rates=rates,
            n_per_group=[n, 50],
            tau=tau,
            n_sim=5,
            n_permutations=19,
            random_state=0,
        ),
    ):
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always")
            try:
                res = call()
            except (ValueError, TypeError) as exc:
                assert _raised_in_fastfair(exc), str(exc)
                continue
        if hasattr(res, "n_per_group_ceil"):
            assert np.all(np.asarray(res.n_per_group_ceil) > 0)
        values = np.array(list(_floats(res)), dtype=float)
        if np.isnan(values).any() or np.isinf(np.asarray(res.tau, dtype=float)).any():
            assert caught


# --------------------------------------------------------------------------------------
# Hostile option values: each function with one keyword option replaced
# --------------------------------------------------------------------------------------

HOSTILE = [np.nan, np.inf, -np.inf, -1, 0, 1, 10**12, 1e308, -0.5, 2, "x", None, np.int64(3)]
OPTIONS = {
    "permutation_test": (
        lambda d, **kw: fastfair.permutation_test(
            d["y"], d["pred"], d["group"], **{"random_state": 0, "n_permutations": 19, **kw}
        ),
        ["n_permutations", "n_jobs", "random_state", "reference", "mid_p", "alternative"],
    ),
    "audit": (
        lambda d, **kw: fastfair.audit(
            d["y"],
            d["pred"],
            d["group"],
            **{"y_score": d["score"], "n_permutations": 19, "metrics": ["tpr"], **kw},
        ),
        [
            "threshold",
            "min_group_size",
            "alpha",
            "tau",
            "power",
            "n_permutations",
            "random_state",
            "n_jobs",
            "reference",
            "adjust",
        ],
    ),
    "auc_test": (
        lambda d, **kw: fastfair.auc_test(
            d["y"], d["score"], d["group"], **{"n_permutations": 19, **kw}
        ),
        ["n_permutations", "n_jobs", "random_state", "reference", "confidence_level"],
    ),
    "mean_difference_test": (
        lambda d, **kw: fastfair.mean_difference_test(
            d["score"], d["group"], **{"n_permutations": 19, **kw}
        ),
        ["n_permutations", "n_jobs", "random_state", "reference", "studentize"],
    ),
    "basic_bootstrap_test": (
        lambda d, **kw: fastfair.basic_bootstrap_test(
            d["y"], d["pred"], d["group"], **{"n_bootstrap": 19, **kw}
        ),
        ["n_bootstrap", "confidence_level", "random_state"],
    ),
    "calibration_curve": (
        lambda d, **kw: fastfair.calibration_curve(d["y"], d["score"], d["group"], **kw),
        ["grid", "bandwidth", "confidence_level", "min_effective_clusters", "n_jobs"],
    ),
    "predictive_parity_test": (
        lambda d, **kw: fastfair.predictive_parity_test(
            d["y"], d["score"], d["group"], **{"grid": 5, "n_bootstrap": 19, **kw}
        ),
        ["grid", "bandwidth", "n_bootstrap", "confidence_level", "random_state"],
    ),
    "marginal_outcome_test": (
        lambda d, **kw: fastfair.marginal_outcome_test(
            d["y"], d["score"], d["group"], **{"threshold": 0.3, **kw}
        ),
        ["threshold", "bandwidth", "confidence_level"],
    ),
    "ece": (lambda d, **kw: fastfair.ece(d["y"], d["score"], **kw), ["n_bins", "p"]),
    "tce_nadaraya_watson": (
        lambda d, **kw: fastfair.tce_nadaraya_watson(d["y"], d["score"], **kw),
        ["bandwidth", "n_bins", "n_jobs"],
    ),
    "delta_pcc": (
        lambda d, **kw: fastfair.delta_pcc(
            d["y"], d["score"], d["group"], **{"threshold": 0.5, **kw}
        ),
        ["threshold"],
    ),
    "fair_thresholds": (
        lambda d, **kw: fastfair.fair_thresholds(
            d["y"], d["score"], d["group"], **{"threshold": 0.5, "grid": 20, **kw}
        ),
        ["threshold", "grid", "bandwidth"],
    ),
    "threshold_sweep": (
        lambda d, **kw: fastfair.threshold_sweep(
            d["y"], d["score"], d["group"], **{"thresholds": 5, "n_permutations": 19, **kw}
        ),
        ["thresholds", "n_permutations", "alpha", "n_jobs", "reference"],
    ),
    "wasserstein_test": (
        lambda d, **kw: fastfair.wasserstein_test(
            np.column_stack([d["score"], d["score"][::-1]]), d["y"], d["group"], [1.0, -2.0], **kw
        ),
        ["alpha", "intercept", "n_jobs"],
    ),
}


@pytest.mark.parametrize("name", sorted(OPTIONS))
@settings(max_examples=6, **SETTINGS)
@given(data=rows(), choice=st.integers(0, 10**6), value=st.sampled_from(HOSTILE))
def test_hostile_option_values(name, data, choice, value):
    call, names = OPTIONS[name]
    option = names[choice % len(names)]
    CALLS["_option"] = lambda d: call(d, **{option: value})
    try:
        _check("_option", data)
    finally:
        del CALLS["_option"]


def _valid_rows(n=200, seed=0):
    rng = np.random.default_rng(seed)
    return dict(
        y=rng.integers(0, 2, n), pred=rng.integers(0, 2, n), score=rng.random(n),
        group=rng.choice(["a", "b", "c"], n), weights=None, cluster=rng.integers(0, 50, n),
    )  # fmt: skip


@pytest.mark.parametrize("name", sorted(OPTIONS))
def test_every_hostile_value_of_every_option(name):
    """Deterministic sweep: every option of the table with every hostile value, on valid
    data (before: OverflowError for n_jobs=10**12, a 7 TiB MemoryError for grid or n_bins
    of 10**12, np.int64(3) in messages)."""
    call, names = OPTIONS[name]
    data = _valid_rows()
    for option in names:
        for value in HOSTILE:
            CALLS["_option"] = lambda d, option=option, value=value: call(d, **{option: value})
            try:
                _check("_option", data)
            finally:
                del CALLS["_option"]
