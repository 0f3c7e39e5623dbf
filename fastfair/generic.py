"""Algorithm 1 for any metric: callables, regression metrics, means and correlations.

DiCiccio, Vasudevan, Basu, Kenthapadi & Agarwal (KDD 2020), "Evaluating fairness using
permutation tests", Sec. 3.4 (Algorithm 1), 4.1, 4.2 and 5 (docs/generic.md).

* :func:`permutation_test_rows` (reached through ``fastfair.permutation_test`` with a
  callable or a row metric): the permutation test of ``metric(group A) - metric(group B)``
  for any metric, studentized by a bootstrap variance inside every permutation (the full
  Algorithm 1), by the Sec. 5 shortcut, by the Welch variance (means of per-row values), or
  not at all (a pivotal statistic).
* :func:`mean_difference_test`: the difference of means of any per-row value, Welch
  studentized, with the permutations in the compiled core.
* :func:`correlation_test`: Pearson's r between a continuous attribute and a model's error,
  raw (FairTest's statistic) or studentized (DiCiccio & Romano 2017).
* :func:`basic_bootstrap_test`: the "basic" bootstrap test of Sec. 4.2, to compare with.
"""

from __future__ import annotations

import itertools
import math
import sys
import warnings
from collections.abc import Callable
from dataclasses import dataclass, field

import numpy as np

from fastfair import _means
from fastfair._comparisons import comparison_pairs
from fastfair._deprecation import renamed_arguments
from fastfair._metrics import CONFUSION_METRICS, METRIC_ALIASES, get_metric
from fastfair._parallel import effective_n_threads
from fastfair._permutation_result import PermutationTestResult
from fastfair._pvalues import (
    ALTERNATIVES,
    adjust_pvalues,
    asymptotic_pvalue,
    exact_pvalue,
    wilson_interval,
)
from fastfair._random import stream_key
from fastfair._results import format_interval, format_pvalue, format_table, format_value
from fastfair._scipy import special, stats
from fastfair._sequential import (
    Sampler,
    Sequential,
    draw_all,
    monte_carlo_notes,
    resolve,
    summarize,
)
from fastfair._validation import (
    as_1d,
    as_binary_pair,
    as_finite_float,
    as_groups,
    as_weights,
    check_choice,
    check_level,
    check_resamples,
    check_same_length,
    resolve_columns,
    show_value,
)

__all__ = [
    "ROW_METRICS",
    "BootstrapTestResult",
    "CorrelationTestResult",
    "GenericTestResult",
    "MetricError",
    "basic_bootstrap_test",
    "correlation_test",
    "mean_difference_test",
    "permutation_test_rows",
]

#: Built-in row-level metrics: the mean of a per-row value (y = y_true, p = y_pred).
ROW_METRICS = {
    "mse": "mean of (y - p)^2",
    "mae": "mean of |y - p|",
    "mean_residual": "mean of y - p",
    "mean_score": "mean of p (score parity)",
    "mean_outcome": "mean of y (outcome parity)",
}
STUDENTIZE = ("welch", "bootstrap", "bootstrap-fast")


def is_row_metric(metric) -> bool:
    """True when `metric` names a built-in row-level metric (see `ROW_METRICS`)."""
    return isinstance(metric, str) and metric.lower() in ROW_METRICS


METHODS = ("auto", "exact", "monte_carlo", "asymptotic")
ADJUSTMENTS = ("holm", "bonferroni", "none")
#: Largest number of subsets that method="exact" enumerates for a difference of means.
MAX_EXACT_SUBSETS = 200_000
_CHUNK_ELEMENTS = 1 << 20  # gathered values per call of a vectorized metric (per array)
SCALE_BLOCK = 999  # "bootstrap-fast", sequential: permutations that fix the scale
_PROGRESS_GUESS = 1000  # progress-bar length of a sequential test (it has no fixed count)
_OBSERVED = 1 << 62  # bootstrap stream index of the observed data (permutation b uses b)


class MetricError(ValueError):
    """A user metric raised, or returned something other than a finite number."""


# --------------------------------------------------------------------------------------
# Results
# --------------------------------------------------------------------------------------


@dataclass(repr=False)
class GenericTestResult(PermutationTestResult):
    """Result of a permutation test of a callable or row-level metric.

    The fields of :class:`~fastfair.PermutationTestResult`, where `variance` says how the
    statistic was studentized: ``"welch"`` (standard error of a difference of means),
    ``"bootstrap"`` (Algorithm 1: a bootstrap variance inside every permutation),
    ``"bootstrap-fast"`` (Sec. 5: observed difference over its bootstrap SD, permuted
    differences over the SD of the permutation distribution) or ``"none"``;
    `group_denominators` holds group sizes (sums of weights when weighted).

    Attributes
    ----------
    n_bootstrap : int or None
        Bootstrap resamples per variance estimate (bootstrap studentization).
    standard_error : float or ndarray or None
        Standard error that studentized each observed difference.
    """

    n_bootstrap: int | None = None
    standard_error: float | np.ndarray | None = None

    def __repr__(self) -> str:
        stat = f"studentized ({self.variance})" if self.studentize else "raw difference"
        head = (
            f"GenericTestResult(metric={self.metric!r}, method={self.method!r}, "
            f"statistic={stat}, alternative={self.alternative!r}"
            + (
                f", n_permutations={self.n_permutations}"
                if self.n_permutations is not None and self.sequential is None
                else ""
            )
            + (f", n_bootstrap={self.n_bootstrap}" if self.n_bootstrap else "")
            + ")"
        )
        sizes = self.group_denominators
        if not self.weighted:
            sizes = sizes.astype(np.int64)
        group_rows = [(str(g), self.group_values[k], sizes[k]) for k, g in enumerate(self.groups)]
        size_name = "sum of weights" if self.weighted else "n"
        lines = [head, format_table(["group", self.metric, size_name], group_rows)]
        diff, stat_v, p_v = (
            np.atleast_1d(x) for x in (self.difference, self.statistic, self.pvalue)
        )
        ci = self.confidence_interval is not None
        headers = ["comparison", "difference"]
        headers += [f"{100 * self.confidence_level:g}% CI"] if ci else []
        headers += ["statistic", "pvalue"]
        if self.pvalue_adjusted is not None:
            headers.append(f"adjusted ({self.adjust})")
        rows = []
        n_c = len(self.comparisons)
        for c, (a, b) in enumerate(self.comparisons):
            row = [f"{a} - {b}", diff[c]]
            row += [format_interval(self.confidence_interval, c, 0, n_c)] if ci else []
            row += [stat_v[c], self._p(p_v[c], c)]
            if self.pvalue_adjusted is not None:
                row.append(self._p(self.pvalue_adjusted[c], c))
            rows.append(row)
        lines.append(format_table(headers, rows))
        lines += monte_carlo_notes(
            self.pvalue_interval, self.sequential, self.decision, self.n_permutations
        )
        return "\n".join(lines)


@dataclass(repr=False)
class CorrelationTestResult:
    """Result of :func:`correlation_test`.

    Attributes
    ----------
    statistic : float
        Studentized :math:`S = \\sqrt{n}\\,r/\\hat\\tau` or, unstudentized, Pearson's r.
    pvalue : float
        p-value for the null of zero correlation.
    r : float
        Pearson's correlation coefficient.
    tau : float
        :math:`\\hat\\tau`, the asymptotic standard deviation of :math:`\\sqrt{n}\\,r`
        without assuming independence (1 under independence with finite fourth moments).
    studentize, method, alternative, n, n_permutations
        The options used, the sample size and the permutations drawn.
    pvalue_interval : tuple or None
        Interval of a Monte-Carlo p-value: Wilson 95% for a fixed number of permutations,
        Robbins' confidence sequence at level 1 - epsilon for a sequential test.
    null_distribution : ndarray or None
        Permuted statistics, with ``return_null=True``.
    decision : str or None
        Sequential test: "reject", "retain" or "undecided" at `sequential.alpha`.
    sequential : Sequential or None
        The options of a sequential test.
    """

    statistic: float
    pvalue: float
    r: float
    tau: float
    studentize: bool
    method: str
    alternative: str
    n: int
    n_permutations: int | None = None
    pvalue_interval: tuple | None = None
    null_distribution: np.ndarray | None = field(default=None)
    decision: str | None = None
    sequential: Sequential | None = None

    def __repr__(self) -> str:
        stat = "studentized" if self.studentize else "pearson r"
        head = (
            f"CorrelationTestResult(statistic={stat}, method={self.method!r}, "
            f"alternative={self.alternative!r}, n={self.n}"
            + (
                f", n_permutations={self.n_permutations}"
                if self.n_permutations is not None and self.sequential is None
                else ""
            )
            + ")"
        )
        table = format_table(
            ["r", "tau", "statistic", "pvalue"],
            [
                [
                    format_value(self.r),
                    self.tau,
                    self.statistic,
                    format_pvalue(self.pvalue, self.method, self.n_permutations),
                ]
            ],
        )
        lines = [head, table]
        lines += monte_carlo_notes(
            self.pvalue_interval, self.sequential, self.decision, self.n_permutations
        )
        return "\n".join(lines)


