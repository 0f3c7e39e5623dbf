"""The public functions: ingest -> statistics -> inference (paired model comparisons)."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

import numpy as np

from fastfair._pvalues import asymptotic_pvalue
from fastfair.compare.inference import auc_comparison, rate_comparison
from fastfair.compare.ingest import (
    AUC_METHODS,
    RATE_METHODS,
    _binary_columns,
    _check_counts,
    _check_options,
    _rate_metric,
    _score_columns,
)
from fastfair.compare.results import ModelComparisonResult, PairedDeLongResult
from fastfair.compare.statistics import count_rows, paired_auc_moments

if TYPE_CHECKING:
    from collections.abc import Hashable, Mapping

    import pandas
    from numpy.typing import ArrayLike

_SHARED_PARAMETERS = """
    delta : float, optional
        Non-inferiority margin (>= 0): also test "the size of model B's gap exceeds model
        A's by less than delta" (`pvalue_noninferior`, asymptotic).
    reference, comparisons
        As in :func:`fastfair.permutation_test`: each group against `reference` (default:
        the group with the most rows), or all pairs.
    adjust : {"holm", "bonferroni", "bh", "none"}
        Adjustment of the two-sided p-values over several comparisons.
    confidence_level : float
        Level of the intervals of each difference and each group's change.
    return_null, random_state, n_jobs
        As in :func:`fastfair.permutation_test`; the permutations do not depend on `n_jobs`.
