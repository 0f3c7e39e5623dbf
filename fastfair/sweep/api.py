r"""Fairness across thresholds: permutation tests of outcome rates at every threshold.

A score s becomes a decision at a threshold t: predicted positive when :math:`s \ge t`
(the one convention of fastfair). The permutation-test paper (DiCiccio et al., KDD 2020,
Sec. 5.1, Figure 2) varies t from 0 to 1 and, at each t, compares the equalized-odds
distances (TPR and FPR gaps between two groups) with the 95th percentile of their
permutation distribution. :func:`threshold_sweep` does this for every threshold at once:

- one pass over the rows puts each in its score bin between consecutive thresholds; each
  group's confusion counts at every threshold are then running sums over the bins, updated
  threshold to threshold (compiled, ``fastfair._sweep``);
- joint permutations of group labels, one per random stream, give at every threshold the
  statistic of the same permuted data (group A's rows per score bin, drawn by splitting the
  bins in halves: one exact hypergeometric draw per threshold, mostly among few rows, so
  O(1) per threshold and permutation): the per-threshold tests (the paper's 1,000
  permutations and 95th percentile), the single-step max-T adjustment over thresholds and a
  simultaneous band;
- or each threshold is tested on its counts exactly as :func:`fastfair.permutation_test`
  tests them (conditional scheme, pooled studentization: exact under equal rates), by the
  same count-level machinery (``method="exact"``).
"""

from __future__ import annotations

import numpy as np

from fastfair import _counts, _sweep
from fastfair._comparisons import check_rates_defined, comparison_pairs
from fastfair._deprecation import renamed_arguments
from fastfair._exact import exact_pair
from fastfair._parallel import effective_n_threads, threads_for
from fastfair._pvalues import ALTERNATIVES, _oriented, monte_carlo_pvalue
from fastfair._random import stream_key
from fastfair._scipy import special
from fastfair._validation import (
    as_binary,
    as_finite_float,
    as_groups,
    check_choice,
    check_int,
    check_same_length,
    resolve_columns,
)
from fastfair.sweep.inference import _exact_critical, _gap_scale, _monte_carlo_critical
from fastfair.sweep.ingest import _STRATUM, SWEEP_METHODS, _check_metrics, _thresholds
from fastfair.sweep.results import _PER_THRESHOLD, ThresholdSweepResult
from fastfair.sweep.statistics import _tables


