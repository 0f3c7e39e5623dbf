"""The public functions: ingest -> statistics -> inference (permutation tests of confusion-
matrix metrics)."""

from __future__ import annotations

import dataclasses
import inspect
from collections.abc import Callable, Mapping
from typing import TYPE_CHECKING, Any

import numpy as np

from fastfair import _counts, resampling
from fastfair._confusion import check_counts, coerce_rows
from fastfair._exact import EXACT_NEGLECTED_MASS as EXACT_NEGLECTED_MASS
from fastfair._exact import MAX_EXACT_POINTS as MAX_EXACT_POINTS
from fastfair._metrics import cell_index
from fastfair._parallel import effective_n_threads, threads_for
from fastfair._permutation_result import PermutationTestResult
from fastfair._sequential import Sequential, keep_samplers, samplers_of
from fastfair.permutation.inference import _test_cells
from fastfair.permutation.ingest import _check_options

if TYPE_CHECKING:
    from collections.abc import Hashable

    import pandas
    from numpy.typing import ArrayLike


def permutation_test(
    y_true: ArrayLike | str,
    y_pred: ArrayLike | str,
    group: ArrayLike | str,
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
    reference: Hashable | None = None,
    comparisons: str = "reference",
    adjust: str = "holm",
    sample_weight: ArrayLike | str | None = None,
    pos_label: Hashable | None = None,
    data: Mapping[str, Any] | pandas.DataFrame | None = None,
    return_null: bool = False,
    random_state: int | np.random.Generator | np.random.SeedSequence | None = None,
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
        :func:`fastfair.resampling.permutation_test_rows` (Algorithm 1): `studentize` may then
        also be ``"bootstrap"``, ``"bootstrap-fast"`` or ``"welch"``; see there.

    Returns
    -------
    PermutationTestResult

    Notes
    -----
    Degenerate statistics never give NaN: a permuted sample in which a group's denominator
    is empty has statistic 0; a zero difference has statistic 0; a non-zero difference with
    zero estimated variance (unpooled, both rates 0 or 1) is studentized with rates shrunk
    by half a pseudo-observation, :math:`\tilde M = (M\,\text{den} + 1/2)/(\text{den} + 1)`,
    and variance :math:`\sum \tilde M (1 - \tilde M)/(\text{den} + 1)`. Observed
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
    arguments = dict(locals())
    if callable(metric) or isinstance(studentize, str) or resampling.is_row_metric(metric):
        if variance != "pooled" or mid_p or pos_label is not None:
            raise ValueError(
                "variance, mid_p and pos_label apply to confusion-matrix metrics only, "
                f"not to metric={getattr(metric, '__name__', metric)!r}"
            )
        return _call_with(resampling.permutation_test_rows, arguments)
    y, yhat, weights, codes, labels, exponent = coerce_rows(
        y_true, y_pred, group, sample_weight, pos_label, data
    )
    options = _check_options(arguments)
    cell = cell_index(y, yhat)
    n_threads = effective_n_threads(n_jobs)
    count_threads = threads_for(n_jobs, len(cell), 1_000_000)
    w, w2 = _counts.cell_sums(cell, codes, len(labels), weights, count_threads)
    rows = None if weights is None else (cell, weights, codes)
    result = _test_cells(w, w2, labels, rows, options, n_threads)
    if exponent:  # weighted denominators in the user's units (weights were rescaled)
        result = keep_samplers(
            dataclasses.replace(
                result, group_denominators=np.ldexp(result.group_denominators, exponent)
            ),
            samplers_of(result),
        )
    return result


def permutation_test_from_counts(
    counts: ArrayLike,
    groups: ArrayLike | None = None,
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
    reference: Hashable | None = None,
    comparisons: str = "reference",
    adjust: str = "holm",
    return_null: bool = False,
    random_state: int | np.random.Generator | np.random.SeedSequence | None = None,
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
    metric, scheme, studentize, variance, method, n_permutations, sequential, alternative
        As in :func:`permutation_test`.
    mid_p, reference, comparisons, adjust, return_null, random_state, n_jobs
        As in :func:`permutation_test` (`reference` defaults to the group with most rows).
    confidence_level : float, default 0.95
        Level of `confidence_interval`.

    Returns
    -------
    PermutationTestResult
        As :func:`permutation_test` returns it.

    Examples
    --------
    >>> import fastfair
    >>> counts = [[500, 40, 30, 170], [450, 60, 55, 120]]  # TN, FP, FN, TP per group
    >>> res = fastfair.permutation_test_from_counts(counts, ["a", "b"], metric="fnr")
    >>> res.comparisons, round(res.pvalue, 4)
    ([('b', 'a')], 0.0002)
    """
    arguments = dict(locals())
    w, labels = check_counts(counts, groups)
    options = _check_options(arguments)
    return _test_cells(w, w.copy(), labels, None, options, effective_n_threads(n_jobs))


def _call_with(function: Callable, arguments: Mapping[str, Any]):
    """`function` called with the arguments of the same names: the tests of another family
    that take a subset of this function's arguments (one list of them, the signature)."""
    names = inspect.signature(function).parameters
    return function(**{name: arguments[name] for name in names})


def confusion_counts(
    y_true: ArrayLike | str,
    y_pred: ArrayLike | str,
    group: ArrayLike | str,
    *,
    sample_weight: ArrayLike | str | None = None,
    pos_label: Hashable | None = None,
    data: Mapping[str, Any] | pandas.DataFrame | None = None,
) -> tuple[np.ndarray, np.ndarray]:
    """Per-group confusion-matrix cell sums: the sufficient statistics of every rate.

    Parameters
    ----------
    y_true, y_pred : array-like of shape (n,)
        Binary outcomes and predictions (or column names of `data`).
    group : array-like of shape (n,)
        Group of each row (or a column name of `data`).
    sample_weight : array-like of shape (n,), optional
        Non-negative weight of each row.
    pos_label : optional
        Positive value of `y_true` and `y_pred` when they are not bool or 0/1.
    data : pandas.DataFrame or mapping, optional
        Source of column names.

    Returns
    -------
    counts : ndarray of shape (n_groups, 4)
        Cell sums per group in the order TN, FP, FN, TP (sums of `sample_weight` when
        given).
    groups : ndarray of shape (n_groups,)
        The sorted group labels.

    Examples
    --------
    >>> import fastfair
    >>> y_true, y_pred, group = [1, 0, 1, 1], [1, 0, 0, 1], ["a", "a", "b", "b"]
    >>> counts, groups = fastfair.confusion_counts(y_true, y_pred, group)
    >>> counts.tolist(), groups.tolist()
    ([[1.0, 0.0, 0.0, 1.0], [0.0, 0.0, 1.0, 1.0]], ['a', 'b'])
    """
    y, yhat, weights, codes, labels, exponent = coerce_rows(
        y_true, y_pred, group, sample_weight, pos_label, data, min_groups=1
    )
    w, _ = _counts.cell_sums(cell_index(y, yhat), codes, len(labels), weights)
    with np.errstate(over="ignore"):
        counts = np.ldexp(w, exponent) if exponent else w
    if not np.isfinite(counts).all():  # the weights were rescaled: only the sums overflow
        raise ValueError(
            "the weighted counts exceed float64 (sample_weight sums beyond 1.8e308): divide "
            "sample_weight by a power of ten (the tests do not change)"
        )
    return counts, labels
