"""threshold_sweep, the public function: ingest -> statistics -> inference."""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING, Any

import numpy as np

from fastfair._deprecation import renamed_arguments
from fastfair._parallel import effective_n_threads, threads_for
from fastfair._random import stream_key
from fastfair._scipy import special
from fastfair.sweep.inference import _test_metric
from fastfair.sweep.ingest import _STRATUM, _check_sweep
from fastfair.sweep.results import _PER_THRESHOLD, ThresholdSweepResult
from fastfair.sweep.statistics import _sweep_counts

if TYPE_CHECKING:
    from numpy.typing import ArrayLike


@renamed_arguments(score="y_score")
def threshold_sweep(
    y_true: ArrayLike | str,
    y_score: ArrayLike | str,
    group: ArrayLike | str,
    *,
    metrics: str | Sequence[str] = ("tpr", "fpr"),
    thresholds: int | ArrayLike = 100,
    method: str = "monte_carlo",
    n_permutations: int = 999,
    alpha: float = 0.05,
    alternative: str = "two-sided",
    reference: Any = None,
    pos_label: Any = None,
    data: Any = None,
    random_state: int | np.random.Generator | np.random.SeedSequence | None = None,
    n_jobs: int | None = None,
) -> ThresholdSweepResult:
    r"""Test a rate gap between two groups at every threshold of a score.

    At each threshold t (predicted positive when :math:`s \ge t`) the gap of a rate
    :math:`M = \text{num}/\text{den}` between the group and the reference is tested as
    :func:`fastfair.permutation_test` tests it (its defaults): the pooled studentized
    difference :math:`T = (M_A - M_B)/\sqrt{p(1-p)(1/\text{den}_A + 1/\text{den}_B)}`,
    permuted among the rows of the denominator (positives for TPR/FNR, negatives for
    FPR/TNR, all rows for selection rate and accuracy): exact under equal rates. With
    ``method="exact"`` the per-threshold p-values equal a loop of
    ``permutation_test(y_true, score >= t, group)``; by default they come from the same
    joint permutations as the band (Monte Carlo, the paper's procedure).

    Across thresholds the sweep adds a single-step max-T adjustment (Westfall & Young
    1993): joint permutations of the group labels give, for each permutation, the largest
    :math:`|T|` over all thresholds; its 1 - alpha quantile :math:`c` gives adjusted
    p-values and the simultaneous band :math:`\pm c\,\mathrm{SE}(t)` of the gap. Max-T
    rather than Bonferroni or Holm because neighbouring thresholds share almost all their
    rows: max-T uses that dependence (its band is not much wider than one threshold's critical
    value, however many thresholds), while Bonferroni over 1,000 thresholds would divide alpha
    by 1,000. Studentized rather than raw gaps, so that thresholds where the gap is
    naturally small (extreme t) weigh as much as central ones and the band follows
    :math:`\mathrm{SE}(t)`. Under the complete null (equal score distributions of the two
    groups within the denominator rows) the permutation is exact, so the family-wise error
    of the band is at most alpha up to Monte-Carlo error (checked by simulation in
    validation/sweep_familywise.py); a threshold with unequal rates among equal ones is
    covered asymptotically only.

    Parameters
    ----------
    y_true : array-like of shape (n,)
        Binary labels (bool, 0/1, or two values with `pos_label`), or a column of `data`.
    y_score : array-like of shape (n,)
        Finite scores, or a column of `data`.
    group : array-like of shape (n,)
        Exactly two groups, or a column of `data`.
    metrics : sequence of str
        Rates whose denominator does not depend on the threshold: ``"tpr"`` (``"recall"``),
        ``"fnr"``, ``"fpr"``, ``"tnr"``, ``"selection_rate"``, ``"accuracy"``,
        ``"error_rate"``. Default TPR and FPR: the two equalized-odds distances of the paper.
    thresholds : int or array-like
        An int k: k thresholds at evenly spaced quantiles of the scores (observed score
        values; duplicates dropped). Or the thresholds themselves (distinct, any order;
        returned ascending).
    method : {"monte_carlo", "exact"}
        Per-threshold p-values and critical values from the joint permutations (default:
        one set of permutations serves every threshold and the band, O(1) per threshold
        and permutation) or from the exact permutation distribution of each threshold's
        counts (no Monte-Carlo error; costs one hypergeometric enumeration of about
        :math:`\sqrt{n}` points per threshold). The max-T adjustment always uses the
        `n_permutations` joint permutations.
    n_permutations : int
        Joint permutations (the paper uses 1,000).
    alpha : float
        Level of the critical values, the band and `reject`.
    alternative : {"two-sided", "greater", "less"}
        ``"greater"``: the group's rate exceeds the reference's.
    reference : label, optional
        The group the other is compared with (default: the group with more rows).
    pos_label : optional
        Positive label of `y_true` when it is not bool or 0/1.
    data : pandas.DataFrame or mapping, optional
        When given, `y_true`, `score` and `group` may be column names.
    random_state : None, int, numpy.random.Generator or SeedSequence
        Seed of the joint permutations (metric m uses random stream m).
    n_jobs : int, optional
        Threads for the permutations; results do not depend on it.

    Returns
    -------
    ThresholdSweepResult

    Notes
    -----
    Cost: one pass over the rows (a binary search among the thresholds per row; no sort),
    then O(1) per threshold and permutation. Exact per-threshold p-values add the
    enumeration of a 1-D hypergeometric distribution per threshold. Under the
    conditional scheme the pooled variance is the same in every permutation, so the
    studentized test and the test of the raw gap agree at each threshold, and the critical
    value of :math:`T` times :math:`\mathrm{SE}(t)` is the critical value of the gap. A
    threshold at which a rate is 0 or 1 in both groups (t above or below every score in
    the denominator) has a zero gap, statistic 0 and p-value 1.

    Examples
    --------
    >>> import numpy as np
    >>> import fastfair
    >>> rng = np.random.default_rng(1)
    >>> group = rng.choice(["a", "b"], 4000)
    >>> y = rng.random(4000) < 0.4
    >>> score = rng.normal(1.0 * y + 0.3 * (y & (group == "b")), 1.0)
    >>> res = fastfair.threshold_sweep(
    ...     y, score, group, thresholds=np.linspace(-1, 2, 31), random_state=0)
    >>> res.comparison, res.metrics
    (('a', 'b'), ('tpr', 'fpr'))
    >>> res  # group b's recall is higher at most thresholds; its FPR is not
    ThresholdSweepResult('a' - 'b', 31 thresholds in [-1.0000, 2.0000], score >= t is positive;
      method='monte_carlo', n_permutations=999, alpha=0.05, alternative='two-sided')
      metric    at t      gap        T  pvalue  max-T p  rejected  max-T rej.  max-T crit.
      tpr     1.6000  -0.1338  -5.6832  0.0010   0.0010        27          19       2.9416
      fpr     0.7000   0.0307   1.7664  0.1020   0.5420         0           0       2.8939
      at t: threshold of the most extreme T; rejected: count of p <= alpha (raw, max-T)
    >>> k = 15  # threshold 0.5: the recall gap, its 95th percentile and simultaneous band
    >>> print(res.thresholds[k], round(res.difference[0, k], 3),
    ...       round(res.critical_value[0, k], 3), round(res.band[0, k], 3))
    0.5 -0.094 0.044 0.065
    >>> exact = fastfair.threshold_sweep(
    ...     y, score, group, thresholds=np.linspace(-1, 2, 31), method="exact", random_state=0)
    >>> exact.pvalue[:, k].round(5)  # equal to permutation_test(y, score >= 0.5, group)
    array([3.0000e-05, 1.0232e-01])
    """
    sweep = _check_sweep(
        y_true, y_score, group, metrics=metrics, thresholds=thresholds, method=method,
        n_permutations=n_permutations, alpha=alpha, alternative=alternative,
        reference=reference, pos_label=pos_label, data=data,
    )  # fmt: skip
    counts = _sweep_counts(sweep, n_jobs)
    totals = counts[1]
    key = stream_key(random_state)
    n_threads = threads_for(n_jobs, sweep.n_permutations * len(sweep.thresholds), 200_000)
    effective_n_threads(n_jobs)  # validates n_jobs even when one thread is enough
    # log(k!) up to the most rows among which group labels are permuted (bit y: label y)
    permuted = [_STRATUM[sm.den_masks[0]] for sm in sweep.specs]
    rows = max(sum(int(totals[:, y].sum()) for y in (0, 1) if st & (1 << y)) for st in permuted)
    logfact = special.gammaln(np.arange(rows + 1, dtype=np.float64) + 1.0)
    shape = (len(sweep.specs), len(sweep.thresholds))
    # the result's per-metric arrays, filled row by row
    out = {name: np.empty(shape) for name in _PER_THRESHOLD}
    out["group_values"] = np.empty((*shape, 2))
    out["max_critical"] = np.empty(len(sweep.specs))
    out["null_maxima"] = np.empty((len(sweep.specs), sweep.n_permutations))
    for m in range(len(sweep.specs)):
        for name, row in _test_metric(sweep, m, counts, logfact, key, n_threads).items():
            out[name][m] = row
    return ThresholdSweepResult(
        thresholds=sweep.thresholds,
        metrics=tuple(sm.name for sm in sweep.specs),
        comparison=tuple(sweep.pair_labels.tolist()),
        alpha=float(sweep.alpha),
        alternative=sweep.alternative,
        method=sweep.method,
        n_permutations=sweep.n_permutations,
        **out,
    )
