"""Permutation tests of group differences in confusion-matrix fairness metrics.

DiCiccio, Vasudevan, Basu, Kenthapadi & Agarwal (KDD 2020), "Evaluating fairness using
permutation tests", with the corrections of docs/permutation.md ("The statistic"): the
paper's unpooled
studentized statistic under full permutation does not hold its level, while permuting
within the metric's denominator ("conditional") is exact for equal rates and the pooled
(score-type) variance holds the level under full permutation. Those are the defaults; every
variant of the paper stays available.
"""

from __future__ import annotations

import math
import warnings
from dataclasses import dataclass, field

import numpy as np

from fastfair import _counts, _rows
from fastfair._deprecation import renamed_attributes
from fastfair._metrics import ConfusionMetric, get_metric
from fastfair._parallel import effective_n_threads, threads_for
from fastfair._pvalues import (
    ALTERNATIVES,
    adjust_pvalues,
    asymptotic_pvalue,
    exact_pvalue,
    maxt_pvalues,
    wilson_interval,
)
from fastfair._random import stream_key
from fastfair._results import format_interval, format_pvalue, format_table, format_value
from fastfair._scipy import special
from fastfair._score import kish_counts, score_interval
from fastfair._sequential import (
    Sampler,
    Sequential,
    describe,
    draw_all,
    resolve,
    run,
    summarize,
)
from fastfair._validation import (
    as_binary_pair,
    as_groups,
    as_weights,
    check_choice,
    check_level,
    check_same_length,
    resolve_columns,
    show_value,
)

_MAX_TOTAL_COUNT = 2**62  # all count sums of the exact and permutation kernels fit in int64

__all__ = [
    "PermutationTestResult",
    "confusion_counts",
    "permutation_test",
    "permutation_test_from_counts",
]

SCHEMES = ("conditional", "within_outcome", "full")
METHODS = ("auto", "exact", "monte_carlo", "asymptotic")
VARIANCES = ("pooled", "unpooled")
ADJUSTMENTS = ("holm", "bonferroni", "maxT", "none")
#: Largest number of support points an exact enumeration may visit.
MAX_EXACT_POINTS = 2_000_000
#: Mass of the permutation distribution that exact enumeration may neglect (Hoeffding bound).
EXACT_NEGLECTED_MASS = 1e-20


class ExactInfeasibleError(ValueError):
    """Exact enumeration of the permutation distribution would be too large."""


@renamed_attributes(difference_interval="confidence_interval")
@dataclass(repr=False)
class PermutationTestResult:
    """Result of :func:`permutation_test`.

    With two groups `statistic`, `pvalue` and `difference` are floats; with more groups they
    are arrays with one entry per comparison in `comparisons`.

    Attributes
    ----------
    statistic : float or ndarray
        Observed test statistic (studentized difference; T_tpr^2 + T_fpr^2 for equalized odds).
    pvalue : float or ndarray
        p-value of each comparison (not adjusted for multiplicity).
    pvalue_adjusted : ndarray or None
        Family-wise adjusted p-values (`adjust`), when there is more than one comparison.
    difference : float or ndarray
        Metric of the first group minus metric of the second (shape (..., 2) for
        equalized odds: TPR and FPR differences).
    groups, group_values, group_denominators : ndarray
        Group labels, each group's metric value(s), and the (weighted) size of its denominator.
    comparisons : list of tuple
        (group, other group) for each comparison; the difference is group minus other.
    n_permutations : int, ndarray or None
        Permutations drawn (per comparison, when sequential with several comparisons).
    pvalue_interval : tuple of ndarray or None
        Interval of a Monte-Carlo p-value (where the p-value of infinitely many permutations
        lies): Wilson 95% for a fixed number of permutations; sequential: Robbins'
        confidence sequence at level 1 - epsilon (1 - epsilon / C over C comparisons with an
        adjustment), valid at the data-dependent stopping time.
    confidence_interval : tuple or None
        (lower, upper) confidence interval of each difference at `confidence_level`
        (pointwise, one per comparison and, for equalized odds, per component; same shape as
        `difference`). Confusion-matrix metrics: the Miettinen-Nurminen score interval, the
        differences a two-sided score test does not reject (Kish effective sizes when
        weighted); callable and row metrics: difference +- z * `standard_error`.
    confidence_level : float
        Level of `confidence_interval`.
    decision : str, ndarray or None
        Sequential Monte Carlo: "reject", "retain" or "undecided" at `sequential.alpha`
        (under `adjust` with several comparisons; exact p-values take part as they are).
        None otherwise.
    sequential : Sequential or None
        The options of a sequential test.
    null_distribution, null_probabilities : ndarray or None
        With ``return_null=True``: permuted statistics (Monte Carlo, shape (B,) or (B, C);
        sequential with several comparisons: NaN-padded columns), or the support and
        probabilities of the exact distribution (two groups).
    """

    statistic: float | np.ndarray
    pvalue: float | np.ndarray
    difference: float | np.ndarray
    metric: str
    groups: np.ndarray
    group_values: np.ndarray
    group_denominators: np.ndarray
    comparisons: list
    scheme: str
    studentize: bool
    variance: str
    method: str
    alternative: str
    mid_p: bool = False
    n_permutations: int | None = None
    pvalue_adjusted: np.ndarray | None = None
    adjust: str | None = None
    pvalue_interval: tuple | None = None
    weighted: bool = False
    confidence_interval: tuple | None = None
    confidence_level: float = 0.95
    null_distribution: np.ndarray | None = field(default=None)
    null_probabilities: np.ndarray | None = field(default=None)
    decision: str | np.ndarray | None = None
    sequential: Sequential | None = None

    def _p(self, pvalue, c: int = 0) -> str:
        """A p-value at the precision of this result's method (format_pvalue); sequential
        tests drew a number of permutations per comparison c."""
        n = self.n_permutations
        n = None if n is None else int(np.atleast_1d(n)[c])
        return format_pvalue(pvalue, self.method, n)

    def __repr__(self) -> str:
        stat = "studentized" if self.studentize else "raw difference"
        head = (
            f"PermutationTestResult(metric={self.metric!r}, scheme={self.scheme!r}, "
            f"method={self.method!r}, statistic={stat}"
            + (f", variance={self.variance!r}" if self.studentize else "")
            + f", alternative={self.alternative!r}"
            + (
                f", n_permutations={self.n_permutations}"
                if self.n_permutations is not None and self.sequential is None
                else ""
            )
            + ")"
        )
        values = self.group_values.reshape(len(self.groups), -1)
        dens = self.group_denominators.reshape(len(self.groups), -1)
        parts = ["tpr", "fpr"] if values.shape[1] == 2 else [self.metric]
        den_names = [f"den({p})" for p in parts] if len(parts) > 1 else ["denominator"]
        if not self.weighted:
            dens = dens.astype(np.int64)
        group_rows = [(str(g), *values[k], *dens[k]) for k, g in enumerate(self.groups)]
        group_table = format_table(["group", *parts, *den_names], group_rows)
        stat_v = np.atleast_1d(self.statistic)
        p_v = np.atleast_1d(self.pvalue)
        n_c = len(self.comparisons)
        diff_v = np.reshape(self.difference, (n_c, len(parts)))
        prefix = [f"{p} " for p in parts] if len(parts) > 1 else [""]
        level = f"{100 * self.confidence_level:g}% CI"
        headers = ["comparison"]
        for pre in prefix:
            headers += [f"{pre}difference"]
            if self.confidence_interval is not None:
                headers += [f"{pre}{level}"]
        headers += ["statistic", "pvalue"]
        if self.pvalue_adjusted is not None:
            headers.append(f"adjusted ({self.adjust})")
        rows = []
        for c, (a, b) in enumerate(self.comparisons):
            row = [f"{a} - {b}"]
            for j in range(len(parts)):
                row.append(diff_v[c, j])
                if self.confidence_interval is not None:
                    row.append(format_interval(self.confidence_interval, c, j, n_c, len(parts)))
            row += [stat_v[c], self._p(p_v[c], c)]
            if self.pvalue_adjusted is not None:
                row.append(self._p(self.pvalue_adjusted[c], c))
            rows.append(row)
        lines = [head, group_table, format_table(headers, rows)]
        if self.pvalue_interval is not None:
            lo, hi = (np.atleast_1d(x) for x in self.pvalue_interval)
            spans = ", ".join(f"[{format_value(a)}, {format_value(b)}]" for a, b in zip(lo, hi))
            what = "95%" if self.sequential is None else "confidence-sequence"
            lines.append(f"  {what} Monte-Carlo interval of the p-value: {spans}")
        seq = describe(self.sequential, self.decision, self.n_permutations)
        if seq:
            lines.append(seq)
        return "\n".join(lines)


