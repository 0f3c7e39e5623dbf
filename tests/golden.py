"""Golden results: a few hundred public calls whose outputs must not change.

`tests/golden_results.json` stores, for every call below, each result field (floats as
`float.hex`). `tests/test_golden.py` replays the calls and compares: bit for bit, except the
fields listed in `BLAS_FIELDS` (floats computed through BLAS/LAPACK, whose last bits depend
on the kernel OpenBLAS picks for the CPU), which are compared to the relative tolerance
`RTOL`. Counts, exact p-values, our compiled sums and random streams stay bit for bit. A
deliberate change of a result regenerates the file in a commit of its own that lists every
changed value and why:

    python tests/golden.py --diff          # what differs from the stored file, by call/field
    python tests/golden.py --write         # store the current outputs

Calls run with n_jobs 1 and 2 where the function takes it; the data are drawn from fixed
seeds with numpy's PCG64 (stable across numpy releases for the methods used here).
"""

from __future__ import annotations

import argparse
import dataclasses
import fnmatch
import hashlib
import json
import math
import pathlib
import sys
import warnings
from collections.abc import Callable, Iterator

import numpy as np

import fastfair
from fastfair import simulate

PATH = pathlib.Path(__file__).with_name("golden_results.json")
MAX_ARRAY = 64  # longer arrays are stored by shape, a hash of their bytes and, if float, a sample
N_SAMPLE = 16  # float values stored for a long array: evenly spaced in the flattened array

# Fields compared to a relative tolerance, by call name (fnmatch pattern): the field paths
# (fnmatch, `a.b.0.c` for `a.b[0].c`; a pattern covers the fields below it) and why. Every
# other field, and every integer, string or flag anywhere, is compared bit for bit.
# OpenBLAS picks its kernels by CPU (OPENBLAS_CORETYPE overrides it): dot products, matrix
# products, solves and eigendecompositions sum in another order on another CPU, so these
# floats differ in their last bits between machines (measured: at most 9e-11 relative
# under the Haswell, Zen and Prescott kernels against SkylakeX's, which wrote the file).
# A p-value that is a count of resamples stays exact: a resampled statistic would have to
# fall within that rounding of the observed one to change it.
BLAS_FIELDS: dict[str, tuple[tuple[str, ...], str]] = {
    "correlation_test/*": (
        ("r", "statistic", "tau"),
        "sums of squares and cross-products by numpy's `@` (BLAS ddot)",
    ),
    "predictive_parity_test/*": (
        ("critical_value", "critical_values", "null_distribution"),
        "the multiplier bootstrap draws through each group's covariance root (LAPACK eigh, "
        "BLAS matrix product)",
    ),
    "check_composite_parity": (
        ("results.*.critical_value", "results.*.critical_values", "results.*.null_distribution"),
        "predictive_parity_test's multiplier bootstrap (LAPACK eigh, BLAS matrix product)",
    ),
    "wasserstein_test/*": (
        ("*",),
        "every float follows from X @ beta (BLAS) and a Cholesky solve (LAPACK)",
    ),
    "GroupCalibrator/*/platt": (
        ("fitted.coef_", "fitted.values_", "transform"),
        "Newton steps of the logistic fit: X.T @ X (BLAS) and a linear solve (LAPACK)",
    ),
    "MultiObjectiveCalibrator": (
        ("transform",),
        "a logistic fit per score (X.T @ X, BLAS; a linear solve, LAPACK)",
    ),
}
RTOL = 1e-8  # 100x the largest difference measured between OpenBLAS kernels
ATOL = 1e-12  # a float that is zero up to rounding (a constraint met exactly: 0 vs -7e-17)