"""


def compare_models(
    y_true: ArrayLike | str,
    y_pred_a: ArrayLike | str,
    y_pred_b: ArrayLike | str,
    group: ArrayLike | str,
    *,
    metric: str = "tpr",
    method: str = "auto",
    delta: float | None = None,
    reference: Hashable | None = None,
    comparisons: str = "reference",
    adjust: str = "holm",
    confidence_level: float = 0.95,
    n_permutations: int = 9999,
    pos_label: Hashable | None = None,
    data: Mapping[str, Any] | pandas.DataFrame | None = None,
    return_null: bool = False,
    random_state: int | np.random.Generator | np.random.SeedSequence | None = None,
    n_jobs: int | None = None,
) -> ModelComparisonResult:
    r"""Did model B change the fairness gap of model A? A paired test on the same rows.

    Both models predict the same rows, so their gaps are correlated and must be compared
    pairwise: testing each model on its own and comparing p-values answers another
    question, and an unpaired comparison of the two gaps loses most of the power. A
    model's gap in a comparison is its metric in the group minus in the reference (as
    every fastfair `difference`); the change ``difference = gap_b - gap_a`` is tested
    three ways: H0: equal gaps (`pvalue`, two-sided), "B's gap is smaller in size",
    :math:`|gap_b| < |gap_a|` (`pvalue_reduced`) and, with `delta`, non-inferiority,
    :math:`|gap_b| < |gap_a| + \delta` (`pvalue_noninferior`). Each group's paired change
    of the metric is reported too.

    The test swaps the two models' predictions within rows (McNemar's idea, per group):
    under H0 that the two predictions of each row are exchangeable, the swap distribution
    is exact; the statistic is the change studentized by its paired variance, so that the
    test is also asymptotically valid when only the gaps are equal (docs/compare.md).

    Parameters
    ----------
    y_true : array-like of shape (n,)
        Binary labels, or a column name of `data`.
    y_pred_a, y_pred_b : array-like of shape (n,)
        Binary predictions of the two models on the same rows (model A: the old one).
    group : array-like of shape (n,)
        Group membership (at least two groups).
    metric : str
        ``"tpr"``, ``"fnr"``, ``"fpr"``, ``"tnr"``, ``"ppv"``, ``"fdr"``, ``"npv"``,
        ``"for"``, ``"selection_rate"``, ``"accuracy"``, ``"error_rate"`` or
        ``"equalized_odds"`` (tpr and fpr, tested jointly) and their aliases.
    method : {"auto", "exact", "permutation", "asymptotic"}
        ``"exact"``: the swap distribution enumerated (one binomial per group and label);
        ``"permutation"``: `n_permutations` random swaps drawn from the counts;
        ``"asymptotic"``: the studentized change referred to N(0, 1) (chi-square with 2
        degrees of freedom for equalized odds). ``"auto"`` (default): the swap test (exact
        when every comparison has at most `EXACT_MAX_TABLES` swap tables, else Monte
        Carlo), each p-value raised to the asymptotic test's where that is larger.
    n_permutations : int
        Random swaps of ``method="permutation"``.
    pos_label, data
        As in :func:`fastfair.permutation_test`.
    {shared}

    Returns
    -------
    ModelComparisonResult

    Raises
    ------
    ValueError
        Columns of different lengths or pandas indexes with different labels, a prediction
        that is not binary, two models with the same predictions on every row the metric
        reads (the change is 0 by construction), or a compared group whose metric is
        undefined under a model (e.g. no predicted positives for ppv).

    Notes
    -----
    Why the default takes the larger of two p-values: the swap test is exact when the two
    predictions of each row are exchangeable (B's changes go either way), at any sample
    size, and costs milliseconds from the counts (one binomial draw per group and label);
    the asymptotic test is valid when only the gaps are equal, which the studentized swap
    test also is in large samples but not when a group has few discordant rows (a group
    whose predictions did not change contributes nothing to the swap distribution, while
    its sampling error still counts). The larger p-value is valid under either null, and
    the two agree where both apply (validation/results/compare_level.txt).

    :math:`|gap_b| < |gap_a|` holds when B moves the gap towards 0 (a test of the change,
    paired, by `method`) and not beyond :math:`-gap_a` (a z-test of
    :math:`gap_a + gap_b`, whose variance adds the covariance: a swap leaves that sum
    unchanged, so it has no permutation test); `pvalue_reduced` is the larger p-value of
    the two (intersection-union test), oriented by the sign of model A's observed gap.
    Intervals are MOVER intervals (Newcombe's method 10): each model's rate with its
    Clopper-Pearson (below 50 events) or Wilson limits, the two models' rates in a group
    correlated by their paired covariance, groups added in squares (the Wald interval
    under-covered for small groups, validation/results/compare_interval_coverage.txt);
    the non-inferiority p-value is asymptotic (a swap makes the two gaps equal in
    distribution, it cannot make them delta apart).

    Examples
    --------
    >>> import numpy as np
    >>> from fastfair import compare_models
    >>> rng = np.random.default_rng(0)
    >>> group = rng.integers(0, 2, 4000)
    >>> y_true = rng.random(4000) < 0.4
    >>> score = rng.random(4000) + 0.3 * y_true - 0.15 * group
    >>> old, new = score > 0.6, score + 0.1 * group > 0.6
    >>> res = compare_models(y_true, old, new, group, metric="tpr", random_state=0)
    >>> round(res.gap_a, 3), round(res.gap_b, 3), res.method
    (0.126, 0.025, 'exact, asymptotic')
    >>> round(res.pvalue, 6), round(res.pvalue_reduced, 4)
    (0.0, 0.0007)
    """
    arguments = dict(locals())
    options = _check_options(arguments, RATE_METHODS)
    spec = _rate_metric(metric)
    y, a, b, codes, labels = _binary_columns(data, y_true, y_pred_a, y_pred_b, group, pos_label)
    counts = count_rows(y, a, b, codes, len(labels), n_jobs)
    return rate_comparison(counts, labels, spec, options)


def compare_models_from_counts(
    counts: ArrayLike,
    groups: ArrayLike | None = None,
    *,
    metric: str = "tpr",
    method: str = "auto",
    delta: float | None = None,
    reference: Hashable | None = None,
    comparisons: str = "reference",
    adjust: str = "holm",
    confidence_level: float = 0.95,
    n_permutations: int = 9999,
    return_null: bool = False,
    random_state: int | np.random.Generator | np.random.SeedSequence | None = None,
    n_jobs: int | None = None,
) -> ModelComparisonResult:
    """:func:`compare_models` from paired cell counts (e.g. summed over batches).

    Parameters
    ----------
    counts : array-like of shape (n_groups, 8)
        ``counts[k, 4 * y + 2 * a + b]``: rows of group k with label y, model A's
        prediction a and model B's prediction b (:class:`fastfair.compare.PairedStats`).
    groups : array-like of shape (n_groups,), optional
        Group labels (default 0..n_groups-1).
    metric, method, n_permutations
        As in :func:`compare_models`.
    {shared}

    Returns
    -------
    ModelComparisonResult
        The same as :func:`compare_models` on the rows.

    Examples
    --------
    >>> from fastfair import compare_models_from_counts
    >>> # cells (y, a, b): 000 001 010 011 100 101 110 111
    >>> counts = [[50, 2, 3, 5, 4, 10, 2, 30],
    ...           [60, 3, 2, 6, 10, 3, 4, 40]]
    >>> res = compare_models_from_counts(counts, ["x", "y"], metric="tpr")
    >>> round(res.gap_a, 3), round(res.gap_b, 3), res.method  # B overshoots
    (-0.076, 0.115, 'exact, asymptotic')
    >>> round(res.pvalue, 4), round(res.pvalue_reduced, 4)
    (0.0297, 0.6101)
    """
    arguments = dict(locals())
    options = _check_options(arguments, RATE_METHODS)
    spec = _rate_metric(metric)
    table, labels = _check_counts(counts, groups)
    return rate_comparison(table, labels, spec, options)


def compare_auc(
    y_true: ArrayLike | str,
    y_score_a: ArrayLike | str,
    y_score_b: ArrayLike | str,
    group: ArrayLike | str,
    *,
    method: str = "auto",
    delta: float | None = None,
    reference: Hashable | None = None,
    comparisons: str = "reference",
    adjust: str = "holm",
    confidence_level: float = 0.95,
    n_permutations: int = 999,
    pos_label: Hashable | None = None,
    data: Mapping[str, Any] | pandas.DataFrame | None = None,
    return_null: bool = False,
    random_state: int | np.random.Generator | np.random.SeedSequence | None = None,
    n_jobs: int | None = None,
) -> ModelComparisonResult:
    r"""Did model B change the gap in AUC between groups? Paired DeLong on the same rows.

    Each group's two AUCs (Mann-Whitney) have DeLong variances and a DeLong covariance from
    the placements of the same rows (:func:`paired_delong`); the change of the AUC gap
    between two groups, ``gap_b - gap_a``, is studentized by its paired variance and tested
    as in :func:`compare_models`.

    Parameters
    ----------
    y_true : array-like of shape (n,)
        Binary labels, or a column name of `data`.
    y_score_a, y_score_b : array-like of shape (n,)
        The two models' scores on the same rows (finite).
    group : array-like of shape (n,)
        Group membership (at least two groups).
    method : {"auto", "permutation", "delong"}
        ``"delong"``: the studentized change referred to N(0, 1). ``"permutation"``: the
        two scores of each row swapped at random (`n_permutations`; the scores are sorted
        once, then one O(n) sweep per permutation). ``"auto"`` (default): ``"delong"`` when every
        compared group has at least 1,000 positives and 1,000 negatives (the rule of
        :func:`fastfair.auc_test`), else ``"permutation"``.
    n_permutations : int
        Random swaps of ``method="permutation"``.
    pos_label, data
        As in :func:`fastfair.auc_test`.
    {shared}

    Returns
    -------
    ModelComparisonResult

    Examples
    --------
    >>> import numpy as np
    >>> from fastfair import compare_auc
    >>> rng = np.random.default_rng(1)
    >>> group = rng.integers(0, 2, 3000)
    >>> y_true = rng.random(3000) < 0.3
    >>> noise = rng.normal(size=3000)
    >>> old = noise + y_true * (1.0 - 0.6 * group)
    >>> new = noise + y_true * (1.0 - 0.2 * group) + 0.3 * rng.normal(size=3000)
    >>> res = compare_auc(y_true, old, new, group, method="delong")
    >>> round(res.gap_a, 3), round(res.gap_b, 3), round(res.difference, 3)
    (0.088, -0.014, -0.102)
    >>> round(res.pvalue_reduced, 4)  # |gap| smaller, and not overshot beyond -gap_a?
    0.0315
    """
    arguments = dict(locals())
    options = _check_options(arguments, AUC_METHODS)
    y, a, b, codes, labels = _score_columns(data, y_true, y_score_a, y_score_b, group, pos_label)
    return auc_comparison(y, a, b, codes, labels, options)


def paired_delong(
    y_true: ArrayLike | str,
    y_score_a: ArrayLike | str,
    y_score_b: ArrayLike | str,
    group: ArrayLike | str | None = None,
    *,
    pos_label: Hashable | None = None,
    data: Mapping[str, Any] | pandas.DataFrame | None = None,
) -> PairedDeLongResult:
    r"""Paired DeLong test of two models' AUCs on the same rows, in each group.

    :math:`z = (\text{AUC}_B - \text{AUC}_A)/\sqrt{V_A + V_B - 2C}` with the DeLong
    variances of :func:`fastfair.delong` and the covariance
    :math:`C = S^{AB}_{10}/n^+ + S^{AB}_{01}/n^-` of the two models' placements of the
    same rows (DeLong, DeLong & Clarke-Pearson 1988): the statistic of pROC's
    ``roc.test(roc_b, roc_a, paired=TRUE, method="delong")`` (checked to 1e-12 by
    validation/paired_delong_proc.R).

    Parameters
    ----------
    y_true : array-like of shape (n,)
        Binary labels, or a column name of `data`.
    y_score_a, y_score_b : array-like of shape (n,)
        The two models' scores (finite).
    group : array-like of shape (n,), optional
        Group membership; None: all rows are one group.
    pos_label, data
        As in :func:`fastfair.delong`.

    Returns
    -------
    PairedDeLongResult

    Examples
    --------
    >>> from fastfair import paired_delong
    >>> res = paired_delong([0, 0, 1, 1, 0, 1, 0, 1], [0.1, 0.4, 0.35, 0.8, 0.2, 0.9, 0.5, 0.3],
    ...                     [0.2, 0.3, 0.5, 0.7, 0.1, 0.9, 0.4, 0.6])
    >>> res.auc_a.tolist(), res.auc_b.tolist()
    ([0.75], [1.0])
    """
    y, a, b, codes, labels = _score_columns(data, y_true, y_score_a, y_score_b, group,
                                            pos_label, min_groups=1)  # fmt: skip
    m = paired_auc_moments(y, a, b, codes, labels)
    var = m.variance_a + m.variance_b - 2.0 * m.covariance
    diff = m.value_b - m.value_a
    with np.errstate(divide="ignore", invalid="ignore"):
        z = np.where(var > 0, diff / np.sqrt(np.where(var > 0, var, 1.0)), 0.0)[:, 0]
    n_pos = np.bincount(codes, y, len(labels)).astype(np.int64)
    return PairedDeLongResult(
        groups=labels, auc_a=m.value_a[:, 0], auc_b=m.value_b[:, 0],
        variance_a=m.variance_a[:, 0], variance_b=m.variance_b[:, 0],
        covariance=m.covariance[:, 0], statistic=z,
        pvalue=np.asarray(asymptotic_pvalue(z, "two-sided")), n_pos=n_pos,
        n_neg=np.bincount(codes, minlength=len(labels)) - n_pos,
    )  # fmt: skip


for _function in (compare_models, compare_models_from_counts, compare_auc):
    _function.__doc__ = _function.__doc__.replace("{shared}", _SHARED_PARAMETERS.strip())