def permutation_test(
    y_true,
    y_pred,
    group,
    *,
    metric: str = "tpr",
    scheme: str = "conditional",
    studentize: bool | str = True,
    variance: str = "pooled",
    method: str = "auto",
    n_permutations: int | None = None,
    sequential: Sequential | None = None,
    alternative: str = "two-sided",
    mid_p: bool = False,
    reference=None,
    comparisons: str = "reference",
    adjust: str = "holm",
    sample_weight=None,
    pos_label=None,
    data=None,
    return_null: bool = False,
    random_state=None,
    n_jobs: int | None = None,
    n_bootstrap: int = 200,
    vectorized: bool = False,
    progress: bool | None = None,
    confidence_level: float = 0.95,
) -> PermutationTestResult:
    r"""Test whether a confusion-matrix metric differs between groups.

    For each compared pair of groups the statistic is the studentized difference of the
    metric :math:`M = \text{num}/\text{den}` (docs/permutation.md, "Metrics"),

    .. math::
        T = (M_A - M_B) / \sqrt{V},\quad
        V_\text{pooled} = p(1-p)\,(1/\text{den}_A + 1/\text{den}_B),\quad
        V_\text{unpooled} = M_A(1-M_A)/\text{den}_A + M_B(1-M_B)/\text{den}_B,

    with p the rate over both groups (KDD 2020, Sec. 3.3 and 5; the paper's statistic is
    the unpooled one). Its permutation distribution is obtained from group cell counts, never
    from row shuffles: one permutation costs O(1) whatever the number of rows.

    Parameters
    ----------
    y_true, y_pred : array-like of shape (n,)
        Binary labels and binary predictions (bool, 0/1, or two values with `pos_label`),
        or column names of `data`.
    group : array-like of shape (n,)
        Group membership (any labels; at least two groups), or a column name of `data`.
    metric : str
        ``"tpr"`` (alias ``"recall"``), ``"fnr"``, ``"fpr"``, ``"tnr"``, ``"ppv"``
        (``"precision"``), ``"fdr"``, ``"npv"``, ``"for"``, ``"selection_rate"``
        (``"demographic_parity"``), ``"accuracy"``, ``"error_rate"``, or
        ``"equalized_odds"`` (TPR and FPR jointly: :math:`T = T_{tpr}^2 + T_{fpr}^2`,
        asymptotically chi-square with 2 df; two-sided only).
    scheme : {"conditional", "within_outcome", "full"}
        Which rows exchange group labels. ``"conditional"`` (default): only the rows of
        the metric's denominator (e.g. positives for TPR). With independent rows, equal rates
        make those rows exchangeable, so the test is exact under the null of equal metrics
        (a Fisher-type exact test), at any sample size. ``"within_outcome"``: among positives
        and, separately, negatives (paper Sec. 3.1). ``"full"``: all rows; exact only for
        the strong null of equal distributions, asymptotically valid for equal metrics when
        studentized with the pooled variance.
    studentize : bool
        Divide the difference by its standard error (default). ``False`` permutes the raw
        difference, which is not a valid test of equal metrics under ``scheme="full"``
        (the pitfall of paper Sec. 4.2; kept to demonstrate it).
    variance : {"pooled", "unpooled"}
        Variance in the studentized statistic. ``"unpooled"`` is the paper's; under full
        permutation it rejects 0.07-0.08 at alpha = 0.05 in the paper's own setting and far
        below alpha with unbalanced groups (docs/permutation.md, "The statistic"). Under the
        conditional scheme both are exact.
    method : {"auto", "exact", "monte_carlo", "asymptotic"}
        ``"exact"`` enumerates the permutation distribution of the cell counts (1-D under
        the conditional scheme: feasible at any n; raises `ExactInfeasibleError` when more
        than `MAX_EXACT_POINTS` support points would be needed). ``"monte_carlo"`` draws
        `n_permutations` random permutations. ``"asymptotic"`` refers the studentized
        statistic to N(0, 1) (chi-square(2) for equalized odds). ``"auto"`` (default):
        exact when feasible and unweighted, else Monte Carlo.
    n_permutations : int, optional
        Fixed number of random permutations for Monte Carlo (and for max-T adjustment).
        None (default): Monte-Carlo p-values are sequential (`sequential`); max-T then
        draws 9,999 joint permutations.
    sequential : Sequential, optional
        Options of the sequential Monte-Carlo test used when `n_permutations` is None
        (default ``Sequential()``: alpha 0.05, resampling risk 1e-3): permutations are
        drawn in blocks until the p-value's confidence sequence excludes alpha (several
        comparisons: until `adjust` is decided, MMCTest). Exact and asymptotic p-values are
        unaffected. See :func:`fastfair.auc_test` and docs/sequential.md.
    alternative : {"two-sided", "greater", "less"}
        ``"greater"``: the first group of a comparison has the larger metric.
    mid_p : bool
        Exact method only: count ties with the observed statistic one half.
    reference : label, optional
        Group that every other group is compared with (``comparisons="reference"``).
        Default: the group with the most rows. The difference is group minus reference.
    comparisons : {"reference", "all"}
        Each group against `reference`, or all pairs (difference: earlier minus later label).
    adjust : {"holm", "bonferroni", "maxT", "none"}
        Family-wise adjustment over comparisons when there are more than two groups.
        Raw p-values come from two-group tests on each pair's rows. ``"maxT"`` (single-step
        Westfall-Young) takes the distribution of the maximum statistic over joint random
        permutations of all groups (Monte Carlo, `n_permutations`); it assumes all groups
        exchangeable under the complete null.
    sample_weight : array-like of shape (n,), optional
        Non-negative row weights. Metrics become weighted rates; variances use the Kish
        effective size :math:`(\sum w)^2/\sum w^2`. Permutations are then row-level
        (partial Fisher-Yates over the smaller groups), so the method is Monte Carlo.
    pos_label : optional
        Positive label of `y_true` and `y_pred` when they are not bool or 0/1.
    data : pandas.DataFrame or mapping, optional
        When given, `y_true`, `y_pred`, `group` and `sample_weight` may be column names.
    return_null : bool
        Keep the null distribution in the result.
    random_state : None, int, numpy.random.Generator or SeedSequence
        Seed of the permutations. Permutation b uses its own counter-based stream, so the
        result is identical for any `n_jobs`.
    n_jobs : int, optional
        Threads for Monte Carlo (None: all cores; -1 all, -2 all but one).
    confidence_level : float
        Level of the confidence interval of each difference (`confidence_interval`),
        pointwise for each comparison. For confusion-matrix metrics it is the
        Miettinen-Nurminen score interval (the differences d that the two-sided score test
        of :math:`H_0: M_A - M_B = d` does not reject),
        computed with Kish effective sizes for weighted data.
    n_bootstrap, vectorized, progress
        For a callable `metric` or a row metric (``"mse"``, ``"mae"``, ``"mean_residual"``,
        ``"mean_score"``, ``"mean_outcome"``), which are tested by
        :func:`fastfair.generic.permutation_test_rows` (Algorithm 1): `studentize` may then
        also be ``"bootstrap"``, ``"bootstrap-fast"`` or ``"welch"``; see there.

    Returns
    -------
    PermutationTestResult

    Notes
    -----
    Degenerate statistics never give NaN: a permuted sample in which a group's denominator
    is empty has statistic 0; a zero difference has statistic 0; a non-zero difference with
    zero estimated variance (unpooled, both rates 0 or 1) is studentized with rates shrunk
    by half a pseudo-observation, :math:`(M\,\text{den} + 1/2)/(\text{den} + 1)`. Observed
    data with an empty denominator in a compared group raise ``ValueError``.

    Examples
    --------
    >>> import numpy as np
    >>> import fastfair
    >>> rng = np.random.default_rng(0)
    >>> group = rng.integers(0, 2, 2000)
    >>> y_true = rng.random(2000) < 0.3
    >>> y_pred = np.where(y_true, rng.random(2000) < 0.8 - 0.1 * group, rng.random(2000) < 0.1)
    >>> res = fastfair.permutation_test(y_true, y_pred, group, metric="tpr")
    >>> res.method, round(res.difference, 3), round(res.pvalue, 4)
    ('exact', 0.097, 0.0077)
    """
    from fastfair import generic  # callables and row metrics: Algorithm 1 (lazy import)

    if callable(metric) or isinstance(studentize, str) or generic.is_row_metric(metric):
        if variance != "pooled" or mid_p or pos_label is not None:
            raise ValueError(
                "variance, mid_p and pos_label apply to confusion-matrix metrics only, "
                f"not to metric={getattr(metric, '__name__', metric)!r}"
            )
        return generic.permutation_test_rows(
            y_true, y_pred, group, metric=metric, studentize=studentize, method=method,
            n_permutations=n_permutations, sequential=sequential, alternative=alternative,
            reference=reference,
            comparisons=comparisons, adjust=adjust, sample_weight=sample_weight, data=data,
            return_null=return_null, random_state=random_state, n_jobs=n_jobs,
            n_bootstrap=n_bootstrap, vectorized=vectorized, progress=progress, scheme=scheme,
            confidence_level=confidence_level,
        )  # fmt: skip
    y, yhat, weights, codes, labels, exponent = _coerce_rows(
        y_true, y_pred, group, sample_weight, pos_label, data
    )
    spec_metric = get_metric(metric)
    n_permutations = _check_options(
        spec_metric,
        scheme,
        variance,
        method,
        alternative,
        comparisons,
        adjust,
        n_permutations,
        sequential,
        studentize,
        confidence_level,
    )
    cell = (2 * y + yhat).astype(np.uint8)
    n_threads = effective_n_threads(n_jobs)
    count_threads = threads_for(n_jobs, len(cell), 1_000_000)
    w, w2 = _counts.cell_sums(cell, codes, len(labels), weights, count_threads)
    rows = None if weights is None else (cell, weights, codes)
    result = _test_cells(
        w,
        w2,
        labels,
        rows,
        spec_metric,
        scheme,
        studentize,
        variance,
        method,
        n_permutations,
        alternative,
        mid_p,
        reference,
        comparisons,
        adjust,
        return_null,
        random_state,
        n_threads,
        confidence_level,
    )
    if exponent:  # weighted denominators in the user's units (weights were rescaled)
        result.group_denominators = np.ldexp(result.group_denominators, exponent)
    return result