# --------------------------------------------------------------------------- encoding
def encode(value, depth=0):
    """A JSON-able, bit-exact description of a result (floats as hex)."""
    if depth > 6:
        return repr(type(value).__name__)
    if value is None or isinstance(value, (bool, str)):
        return value
    if isinstance(value, (int, np.integer)):
        return int(value)
    if isinstance(value, (float, np.floating)):
        return float(value).hex()
    if isinstance(value, np.ndarray):
        if value.dtype == object:
            return [encode(v, depth + 1) for v in value.ravel().tolist()]
        arr = np.ascontiguousarray(value)
        if arr.size <= MAX_ARRAY:
            return {"shape": list(arr.shape), "data": [encode(v) for v in arr.ravel().tolist()]}
        out = {
            "shape": list(arr.shape),
            "dtype": str(arr.dtype),
            "sha1": hashlib.sha1(arr.tobytes()).hexdigest(),
        }
        if arr.dtype.kind == "f":  # what a tolerant comparison compares instead of the hash
            flat = arr.ravel()
            at = np.linspace(0, flat.size - 1, N_SAMPLE).round().astype(np.intp)
            out["sample"] = [encode(v) for v in flat[at].tolist()]
            out["abs_sum"] = encode(np.abs(flat).sum())
        return out
    if dataclasses.is_dataclass(value) and not isinstance(value, type):
        return {
            "__type__": type(value).__name__,
            **{
                f.name: encode(getattr(value, f.name), depth + 1)
                for f in dataclasses.fields(value)
            },
        }
    if isinstance(value, dict):
        return {str(k): encode(v, depth + 1) for k, v in value.items()}
    if isinstance(value, (list, tuple)):
        return [encode(v, depth + 1) for v in value]
    if hasattr(value, "__dict__"):  # estimators: their fitted attributes
        attrs = {k: v for k, v in vars(value).items() if k.endswith("_") and k[0] != "_"}
        fitted = {k: encode(v, depth + 1) for k, v in attrs.items()}
        return {"__type__": type(value).__name__, **fitted}
    return repr(value)


# --------------------------------------------------------------------------- data
def binary_data(seed, n=400, k=2, shift=0.1):
    rng = np.random.default_rng(seed)
    group = rng.integers(0, k, n)
    y = rng.integers(0, 2, n)
    yhat = (rng.random(n) < 0.35 + 0.3 * y + shift * (group == 1)).astype(int)
    score = np.clip(0.3 * y + 0.5 * rng.random(n) + 0.05 * group, 0.0, 1.0)
    w = rng.exponential(size=n)
    return y, yhat, group, score, w


def _heavy(seed):
    return simulate.heavy_user_injection(
        n=3000, n_heavy=5, rows_heavy=60, inject=bool(seed % 2), random_state=seed
    )