@renamed_arguments(score="y_score")
def threshold_sweep(
    y_true,
    y_score,
    group,
    *,
    metrics=("tpr", "fpr"),
    thresholds=100,
    method: str = "monte_carlo",
    n_permutations: int = 999,
    alpha: float = 0.05,
    alternative: str = "two-sided",
    reference=None,
    pos_label=None,
    data=None,
    random_state=None,
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
    cols = resolve_columns(data, y_true=y_true, y_score=y_score, group=group)
    y = as_binary(cols["y_true"], "y_true", pos_label)
    s = as_finite_float(cols["y_score"], "y_score")
    codes, labels = as_groups(cols["group"], "group")
    check_same_length(y_true=y, score=s, group=codes)
    if len(labels) != 2:
        raise ValueError(
            f"threshold_sweep compares two groups; group has {len(labels)} "
            f"({labels.tolist()[:5]}): select the rows of two groups"
        )
    specs = _check_metrics(metrics)
    check_choice(method, "method", SWEEP_METHODS)
    check_choice(alternative, "alternative", ALTERNATIVES)
    n_permutations = check_int(n_permutations, "n_permutations", 1)
    if isinstance(alpha, bool) or not isinstance(alpha, (int, float)) or not 0 < alpha < 1:
        raise ValueError(f"alpha must be a number in (0, 1), got {alpha!r}")
    thr = _thresholds(thresholds, s)

    sizes = np.bincount(codes, minlength=2)
    pair = comparison_pairs(sizes, labels, reference, "reference")[0]
    pair_labels = labels[pair]
    second = (codes == pair[1]).astype(np.uint8)  # 0: the group, 1: the reference
    code = (2 * second + y).astype(np.uint8)
    count_threads = threads_for(n_jobs, len(s), 1_000_000)
    above = _sweep.counts_above(s, code, thr, 4, count_threads)
    totals = np.bincount(code, minlength=4).reshape(2, 2).astype(np.int64)
    tables = _tables(above, totals)
    n_thr = len(thr)
    key = stream_key(random_state)
    orient = {"two-sided": 0, "greater": 1, "less": -1}[alternative]
    n_threads = threads_for(n_jobs, n_permutations * n_thr, 200_000)
    effective_n_threads(n_jobs)  # validates n_jobs even when one thread is enough

    shape = (len(specs), n_thr)
    # the result's per-metric arrays, filled row by row below
    out = {name: np.empty(shape) for name in _PER_THRESHOLD}
    out["group_values"] = np.empty((*shape, 2))
    out["max_critical"] = np.empty(len(specs))
    out["null_maxima"] = np.empty((len(specs), n_permutations))
    pair_codes = np.array([[0, 1]], dtype=np.intp)
    permuted = [_STRATUM[sm.den_masks[0]] for sm in specs]
    # log(k!) up to the most rows among which group labels are permuted (bit y: label y)
    rows = max(sum(int(totals[:, y].sum()) for y in (0, 1) if st & (1 << y)) for st in permuted)
    logfact = special.gammaln(np.arange(rows + 1, dtype=np.float64) + 1.0)
    for m, spec_metric in enumerate(specs):
        check_rates_defined(spec_metric, tables[0].reshape(2, 4), pair_labels, pair_codes)
        spec = spec_metric.spec(True, True)
        observed = _counts.metric_statistics(tables, tables, spec, pair_codes)[:, 0]
        num, den = spec_metric.rates(tables.reshape(n_thr, 2, 4))
        rate = num[..., 0] / den[..., 0]
        pooled = num[..., 0].sum(axis=1) / den[..., 0].sum(axis=1)
        se = np.sqrt(pooled * (1 - pooled) * (1 / den[:, 0, 0] + 1 / den[:, 1, 0]))
        # T = (num_A/den_A - (num - num_A)/den_B)/SE = num_A * scale - offset: the
        # denominators, pooled numerator and SE are the same in every permutation
        positive = se > 0
        safe_se = np.where(positive, se, 1.0)
        scale = np.where(positive, (1 / den[:, 0, 0] + 1 / den[:, 1, 0]) / safe_se, 0.0)
        offset = np.where(positive, num[..., 0].sum(axis=1) / den[:, 1, 0] / safe_se, 0.0)
        maxima, null, _ = _sweep.permute_sweep(
            above,
            totals,
            permuted[m],
            spec_metric.num_masks[0],
            scale,
            offset,
            orient,
            n_permutations,
            key,
            m,
            method == "monte_carlo",
            logfact,
            n_threads,
        )
        obs_o = _oriented(observed, observed, alternative)[0]
        if method == "exact":
            strata = spec_metric.strata("conditional")
            crit = np.empty(n_thr)
            p = np.empty(n_thr)
            for k in range(n_thr):
                p[k], support, probs = exact_pair(
                    tables[k].reshape(2, 4).astype(np.int64),
                    spec_metric,
                    spec,
                    strata,
                    observed[k],
                    alternative,
                    False,
                    want_null=True,
                )
                crit[k] = _exact_critical(_oriented(support, 0.0, alternative)[0], probs, alpha)
        else:  # null: (thresholds, B), oriented
            p = monte_carlo_pvalue(null.T, obs_o, "greater")[0]
            crit = _monte_carlo_critical(null.T, alpha)
        p_maxt = monte_carlo_pvalue(maxima[:, None], obs_o, "greater")[0]
        c_max = _monte_carlo_critical(maxima[:, None], alpha)[0]
        critical = _gap_scale(crit, se)
        rows = dict(
            group_values=rate,
            difference=rate[:, 0] - rate[:, 1],
            statistic=observed,
            standard_error=se,
            pvalue=p,
            critical_value=critical,
            pvalue_adjusted=np.maximum(p_maxt, p),
            band=np.maximum(_gap_scale(c_max, se), critical),
            max_critical=c_max,
            null_maxima=maxima,
        )
        for name, row in rows.items():
            out[name][m] = row
    return ThresholdSweepResult(
        thresholds=thr,
        metrics=tuple(sm.name for sm in specs),
        comparison=tuple(pair_labels.tolist()),
        alpha=float(alpha),
        alternative=alternative,
        method=method,
        n_permutations=n_permutations,
        **out,
    )