def permutation_test_from_counts(
    counts,
    groups=None,
    *,
    metric: str = "tpr",
    scheme: str = "conditional",
    studentize: bool = True,
    variance: str = "pooled",
    method: str = "auto",
    n_permutations: int | None = None,
    sequential: Sequential | None = None,
    alternative: str = "two-sided",
    mid_p: bool = False,
    reference=None,
    comparisons: str = "reference",
    adjust: str = "holm",
    return_null: bool = False,
    random_state=None,
    n_jobs: int | None = None,
    confidence_level: float = 0.95,
) -> PermutationTestResult:
    """:func:`permutation_test` on confusion-matrix counts instead of rows.

    Unweighted confusion-matrix statistics depend on the data only through each group's
    cell counts, so counts computed elsewhere (a database query, a Dask aggregation, the
    :func:`confusion_counts` of several shards added up) give the same test as the rows.

    Parameters
    ----------
    counts : array-like of shape (n_groups, 4)
        Non-negative integer counts per group in the order TN, FP, FN, TP (cell index
        2*y_true + y_pred).
    groups : array-like of shape (n_groups,), optional
        Group labels (default 0..n_groups-1).
    **options
        As in :func:`permutation_test` (`reference` defaults to the group with most rows).

    Examples
    --------
    >>> import fastfair
    >>> counts = [[500, 40, 30, 170], [450, 60, 55, 120]]  # TN, FP, FN, TP per group
    >>> res = fastfair.permutation_test_from_counts(counts, ["a", "b"], metric="fnr")
    >>> res.comparisons, round(res.pvalue, 4)
    ([('b', 'a')], 0.0002)
    """
    w, labels = _check_counts(counts, groups)
    spec_metric = get_metric(metric)
    n_permutations = _check_options(
        spec_metric,
        scheme,
        variance,
        method,
        alternative,
        comparisons,
        adjust,
        n_permutations,
        sequential,
        studentize,
        confidence_level,
    )
    return _test_cells(
        w,
        w.copy(),
        labels,
        None,
        spec_metric,
        scheme,
        studentize,
        variance,
        method,
        n_permutations,
        alternative,
        mid_p,
        reference,
        comparisons,
        adjust,
        return_null,
        random_state,
        effective_n_threads(n_jobs),
        confidence_level,
    )