# --------------------------------------------------------------------------- calls
def calls() -> Iterator[tuple[str, Callable[[], object]]]:
    """(name, thunk) for every golden call; names are unique and stable."""
    metrics = [
        "tpr", "fnr", "fpr", "tnr", "ppv", "fdr", "npv", "for",
        "selection_rate", "accuracy", "error_rate", "equalized_odds",
    ]  # fmt: skip
    for seed, metric in enumerate(metrics):
        y, yhat, g, _, w = binary_data(seed)
        for scheme in ("conditional", "full"):
            for method in ("exact", "monte_carlo", "asymptotic"):
                if method == "exact" and metric == "equalized_odds" and scheme == "full":
                    continue
                for variance in ("pooled", "unpooled"):
                    kw = dict(metric=metric, scheme=scheme, method=method, variance=variance)
                    name = f"permutation_test/{metric}/{scheme}/{method}/{variance}"
                    yield name, _bind(
                        fastfair.permutation_test, y, yhat, g, n_permutations=299,
                        random_state=seed, **kw,
                    )  # fmt: skip
        yield f"permutation_test/{metric}/raw", _bind(
            fastfair.permutation_test, y, yhat, g, metric=metric, studentize=False,
            method="monte_carlo", n_permutations=199, random_state=seed,
        )  # fmt: skip
        for alt in ("less", "greater"):
            yield f"permutation_test/{metric}/{alt}", _bind(
                fastfair.permutation_test, y, yhat, g, metric=metric, alternative=alt,
                mid_p=True,
            )  # fmt: skip
        if metric != "equalized_odds":
            for n_jobs in (1, 2):
                yield f"permutation_test/{metric}/weighted/n_jobs={n_jobs}", _bind(
                    fastfair.permutation_test, y, yhat, g, metric=metric, sample_weight=w,
                    n_permutations=199, random_state=seed, n_jobs=n_jobs,
                )  # fmt: skip
    # several groups: every comparison mode and adjustment
    y, yhat, g, _, _ = binary_data(20, n=600, k=4)
    for comparisons in ("reference", "all"):
        for adjust in ("holm", "bonferroni", "maxT", "none"):
            for n_jobs in (1, 2):
                yield f"permutation_test/k4/{comparisons}/{adjust}/n_jobs={n_jobs}", _bind(
                    fastfair.permutation_test, y, yhat, g, metric="fpr",
                    comparisons=comparisons, adjust=adjust, method="monte_carlo",
                    n_permutations=499, random_state=3, n_jobs=n_jobs,
                )  # fmt: skip
    yield (
        "permutation_test/k4/exact/return_null",
        _bind(fastfair.permutation_test, y, yhat, g, metric="tpr", reference=2, return_null=True),
    )
    counts = fastfair.confusion_counts(y, yhat, g)
    yield "confusion_counts/k4", lambda: fastfair.confusion_counts(y, yhat, g)
    yield (
        "confusion_counts/weighted",
        _bind(fastfair.confusion_counts, y, yhat, g, sample_weight=np.arange(len(y)) % 3 + 0.5),
    )
    for metric in ("tpr", "ppv", "selection_rate"):
        yield (
            f"permutation_test_from_counts/{metric}",
            _bind(fastfair.permutation_test_from_counts, *counts, metric=metric, random_state=1),
        )
    # callables (Algorithm 1) and row metrics
    y, yhat, g, score, _ = binary_data(30, n=300)

    def tpr(yt, yp):
        return float(np.mean(yp[yt == 1])) if np.any(yt == 1) else 0.0

    for stud in (True, False, "bootstrap", "bootstrap-fast"):
        yield f"permutation_test/callable/studentize={stud}", _bind(
            fastfair.permutation_test, y, yhat, g, metric=tpr, studentize=stud,
            n_permutations=99, n_bootstrap=50, random_state=2,
        )  # fmt: skip
    yield (
        "basic_bootstrap_test/tpr",
        _bind(fastfair.basic_bootstrap_test, y, yhat, g, n_bootstrap=199, random_state=1),
    )
    yield (
        "basic_bootstrap_test/callable",
        _bind(
            fastfair.basic_bootstrap_test, y, yhat, g, metric=tpr, n_bootstrap=99, random_state=1
        ),
    )
    # AUC
    for seed in range(3):
        y, _, g, score, _ = binary_data(40 + seed, n=500, k=2 + seed)
        for scheme in ("within_outcome", "full"):
            for stud in (True, False):
                for n_jobs in (1, 2):
                    yield f"auc_test/{seed}/{scheme}/stud={stud}/n_jobs={n_jobs}", _bind(
                        fastfair.auc_test, y, score, g, scheme=scheme, studentize=stud,
                        n_permutations=299, random_state=seed, n_jobs=n_jobs,
                    )  # fmt: skip
        yield f"auc_test/{seed}/asymptotic", _bind(fastfair.auc_test, y, score, g, method="delong")
        yield f"delong/{seed}", _bind(fastfair.delong, y, score, g, return_placements=True)
        yield f"delong/{seed}/pooled", _bind(fastfair.delong, y, score)
    # generic metrics
    rng = np.random.default_rng(50)
    v = rng.normal(size=300) + 0.2 * (np.arange(300) % 3 == 1)
    gv = np.arange(300) % 3
    for method in ("exact", "monte_carlo", "asymptotic"):
        for stud in (True, False):
            vv, gg = (v[:14], gv[:14] % 2) if method == "exact" else (v, gv)
            yield f"mean_difference_test/{method}/stud={stud}", _bind(
                fastfair.mean_difference_test, vv, gg, method=method, studentize=stud,
                n_permutations=299, random_state=3,
            )  # fmt: skip
    for n_jobs in (1, 2):
        yield f"mean_difference_test/n_jobs={n_jobs}", _bind(
            fastfair.mean_difference_test, v, gv, n_permutations=299, random_state=3,
            n_jobs=n_jobs,
        )  # fmt: skip
    x, e = rng.normal(size=200), rng.normal(size=200)
    e = e + 0.2 * x
    for stud in (True, False):
        for n_jobs in (1, 2):
            yield f"correlation_test/stud={stud}/n_jobs={n_jobs}", _bind(
                fastfair.correlation_test, x, e, studentize=stud, n_permutations=299,
                random_state=4, n_jobs=n_jobs,
            )  # fmt: skip
    # planning
    rates = {"tpr": [0.7, 0.6], "fpr": [0.2, 0.25], "prevalence": [0.3, 0.4]}
    for metric in ("tpr", "fpr", "selection_rate", "accuracy", "ppv", "npv", "auc"):
        r = dict(rates)
        r["selection_rate"] = [0.4, 0.35]
        r["ppv"] = [0.6, 0.55]
        r["npv"] = [0.8, 0.75]
        r["auc"] = [0.8, 0.75]
        r["accuracy"] = [0.8, 0.77]
        for alloc in ("neyman", "equal"):
            plan = _bind(  # the formula's plans (the default exact plans are slower)
                _quiet(fastfair.sample_size), metric, rates=r, tau=0.05, allocation=alloc,
                test="asymptotic",
            )  # fmt: skip
            yield f"sample_size/{metric}/{alloc}", plan
            yield (
                f"power/{metric}/{alloc}",
                _bind(_quiet(fastfair.power), metric, rates=r, tau=0.05, n=5000, allocation=alloc),
            )
            yield f"detectable_difference/{metric}/{alloc}", _bind(
                _quiet(fastfair.detectable_difference), metric, rates=r, n=5000,
                allocation=alloc,
            )  # fmt: skip
    for u_tol in (0.0, 0.02):
        yield f"sample_size/sigma2/u_tol={u_tol}", _bind(
            fastfair.sample_size, sigma2=[0.2, 0.3, 0.25], tau=0.08, u_tol=u_tol,
            alternative="greater", population_sizes=[1e5, 1e5, 1e5],
        )  # fmt: skip
    y, yhat, g, _, _ = binary_data(60, n=2000, k=3)
    for metric in ("tpr", "ppv", "selection_rate"):
        yield f"plan_from_data/{metric}", _bind(
            fastfair.plan_from_data, y, yhat, g, metric, tau=0.05, n_bootstrap=200,
            random_state=1,
        )  # fmt: skip
    for test in ("permutation", "wald"):
        yield f"simulate_power/{test}", _bind(
            _quiet(fastfair.simulate_power), "tpr",
            rates={"tpr": [0.7, 0.6], "prevalence": [0.3, 0.4]}, n_per_group=[150, 150],
            n_sim=40, test=test, n_permutations=99, random_state=2, n_jobs=1,
        )  # fmt: skip
    # predictive parity, calibration
    for seed in (1, 2):
        yc, sc, gc, uc = _heavy(seed)[:4]
        for weighting in ("per_user", "per_observation"):
            for n_jobs in (1, 2):
                yield f"predictive_parity_test/{seed}/{weighting}/n_jobs={n_jobs}", _bind(
                    _quiet(fastfair.predictive_parity_test), yc, sc, gc, cluster=uc,
                    weighting=weighting, grid=15, n_bootstrap=299, random_state=seed,
                    n_jobs=n_jobs,
                )  # fmt: skip
        yield f"predictive_parity_test/{seed}/epanechnikov/bh", _bind(
            _quiet(fastfair.predictive_parity_test), yc, sc, gc, cluster=uc,
            kernel="epanechnikov", adjust="bh", grid=10, n_bootstrap=199, random_state=seed,
        )  # fmt: skip
        yield (
            f"calibration_curve/{seed}",
            _bind(_quiet(fastfair.calibration_curve), yc, sc, gc, cluster=uc, grid=20),
        )
        yield (
            f"calibration_curve/{seed}/cv",
            _bind(
                _quiet(fastfair.calibration_curve), yc, sc, gc, cluster=uc, grid=20, bandwidth="cv"
            ),
        )
        yield (
            f"marginal_outcome_test/{seed}",
            _bind(_quiet(fastfair.marginal_outcome_test), yc, sc, gc, 0.5, cluster=uc),
        )
        yield (
            f"select_bandwidth/{seed}/cv",
            _bind(fastfair.select_bandwidth, yc, sc, gc, cluster=uc, method="cv"),
        )
        yield (
            f"tce_nadaraya_watson/{seed}",
            _bind(fastfair.tce_nadaraya_watson, yc, sc, cluster=uc),
        )
        for est in ("nadaraya_watson", "ece_equal_mass", "ece_equal_width", "msce"):
            yield (
                f"calibration_error/{seed}/{est}",
                _bind(_quiet(fastfair.calibration_error), yc, sc, gc, estimator=est, cluster=uc),
            )
        yield f"ece/{seed}", _bind(fastfair.ece, yc, sc)
        yield f"msce/{seed}", _bind(fastfair.msce, yc, sc, return_bins=True)
        for method in ("nadaraya_watson", "platt", "isotonic"):
            yb = (yc > 0.5).astype(int)  # platt/isotonic need 0/1 outcomes
            yield (
                f"GroupCalibrator/{seed}/{method}",
                _fit_transform(fastfair.GroupCalibrator(method=method), yb, sc, gc, uc),
            )
        yield (
            f"fair_thresholds/{seed}",
            _bind(_quiet(fastfair.fair_thresholds), yc, sc, gc, 0.5, cluster=uc),
        )
        yield f"delta_pcc/{seed}", _bind(_quiet(fastfair.delta_pcc), yc, sc, gc, 0.5, cluster=uc)
        yield (
            f"delta_rc/{seed}",
            _bind(_quiet(fastfair.delta_rc), yc, sc, gc, sc[::-1], cluster=uc),
        )
        # scores on a grid, threshold on a grid point: pins the ">= t is positive" boundary
        sg = np.round(sc, 1)
        yield (
            f"fair_thresholds/{seed}/grid",
            _bind(_quiet(fastfair.fair_thresholds), yc, sg, gc, 0.5, cluster=uc),
        )
        yield f"delta_pcc/{seed}/grid", _bind(_quiet(fastfair.delta_pcc), yc, sg, gc, 0.5)
    # threshold sweep: scores on a grid, thresholds on grid points
    y, _, g, score, _ = binary_data(90, n=600)
    score = np.round(score, 1)
    for method in ("monte_carlo", "exact"):
        for n_jobs in (1, 2):
            yield f"threshold_sweep/{method}/n_jobs={n_jobs}", _bind(
                fastfair.threshold_sweep, y, score, g, thresholds=np.linspace(0, 1, 11),
                metrics=("tpr", "fpr", "selection_rate"), method=method, n_permutations=199,
                random_state=3, n_jobs=n_jobs,
            )  # fmt: skip
    rng = np.random.default_rng(70)
    n = 600
    gm = rng.integers(0, 2, n)
    s1 = rng.random(n)
    s2 = np.clip(s1 + rng.normal(0, 0.1, n), 0, 1)
    o1 = (rng.random(n) < s1).astype(float)
    o2 = (rng.random(n) < s2).astype(float)
    yield "MultiObjectiveCalibrator", lambda: _moc(o1, o2, s1, s2, gm)
    yield (
        "check_composite_parity",
        _bind(
            _quiet(fastfair.check_composite_parity),
            np.c_[s1, s2],
            np.c_[o1, o2],
            gm,
            [0.5, 0.5],
            random_state=5,
            n_bootstrap=199,
        ),
    )
    # Wasserstein
    rng = np.random.default_rng(80)
    n = 800
    X = rng.normal(size=(n, 3))
    a = rng.integers(0, 2, n)
    yw = rng.integers(0, 2, n)
    for criterion in ("equal_opportunity", "equalized_odds"):
        for scale in (0.5, 2.0):
            beta = scale * np.array([0.4, -0.3, 0.2])
            yield f"wasserstein_test/{criterion}/{scale}", _bind(
                fastfair.wasserstein_test, X + 0.2 * a[:, None], yw, a, beta,
                criterion=criterion, return_favorable=True,
            )  # fmt: skip
    # tolerance and equivalence tests (rates: score, exact, auto with few events, Wald with a
    # zero variance; AUC: the default hybrid and the others; a row metric; three groups)
    counts = [[500, 40, 30, 170], [450, 60, 55, 120]]
    sparse = [[300, 4, 2, 1], [90, 6, 4, 3]]
    for method in ("auto", "score", "exact", "farrington-manning", "wald"):
        yield f"tolerance_test_from_counts/{method}", _bind(
            fastfair.tolerance_test_from_counts, sparse, metric="fpr", u_tol=0.01,
            method=method,
        )  # fmt: skip
    yield (
        "tolerance_test_from_counts/wald/zero_variance",
        _bind(fastfair.tolerance_test_from_counts, [[0, 0, 0, 40], [0, 0, 25, 0]], method="wald"),
    )
    for alt in ("two-sided", "greater", "less"):  # the score test ("auto" is exact here)
        yield (
            f"tolerance_test_from_counts/{alt}",
            _bind(fastfair.tolerance_test_from_counts, counts, u_tol=0.02, alternative=alt,
                  method="score"),
        )  # fmt: skip
    yield (  # "auto": 30 false negatives against a group 20 times larger, exact
        "tolerance_test_from_counts/auto/unbalanced",
        _bind(fastfair.tolerance_test_from_counts, [[500, 40, 30, 170],
              [50_000, 4_000, 600, 3_400]], u_tol=0.02),
    )  # fmt: skip
    yield (
        "equivalence_test_from_counts/auto",
        _bind(fastfair.equivalence_test_from_counts, sparse, metric="fpr", delta=0.05),
    )
    y, yhat, g, score, w = binary_data(5, n=600, k=3)
    yield (
        "tolerance_test/tpr/k3/weighted",
        _bind(fastfair.tolerance_test, y, yhat, g, u_tol=0.02, sample_weight=w),
    )
    yield (
        "equivalence_test/tpr/k3/all",
        _bind(fastfair.equivalence_test, y, yhat, g, delta=0.1, comparisons="all"),
    )
    for method in ("hybrid", "logit-t", "logit", "delong"):
        yield (
            f"tolerance_test/auc/{method}",
            _bind(fastfair.tolerance_test, y, score, g, metric="auc", u_tol=0.01, method=method),
        )
    yield (
        "equivalence_test/auc",
        _bind(fastfair.equivalence_test, y, score, g, metric="auc", delta=0.1),
    )
    yield (
        "tolerance_test/mse/welch",
        _bind(fastfair.tolerance_test, score, yhat.astype(float), g, metric="mse", u_tol=0.01),
    )
    # the audit on the demo data, every engine (to_dict without the timing and the version)
    yield from _audit_calls()
    # mergeable summaries (fastfair.stats) and the dask functions (synchronous scheduler)
    yield from _summary_calls()
    # simulators
    yield "simulate/bbc_sample", _bind(simulate.bbc_sample, 50, random_state=1)
    yield "simulate/bbc_dependent", _bind(simulate.bbc_dependent, 30, random_state=1)
    yield (
        "simulate/heavy_user_injection",
        _bind(simulate.heavy_user_injection, n=500, n_heavy=2, rows_heavy=20, random_state=1),
    )
    yield "simulate/bbc_true_tce", simulate.bbc_true_tce
    yield "simulate/bbc_dependent_true_tce", simulate.bbc_dependent_true_tce


