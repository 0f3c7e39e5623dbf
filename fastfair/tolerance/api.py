"""The public functions: ingest -> statistics -> inference (tolerance and equivalence
tests)."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from fastfair.tolerance.inference import _equivalence, _tolerance
from fastfair.tolerance.results import EquivalenceTestResult, ToleranceTestResult
from fastfair.tolerance.statistics import _gap_from_counts, _gap_from_rows

if TYPE_CHECKING:
    from collections.abc import Callable, Hashable, Mapping

    import numpy as np
    import pandas
    from numpy.typing import ArrayLike


def tolerance_test(
    y_true: ArrayLike | str,
    y_pred: ArrayLike | str,
    group: ArrayLike | str,
    *,
    metric: str | Callable[..., float] = "tpr",
    u_tol: float = 0.0,
    alternative: str = "two-sided",
    method: str = "auto",
    reference: Hashable | None = None,
    comparisons: str = "reference",
    adjust: str = "holm",
    confidence_level: float = 0.95,
    sample_weight: ArrayLike | str | None = None,
    pos_label: Hashable | None = None,
    data: Mapping[str, Any] | pandas.DataFrame | None = None,
    n_bootstrap: int = 1000,
    random_state: int | np.random.Generator | np.random.SeedSequence | None = None,
    vectorized: bool = False,
    n_jobs: int | None = None,
) -> ToleranceTestResult:
    r"""Test whether a fairness gap exceeds a tolerance: :math:`H_0: U \le u_{tol}`.

    :math:`U` is the metric of a group minus that of the reference group. The statistic is
    :math:`Z = (\hat U - d)/\text{SE}(d)` at the boundary of the null, referred to N(0, 1):

    * rate metrics (``method="score"``): Miettinen & Nurminen (1985),
      :math:`\text{SE}(d)^2 = \tfrac{N}{N-1}\big(\tilde p_A(1-\tilde p_A)/n_A +
      \tilde p_B(1-\tilde p_B)/n_B\big)` with the rates :math:`\tilde p` fitted by maximum
      likelihood under :math:`U = d`, n the denominators (e.g. positives for TPR) and
      N their sum. ``"farrington-manning"`` omits :math:`N/(N-1)`; ``"wald"`` is the
      plug-in variance of the sample-size paper's eq. 1 (liberal with small groups or rates
      near 0 or 1; kept for comparison). Weighted rates use Kish effective sizes.
      ``"exact"``: Chan's (1998) exact unconditional test, the p-value
      :math:`\sup_{p_B} P(Z(d) \ge z_{obs})` over the boundary :math:`p_A - p_B = d`
      (a sum of binomial tails, :math:`O(n_A + n_B)` per nuisance value, as the rejection
      region is monotone, windowed around the modes above 5,000 rows;
      :math:`n_A + n_B \le 10^6`; its interval inverts it and costs about 40 p-values).
      ``"auto"``: exact where a group has fewer than 20 events or non-events, or fewer
      than 50 and one denominator is at least 20 times the other, and
      :math:`n_A + n_B \le 200{,}000` or the smaller group has at most 500 rows (whatever
      the reference's size); score elsewhere;
    * ``metric="auc"`` (`y_pred` are scores): ``"hybrid"`` (default) combines each group's
      interval by MOVER, :math:`L = \hat U - \sqrt{(A_A - l_A)^2 + (u_B - A_B)^2}`, z*
      solving L = d, with each group's (l, u) the ``"logit-t"`` interval
      :math:`\text{expit}(\text{logit} A \pm q\,\text{SE}/(A(1-A)))` (q the Student t
      quantile with :math:`\min(n_+, n_-) - 1` degrees of freedom at the level
      :math:`\Phi(z)`; ``"logit"``: q = z), widened for a group with fewer than 100
      positives or negatives to its union with Newcombe's (2006, Method 5) score-type
      interval :math:`\{\theta: (A - \theta)^2 \le z^2 V(\theta)\}`, V the Hanley-McNeil
      variance at :math:`\theta` with :math:`N^* = (n_+ + n_-)/2 - 1`. The second keeps its
      width where the DeLong variance collapses (an AUC near 1 with few positives or
      negatives); ``"logit-t"`` and ``"logit"`` use the first alone,
      ``"delong"`` :math:`Z = (\hat U - d)/\text{SE}_{DeLong}`;
    * a callable or row metric: the SD of `n_bootstrap` bootstrap differences
      (``"bootstrap"``), or for row metrics by default Welch's standard error.

    With ``u_tol=0`` and ``alternative="two-sided"`` this is an asymptotic test of equal
    metrics; the permutation tests of :func:`fastfair.permutation_test` are exact there.

    Parameters
    ----------
    y_true, y_pred, group
        As in :func:`fastfair.permutation_test` (scores for ``metric="auc"``).
    metric : str or callable
        A rate metric of :func:`fastfair.permutation_test` (not ``"equalized_odds"``: test
        ``"tpr"`` and ``"fpr"``), ``"auc"``, a row metric or a callable.
    u_tol : float
        Tolerated gap (>= 0).
    alternative : {"two-sided", "greater", "less"}
        ``"two-sided"``: :math:`H_1: |U| > u_{tol}` (p-value twice the smaller one-sided
        one; the upper half of a two-sided test, the planner's ``"two-sided"`` convention);
        ``"greater"``: :math:`H_1: U > u_{tol}`; ``"less"``: :math:`H_1: U < -u_{tol}`.
    method : str
        One of "auto", "score", "exact", "farrington-manning", "wald" (rates), "hybrid",
        "logit-t", "logit", "delong" (AUC), "bootstrap", "welch" (generic metrics).
        ``"auto"``: score or exact for rates (see above), "hybrid" for AUC, Welch for row
        metrics, bootstrap for callables.
    reference, comparisons
        As in :func:`fastfair.permutation_test`: every group against the reference (the
        group with the most rows by default, weighted or not), or all pairs.
    adjust : {"holm", "bonferroni", "none"}
        Family-wise adjustment with more than one comparison.
    confidence_level : float
        Level of the two-sided `confidence_interval` (the inverted score test).
    sample_weight, pos_label, data
        As in :func:`fastfair.permutation_test`.
    n_bootstrap, random_state, vectorized
        Bootstrap of a callable metric.
    n_jobs : int, optional
        Threads of the exact test's tail sums and of the bootstrap (None: all cores; small
        problems run on one). The result is identical for any `n_jobs`.

    Returns
    -------
    ToleranceTestResult

    Notes
    -----
    The level at the boundary :math:`U = u_{tol}` was computed exactly over denominators
    10-1000 and rates 0.01-0.99 (``validation/results/tolerance_level.txt``, docs
    "tolerance"): one-sided level 0.047 on average for the score test (at most 0.060 with
    300 or more rows in both denominators, 0.052 with 1000), but up to 0.12 with 10-100 rows
    and a handful of events; the Wald test reaches 0.90 on the same grid. The exact test's
    level is at most alpha everywhere (by construction, and on that grid); "auto"'s at most
    0.054, and at most 0.056 for 30-2,000 rows against references of 1,000-100,000
    (``tolerance_large_reference.txt``). AUC (``validation/results/auc_margin_small.txt``,
    ``auc_margin_small_exponential.txt``): "hybrid" held the level in every setting, with
    binormal and with skewed (exponential) scores, down to 30 rows at a prevalence of 0.2;
    it is conservative for AUCs near 1 (power twin in the same files). "logit-t" reached
    0.073 with 25 per class (binormal) and 0.15 (exponential); below AUC_WARN_BELOW
    positives or negatives in a group (5 for "hybrid", 100 for the others) the functions
    warn (:class:`ApproximateLevelWarning`).

    Examples
    --------
    >>> import fastfair
    >>> counts = [[500, 40, 30, 170], [450, 60, 55, 120]]  # TN, FP, FN, TP per group
    >>> res = fastfair.tolerance_test_from_counts(counts, ["a", "b"], metric="tpr",
    ...                                           u_tol=0.02)
    >>> res.comparisons, round(res.difference, 3), round(res.pvalue, 4)
    ([('b', 'a')], -0.164, 0.0009)
    """
    gap = _gap_from_rows(
        y_true, y_pred, group, metric, method, reference, comparisons, sample_weight, pos_label,
        data, n_bootstrap, random_state, vectorized, n_jobs,
    )  # fmt: skip
    return _tolerance(gap, u_tol, alternative, adjust, confidence_level)


def tolerance_test_from_counts(
    counts: ArrayLike,
    groups: ArrayLike | None = None,
    *,
    metric: str = "tpr",
    u_tol: float = 0.0,
    alternative: str = "two-sided",
    method: str = "auto",
    reference: Hashable | None = None,
    comparisons: str = "reference",
    adjust: str = "holm",
    confidence_level: float = 0.95,
    n_jobs: int | None = None,
) -> ToleranceTestResult:
    """:func:`tolerance_test` of a rate metric on confusion-matrix counts (TN, FP, FN, TP).

    Parameters
    ----------
    counts : array-like of shape (n_groups, 4)
        Counts per group in the order TN, FP, FN, TP.
    groups : array-like of shape (n_groups,), optional
        Group labels (default 0..n_groups-1).
    metric : str
        A rate metric (e.g. ``"tpr"``, ``"fpr"``, ``"selection_rate"``).
    u_tol, alternative, reference, comparisons, adjust, confidence_level, n_jobs
        As in :func:`tolerance_test`.
    method : {"auto", "score", "exact", "farrington-manning", "wald"}
        As in :func:`tolerance_test` for rate metrics.

    Returns
    -------
    ToleranceTestResult
        As :func:`tolerance_test` returns it.

    Examples
    --------
    >>> import fastfair
    >>> res = fastfair.tolerance_test_from_counts([[500, 40, 30, 170], [450, 60, 55, 120]],
    ...                                           metric="fpr", u_tol=0.01)
    >>> round(res.difference, 4), round(res.pvalue, 3)
    (0.0436, 0.063)
    """
    gap = _gap_from_counts(counts, groups, metric, method, reference, comparisons, n_jobs)
    return _tolerance(gap, u_tol, alternative, adjust, confidence_level)


def equivalence_test(
    y_true: ArrayLike | str,
    y_pred: ArrayLike | str,
    group: ArrayLike | str,
    *,
    metric: str | Callable[..., float] = "tpr",
    delta: float,
    alpha: float = 0.05,
    method: str = "auto",
    reference: Hashable | None = None,
    comparisons: str = "reference",
    adjust: str = "holm",
    sample_weight: ArrayLike | str | None = None,
    pos_label: Hashable | None = None,
    data: Mapping[str, Any] | pandas.DataFrame | None = None,
    n_bootstrap: int = 1000,
    random_state: int | np.random.Generator | np.random.SeedSequence | None = None,
    vectorized: bool = False,
    n_jobs: int | None = None,
) -> EquivalenceTestResult:
    r"""Test whether a fairness gap is within a margin: :math:`H_1: |U| < \delta`.

    Two one-sided tests (TOST) with the statistic of :func:`tolerance_test`: equivalence is
    shown at level `alpha` when :math:`H_0: U \le -\delta` and :math:`H_0: U \ge \delta`
    are both rejected at level alpha, i.e. when the :math:`1 - 2\alpha` interval of U lies
    inside :math:`(-\delta, \delta)`. The p-value is the larger one-sided p-value.

    A large p-value of a difference test ("no evidence of a gap") is not evidence of
    fairness: a small audit fails to find any gap. An equivalence test puts the burden the
    other way: only an audit precise enough to rule out gaps of size delta shows fairness.

    Parameters
    ----------
    delta : float
        Equivalence margin (> 0), in the metric's units.
    alpha : float
        Level of the test (the interval has level 1 - 2 alpha).
    adjust : {"holm", "bonferroni", "none"}
        Adjustment over comparisons with more than two groups; `equivalent` uses the
        adjusted p-values.
    y_true, y_pred, group, metric, method, reference, comparisons
        As in :func:`tolerance_test`.
    sample_weight, pos_label, data, n_bootstrap, random_state, vectorized, n_jobs
        As in :func:`tolerance_test`.

    Returns
    -------
    EquivalenceTestResult
        The TOST p-value, the 1 - 2 alpha interval and the decision `equivalent`.

    Examples
    --------
    >>> import fastfair
    >>> counts = [[5000, 400, 300, 1700], [4500, 420, 320, 1650]]
    >>> res = fastfair.equivalence_test_from_counts(counts, metric="tpr", delta=0.04)
    >>> res.equivalent, [round(v, 4) for v in res.equivalence_interval]
    (True, [-0.0314, 0.0065])
    """
    gap = _gap_from_rows(
        y_true, y_pred, group, metric, method, reference, comparisons, sample_weight, pos_label,
        data, n_bootstrap, random_state, vectorized, n_jobs,
    )  # fmt: skip
    return _equivalence(gap, delta, alpha, adjust)


def equivalence_test_from_counts(
    counts: ArrayLike,
    groups: ArrayLike | None = None,
    *,
    metric: str = "tpr",
    delta: float,
    alpha: float = 0.05,
    method: str = "auto",
    reference: Hashable | None = None,
    comparisons: str = "reference",
    adjust: str = "holm",
    n_jobs: int | None = None,
) -> EquivalenceTestResult:
    """:func:`equivalence_test` of a rate metric on confusion-matrix counts (TN, FP, FN, TP).

    Parameters
    ----------
    counts, groups, metric, method, reference, comparisons, adjust, n_jobs
        As in :func:`tolerance_test_from_counts`.
    delta, alpha
        As in :func:`equivalence_test`.

    Returns
    -------
    EquivalenceTestResult
        As :func:`equivalence_test` returns it.

    Examples
    --------
    >>> import fastfair
    >>> res = fastfair.equivalence_test_from_counts([[50, 4, 3, 17], [45, 4, 3, 16]],
    ...                                             metric="tpr", delta=0.03)
    >>> res.equivalent  # the same rates, but 20 positives per group cannot show it
    False
    """
    gap = _gap_from_counts(counts, groups, metric, method, reference, comparisons, n_jobs)
    return _equivalence(gap, delta, alpha, adjust)