def _check_counts(counts, groups) -> tuple[np.ndarray, np.ndarray]:
    """Validated (n_groups, 4) counts as float64 and the group labels."""
    table = np.asarray(counts)
    if table.ndim != 2 or table.shape[1] != 4 or table.shape[0] < 2:
        raise ValueError(f"counts must have shape (n_groups >= 2, 4), got {table.shape}")
    if table.dtype.kind not in "iu" and not (
        table.dtype.kind == "f" and np.all(np.isfinite(table)) and np.all(table == np.round(table))
    ):
        raise ValueError("counts must be non-negative integers")
    if (table < 0).any():
        raise ValueError("counts must be non-negative integers")
    if sum(int(v) for v in table.ravel()) > _MAX_TOTAL_COUNT:
        raise ValueError(
            "counts sum to more than 2**62, beyond 64-bit integer arithmetic "
            "(the permutation sums would overflow)"
        )
    labels = np.arange(len(table)) if groups is None else np.asarray(groups)
    if labels.shape != (len(table),):
        raise ValueError(f"groups must have {len(table)} labels, got shape {labels.shape}")
    if len(np.unique(labels)) != len(labels):
        raise ValueError("groups must be distinct labels")
    empty = np.flatnonzero(table.sum(axis=1) == 0)
    if empty.size:
        raise ValueError(f"group {labels.tolist()[empty[0]]!r} is empty (all counts are zero)")
    return table.astype(np.float64), labels