DEMO = pathlib.Path(fastfair.__file__).with_name("data") / "adult_demo.csv"


def _demo_frame():
    import pandas as pd

    frame = pd.read_csv(DEMO)
    frame["user"] = np.arange(len(frame)) // 3  # three rows a user: a clustered parity test
    return frame


def _audit_dict(result) -> dict:
    out = result.to_dict()
    for key in ("elapsed_seconds", "fastfair_version"):
        out.pop(key)
    return out


def _audit_calls() -> Iterator[tuple[str, Callable[[], object]]]:
    frame = _demo_frame()
    options = dict(n_permutations=199, random_state=1, n_jobs=1)
    yield "audit/demo/sex+race/intersections/score/cluster", lambda: _audit_dict(
        fastfair.audit(
            "label", "prediction", ["sex", "race"], y_score="score", data=frame,
            cluster="user", intersections=True, **options,
        )
    )  # fmt: skip
    yield "audit/demo/sex/threshold/tolerance/equivalence", lambda: _audit_dict(
        fastfair.audit(
            "label", None, ["sex"], y_score="score", threshold=0.4, data=frame,
            tolerance=0.02, equivalence=0.1, metrics=["tpr", "fpr", "selection_rate"],
            **options,
        )
    )  # fmt: skip
    for cluster in (None, "user"):
        yield f"audit/demo/sex/score/cluster={cluster}/memory", lambda cluster=cluster: (
            _audit_dict(
                fastfair.audit(
                    "label", "prediction", ["sex"], y_score="score", data=frame,
                    cluster=cluster, **options,
                )
            )
        )  # fmt: skip
        for engine in ("arrow", "dask"):
            yield (
                f"audit/demo/sex/score/cluster={cluster}/{engine}",
                _bind(_engine_audit, frame, engine, cluster, **options),
            )