@dataclass(repr=False)
class BootstrapTestResult:
    """Result of :func:`basic_bootstrap_test`.

    Attributes
    ----------
    difference : float or ndarray
        Observed metric of the first group minus the second, per comparison.
    pvalue : float or ndarray
        Basic-bootstrap p-value (the inversion of the basic confidence interval).
    confidence_interval : tuple
        Basic bootstrap interval :math:`(2T - q_{1-a/2}, 2T - q_{a/2})` of the difference.
    pvalue_adjusted : ndarray or None
        Family-wise adjusted p-values with more than two groups.
    null_distribution : ndarray or None
        :math:`T^* - T` per resample (two groups, ``return_null=True``).
    """

    difference: float | np.ndarray
    pvalue: float | np.ndarray
    confidence_interval: tuple
    metric: str
    groups: np.ndarray
    group_values: np.ndarray
    comparisons: list
    alternative: str
    confidence_level: float
    n_bootstrap: int
    pvalue_adjusted: np.ndarray | None = None
    adjust: str | None = None
    null_distribution: np.ndarray | None = field(default=None)

    def __repr__(self) -> str:
        head = (
            f"BootstrapTestResult(metric={self.metric!r}, method='basic bootstrap', "
            f"alternative={self.alternative!r}, n_bootstrap={self.n_bootstrap})"
        )
        groups = format_table(
            ["group", self.metric],
            [(str(g), v) for g, v in zip(self.groups, self.group_values)],
        )
        diff, p_v = np.atleast_1d(self.difference), np.atleast_1d(self.pvalue)
        lo, hi = (np.atleast_1d(x) for x in self.confidence_interval)
        level = f"{100 * self.confidence_level:g}% interval"
        headers = ["comparison", "difference", f"{level} low", "high", "pvalue"]
        if self.pvalue_adjusted is not None:
            headers.append(f"adjusted ({self.adjust})")
        rows = []
        for c, (a, b) in enumerate(self.comparisons):
            row = [f"{a} - {b}", diff[c], lo[c], hi[c], format_pvalue(p_v[c])]
            if self.pvalue_adjusted is not None:
                row.append(format_pvalue(self.pvalue_adjusted[c]))
            rows.append(row)
        return "\n".join([head, groups, format_table(headers, rows)])


# --------------------------------------------------------------------------------------
# Metrics as functions of gathered (m, n_g) batches
# --------------------------------------------------------------------------------------


def _metric_name(metric) -> str:
    if isinstance(metric, str):
        return metric
    return getattr(metric, "__name__", None) or type(metric).__name__


class _Evaluator:
    """Evaluates a group metric on batches of index sets, with errors that name it.

    `arrays` are the 1-D columns the metric reads; a batch of index sets of shape (m, k)
    gathers them to (m, k) arrays. A vectorized metric is called once per batch and must
    return shape (m,); otherwise it is called once per index set with 1-D arrays.
    """

    def __init__(self, fn, arrays, name, vectorized, weight_keyword=False, variance_fn=None):
        self.fn, self.arrays, self.name = fn, arrays, name
        self.vectorized, self.weight_keyword = vectorized, weight_keyword
        self.variance_fn = variance_fn

    def _call(self, cols):
        if self.weight_keyword:
            return self.fn(*cols[:-1], sample_weight=cols[-1])
        return self.fn(*cols)

    def values(self, index, where) -> np.ndarray:
        """Metric of each index set (rows of `index`); `where(i)` describes set i."""
        m = index.shape[0]
        cols = [a[index] for a in self.arrays]
        if self.vectorized:
            try:
                out = self._call(cols)
            except Exception as exc:
                raise MetricError(
                    f"metric {self.name!r} raised {type(exc).__name__} on {where(0)} "
                    f"(vectorized batch of {m}): {exc}"
                ) from exc
            try:
                out = np.asarray(out, dtype=np.float64)
            except (TypeError, ValueError) as exc:
                raise MetricError(
                    f"metric {self.name!r} must return numbers, got {type(out).__name__}"
                ) from exc
            if out.shape != (m,):
                raise MetricError(
                    f"vectorized metric {self.name!r} must return shape ({m},) for a "
                    f"batch of {m} samples (reduce along the last axis), got {out.shape}"
                )
        else:
            out = np.empty(m)
            for i in range(m):
                row = [c[i] for c in cols]
                try:
                    value = self._call(row)
                except Exception as exc:
                    raise MetricError(
                        f"metric {self.name!r} raised {type(exc).__name__} on {where(i)}: {exc}"
                    ) from exc
                try:
                    out[i] = value
                except (TypeError, ValueError) as exc:
                    raise MetricError(
                        f"metric {self.name!r} must return a number, got "
                        f"{type(value).__name__} on {where(i)}"
                    ) from exc
        bad = np.flatnonzero(~np.isfinite(out))
        if bad.size:
            i = int(bad[0])
            raise MetricError(
                f"metric {self.name!r} returned {out[i]} on {where(i)}; the metric must be "
                "defined (finite) on every permuted and resampled group"
            )
        return out

    def variances(self, index) -> np.ndarray:
        return self.variance_fn(*[a[index] for a in self.arrays])


def _row_values(name: str, y, p) -> np.ndarray:
    if name == "mse":
        return (y - p) ** 2
    if name == "mae":
        return np.abs(y - p)
    if name == "mean_residual":
        return y - p
    if name == "mean_score":
        return p
    return y


def _mean_fn(v, w=None):
    if w is None:
        return v.mean(axis=-1)
    return (w * v).sum(axis=-1) / w.sum(axis=-1)


def _weighted_mean_variance_fn(v, w):
    """Variance of a weighted mean, n/(n-1) sum w^2 (v - m)^2 / (sum w)^2. (Unweighted row
    metrics take the Welch variance in _welch_from_sums, never this function.)"""
    n = v.shape[-1]
    m = _mean_fn(v, w)[..., None]
    sw = w.sum(axis=-1)
    return n / (n - 1) * (w * w * (v - m) ** 2).sum(axis=-1) / (sw * sw)


# --------------------------------------------------------------------------------------
# Options
# --------------------------------------------------------------------------------------


def _resolve_progress(progress, total: int):
    """A tqdm bar or None: None = auto (installed, stderr is a terminal, long run)."""
    if progress is False or (progress is None and total < 20_000):
        return None
    if progress is None and not (hasattr(sys.stderr, "isatty") and sys.stderr.isatty()):
        return None
    try:
        from tqdm.auto import tqdm
    except ImportError:
        if progress:
            warnings.warn(
                "progress=True needs tqdm (pip install tqdm); running without a progress bar",
                stacklevel=3,
            )
        return None
    return tqdm(total=total, unit="eval", leave=False)


def _studentize_mode(studentize, row_metric: bool) -> str:
    """'none', 'welch', 'bootstrap' or 'bootstrap-fast'."""
    if isinstance(studentize, (bool, np.bool_)):
        if not studentize:
            return "none"
        return "welch" if row_metric else "bootstrap"
    if isinstance(studentize, str):
        check_choice(studentize, "studentize", (*STUDENTIZE, True, False))
        if studentize == "welch" and not row_metric:
            raise ValueError(
                "studentize='welch' applies to row-level metrics (means of per-row values); "
                "use 'bootstrap' or 'bootstrap-fast' for a callable metric"
            )
        return studentize
    raise TypeError(
        "studentize must be True, False, 'welch', 'bootstrap' or 'bootstrap-fast', "
        f"got {show_value(studentize)}"
    )