def confusion_counts(y_true, y_pred, group, *, sample_weight=None, pos_label=None, data=None):
    """Per-group confusion-matrix cell sums: the sufficient statistics of every rate.

    Returns (counts, groups): counts has shape (n_groups, 4) in the order TN, FP, FN, TP
    (sums of `sample_weight` when given), groups the sorted group labels.

    Examples
    --------
    >>> import fastfair
    >>> y_true, y_pred, group = [1, 0, 1, 1], [1, 0, 0, 1], ["a", "a", "b", "b"]
    >>> counts, groups = fastfair.confusion_counts(y_true, y_pred, group)
    >>> counts.tolist(), groups.tolist()
    ([[1.0, 0.0, 0.0, 1.0], [0.0, 0.0, 1.0, 1.0]], ['a', 'b'])
    """
    y, yhat, weights, codes, labels, exponent = _coerce_rows(
        y_true, y_pred, group, sample_weight, pos_label, data, min_groups=1
    )
    w, _ = _counts.cell_sums((2 * y + yhat).astype(np.uint8), codes, len(labels), weights)
    return (np.ldexp(w, exponent) if exponent else w), labels


def _coerce_rows(y_true, y_pred, group, sample_weight, pos_label, data, min_groups=2):
    cols = resolve_columns(
        data, y_true=y_true, y_pred=y_pred, group=group, sample_weight=sample_weight
    )
    y, yhat = as_binary_pair(cols["y_true"], cols["y_pred"], pos_label)
    weights, exponent = cols["sample_weight"], 0
    if weights is not None:
        weights, exponent = as_weights(weights, "sample_weight", return_exponent=True)
    raw_group = cols["group"]
    check_same_length(y_true=y, y_pred=yhat, group=raw_group, sample_weight=weights)
    codes, labels = as_groups(raw_group, "group", min_groups=min_groups)
    return y, yhat, weights, codes, labels, exponent


def _check_options(
    spec_metric,
    scheme,
    variance,
    method,
    alternative,
    comparisons,
    adjust,
    n_permutations,
    sequential,
    studentize,
    confidence_level=0.95,
) -> tuple:
    check_choice(scheme, "scheme", SCHEMES)
    check_choice(variance, "variance", VARIANCES)
    check_choice(method, "method", METHODS)
    check_choice(alternative, "alternative", ALTERNATIVES)
    check_choice(comparisons, "comparisons", ("reference", "all"))
    check_choice(adjust, "adjust", ADJUSTMENTS)
    fixed_and_options = resolve(n_permutations, sequential)
    if not isinstance(studentize, (bool, np.bool_)):
        raise TypeError(f"studentize must be True or False, got {show_value(studentize)}")
    if spec_metric.n_parts > 1 and alternative != "two-sided":
        raise ValueError("equalized_odds combines two differences; only 'two-sided' applies")
    check_level(confidence_level, "confidence_level")
    if method == "asymptotic" and not studentize:
        raise ValueError("method='asymptotic' needs a studentized statistic (studentize=True)")
    return fixed_and_options