def _engine_audit(frame, engine, cluster, **options):
    """The demo audit by the arrow or dask engine, from a Parquet copy of the demo data."""
    import tempfile

    with tempfile.TemporaryDirectory() as tmp:
        path = str(pathlib.Path(tmp) / "demo.parquet")
        frame.to_parquet(path, row_group_size=4096, index=False)
        result = fastfair.audit(
            "label", "prediction", ["sex"], y_score="score", data=path, cluster=cluster,
            engine=engine, scheduler="sync", **options,
        )  # fmt: skip
    return _audit_dict(result)


def _summary_calls() -> Iterator[tuple[str, Callable[[], object]]]:
    import pandas as pd

    from fastfair import stats

    frame = _demo_frame()
    y, p, s = frame["label"].to_numpy(), frame["prediction"].to_numpy(), frame["score"]
    sex, race = frame["sex"].to_numpy(), frame["race"].to_numpy()
    half = len(y) // 2

    def confusion(*groups):
        a = stats.ConfusionStats.from_arrays(y[:half], p[:half], *(g[:half] for g in groups))
        b = stats.ConfusionStats.from_arrays(y[half:], p[half:], *(g[half:] for g in groups))
        return b + a

    yield "ConfusionStats/race", _bind(confusion, race)
    yield "ConfusionStats/sex&race", _bind(confusion, sex, race)
    yield (
        "ConfusionStats.test/sex&race/fpr",
        lambda: confusion(sex, race).test(metric="fpr", method="monte_carlo",
                                          n_permutations=199, random_state=2),
    )  # fmt: skip
    yield "ConfusionStats.test/race/tpr", lambda: confusion(race).test(metric="tpr")
    yield (
        "ConfusionStats.plan/race/tpr",
        lambda: confusion(race).plan("tpr", tau=0.05, n_bootstrap=100, random_state=3),
    )
    s = s.to_numpy()

    def scores(resolution=None):
        a = stats.ScoreStats.from_arrays(y[:half], s[:half], race[:half], resolution=resolution)
        b = stats.ScoreStats.from_arrays(y[half:], s[half:], race[half:], resolution=resolution)
        return a + b

    for resolution in (None, 0.05):
        yield f"ScoreStats/race/resolution={resolution}", _bind(scores, resolution)
        yield (
            f"ScoreStats.delong/race/resolution={resolution}",
            lambda r=resolution: scores(r).delong(),
        )
        yield (
            f"ScoreStats.auc_error_bound/resolution={resolution}",
            lambda r=resolution: scores(r).auc_error_bound,
        )
    yield (
        "ScoreStats.test/race/all/bonferroni",
        lambda: scores().test(comparisons="all", adjust="bonferroni", alternative="greater"),
    )

    def means():
        a = stats.MeanStats.from_arrays(s[:half], sex[:half])
        b = stats.MeanStats.from_arrays(s[half:], sex[half:])
        m = a + b
        return {
            "sum": m,
            "mean": m.mean,
            "variance": m.variance,
            "welch": m.welch("Male", "Female"),
        }

    yield "MeanStats/sex", means
    yield from _dask_calls(pd.DataFrame({"y": y, "p": p, "s": s, "sex": sex, "race": race}))


