"""The public functions: ingest -> statistics -> inference (AUC tests)."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

import numpy as np

from fastfair import _auc
from fastfair._comparisons import check_auc_defined
from fastfair._sequential import Sequential
from fastfair._validation import (
    as_binary,
    as_finite_float,
    as_groups,
    check_same_length,
    resolve_columns,
)
from fastfair.auc.inference import _auc_test, delong_z_test
from fastfair.auc.ingest import _MAX_GROUPS, _check_options
from fastfair.auc.results import AUCTestResult, DeLongResult
from fastfair.auc.statistics import _auc_statistics, _sort_rows, _Sorted

if TYPE_CHECKING:
    from collections.abc import Hashable, Mapping

    import pandas
    from numpy.typing import ArrayLike

# --------------------------------------------------------------------------------------
# delong: the low-level entry point
# --------------------------------------------------------------------------------------


def delong(
    y_true: ArrayLike | str,
    y_score: ArrayLike | str,
    group: ArrayLike | str | None = None,
    *,
    pos_label: Hashable | None = None,
    return_placements: bool = False,
    data: Mapping[str, Any] | pandas.DataFrame | None = None,
) -> DeLongResult:
    r"""AUC and DeLong variance of several groups at once, from one sort.

    For group g with positives :math:`i` and negatives :math:`j`,

    .. math:: \psi(a, b) = 1\{a > b\} + \tfrac12 1\{a = b\},\qquad
              V_{10,i} = \frac{1}{n_g^-}\sum_j \psi(s_i, s_j),\qquad
              V_{01,j} = \frac{1}{n_g^+}\sum_i \psi(s_i, s_j),

    :math:`\text{AUC}_g = \overline{V_{10}} = \overline{V_{01}}` (Mann-Whitney) and
    :math:`\text{Var}(\text{AUC}_g) = S_{10}/n_g^+ + S_{01}/n_g^-` with :math:`S_{10}, S_{01}`
    the sample variances (ddof=1) of the placements (DeLong, DeLong & Clarke-Pearson 1988;
    docs/auc.md, KDD 2020 Sec. 3.2). The pooled scores are sorted once and one linear
    sweep gives every group's placements (Sun & Xu 2014): O(n log n) in all.

    Parameters
    ----------
    y_true : array-like of shape (n,)
        Binary labels (bool, 0/1, or two values with `pos_label`), or a column name of `data`.
    y_score : array-like of shape (n,)
        Scores, higher meaning more likely positive (finite; NaN is an error).
    group : array-like of shape (n,), optional
        Group membership; None treats all rows as one group.
    pos_label : optional
        Positive label of `y_true` when it is not bool or 0/1.
    return_placements : bool
        Also return each row's placement (V10 for positives, V01 for negatives).
    data : pandas.DataFrame or mapping, optional
        When given, `y_true`, `y_score` and `group` may be column names.

    Returns
    -------
    DeLongResult

    Raises
    ------
    ValueError
        If a group has no positives or no negatives (its AUC is undefined), or scores are
        not finite.

    Examples
    --------
    >>> from fastfair.auc import delong
    >>> res = delong([0, 0, 1, 1, 0, 1], [0.1, 0.4, 0.35, 0.8, 0.2, 0.9],
    ...                       group=["a", "a", "a", "a", "b", "b"])
    >>> res.auc.tolist()
    [0.75, 1.0]
    >>> res.variance.round(4).tolist()
    [0.125, 0.0]
    """
    cols = resolve_columns(data, y_true=y_true, y_score=y_score, group=group)
    y = as_binary(cols["y_true"], "y_true", pos_label)
    score = as_finite_float(cols["y_score"], "y_score")
    if cols["group"] is None:
        check_same_length(y_true=y, y_score=score)
        codes, labels = np.zeros(len(y), dtype=np.intp), np.array([None], dtype=object)
    else:
        check_same_length(y_true=y, y_score=score, group=cols["group"])
        codes, labels = as_groups(cols["group"], "group", min_groups=1)
    if len(labels) > _MAX_GROUPS:
        raise ValueError(f"group has {len(labels)} groups; at most {_MAX_GROUPS} supported")
    order, codes8, y8 = _sort_rows(y, score, codes)
    srt = _Sorted.build(order, score, y8, codes8)
    tot, auc, var, s10, s01, place, _ = _auc.sweep_groups(
        srt.packed, srt.codes, srt.n_pos, len(labels), return_placements
    )
    check_auc_defined(tot, labels, range(len(labels)))
    placements = None
    if return_placements:
        placements = np.empty(len(y))
        placements[srt.order] = place
    return DeLongResult(
        groups=labels,
        auc=auc,
        variance=var,
        s10=s10,
        s01=s01,
        n_pos=tot[:, 1].copy(),
        n_neg=tot[:, 0].copy(),
        placements=placements,
    )


# --------------------------------------------------------------------------------------
# auc_test
# --------------------------------------------------------------------------------------


def auc_test(
    y_true: ArrayLike | str,
    y_score: ArrayLike | str,
    group: ArrayLike | str,
    *,
    method: str | None = None,
    scheme: str = "within_outcome",
    studentize: bool = True,
    n_permutations: int | None = None,
    sequential: Sequential | None = None,
    alternative: str = "two-sided",
    reference: Hashable | None = None,
    comparisons: str = "reference",
    adjust: str = "holm",
    confidence_level: float = 0.95,
    sample_weight: ArrayLike | str | None = None,
    pos_label: Hashable | None = None,
    data: Mapping[str, Any] | pandas.DataFrame | None = None,
    return_null: bool = False,
    random_state: int | np.random.Generator | np.random.SeedSequence | None = None,
    n_jobs: int | None = None,
) -> AUCTestResult:
    r"""Test whether the AUC of a score differs between groups.

    Each group's AUC is the Mann-Whitney statistic (ties count one half) with its DeLong
    variance (see :func:`delong`). For a compared pair the statistic is

    .. math:: T = \frac{\text{AUC}_A - \text{AUC}_B}{\sqrt{\widehat{\text{Var}}(\text{AUC}_A)
              + \widehat{\text{Var}}(\text{AUC}_B)}}

    (``studentize=True``) or the raw difference. KDD 2020 Sec. 3.2: the permutation
    distribution of the raw difference behaves as if both groups came from their mixture
    (Theorem 1), so with different prevalences or score distributions it does not
    approximate the sampling distribution under equal AUCs and the test is invalid; the
    studentized statistic is asymptotically N(0, 1) under both (Theorem 2), so its
    permutation test is asymptotically valid for equal AUCs and exact under the strong null.

    Parameters
    ----------
    y_true : array-like of shape (n,)
        Binary labels (bool, 0/1, or two values with `pos_label`), or a column name of `data`.
    y_score : array-like of shape (n,)
        Scores (finite), higher meaning more likely positive, or a column name of `data`.
    group : array-like of shape (n,)
        Group membership (at least two groups, at most 255), or a column name of `data`.
    method : {"permutation", "delong", "auto"}, optional
        ``"permutation"``: Monte-Carlo permutation test of the statistic.
        ``"delong"``: the asymptotic z-test, T referred to N(0, 1) (needs studentize=True).
        ``"auto"``: ``"delong"`` when the statistic is studentized and every compared group
        has at least `ASYMPTOTIC_MIN_CLASS` (1,000) positives and as many negatives, where
        simulation shows the z-test holds its level (docs/auc.md), else ``"permutation"``.
        None (default): ``"auto"`` for the default sequential test (`n_permutations` and
        `sequential` not given), ``"permutation"`` when either is given or with
        ``adjust="maxT"``. Near alpha the sequential permutation test needs many
        thousands of permutations to decide (with large groups, seconds to minutes), where
        the z-test, valid there, needs one sort. `method` in the result says which was used.
    scheme : {"within_outcome", "full"}
        Which rows exchange group labels. ``"within_outcome"`` (default): positives among
        themselves and negatives among themselves (paper Sec. 3.1), so every permuted group
        keeps its numbers of positives and negatives. It is exact when the groups have the
        same score distributions given the label (equal ROC curves, whatever the
        prevalences), a larger null than that of ``"full"``, which permutes all rows and is
        exact only when the groups' joint distributions of score and label are equal. Both
        are asymptotically valid for equal AUCs with the studentized statistic.
    studentize : bool
        Divide the difference by its DeLong standard error (default). ``False`` permutes
        the raw difference: not a valid test of equal AUCs (Theorem 1; kept to show the
        pitfall).
    n_permutations : int, optional
        Fixed number of random permutations (and of joint permutations for max-T). None
        (default): a sequential test (`sequential`), except with ``adjust="maxT"``, which
        draws 9,999 joint permutations.
    sequential : Sequential, optional
        Options of the sequential test used when `n_permutations` is None (default
        ``Sequential()``: alpha 0.05, resampling risk epsilon 1e-3): permutations are drawn
        in blocks only until the p-value's confidence sequence excludes alpha (with several
        comparisons: until the `adjust` procedure is decided, MMCTest); see the Notes.
    alternative : {"two-sided", "greater", "less"}
        ``"greater"``: the first group of a comparison has the larger AUC.
    reference, comparisons
        As in :func:`fastfair.permutation_test`: each group against `reference` (default:
        the group with the most rows), or all pairs.
    adjust : {"holm", "bonferroni", "maxT", "none"}
        Family-wise adjustment over comparisons when there are more than two groups. Raw
        p-values come from two-group tests on each pair's rows. ``"maxT"`` takes the
        distribution of the maximum statistic over joint permutations of all groups
        (`n_permutations`, needs ``method="permutation"``).
    confidence_level : float
        Level of the DeLong intervals of each AUC and each difference.
    sample_weight : None
        Not supported: weighted AUCs and their DeLong variances are not implemented.
        Passing weights raises ``ValueError``.
    pos_label, data
        As in :func:`delong`.
    return_null, random_state, n_jobs
        As in :func:`fastfair.permutation_test`.

    Returns
    -------
    AUCTestResult

    Notes
    -----
    Sequential testing (the default since 0.1: earlier releases ran 9,999 permutations
    whatever the data) stops after a few dozen permutations when the p-value is far above
    alpha and a few hundred when it is far below; the decision agrees with the one of the
    exact permutation p-value with probability at least 1 - epsilon (Ding, Gandy & Hahn
    2020; docs/sequential.md). The reported `pvalue` is (1 + S) / (1 + n) after n
    permutations with S exceedances, `pvalue_interval` a confidence-sequence interval.

    One permutation costs at most one O(n) sweep over the rows of the compared groups,
    sorted once; with a small group, about the cost of its rows (the tie blocks' or, for
    untied scores, the rows' ranks: docs/auc.md). Degenerate statistics never give NaN: a
    permuted group without positives or without negatives (possible with
    ``scheme="full"``) has statistic 0; a zero difference has statistic 0; a non-zero
    difference whose DeLong variance is 0 (e.g. constant scores against perfect
    separation) is studentized with the variance
    :math:`\sum_g A'_g(1-A'_g)/(n_g^+ n_g^-)`, with the AUC shrunk by half a pseudo-pair,
    :math:`A' = (A\,n^+n^- + 1/2)/(n^+n^- + 1)`. A group with a single positive (negative)
    contributes :math:`S_{10} = 0` (:math:`S_{01} = 0`). Observed data in which a compared
    group has no positives or no negatives raise ``ValueError``.

    Examples
    --------
    >>> import numpy as np
    >>> from fastfair.auc import auc_test
    >>> rng = np.random.default_rng(0)
    >>> group = rng.integers(0, 2, 4000)
    >>> y_true = rng.random(4000) < np.where(group == 1, 0.2, 0.5)
    >>> y_score = rng.normal(size=4000) + y_true * (1.0 - 0.3 * group)
    >>> res = auc_test(y_true, y_score, group, n_permutations=999, random_state=0)
    >>> res.group_auc.round(3).tolist(), round(res.difference, 3)
    ([0.764, 0.682], 0.082)
    >>> round(res.pvalue, 3)
    0.001
    """
    arguments = dict(locals())
    cols = resolve_columns(data, y_true=y_true, y_score=y_score, group=group)
    if sample_weight is not None:
        raise ValueError(
            "sample_weight is not supported by auc_test (weighted DeLong variances are not "
            "implemented); pass sample_weight=None"
        )
    y = as_binary(cols["y_true"], "y_true", pos_label)
    score = as_finite_float(cols["y_score"], "y_score")
    check_same_length(y_true=y, y_score=score, group=cols["group"])
    codes, labels = as_groups(cols["group"], "group")
    options = _check_options(arguments)
    if len(labels) > _MAX_GROUPS:
        raise ValueError(f"group has {len(labels)} groups; at most {_MAX_GROUPS} supported")
    statistics = _auc_statistics(
        y, score, codes, labels, options.reference, options.comparisons, options.studentize
    )
    return _auc_test(statistics, options)


def auc_test_from_delong(
    delong_result: DeLongResult,
    *,
    alternative: str = "two-sided",
    reference: Hashable | None = None,
    comparisons: str = "reference",
    adjust: str = "holm",
    confidence_level: float = 0.95,
) -> AUCTestResult:
    """The DeLong z-test of equal AUCs from the groups' AUCs and DeLong variances.

    The same test as ``auc_test(method="delong")`` on the rows, from a
    :class:`DeLongResult` however it was obtained: :func:`delong` on the rows, or
    ``ScoreStats.delong()`` of mergeable summaries (:mod:`fastfair.stats`, the arrow and
    dask engines).

    Parameters
    ----------
    delong_result : DeLongResult
        Each group's AUC, DeLong variance, positives and negatives.
    alternative : {"two-sided", "less", "greater"}
        Alternative hypothesis about each compared group's AUC minus the other's.
    reference : label, optional
        The group the others are compared with (default: the largest).
    comparisons : {"reference", "all"}
        Each group against the reference, or every pair.
    adjust : {"holm", "bonferroni", "none"}
        Adjustment of the p-values over the comparisons (with more than one).
    confidence_level : float
        Level of the Wald intervals of each AUC and each difference.

    Returns
    -------
    AUCTestResult

    Examples
    --------
    >>> import numpy as np, fastfair
    >>> from fastfair.auc import auc_test_from_delong
    >>> rng = np.random.default_rng(0)
    >>> y, g = rng.integers(0, 2, 600), rng.choice(["a", "b"], 600)
    >>> s = rng.normal(y + 0.3 * (g == "a"), 1.0)
    >>> res = auc_test_from_delong(fastfair.delong(y, s, g), reference="b")
    >>> bool(res.pvalue == fastfair.auc_test(y, s, g, reference="b", method="delong").pvalue)
    True
    """
    from fastfair._comparisons import comparison_pairs
    from fastfair._pvalues import ALTERNATIVES
    from fastfair._validation import check_choice, check_level

    confidence_level = check_level(confidence_level, "confidence_level")
    check_choice(alternative, "alternative", ALTERNATIVES)
    check_choice(adjust, "adjust", ("holm", "bonferroni", "none"))
    if not isinstance(delong_result, DeLongResult):
        raise TypeError(
            f"delong_result must be a DeLongResult, got {type(delong_result).__name__}"
        )
    sizes = delong_result.n_pos + delong_result.n_neg
    pairs = comparison_pairs(sizes, delong_result.groups, reference, comparisons)
    return delong_z_test(
        delong_result, pairs, alternative=alternative, adjust=adjust,
        confidence_level=confidence_level,
    )  # fmt: skip