def _test_cells(
    w,
    w2,
    labels,
    rows,
    spec_metric,
    scheme,
    studentize,
    variance,
    method,
    n_permutations,
    alternative,
    mid_p,
    reference,
    comparisons,
    adjust,
    return_null,
    random_state,
    n_threads,
    confidence_level=0.95,
) -> PermutationTestResult:
    """The test on per-group cell sums; `rows` = (cell, weights, codes) when weighted."""
    weighted = rows is not None
    if weighted and method == "exact":
        raise ValueError("method='exact' needs unweighted data; use 'monte_carlo' with weights")
    if not isinstance(mid_p, (bool, np.bool_)):
        raise TypeError(f"mid_p must be True or False, got {show_value(mid_p)}")
    if mid_p and (method in ("monte_carlo", "asymptotic") or weighted):
        raise ValueError(
            "mid_p applies to exact p-values only, not to "
            + ("weighted data (Monte Carlo)" if weighted else f"method={method!r}")
        )
    pairs = _comparison_pairs(w.sum(axis=1), labels, reference, comparisons)
    _check_defined(spec_metric, w, labels, pairs)
    spec = spec_metric.spec(studentize, variance == "pooled")
    strata = spec_metric.strata(scheme)
    observed = _counts.metric_statistics(w.reshape(1, -1), w2.reshape(1, -1), spec, pairs)[0]
    num, den = spec_metric.rates(w)
    values = num / den
    a, b = pairs[:, 0], pairs[:, 1]
    difference = values[a] - values[b]
    lower, upper = difference_interval(spec_metric, w, w2, pairs, weighted, confidence_level)
    if spec_metric.n_parts == 1:
        values, difference, den = values[:, 0], difference[:, 0], den[:, 0]
        lower, upper = lower[:, 0], upper[:, 0]

    fixed, seq_options = n_permutations
    if seq_options is not None and adjust == "maxT" and len(pairs) > 1:
        joint_count = 9999
    else:
        joint_count = fixed
    key = stream_key(random_state) if method != "asymptotic" or adjust == "maxT" else 0
    pvalues = np.empty(len(pairs))
    used = []
    samplers: list = []
    null_values, null_probs = None, None
    for c, (ga, gb) in enumerate(pairs):
        chosen = method
        if method == "auto":
            chosen = "monte_carlo" if weighted else "exact"
        sampler = None
        if chosen == "exact":
            try:
                p, support, probs = _exact_pair(
                    w[[ga, gb]].astype(np.int64),
                    spec_metric,
                    spec,
                    strata,
                    observed[c],
                    alternative,
                    mid_p,
                    want_null=return_null,
                )
            except ExactInfeasibleError:
                if method == "exact":
                    raise
                chosen = "monte_carlo"
            else:
                pvalues[c] = p
                null_values, null_probs = support, probs
        if chosen == "monte_carlo":
            draw = _pair_draw(rows, w, (ga, gb), strata, spec, key, c, n_threads)
            sampler = Sampler(draw, observed[c], alternative, return_null)
        if chosen == "asymptotic":
            df = 2 if spec_metric.n_parts == 2 else None
            pvalues[c] = asymptotic_pvalue(observed[c], alternative, df)
        samplers.append(sampler)
        used.append(chosen)

    mc = [s for s in samplers if s is not None]
    decision = None
    if mc and seq_options is None:
        draw_all(mc, fixed, None, adjust)
    elif mc:
        procedure = adjust if len(pairs) > 1 and adjust != "maxT" else "none"
        decision = run(samplers, seq_options, procedure, known=pvalues)
    for c, sampler in enumerate(samplers):
        if sampler is not None:
            pvalues[c] = sampler.pvalue

    method_used = used[0] if len(set(used)) == 1 else "mixed"
    if mid_p and method_used != "exact":
        warnings.warn(
            "mid_p applies to exact p-values only: comparisons too large to enumerate were "
            "tested by Monte Carlo with ordinary p-values (the result has mid_p=False)",
            stacklevel=3,
        )
        mid_p = False
    interval = None
    n_used = fixed if "monte_carlo" in used or adjust == "maxT" else None
    null_draws = [s.null() for s in mc] if return_null else []
    if method_used == "monte_carlo" and seq_options is None:
        interval = wilson_interval(np.array([s.count for s in mc], dtype=np.float64), fixed)
    elif method_used == "monte_carlo":
        _, interval, n_used, decision, null_seq = summarize(samplers, decision, len(pairs) == 1)
        null_draws = [] if null_seq is None else [null_seq]
    elif mc and seq_options is not None:  # some comparisons exact, some sequential
        n_used = np.array([0 if s is None else s.n for s in samplers], dtype=np.int64)
        null_draws = []
    adjusted = None
    if len(pairs) > 1:
        if adjust == "maxT":
            joint = _monte_carlo_null(
                rows,
                w,
                None,
                strata,
                spec,
                joint_count,
                key,
                len(pairs),
                n_threads,
                pairs=pairs,
            )
            adjusted = np.maximum(maxt_pvalues(joint, observed, alternative), pvalues)
        else:
            adjusted = adjust_pvalues(pvalues, adjust)

    single = len(pairs) == 1
    label_list = labels.tolist()
    null_out = None
    if return_null and null_draws:
        if seq_options is not None:
            null_out = null_draws[0]
        else:
            null_out = null_draws[0] if single else np.column_stack(null_draws)
    res = PermutationTestResult(
        statistic=float(observed[0]) if single else observed,
        pvalue=float(pvalues[0]) if single else pvalues,
        difference=(difference[0] if single else difference)
        if spec_metric.n_parts > 1 or not single
        else float(difference[0]),
        metric=spec_metric.name,
        groups=labels,
        group_values=values,
        group_denominators=den,
        comparisons=[(label_list[i], label_list[j]) for i, j in pairs],
        scheme=scheme,
        studentize=bool(studentize),
        variance=variance,
        method=method_used,
        alternative=alternative,
        mid_p=mid_p,
        n_permutations=n_used,
        pvalue_adjusted=adjusted,
        adjust=adjust if adjusted is not None else None,
        pvalue_interval=(
            None
            if interval is None
            else (
                interval
                if not single or seq_options is not None
                else tuple(float(x[0]) for x in interval)
            )
        ),
        weighted=weighted,
        confidence_interval=(
            (lower[0], upper[0])
            if single and spec_metric.n_parts > 1
            else (float(lower[0]), float(upper[0]))
            if single
            else (lower, upper)
        ),
        confidence_level=float(confidence_level),
        null_distribution=null_out if null_out is not None else (null_values if single else None),
        null_probabilities=null_probs if single and null_out is None else None,
        decision=decision,
        sequential=seq_options if mc else None,
    )
    res._samplers = samplers if mc else None  # for multiple_monte_carlo
    return res


def difference_interval(spec_metric, w, w2, pairs, weighted, confidence_level):
    """Miettinen-Nurminen interval of each pair's difference, shape (n_pairs, n_parts) each.

    Unweighted: the numerator and denominator counts. Weighted: Kish effective counts,
    n = (sum w)^2 / sum w^2 over the denominator rows and x = rate * n.
    """
    num, den = spec_metric.rates(w)
    if weighted:
        _, den2 = spec_metric.rates(w2)
        x, n = kish_counts(num / den, den, den2)
    else:
        x, n = num, den
    a, b = pairs[:, 0], pairs[:, 1]
    return score_interval(x[a], n[a], x[b], n[b], confidence_level)