def _dask_calls(frame) -> Iterator[tuple[str, Callable[[], object]]]:
    import dask.dataframe as dd

    import fastfair.dask as fd

    df = dd.from_pandas(frame, npartitions=5)
    sync = dict(scheduler="sync")
    yield "dask.confusion_stats/sex&race", _bind(fd.confusion_stats, df, "y", "p", "sex", "race",
                                                 **sync)  # fmt: skip
    yield "dask.permutation_test/race/ppv", _bind(
        fd.permutation_test, df, "y", "p", "race", metric="ppv", method="monte_carlo",
        n_permutations=199, random_state=4, **sync,
    )  # fmt: skip
    yield "dask.score_stats/race", _bind(fd.score_stats, df, "y", "s", "race", **sync)
    yield "dask.delong/sex", _bind(fd.delong, df, "y", "s", "sex", **sync)
    yield (
        "dask.auc_test/race/resolution",
        _bind(fd.auc_test, df, "y", "s", "race", resolution=0.01, comparisons="all", **sync),
    )


def _bind(f, *args, **kwargs):
    return lambda: f(*args, **kwargs)


def _quiet(f):
    def g(*args, **kwargs):
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            return f(*args, **kwargs)

    return g


def _fit_transform(cal, y, s, g, u):
    def run():
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            cal.fit(s, y, g, cluster=u)
            return {"fitted": cal, "transform": cal.transform(s, g)}

    return run