def _check_common(alternative, comparisons, adjust, n_permutations, sequential):
    check_choice(alternative, "alternative", ALTERNATIVES)
    check_choice(comparisons, "comparisons", ("reference", "all"))
    if adjust == "maxT":
        raise ValueError(
            "adjust='maxT' is available for confusion-matrix metrics only; "
            "use 'holm' or 'bonferroni' here"
        )
    check_choice(adjust, "adjust", ADJUSTMENTS)
    return resolve(n_permutations, sequential)


def _safe_ratio(diff, var):
    """diff / sqrt(var): 0 when diff is 0, +-inf when var is 0 (never NaN)."""
    diff = np.asarray(diff, dtype=np.float64)
    var = np.maximum(np.asarray(var, dtype=np.float64), 0.0)
    with np.errstate(divide="ignore", invalid="ignore"):
        out = diff / np.sqrt(var)
    return np.where(diff == 0, 0.0, out)


# --------------------------------------------------------------------------------------
# The generic two-group engine (Algorithm 1)
# --------------------------------------------------------------------------------------


class _PairEngine:
    """Permutation and bootstrap statistics of one comparison of two groups."""

    def __init__(self, evaluator, rows_a, rows_b, labels, key, stream, bar):
        self.ev, self.rows_a, self.rows_b = evaluator, rows_a, rows_b
        self.pooled = np.concatenate([rows_a, rows_b])
        self.labels, self.key, self.stream, self.bar = labels, key, stream, bar

    def _tick(self, n):
        if self.bar is not None:
            self.bar.update(n)

    def _chunk(self, k):
        return max(1, _CHUNK_ELEMENTS // max(k, 1))

    def observed(self):
        a, b = self.labels
        va = self.ev.values(
            self.rows_a[None], lambda i: f"the observed data of group {show_value(a)}"
        )
        vb = self.ev.values(
            self.rows_b[None], lambda i: f"the observed data of group {show_value(b)}"
        )
        return float(va[0]), float(vb[0])

    def permuted_differences(self, first, n_permutations, with_variance=False):
        """T_b = metric(A_b) - metric(B_b) (and Welch variances), first <= b < first + B."""
        n, n_a = len(self.pooled), len(self.rows_a)
        step = self._chunk(n)
        t = np.empty(n_permutations)
        var = np.empty(n_permutations) if with_variance else None
        for j in range(0, n_permutations, step):
            count = min(step, n_permutations - j)
            start = first + j
            perm = _means.permutation_indices(n, start, count, self.key, 3 * self.stream)
            rows = self.pooled[perm]
            ia, ib = rows[:, :n_a], rows[:, n_a:]

            va = self.ev.values(ia, lambda i, s=start: f"permutation {s + i}, first group")
            vb = self.ev.values(ib, lambda i, s=start: f"permutation {s + i}, second group")
            t[j : j + count] = va - vb
            if with_variance:
                var[j : j + count] = self.ev.variances(ia) + self.ev.variances(ib)
            self._tick(2 * count)
        return t, var

    def bootstrap_differences(self, rows_a, rows_b, n_bootstrap, index, what):
        """metric(A*) - metric(B*) for n_bootstrap resamples of (rows_a, rows_b)."""
        n_a, n_b = len(rows_a), len(rows_b)
        step = self._chunk(max(n_a, n_b))
        out = np.empty(n_bootstrap)
        base = index * n_bootstrap if index != _OBSERVED else _OBSERVED
        for start in range(0, n_bootstrap, step):
            count = min(step, n_bootstrap - start)
            s = base + start
            ia = _means.bootstrap_indices(n_a, n_a, s, count, self.key, 3 * self.stream + 1)
            ib = _means.bootstrap_indices(n_b, n_b, s, count, self.key, 3 * self.stream + 2)
            va = self.ev.values(
                rows_a[ia], lambda i, s=start: f"bootstrap resample {s + i} of {what}, first group"
            )
            vb = self.ev.values(
                rows_b[ib],
                lambda i, s=start: f"bootstrap resample {s + i} of {what}, second group",
            )
            out[start : start + count] = va - vb
            self._tick(2 * count)
        return out

    def full_algorithm1(self, first, n_permutations, n_bootstrap):
        """Permuted T_b / sqrt(V_b), V_b the bootstrap variance (eq. 1) of permutation b,
        for first <= b < first + n_permutations."""
        n, n_a = len(self.pooled), len(self.rows_a)
        out = np.empty(n_permutations)
        for b in range(first, first + n_permutations):
            perm = _means.permutation_indices(n, b, 1, self.key, 3 * self.stream)[0]
            rows = self.pooled[perm]
            ra, rb = rows[:n_a], rows[n_a:]
            va = self.ev.values(ra[None], lambda i, b=b: f"permutation {b}, first group")
            vb = self.ev.values(rb[None], lambda i, b=b: f"permutation {b}, second group")
            t = va[0] - vb[0]
            boot = self.bootstrap_differences(ra, rb, n_bootstrap, b, f"permutation {b}")
            out[b - first] = _safe_ratio(t, np.mean((boot - t) ** 2))
            self._tick(2)
        return out


def _adjusted(pvalues, adjust):
    return adjust_pvalues(pvalues, adjust) if len(pvalues) > 1 else None


def permutation_test_rows(
    y_true,
    y_pred,
    group,
    *,
    metric,
    studentize: bool | str = True,
    method: str = "auto",
    n_permutations: int | None = None,
    sequential: Sequential | None = None,
    alternative: str = "two-sided",
    reference=None,
    comparisons: str = "reference",
    adjust: str = "holm",
    sample_weight=None,
    data=None,
    return_null: bool = False,
    random_state=None,
    n_jobs: int | None = None,
    n_bootstrap: int = 200,
    vectorized: bool = False,
    progress: bool | None = None,
    scheme: str = "full",
    confidence_level: float = 0.95,
) -> GenericTestResult:
    r"""Permutation test (Algorithm 1) of a callable or row-level metric between groups.

    Reached through :func:`fastfair.permutation_test` when `metric` is a callable or one
    of :data:`ROW_METRICS`. Every row exchanges group labels (full permutation). For each
    compared pair the difference is :math:`T = M(D_A) - M(D_B)`, and the statistic is

    * ``studentize="bootstrap"`` (Algorithm 1, KDD 2020 Sec. 3.4): :math:`S = T/\sqrt{V}`
      with the bootstrap variance of eq. (1),
      :math:`V = n_b^{-1}\sum_{i=1}^{n_b} (T(D^*_{A,i}, D^*_{B,i}) - T(D_A, D_B))^2`
      (each group resampled with replacement within itself), recomputed inside every
      permutation: cost :math:`n_b (n_p + 1)` evaluations per group. Exact under the
      strong null (equal distributions) and asymptotically valid for equal metrics.
    * ``studentize="bootstrap-fast"`` (Sec. 5): the observed :math:`T` over the standard
      deviation (ddof 1) of :math:`n_b` bootstrap differences, each permuted :math:`T_b`
      over the standard deviation of :math:`T_1..T_{n_p}`: cost :math:`n_b + n_p`.
      Asymptotically valid (both sides tend to N(0, 1)), not exact under the strong null.
    * ``studentize="welch"`` (row metrics; the default for them): means of per-row values
      with :math:`V = s_A^2/n_A + s_B^2/n_B`.
    * ``studentize=False``: :math:`T` itself, for a metric that is already pivotal.

    ``studentize=True`` means ``"welch"`` for row metrics and ``"bootstrap"`` for callables.

    Parameters
    ----------
    y_true, y_pred : array-like of shape (n,)
        Passed to the metric as they are (labels, scores or continuous outcomes), or
        column names of `data`.
    group : array-like of shape (n,)
        Group membership (at least two groups).
    metric : callable or str
        ``metric(y_true, y_pred)`` or, with `sample_weight`,
        ``metric(y_true, y_pred, sample_weight=w)`` on one group's rows, returning a finite
        number (any scikit-learn metric works). With ``vectorized=True`` it receives 2-D
        arrays of shape (m, n_g), one resampled group per row, and returns shape (m,).
        Or a row metric: ``"mse"``, ``"mae"``, ``"mean_residual"`` (mean of
        y_true - y_pred), ``"mean_score"`` (mean of y_pred), ``"mean_outcome"``; unweighted
        row metrics with Welch or no studentization run in the compiled core.
    studentize : bool or {"welch", "bootstrap", "bootstrap-fast"}
        See above.
    method : {"auto", "monte_carlo", "exact", "asymptotic"}
        ``"asymptotic"`` refers the studentized statistic to N(0, 1) (Welch's t with
        Satterthwaite's degrees of freedom for "welch"). ``"exact"`` (unweighted row metrics
        only) enumerates every split of the rows, at most `MAX_EXACT_SUBSETS`. ``"auto"``:
        Monte Carlo.
    n_permutations : int, optional
        Fixed number of random permutations :math:`n_p`; None (default): sequential.
    sequential : Sequential, optional
        Options of the sequential test used when `n_permutations` is None (see
        :func:`fastfair.permutation_test`). With ``studentize="bootstrap-fast"`` the scale
        (SD of the permuted differences) then comes from a first block of 999
        permutations, and exceedances are counted on the permutations after it.
    alternative, reference, comparisons, data, return_null, random_state, n_jobs
        As in :func:`fastfair.permutation_test`. `n_jobs` applies to the compiled kernels.
    adjust : {"holm", "bonferroni", "none"}
        Family-wise adjustment with more than two groups.
    sample_weight : array-like of shape (n,), optional
        Row weights, passed to a callable as ``sample_weight=`` and permuted with the rows;
        row metrics become weighted means (Welch variance
        :math:`\tfrac{n}{n-1}\sum w_i^2 (v_i - \bar v_w)^2 / (\sum w_i)^2`).
    n_bootstrap : int
        Bootstrap resamples :math:`n_b` per variance estimate.
    vectorized : bool
        The callable takes batches (see `metric`); one call per batch of up to ~10^6
        gathered values instead of one per sample.
    progress : bool or None
        Progress bar (needs tqdm). None: shown for long runs when stderr is a terminal.
    confidence_level : float
        Level of `confidence_interval`: the normal interval
        :math:`T \pm z_{(1+\text{level})/2}\,\text{SE}` with the standard error that
        studentizes the statistic (Welch or bootstrap); with ``studentize=False`` the SE is
        Welch's for row metrics and the SD of `n_bootstrap` bootstrap differences for a
        callable (no interval, None, when the metric is undefined on a resample).
    scheme : {"full"}
        Only full permutation applies (``"conditional"``, the default of
        :func:`fastfair.permutation_test`, is read as ``"full"`` here).

    Returns
    -------
    GenericTestResult

    Raises
    ------
    MetricError
        The metric raised, or returned NaN, infinity or a non-number, on the observed data,
        a permuted sample or a bootstrap resample; the message names the metric and which.

    Examples
    --------
    >>> import numpy as np
    >>> import fastfair
    >>> rng = np.random.default_rng(0)
    >>> group = np.repeat(["a", "b"], 300)
    >>> y = rng.normal(size=600)
    >>> pred = y + rng.normal(scale=np.where(group == "a", 1.0, 1.3))
    >>> def mse(y_true, y_pred):
    ...     return np.mean((y_true - y_pred) ** 2, axis=-1)
    >>> res = fastfair.permutation_test(y, pred, group, metric=mse, vectorized=True,
    ...     studentize="bootstrap-fast", n_permutations=999, random_state=0)
    >>> res.comparisons, res.variance, round(res.difference, 3), res.pvalue
    ([('b', 'a')], 'bootstrap-fast', 0.8, 0.001)
    >>> res = fastfair.permutation_test(y, pred, group, metric="mse", random_state=0)
    >>> res.variance, round(res.difference, 3), res.decision, res.n_permutations
    ('welch', 0.8, 'reject', 253)
    """
    row_metric = isinstance(metric, str)
    if row_metric:
        name = metric.lower()
        if name not in ROW_METRICS:
            if name in CONFUSION_METRICS or name in METRIC_ALIASES:
                raise ValueError(
                    f"studentize={studentize!r} does not apply to the confusion-matrix metric "
                    f"{metric!r}, whose variance has a closed form: use studentize=True or "
                    "False (or pass the metric as a callable to bootstrap it)"
                )
            get_metric(metric)  # raises the unknown-metric error
    elif not callable(metric):
        raise TypeError(f"metric must be a string or a callable, got {type(metric).__name__}")
    mode = _studentize_mode(studentize, row_metric)
    fixed, seq_options = _check_common(
        alternative, comparisons, adjust, n_permutations, sequential
    )
    n_permutations = fixed if fixed is not None else _PROGRESS_GUESS
    check_choice(method, "method", METHODS)
    check_choice(scheme, "scheme", ("full", "conditional"))
    n_bootstrap = check_resamples(n_bootstrap, "n_bootstrap", 2)
    check_level(confidence_level, "confidence_level")
    if method == "asymptotic" and mode == "none":
        raise ValueError("method='asymptotic' needs a studentized statistic")
    if method == "exact" and (
        not row_metric or sample_weight is not None or mode not in ("welch", "none")
    ):
        raise ValueError(
            "method='exact' is available for unweighted row metrics with studentize "
            "True/'welch' or False"
        )

    cols = resolve_columns(
        data, y_true=y_true, y_pred=y_pred, group=group, sample_weight=sample_weight
    )
    weights = cols["sample_weight"]
    if weights is not None:
        weights = as_weights(weights, "sample_weight")
    if row_metric:
        y = None if name == "mean_score" and cols["y_true"] is None else cols["y_true"]
        p = None if name == "mean_outcome" and cols["y_pred"] is None else cols["y_pred"]
        y = as_finite_float(y, "y_true") if name != "mean_score" else None
        p = as_finite_float(p, "y_pred") if name != "mean_outcome" else None
        check_same_length(y_true=y, y_pred=p, group=cols["group"], sample_weight=weights)
        values = _row_values(name, y, p)
        codes, labels = as_groups(cols["group"], "group")
        if weights is None and mode in ("welch", "none"):
            return _mean_difference(
                values,
                codes,
                labels,
                name,
                mode == "welch",
                method,
                (fixed, seq_options),
                alternative,
                reference,
                comparisons,
                adjust,
                return_null,
                random_state,
                effective_n_threads(n_jobs),
                confidence_level,
            )
        # unweighted here: bootstrap studentization, which needs no variance function
        arrays = (values,) if weights is None else (values, weights)
        evaluator = _Evaluator(
            _mean_fn, arrays, name, True, variance_fn=_weighted_mean_variance_fn
        )
        metric_label = name
    else:
        y = as_1d(cols["y_true"], "y_true")
        p = as_1d(cols["y_pred"], "y_pred")
        check_same_length(y_true=y, y_pred=p, group=cols["group"], sample_weight=weights)
        codes, labels = as_groups(cols["group"], "group")
        arrays = (y, p) if weights is None else (y, p, weights)
        metric_label = _metric_name(metric)
        evaluator = _Evaluator(metric, arrays, metric_label, vectorized, weights is not None)

    sizes = np.bincount(codes, minlength=len(labels))
    pairs = comparison_pairs(sizes, labels, reference, comparisons)
    rows_of = [np.flatnonzero(codes == g) for g in range(len(labels))]
    group_w = sizes.astype(np.float64)
    if weights is not None:
        group_w = np.bincount(codes, weights=weights, minlength=len(labels))
    if mode == "welch":
        small = [labels[g] for g in np.unique(pairs) if sizes[g] < 2]
        if small:
            raise ValueError(
                f"Welch studentization needs >= 2 rows per group; group {show_value(small[0])}"
            )
    key = stream_key(random_state)
    per_pair = {
        "none": 2 * n_permutations,
        "welch": 2 * n_permutations,
        "bootstrap-fast": 2 * (n_permutations + n_bootstrap),
        "bootstrap": 2 * (n_permutations + 1) * (n_bootstrap + 1),
    }[mode]
    evals = 2 + per_pair if method != "asymptotic" else 2 + 2 * n_bootstrap
    bar = _resolve_progress(progress, evals * len(pairs))
    try:
        group_values = np.full(len(labels), np.nan)
        results = []
        for c, (ga, gb) in enumerate(pairs):
            engine = _PairEngine(
                evaluator, rows_of[ga], rows_of[gb], (labels[ga], labels[gb]), key, c, bar
            )
            results.append(
                _run_pair(
                    engine,
                    mode,
                    method,
                    n_bootstrap,
                    alternative,
                    return_null,
                    seq_options is not None,
                )
            )
            group_values[ga], group_values[gb] = results[-1]["values"]
        decision = _draw_pairs(results, fixed, seq_options, adjust)
    finally:
        if bar is not None:
            bar.close()
    return _assemble(
        results,
        pairs,
        labels,
        group_values,
        group_w,
        metric_label,
        mode,
        method,
        (fixed, seq_options, decision),
        n_bootstrap,
        alternative,
        adjust,
        return_null,
        weights is not None,
        confidence_level,
    )


def _draw_pairs(results, fixed, seq_options, adjust):
    """Draw every pair's permutations (fixed or sequential); fill p-values and counts."""
    samplers = [r["sampler"] for r in results if r.get("sampler") is not None]
    if not samplers:
        return None
    decision = draw_all(samplers, fixed, seq_options, adjust)
    for r in results:
        s = r["sampler"]
        r["pvalue"], r["count"], r["null"] = s.pvalue, s.count, s.null()
    return decision


def _run_pair(engine, mode, method, n_bootstrap, alternative, keep_null, sequential) -> dict:
    va, vb = engine.observed()
    t_obs = va - vb
    out = {"values": (va, vb), "difference": t_obs, "se": None, "null": None, "count": None}
    if mode == "none":
        observed = t_obs
    elif mode == "welch":
        var = float(
            engine.ev.variances(engine.rows_a[None])[0]
            + engine.ev.variances(engine.rows_b[None])[0]
        )
        observed, out["se"] = float(_safe_ratio(t_obs, var)), math.sqrt(max(var, 0.0))
    else:
        boot = engine.bootstrap_differences(
            engine.rows_a, engine.rows_b, n_bootstrap, _OBSERVED, "the observed data"
        )
        var = np.mean((boot - t_obs) ** 2) if mode == "bootstrap" else np.var(boot, ddof=1)
        observed, out["se"] = float(_safe_ratio(t_obs, var)), math.sqrt(var)
    out["statistic"] = observed
    out["interval_se"] = out["se"]
    if method == "asymptotic":
        out["pvalue"] = float(asymptotic_pvalue(observed, alternative))
        return out
    draw = _pair_draw(engine, mode, n_bootstrap, sequential)
    out["sampler"] = Sampler(draw, observed, alternative, keep_null)
    if mode == "none":  # the interval's standard error: bootstrap SD of the difference
        try:
            boot = engine.bootstrap_differences(
                engine.rows_a, engine.rows_b, n_bootstrap, _OBSERVED, "the observed data"
            )
            out["interval_se"] = float(np.std(boot, ddof=1))
        except MetricError:  # undefined on a resample: no interval, the test stands
            out["interval_se"] = None
    return out


def _pair_draw(engine, mode, n_bootstrap, sequential):
    """draw(start, count): the permuted statistics of one pair.

    "bootstrap-fast" divides by the SD of the permuted differences: with a fixed number
    of permutations (one draw from start 0) that of all of them, as in Sec. 5; a sequential
    test takes it from the first SCALE_BLOCK permutations and counts exceedances on those
    after them, so the scale is fixed before any counted permutation is drawn.
    """
    scale = []

    def draw(start: int, count: int) -> np.ndarray:
        if mode == "bootstrap":
            return engine.full_algorithm1(start, count, n_bootstrap)
        if mode != "bootstrap-fast":
            t, var = engine.permuted_differences(start, count, with_variance=mode == "welch")
            return t if mode == "none" else _safe_ratio(t, var)
        if not sequential:
            t, _ = engine.permuted_differences(start, count)
            return _safe_ratio(t, np.var(t, ddof=1))
        if not scale:
            t0, _ = engine.permuted_differences(0, SCALE_BLOCK)
            scale.append(np.var(t0, ddof=1))
        t, _ = engine.permuted_differences(SCALE_BLOCK + start, count)
        return _safe_ratio(t, scale[0])

    return draw


def _assemble(
    results,
    pairs,
    labels,
    group_values,
    group_w,
    metric_label,
    mode,
    method,
    drawn,
    n_bootstrap,
    alternative,
    adjust,
    return_null,
    weighted,
    confidence_level=0.95,
) -> GenericTestResult:
    """The result of pairwise tests; drawn = (fixed count, sequential options, decision)."""
    fixed, seq_options, decision = drawn
    single = len(pairs) == 1
    pick = (
        (lambda key: results[0][key])
        if single
        else (lambda key: np.array([r[key] for r in results], dtype=np.float64))
    )
    pvalues = np.array([r["pvalue"] for r in results])
    monte_carlo = results[0]["count"] is not None
    interval = None
    null = None
    n_used = fixed if monte_carlo else None
    if monte_carlo and seq_options is None:
        lo, hi = wilson_interval(np.array([r["count"] for r in results]), fixed)
        interval = (float(lo[0]), float(hi[0])) if single else (lo, hi)
        if return_null:
            null = results[0]["null"] if single else np.column_stack([r["null"] for r in results])
    elif monte_carlo:
        samplers = [r["sampler"] for r in results]
        _, interval, n_used, decision, null = summarize(samplers, decision, single)
    label_list = labels.tolist()
    se = None if results[0]["se"] is None else pick("se")
    difference_interval = None
    if all(r["interval_se"] is not None for r in results):
        z = special.ndtri(0.5 + confidence_level / 2.0)
        diff, half = pick("difference"), z * pick("interval_se")
        difference_interval = (diff - half, diff + half)
    res = GenericTestResult(
        statistic=pick("statistic"),
        pvalue=pick("pvalue"),
        difference=pick("difference"),
        metric=metric_label,
        groups=labels,
        group_values=group_values,
        group_denominators=group_w,
        comparisons=[(label_list[i], label_list[j]) for i, j in pairs],
        scheme="full",
        studentize=mode != "none",
        variance=mode,
        method="monte_carlo" if monte_carlo else method,
        alternative=alternative,
        n_permutations=n_used,
        pvalue_adjusted=_adjusted(pvalues, adjust),
        adjust=adjust if len(pairs) > 1 else None,
        pvalue_interval=interval,
        weighted=weighted,
        null_distribution=null,
        n_bootstrap=n_bootstrap if mode.startswith("bootstrap") else None,
        standard_error=se,
        confidence_interval=difference_interval,
        confidence_level=float(confidence_level),
        decision=decision if seq_options is not None else None,
        sequential=seq_options if monte_carlo else None,
    )
    res._samplers = [r["sampler"] for r in results] if monte_carlo else None
    return res


# --------------------------------------------------------------------------------------
# Difference of means in the compiled core
# --------------------------------------------------------------------------------------


def _welch_from_sums(s1a, s2a, na, s1b, s2b, nb, studentize):
    """Difference of means (and Welch statistic) from sums of centred values and squares."""
    ma, mb = s1a / na, s1b / nb
    diff = ma - mb
    if not studentize:
        return diff
    var_a = np.maximum(s2a - s1a * ma, 0.0) / (na - 1)
    var_b = np.maximum(s2b - s1b * mb, 0.0) / (nb - 1)
    return _safe_ratio(diff, var_a / na + var_b / nb)


def _mean_difference(
    values,
    codes,
    labels,
    metric_label,
    studentize,
    method,
    drawn,
    alternative,
    reference,
    comparisons,
    adjust,
    return_null,
    random_state,
    n_threads,
    confidence_level=0.95,
) -> GenericTestResult:
    sizes = np.bincount(codes, minlength=len(labels))
    pairs = comparison_pairs(sizes, labels, reference, comparisons)
    if studentize:
        small = [labels[g] for g in np.unique(pairs) if sizes[g] < 2]
        if small:
            raise ValueError(
                f"Welch studentization needs at least 2 rows in every group; group "
                f"{show_value(small[0])} has {sizes[labels.tolist().index(small[0])]}"
            )
    sums = np.bincount(codes, weights=values, minlength=len(labels))
    group_values = sums / sizes
    key = stream_key(random_state) if method != "asymptotic" else 0
    fixed, seq_options = drawn
    results = []
    for c, (ga, gb) in enumerate(pairs):
        rows_a, rows_b = np.flatnonzero(codes == ga), np.flatnonzero(codes == gb)
        results.append(
            _mean_pair(
                values[rows_a],
                values[rows_b],
                studentize,
                method,
                alternative,
                key,
                c,
                n_threads,
                return_null,
            )
        )
    decision = _draw_pairs(results, fixed, seq_options, adjust)
    exact = results[0]["exact"]
    res = _assemble(
        results,
        pairs,
        labels,
        group_values,
        sizes.astype(np.float64),
        metric_label,
        "welch" if studentize else "none",
        "exact" if exact else method,
        (fixed, seq_options, decision),
        0,
        alternative,
        adjust,
        return_null,
        False,
        confidence_level,
    )
    if exact and return_null and len(pairs) == 1:
        res.null_distribution = results[0]["null"]
        res.null_probabilities = np.full(len(results[0]["null"]), 1.0 / len(results[0]["null"]))
    return res


def _comb_capped(n: int, k: int, cap: int) -> int:
    """C(n, k), or cap + 1 as soon as it exceeds cap (math.comb(1e6, 5e5) takes seconds)."""
    c = 1
    for i in range(1, k + 1):
        c = c * (n - k + i) // i  # C(n - k + i, i), increasing in i
        if c > cap:
            return cap + 1
    return c


def _mean_pair(va, vb, studentize, method, alternative, key, stream, n_threads, keep_null):
    na, nb = len(va), len(vb)
    n = na + nb
    pooled = np.concatenate([va, vb])
    centre = pooled.mean()
    cen = np.ascontiguousarray(pooled - centre)
    s1, s2 = cen.sum(), (cen * cen).sum()
    ca = cen[:na]
    s1a, s2a = ca.sum(), (ca * ca).sum()
    observed = float(_welch_from_sums(s1a, s2a, na, s1 - s1a, s2 - s2a, nb, studentize))
    out = {
        "values": (va.mean(), vb.mean()),
        "difference": float(va.mean() - vb.mean()),
        "statistic": observed,
        "null": None,
        "count": None,
        "exact": False,
        "se": None,
    }
    if studentize:
        out["se"] = math.sqrt(va.var(ddof=1) / na + vb.var(ddof=1) / nb)
    out["interval_se"] = (
        math.sqrt(va.var(ddof=1) / na + vb.var(ddof=1) / nb) if min(na, nb) >= 2 else None
    )
    if method == "asymptotic":
        ua, ub = va.var(ddof=1) / na, vb.var(ddof=1) / nb
        df = (ua + ub) ** 2 / (ua**2 / (na - 1) + ub**2 / (nb - 1)) if ua + ub > 0 else 1.0
        t = observed
        if alternative == "two-sided":
            p = 2.0 * stats.t.sf(abs(t), df)
        elif alternative == "greater":
            p = stats.t.sf(t, df)
        else:
            p = stats.t.cdf(t, df)
        out["pvalue"] = float(min(1.0, p))
        return out
    k = min(na, nb)
    exact = method == "exact"
    n_subsets = _comb_capped(n, k, MAX_EXACT_SUBSETS) if exact else 0
    if exact and n_subsets > MAX_EXACT_SUBSETS:
        raise ValueError(
            f"method='exact' would enumerate more than MAX_EXACT_SUBSETS = {MAX_EXACT_SUBSETS} "
            "splits ("
            f"C({n}, {k})); use 'monte_carlo'"
        )

    def null_of(ss1, ss2):
        if na == k:  # the subset is the first group's rows
            return _welch_from_sums(ss1, ss2, na, s1 - ss1, s2 - ss2, nb, studentize)
        return _welch_from_sums(s1 - ss1, s2 - ss2, na, ss1, ss2, nb, studentize)

    if exact:
        combos = np.fromiter(
            itertools.chain.from_iterable(itertools.combinations(range(n), k)),
            dtype=np.intp,
            count=n_subsets * k,
        ).reshape(n_subsets, k)
        sub = cen[combos]
        ss1, ss2 = sub.sum(axis=1), (sub * sub).sum(axis=1)
    else:

        def draw(start: int, count: int) -> np.ndarray:
            sums = _means.subset_sums(cen, k, count, key, stream, n_threads, start)
            return null_of(sums[:, 0], sums[:, 1])

        out["sampler"] = Sampler(draw, observed, alternative, keep_null)
        return out

    null = null_of(ss1, ss2)
    out["null"] = null
    out["exact"] = True
    out["pvalue"] = exact_pvalue(null, np.full(len(null), 1.0 / len(null)), observed, alternative)
    return out


def mean_difference_test(
    values,
    group,
    *,
    studentize: bool = True,
    method: str = "auto",
    n_permutations: int | None = None,
    sequential: Sequential | None = None,
    alternative: str = "two-sided",
    reference=None,
    comparisons: str = "reference",
    adjust: str = "holm",
    data=None,
    return_null: bool = False,
    random_state=None,
    n_jobs: int | None = None,
) -> GenericTestResult:
    r"""Permutation test of a difference of means of any per-row value between groups.

    For residuals, losses, scores or continuous outcomes: the Welch-studentized difference

    .. math::
        S = \frac{\bar v_A - \bar v_B}{\sqrt{s_A^2/n_A + s_B^2/n_B}}

    (KDD 2020 Sec. 3.4 and docs/generic.md: a mean is asymptotically normal, so the Welch
    statistic is asymptotically pivotal and its permutation test is asymptotically valid
    for equal means and exact for equal distributions). Each permutation draws a uniform
    random subset of rows for the smaller group in the compiled core and updates the sums
    of v and v^2; the other group's sums follow from the totals.

    Parameters
    ----------
    values : array-like of shape (n,)
        Finite per-row values, or a column name of `data`.
    group : array-like of shape (n,)
        Group membership (at least two groups), or a column name of `data`.
    studentize : bool
        Welch statistic (default) or the raw difference of means (valid only for the
        strong null of equal distributions).
    method : {"auto", "monte_carlo", "exact", "asymptotic"}
        ``"exact"`` enumerates all splits (at most `MAX_EXACT_SUBSETS`); ``"asymptotic"``
        is Welch's t-test (Satterthwaite degrees of freedom); ``"auto"``: Monte Carlo.
    n_permutations : int, optional
        Fixed number of random permutations; None (default): sequential.
    sequential : Sequential, optional
        Options of the sequential test used when `n_permutations` is None (see
        :func:`fastfair.permutation_test`).
    alternative : {"two-sided", "greater", "less"}
        ``"greater"``: the first group of a comparison has the larger mean.
    reference, comparisons : optional
        As in :func:`fastfair.permutation_test` (default reference: the largest group).
    adjust : {"holm", "bonferroni", "none"}
        Family-wise adjustment with more than two groups.
    data : pandas.DataFrame or mapping, optional
        Source of column names.
    return_null : bool
        Keep the permuted statistics (exact: the support, with `null_probabilities`).
    random_state : None, int, numpy.random.Generator or SeedSequence
        Permutation b uses its own stream: results are identical for any `n_jobs`.
    n_jobs : int, optional
        Threads (None: all cores).

    Returns
    -------
    GenericTestResult
        `variance` is ``"welch"`` (or ``"none"``); `group_values` are the group means.

    Notes
    -----
    A zero difference has statistic 0; a non-zero difference between groups that are both
    constant has statistic :math:`\pm\infty`.

    Examples
    --------
    >>> import numpy as np
    >>> import fastfair
    >>> rng = np.random.default_rng(1)
    >>> group = rng.integers(0, 2, 5000)
    >>> residual = rng.normal(0.1 * group, 1 + group)
    >>> from fastfair.generic import mean_difference_test
    >>> res = mean_difference_test(residual, group, random_state=0)
    >>> res.comparisons, round(res.difference, 4), res.decision, res.n_permutations
    ([(1, 0)], 0.0755, 'retain', 735)
    >>> [round(p, 3) for p in res.pvalue_interval]  # valid under optional stopping
    [0.05, 0.148]
    """
    cols = resolve_columns(data, values=values, group=group)
    v = as_finite_float(cols["values"], "values")
    check_same_length(values=v, group=cols["group"])
    codes, labels = as_groups(cols["group"], "group")
    check_choice(method, "method", METHODS)
    if not isinstance(studentize, (bool, np.bool_)):
        raise TypeError(f"studentize must be True or False, got {show_value(studentize)}")
    if method == "asymptotic" and not studentize:
        raise ValueError("method='asymptotic' needs studentize=True (Welch's t-test)")
    drawn = _check_common(alternative, comparisons, adjust, n_permutations, sequential)
    return _mean_difference(
        v,
        codes,
        labels,
        "mean",
        bool(studentize),
        method,
        drawn,
        alternative,
        reference,
        comparisons,
        adjust,
        return_null,
        random_state,
        effective_n_threads(n_jobs),
    )


# --------------------------------------------------------------------------------------
# Correlation with a continuous attribute
# --------------------------------------------------------------------------------------


@renamed_arguments(x="attribute", e="values")
def correlation_test(
    attribute,
    values,
    *,
    studentize: bool = True,
    method: str = "monte_carlo",
    n_permutations: int | None = None,
    sequential: Sequential | None = None,
    alternative: str = "two-sided",
    data=None,
    return_null: bool = False,
    random_state=None,
    n_jobs: int | None = None,
) -> CorrelationTestResult:
    r"""Test for correlation between a continuous protected attribute and model error.

    Pearson's :math:`r` permuted as it is (FairTest's statistic) is a valid test of
    independence only: when x and e are uncorrelated but dependent (e.g. the error's
    variance changes with age) its permutation distribution has the wrong variance and the
    test rejects far too often (KDD 2020 Sec. 4.1, Table 1: 0.75 at level 0.05). The
    studentized statistic (DiCiccio & Romano 2017; docs/generic.md)

    .. math::
        S = \sqrt{n}\,r/\hat\tau,\quad
        \hat\tau^2 = \frac{\hat\mu_{22}}{\hat\mu_{20}\hat\mu_{02}},\quad
        \hat\mu_{jk} = \frac1n\sum_i (x_i - \bar x)^j (e_i - \bar e)^k,

    equal to :math:`\sum_i \tilde x_i \tilde e_i / \sqrt{\sum_i \tilde x_i^2 \tilde e_i^2}`
    for centred values, is asymptotically N(0, 1) under zero correlation, so its
    permutation test (permuting e against x, recomputing S every time) is asymptotically
    valid for uncorrelatedness and exact for independence.

    Parameters
    ----------
    attribute : array-like of shape (n,)
        Continuous protected attribute (or column name of `data`).
    values : array-like of shape (n,)
        Model error or any per-row value (or column name of `data`).
    studentize : bool
        Permute S (default) or Pearson's r.
    method : {"monte_carlo", "asymptotic"}
        Permutations, or N(0, 1) for S (Student's t with n - 2 degrees of freedom for r,
        the classical test that assumes independence and normality).
    n_permutations : int, optional
        Fixed number of random permutations; None (default): sequential.
    sequential : Sequential, optional
        Options of the sequential test used when `n_permutations` is None (see
        :func:`fastfair.permutation_test`).
    alternative : {"two-sided", "greater", "less"}
        ``"greater"``: positive correlation.
    data : pandas.DataFrame or mapping, optional
        Source of column names.
    return_null : bool
        Keep the permuted statistics.
    random_state : None, int, numpy.random.Generator or SeedSequence
        Permutation b uses its own stream: results are identical for any `n_jobs`.
    n_jobs : int, optional
        Threads (None: all cores).

    Returns
    -------
    CorrelationTestResult

    Examples
    --------
    >>> import numpy as np
    >>> import fastfair
    >>> rng = np.random.default_rng(1)
    >>> x = rng.uniform(1e-5, 1, 2000)
    >>> e = rng.normal(size=2000) / x**2  # uncorrelated with x, but not independent
    >>> from fastfair.generic import correlation_test
    >>> res = correlation_test(x, e, random_state=0)  # sequential: stops when clear
    >>> round(res.r, 4), res.decision, res.n_permutations
    (0.0393, 'retain', 16)
    >>> raw = correlation_test(x, e, studentize=False, random_state=0)
    >>> raw.decision  # the raw r rejects a true null (Table 1: 75% of the time)
    'reject'
    """
    cols = resolve_columns(data, attribute=attribute, values=values)
    xv = as_finite_float(cols["attribute"], "attribute")
    ev = as_finite_float(cols["values"], "values")
    n = check_same_length(attribute=xv, values=ev)
    if n < 3:
        raise ValueError(f"correlation_test needs at least 3 rows, got {n}")
    check_choice(method, "method", ("monte_carlo", "asymptotic"))
    check_choice(alternative, "alternative", ALTERNATIVES)
    if not isinstance(studentize, (bool, np.bool_)):
        raise TypeError(f"studentize must be True or False, got {show_value(studentize)}")
    fixed, seq_options = resolve(n_permutations, sequential)
    xc = np.ascontiguousarray(xv - xv.mean())
    ec = np.ascontiguousarray(ev - ev.mean())
    sxx, see = float(xc @ xc), float(ec @ ec)
    for name, s in (("attribute", sxx), ("values", see)):
        if s == 0:
            raise ValueError(f"{name} is constant; the correlation is undefined")
    prod = xc * ec
    sxy, s22 = float(prod.sum()), float(prod @ prod)
    r = sxy / math.sqrt(sxx * see)
    tau = math.sqrt(n * s22 / (sxx * see))
    observed = float(_safe_ratio(sxy, s22)) if studentize else r
    if method == "asymptotic":
        if studentize:
            p = float(asymptotic_pvalue(observed, alternative))
        else:
            t = r * math.sqrt((n - 2) / max(1.0 - r * r, 1e-300))
            p = {
                "two-sided": 2.0 * stats.t.sf(abs(t), n - 2),
                "greater": stats.t.sf(t, n - 2),
                "less": stats.t.cdf(t, n - 2),
            }[alternative]
        return CorrelationTestResult(
            observed, float(min(1.0, p)), r, tau, bool(studentize), method, alternative, n
        )
    key = stream_key(random_state)
    n_threads = effective_n_threads(n_jobs)

    def draw(start: int, count: int) -> np.ndarray:
        sums = _means.corr_sums(xc, ec, count, key, 0, n_threads, start)
        if studentize:
            return _safe_ratio(sums[:, 0], sums[:, 1])
        return sums[:, 0] / math.sqrt(sxx * see)

    sampler = Sampler(draw, observed, alternative, return_null)
    decision = draw_all([sampler], fixed, seq_options, "none")
    if seq_options is None:
        lo, hi = wilson_interval(sampler.count, fixed)
        interval, n_used = (float(lo), float(hi)), fixed
    else:
        _, interval, n_used, decision, _ = summarize([sampler], decision, True)
    res = CorrelationTestResult(
        statistic=observed,
        pvalue=sampler.pvalue,
        r=r,
        tau=tau,
        studentize=bool(studentize),
        method=method,
        alternative=alternative,
        n=n,
        n_permutations=n_used,
        pvalue_interval=interval,
        null_distribution=sampler.null(),
        decision=decision,
        sequential=seq_options,
    )
    res._samplers = [sampler]
    return res


# --------------------------------------------------------------------------------------
# The basic bootstrap (Sec. 4.2), to compare with
# --------------------------------------------------------------------------------------


def basic_bootstrap_test(
    y_true,
    y_pred,
    group,
    *,
    metric: str | Callable = "tpr",
    n_bootstrap: int = 9999,
    alternative: str = "two-sided",
    confidence_level: float = 0.95,
    reference=None,
    comparisons: str = "reference",
    adjust: str = "holm",
    sample_weight=None,
    pos_label=None,
    vectorized: bool = False,
    data=None,
    return_null: bool = False,
    random_state=None,
) -> BootstrapTestResult:
    r"""The "basic" bootstrap test of a difference of a metric between groups (Sec. 4.2).

    Each group is resampled with replacement within itself; the distribution of
    :math:`T - \theta` is approximated by that of :math:`T^* - T`, giving the basic
    interval :math:`(2T - q_{1-a/2}(T^*),\ 2T - q_{a/2}(T^*))` and, by inverting it, the
    p-value :math:`\min(1, 2\min(P^*(T^* - T \ge T), P^*(T^* - T \le T)))` (one-sided:
    one of the two). It needs no studentization but has no exactness guarantee: in the
    paper's FNR example it rejects about 0.10 at level 0.05 (paper: 0.1078), against
    0.05 for an exact permutation test. Provided to compare with, not recommended.

    Parameters
    ----------
    y_true, y_pred, group : array-like of shape (n,)
        As in :func:`fastfair.permutation_test` (or column names of `data`).
    metric : str or callable
        A confusion-matrix metric (resampled as multinomial cell counts, O(1) per
        resample), a row metric of :data:`ROW_METRICS`, or a callable as in
        :func:`permutation_test_rows`.
    n_bootstrap : int
        Bootstrap resamples. For a rate, resamples in which a group's denominator is empty
        are discarded (the metric is undefined there).
    alternative : {"two-sided", "greater", "less"}
        ``"greater"``: the first group of a comparison has the larger metric.
    confidence_level : float
        Level of the basic interval.
    reference, comparisons, adjust, sample_weight, pos_label, vectorized, data
        As in :func:`permutation_test_rows` (`sample_weight` not with confusion metrics).
    return_null : bool
        Keep :math:`T^* - T` (two groups).
    random_state : None, int, numpy.random.Generator or SeedSequence
        Seed.

    Returns
    -------
    BootstrapTestResult

    Examples
    --------
    >>> import numpy as np
    >>> import fastfair
    >>> rng = np.random.default_rng(0)
    >>> group = np.repeat([0, 1], 200)
    >>> y = rng.random(400) < np.where(group == 0, 0.8, 0.2)
    >>> pred = np.where(rng.random(400) < 0.9, y, ~y)
    >>> from fastfair.generic import basic_bootstrap_test
    >>> res = basic_bootstrap_test(y, pred, group, metric="fnr", random_state=0)
    >>> round(res.difference, 4), round(res.pvalue, 3)
    (0.0288, 0.536)
    """
    check_choice(alternative, "alternative", ALTERNATIVES)
    check_choice(comparisons, "comparisons", ("reference", "all"))
    check_choice(adjust, "adjust", ADJUSTMENTS)
    n_bootstrap = check_resamples(n_bootstrap, "n_bootstrap", 2)
    if not 0 < confidence_level < 1:
        raise ValueError(f"confidence_level must be in (0, 1), got {show_value(confidence_level)}")
    cols = resolve_columns(
        data, y_true=y_true, y_pred=y_pred, group=group, sample_weight=sample_weight
    )
    key = stream_key(random_state)
    confusion = isinstance(metric, str) and metric.lower() not in ROW_METRICS
    if confusion:
        spec = get_metric(metric)
        if spec.n_parts > 1:
            raise ValueError("equalized_odds combines two differences; test TPR and FPR")
        if cols["sample_weight"] is not None:
            raise ValueError("sample_weight with a confusion-matrix metric: pass a callable")
        y, yhat = as_binary_pair(cols["y_true"], cols["y_pred"], pos_label)
        check_same_length(y_true=y, y_pred=yhat, group=cols["group"])
        codes, labels = as_groups(cols["group"], "group")
        cells = np.zeros((len(labels), 4))
        np.add.at(cells, (codes, 2 * y + yhat), 1.0)
        num, den = spec.rates(cells)
        if (den == 0).any():
            g = int(np.flatnonzero(den[:, 0] == 0)[0])
            raise ValueError(f"group {labels.tolist()[g]!r} has no {spec.den_description[0]}")
        group_values = (num / den)[:, 0]
        rng = np.random.Generator(np.random.Philox(key))
        name = spec.name

        def draw(g):
            n_g = int(cells[g].sum())
            counts = rng.multinomial(n_g, cells[g] / n_g, size=n_bootstrap)
            nu, de = spec.rates(counts.astype(np.float64))
            with np.errstate(invalid="ignore", divide="ignore"):
                return (nu / de)[:, 0]
    else:
        weights = cols["sample_weight"]
        if weights is not None:
            weights = as_weights(weights, "sample_weight")
        if isinstance(metric, str):
            name = metric.lower()
            y = as_finite_float(cols["y_true"], "y_true") if name != "mean_score" else None
            p = as_finite_float(cols["y_pred"], "y_pred") if name != "mean_outcome" else None
            check_same_length(y_true=y, y_pred=p, group=cols["group"], sample_weight=weights)
            arrays = (_row_values(name, y, p),) + (() if weights is None else (weights,))
            ev = _Evaluator(_mean_fn, arrays, name, True)
        elif callable(metric):
            name = _metric_name(metric)
            y, p = as_1d(cols["y_true"], "y_true"), as_1d(cols["y_pred"], "y_pred")
            check_same_length(y_true=y, y_pred=p, group=cols["group"], sample_weight=weights)
            arrays = (y, p) if weights is None else (y, p, weights)
            ev = _Evaluator(metric, arrays, name, vectorized, weights is not None)
        else:
            raise TypeError(f"metric must be a string or a callable, got {type(metric)}")
        codes, labels = as_groups(cols["group"], "group")
        rows_of = [np.flatnonzero(codes == g) for g in range(len(labels))]
        group_values = np.array(
            [
                ev.values(r[None], lambda i, g=g: f"group {g!r}")[0]
                for g, r in zip(labels.tolist(), rows_of)
            ]
        )

        def draw(g):
            rows = rows_of[g]
            out = np.empty(n_bootstrap)
            step = max(1, _CHUNK_ELEMENTS // len(rows))
            for start in range(0, n_bootstrap, step):
                count = min(step, n_bootstrap - start)
                idx = _means.bootstrap_indices(len(rows), len(rows), start, count, key, g)
                out[start : start + count] = ev.values(
                    rows[idx], lambda i, s=start: f"bootstrap resample {s + i}"
                )
            return out

    sizes = np.bincount(codes, minlength=len(labels))
    pairs = comparison_pairs(sizes, labels, reference, comparisons)
    boots = {g: draw(g) for g in np.unique(pairs).tolist()}
    a_level = 1.0 - confidence_level
    diffs, pvals, los, his, nulls = [], [], [], [], []
    for ga, gb in pairs:
        t = group_values[ga] - group_values[gb]
        d = boots[ga] - boots[gb] - t
        d = d[np.isfinite(d)]
        if d.size == 0:
            raise ValueError("every bootstrap resample left a group's metric undefined")
        upper, lower = np.mean(d >= t), np.mean(d <= t)
        p = {"two-sided": min(1.0, 2 * min(upper, lower)), "greater": upper, "less": lower}
        q_lo, q_hi = np.quantile(d, [a_level / 2, 1 - a_level / 2])
        diffs.append(t)
        pvals.append(float(p[alternative]))
        los.append(t - q_hi)
        his.append(t - q_lo)
        nulls.append(d)
    single = len(pairs) == 1
    pv = np.array(pvals)
    label_list = labels.tolist()
    return BootstrapTestResult(
        difference=float(diffs[0]) if single else np.array(diffs),
        pvalue=float(pv[0]) if single else pv,
        confidence_interval=(float(los[0]), float(his[0]))
        if single
        else (np.array(los), np.array(his)),
        metric=name,
        groups=labels,
        group_values=group_values,
        comparisons=[(label_list[i], label_list[j]) for i, j in pairs],
        alternative=alternative,
        confidence_level=confidence_level,
        n_bootstrap=n_bootstrap,
        pvalue_adjusted=_adjusted(pv, adjust),
        adjust=adjust if not single else None,
        null_distribution=nulls[0] if return_null and single else None,
    )