def _comparison_pairs(sizes, labels, reference, comparisons) -> np.ndarray:
    """(n_comparisons, 2) group codes: (group, reference) or all (i, j), i < j."""
    k = len(labels)
    if comparisons == "all":
        if reference is not None:
            raise ValueError("reference applies to comparisons='reference' only")
        return np.array([(i, j) for i in range(k) for j in range(i + 1, k)], dtype=np.intp)
    if reference is None:
        ref = int(np.argmax(sizes))
    else:
        matches = np.flatnonzero(labels == reference)
        if matches.size == 0:
            raise ValueError(
                f"reference {show_value(reference)} is not a group; groups: {labels.tolist()}"
            )
        ref = int(matches[0])
    return np.array([(g, ref) for g in range(k) if g != ref], dtype=np.intp)


def _check_defined(spec_metric: ConfusionMetric, w, labels, pairs) -> None:
    """Raise ValueError when a compared group's metric has an empty denominator."""
    _, den = spec_metric.rates(w)
    for g in np.unique(pairs):
        for part, text in enumerate(spec_metric.den_description):
            if den[g, part] <= 0:
                raise ValueError(
                    f"group {labels.tolist()[g]!r} has no {text}, so "
                    f"{spec_metric.part_names[part]} is undefined for it"
                )


def _pair_draw(rows, w, pair, strata, spec, key, stream, n_threads):
    """draw(start, count): permuted statistics of one pair from its random streams."""

    def draw(start: int, count: int) -> np.ndarray:
        return _monte_carlo_null(
            rows, w, pair, strata, spec, count, key, stream, n_threads, start=start
        )

    return draw


def _monte_carlo_null(
    rows, w, pair, strata, spec, n_permutations, key, stream, n_threads, pairs=None, start=0
):
    """Permutation statistics for one pair (two-group test) or for `pairs` jointly.

    Unweighted: hypergeometric draws of cell counts. Weighted (`rows` = (cell, weights,
    codes)): row-level permutations.
    """
    if rows is not None:
        cell, weights, codes = rows
        work = n_permutations * len(cell)
    else:
        weights = None
        work = n_permutations * 50
    n_threads = threads_for(n_threads, work, 1_000_000)
    if pair is not None:
        local_pairs = np.array([[0, 1]], dtype=np.intp)
        if weights is None:
            counts = w[list(pair)].astype(np.int64)
            return _counts.permute_counts(
                counts, strata, spec, local_pairs, n_permutations, key, stream, n_threads, start
            )[:, 0]
        rows = (codes == pair[0]) | (codes == pair[1])
        if rows.all():
            sub_codes = (codes == pair[1]).astype(np.intp)
            sub_cell, sub_w = cell, weights
        else:
            sub_codes = (codes[rows] == pair[1]).astype(np.intp)
            sub_cell, sub_w = cell[rows], weights[rows]
        return _rows.permute_rows(
            sub_cell,
            sub_w,
            sub_codes,
            2,
            strata,
            spec,
            local_pairs,
            n_permutations,
            key,
            stream,
            n_threads,
            start,
        )[:, 0]
    if weights is None:
        return _counts.permute_counts(
            w.astype(np.int64), strata, spec, pairs, n_permutations, key, stream, n_threads
        )
    return _rows.permute_rows(
        cell,
        weights,
        codes,
        w.shape[0],
        strata,
        spec,
        pairs,
        n_permutations,
        key,
        stream,
        n_threads,
    )


# --------------------------------------------------------------------------------------
# Exact enumeration of the permutation distribution of two groups' cell counts
# --------------------------------------------------------------------------------------


def _hypergeom_window(good: int, bad: int, draws: int) -> tuple[int, int]:
    """Support range of Hypergeometric(good, bad, draws) holding all but 1e-20 of its mass.

    Hoeffding's bound for sampling without replacement, P(|X - EX| >= t) <=
    2 exp(-2 t^2 / m), holds with m the smallest of draws, good and their complements.
    """
    total = good + bad
    lo, hi = max(0, draws - bad), min(draws, good)
    m = min(draws, total - draws, good, bad)
    if m <= 0:
        return lo, hi
    mean = draws * good / total
    t = math.sqrt(m * math.log(2.0 / EXACT_NEGLECTED_MASS) / 2.0) + 1.0
    return max(lo, math.floor(mean - t)), min(hi, math.ceil(mean + t))