def _moc(o1, o2, s1, s2, g):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        m = fastfair.MultiObjectiveCalibrator(method="logistic")
        m.fit(np.c_[s1, s2], np.c_[o1, o2], g)
        return {"fitted": m, "transform": m.transform(np.c_[s1, s2], g)}


def run_all() -> dict:
    """Outputs of every call; an exception is recorded as its type and message."""
    out = {}
    for name, thunk in calls():
        assert name not in out, f"duplicate golden call name {name}"
        try:
            out[name] = encode(thunk())
        except Exception as exc:  # a refused call is a result too
            out[name] = {"__error__": type(exc).__name__, "message": str(exc)}
    return out


def differences(stored, current) -> list[str]:
    """Paths at which two sets of encoded results differ, with both values.

    Bit for bit, except the fields of `BLAS_FIELDS`, whose floats may differ by `RTOL`
    relative (or `ATOL` absolute) and whose long arrays are compared by their sample and
    absolute sum instead of their hash.
    """
    diffs = []
    for name in sorted(set(stored) | set(current)):
        if name not in stored:
            diffs.append(f"{name}: new")
        elif name not in current:
            diffs.append(f"{name}: removed")
        else:
            diffs += _differences(stored[name], current[name], name, "", tolerant_fields(name))
    return diffs


def tolerant_fields(name: str) -> tuple[str, ...]:
    """The field patterns of call `name` that are compared to a tolerance."""
    return tuple(
        p for call, (fields, _) in BLAS_FIELDS.items() if fnmatch.fnmatchcase(name, call)
        for p in fields
    )  # fmt: skip


def is_tolerant(field: str, patterns: tuple[str, ...]) -> bool:
    """Whether `field` (dotted path in a call's result) or a field above it matches."""
    parts = field.split(".")
    return any(
        fnmatch.fnmatchcase(".".join(parts[:i]), p)
        for p in patterns
        for i in range(1, len(parts) + 1)
    )


def close(a: str, b: str) -> bool:
    """Two hex-encoded floats within RTOL relative (or ATOL absolute) of each other."""
    try:
        x, y = float.fromhex(a), float.fromhex(b)
    except (TypeError, ValueError):
        return False
    return math.isclose(x, y, rel_tol=RTOL, abs_tol=ATOL)


def _differences(stored, current, name, field, patterns) -> list[str]:
    where = f"{name}.{field}" if field else name
    if isinstance(stored, dict) and isinstance(current, dict):
        if "sha1" in stored and "sample" in stored and is_tolerant(field, patterns):
            stored, current = _without_hash(stored), _without_hash(current)
        diffs = []
        for k in sorted(set(stored) | set(current)):
            sub = f"{field}.{k}" if field else str(k)
            if k not in stored:
                diffs.append(f"{name}.{sub}: new")
            elif k not in current:
                diffs.append(f"{name}.{sub}: removed")
            else:
                diffs += _differences(stored[k], current[k], name, sub, patterns)
        return diffs
    if isinstance(stored, list) and isinstance(current, list) and len(stored) == len(current):
        diffs = []
        for i, (a, b) in enumerate(zip(stored, current)):
            sub = f"{field}.{i}" if field else str(i)
            diffs += _differences(a, b, name, sub, patterns)
        return diffs
    if stored == current:
        return []
    if patterns and is_tolerant(field, patterns) and close(stored, current):
        return []
    return [f"{where}: {_show(stored)} -> {_show(current)}"]


def _without_hash(encoded: dict) -> dict:
    return {k: v for k, v in encoded.items() if k != "sha1"}


def _show(v):
    if isinstance(v, str) and v.startswith(("0x", "-0x")):
        return repr(float.fromhex(v))
    if isinstance(v, str) and v in ("inf", "-inf", "nan"):
        return v
    text = json.dumps(v)
    return text if len(text) < 120 else text[:117] + "..."


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--write", action="store_true", help="store the current outputs")
    parser.add_argument("--diff", action="store_true", help="list the differences")
    args = parser.parse_args(argv)
    current = run_all()
    if args.write:
        PATH.write_text(json.dumps(current, indent=0, sort_keys=True) + "\n")
        print(f"wrote {len(current)} golden calls to {PATH}")
        return 0
    stored = json.loads(PATH.read_text())
    diffs = differences(stored, current)
    for d in diffs:
        print(d)
    print(f"{len(current)} calls, {len(diffs)} differences")
    return 1 if diffs else 0


if __name__ == "__main__":
    sys.exit(main())