def _hypergeom_pmf(good: int, bad: int, draws: int, lo: int, hi: int) -> np.ndarray:
    """Hypergeometric pmf on lo..hi, normalized over that window.

    Built outward from the mode with the ratio p(x+1)/p(x) = (good-x)(draws-x) /
    ((x+1)(bad-draws+x+1)); the window holds all but 1e-20 of the mass, so normalizing over
    it is exact to rounding. Far faster than scipy.stats.hypergeom at large arguments.
    """
    mode = min(max((draws + 1) * (good + 1) // (good + bad + 2), lo), hi)
    x = np.arange(lo, hi, dtype=np.float64)  # ratio from x to x + 1, for x in lo..hi-1
    ratio = (good - x) * (draws - x) / ((x + 1) * (bad - draws + x + 1))
    right = np.cumprod(ratio[mode - lo :])
    left = np.cumprod(1.0 / ratio[: mode - lo][::-1])[::-1]
    weights = np.concatenate([left, [1.0], right])
    return weights / weights.sum()


def _log_comb(n, k):
    return special.gammaln(n + 1.0) - special.gammaln(k + 1.0) - special.gammaln(n - k + 1.0)


def _categories(stratum: int, masks) -> list[list[int]]:
    """Cells of a stratum grouped by membership in every mask (same role in the metric)."""
    groups: dict[tuple, list[int]] = {}
    for c in range(4):
        if stratum & (1 << c):
            groups.setdefault(tuple(bool(m & (1 << c)) for m in masks), []).append(c)
    return list(groups.values())


def _stratum_distribution(sizes, n_a):
    """Joint distribution of group A's counts over 1-3 categories (multivariate hypergeometric)."""
    if len(sizes) == 1:
        return [np.array([n_a])], np.ones(1)
    if len(sizes) == 2:
        lo, hi = _hypergeom_window(sizes[0], sizes[1], n_a)
        x = np.arange(lo, hi + 1)
        return [x, n_a - x], _hypergeom_pmf(sizes[0], sizes[1], n_a, lo, hi)
    if len(sizes) == 3:
        total = sum(sizes)
        lo1, hi1 = _hypergeom_window(sizes[0], total - sizes[0], n_a)
        lo2, hi2 = _hypergeom_window(sizes[1], total - sizes[1], n_a)
        if (hi1 - lo1 + 1) * (hi2 - lo2 + 1) > MAX_EXACT_POINTS:
            raise ExactInfeasibleError("exact enumeration needs too many support points")
        x1, x2 = (v.ravel() for v in np.meshgrid(np.arange(lo1, hi1 + 1), np.arange(lo2, hi2 + 1)))
        x3 = n_a - x1 - x2
        ok = (x3 >= 0) & (x3 <= sizes[2])
        x1, x2, x3 = x1[ok], x2[ok], x3[ok]
        log_p = _log_comb(sizes[0], x1) + _log_comb(sizes[1], x2) + _log_comb(sizes[2], x3)
        p = np.exp(log_p - log_p.max())
        return [x1, x2, x3], p / p.sum()  # the windows hold all but 2e-20 of the mass
    raise ExactInfeasibleError("exact enumeration over more than two free cell counts")


def _exact_null(counts, spec_metric: ConfusionMetric, spec, strata):
    """Support (statistics) and probabilities of the exact permutation distribution.

    The support is truncated to Hoeffding windows, each neglecting at most
    EXACT_NEGLECTED_MASS; callers add that bound to p-values so they stay conservative.
    """
    masks = spec_metric.num_masks + spec_metric.den_masks
    base = counts.astype(np.float64)
    grids, probs, assign = [], np.ones(1), []
    n_points = 1
    for stratum in strata:
        cats = _categories(stratum, masks)
        sizes = [int(counts[:, cat].sum()) for cat in cats]
        n_a = int(counts[0, [c for cat in cats for c in cat]].sum())
        xs, p = _stratum_distribution(sizes, n_a)
        n_points *= len(p)
        if n_points > MAX_EXACT_POINTS:
            raise ExactInfeasibleError("exact enumeration needs too many support points")
        grids.append((xs, sizes, cats))
        probs = np.outer(probs, p).ravel()
        assign.append(len(p))
    tables = np.repeat(base.reshape(1, 8), n_points, axis=0)
    index = np.indices(assign).reshape(len(assign), -1)
    for s, (xs, sizes, cats) in enumerate(grids):
        for x, size, cat in zip(xs, sizes, cats):
            tables[:, cat] = 0.0
            tables[:, [4 + c for c in cat]] = 0.0
            tables[:, cat[0]] = x[index[s]]
            tables[:, 4 + cat[0]] = size - x[index[s]]
    pair = np.array([[0, 1]], dtype=np.intp)
    values = _counts.metric_statistics(tables, tables, spec, pair)[:, 0]
    return values, probs


def _exact_pair(counts, spec_metric, spec, strata, observed, alternative, mid_p, want_null):
    """Exact p-value of one two-group comparison; (p, support or None, probs or None)."""
    separable = spec_metric.n_parts == 2 and set(strata) == set(spec_metric.den_masks)
    if not separable:
        values, probs = _exact_null(counts, spec_metric, spec, strata)
        p = exact_pvalue(values, probs, observed, alternative, mid_p)
        p = min(1.0, p + 2 * len(strata) * EXACT_NEGLECTED_MASS)  # mass outside the windows
        return p, (values if want_null else None), (probs if want_null else None)
    # Equalized odds within outcome: T = T_tpr^2 + T_fpr^2 with independent parts, so
    # P(T >= t) = sum_x P(X = x) P(Y >= t - x): two 1-D distributions and a sorted tail sum.
    parts = []
    for part in range(2):
        sub = ConfusionMetric(
            spec_metric.part_names[part],
            (spec_metric.num_masks[part],),
            (spec_metric.den_masks[part],),
            (spec_metric.part_names[part],),
            (spec_metric.den_description[part],),
        )
        sub_spec = sub.spec(spec[2], spec[3])
        v, pr = _exact_null(counts, sub, sub_spec, (spec_metric.den_masks[part],))
        parts.append((v * v, pr))
    (v1, p1), (v2, p2) = parts
    order = np.argsort(v2, kind="stable")
    v2s, tail = v2[order], np.append(np.cumsum(p2[order][::-1])[::-1], 0.0)
    tol = 1e-12 * max(abs(observed), 1.0)
    lo = np.searchsorted(v2s, observed - v1 - tol, side="left")
    p = float(np.dot(p1, tail[lo]))
    if mid_p:
        hi = np.searchsorted(v2s, observed - v1 + tol, side="right")
        p -= 0.5 * float(np.dot(p1, tail[lo] - tail[hi]))
    support = probs = None
    if want_null and len(v1) * len(v2) <= MAX_EXACT_POINTS:
        support = np.add.outer(v1, v2).ravel()
        probs = np.outer(p1, p2).ravel()
    p += 4 * EXACT_NEGLECTED_MASS  # mass outside the windows
    return min(1.0, max(0.0, p)), support, probs
