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

import warnings
from dataclasses import dataclass

import numpy as np

from fastfair import _counts, _rows, generic
from fastfair._comparisons import check_rates_defined, comparison_pairs
from fastfair._confusion import check_counts, coerce_rows
from fastfair._exact import EXACT_NEGLECTED_MASS as EXACT_NEGLECTED_MASS
from fastfair._exact import MAX_EXACT_POINTS as MAX_EXACT_POINTS
from fastfair._exact import ExactInfeasibleError, exact_pair
from fastfair._metrics import ConfusionMetric, get_metric
from fastfair._parallel import effective_n_threads, threads_for
from fastfair._permutation_result import PermutationTestResult
from fastfair._pvalues import (
    ALTERNATIVES,
    adjust_pvalues,
    asymptotic_pvalue,
    maxt_pvalues,
    wilson_interval,
)
from fastfair._random import stream_key
from fastfair._score import kish_counts, score_interval
from fastfair._sequential import (
    Sampler,
    Sequential,
    draw_all,
    resolve,
    run,
    summarize,
)
from fastfair._validation import (
    check_choice,
    check_level,
    show_value,
)

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
    y, yhat, weights, codes, labels, exponent = coerce_rows(
        y_true, y_pred, group, sample_weight, pos_label, data
    )
    options = _check_options(
        metric=metric,
        scheme=scheme,
        studentize=studentize,
        variance=variance,
        method=method,
        n_permutations=n_permutations,
        sequential=sequential,
        alternative=alternative,
        mid_p=mid_p,
        reference=reference,
        comparisons=comparisons,
        adjust=adjust,
        return_null=return_null,
        random_state=random_state,
        confidence_level=confidence_level,
    )
    cell = (2 * y + yhat).astype(np.uint8)
    n_threads = effective_n_threads(n_jobs)
    count_threads = threads_for(n_jobs, len(cell), 1_000_000)
    w, w2 = _counts.cell_sums(cell, codes, len(labels), weights, count_threads)
    rows = None if weights is None else (cell, weights, codes)
    result = _test_cells(w, w2, labels, rows, options, n_threads)
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
    w, labels = check_counts(counts, groups)
    options = _check_options(
        metric=metric,
        scheme=scheme,
        studentize=studentize,
        variance=variance,
        method=method,
        n_permutations=n_permutations,
        sequential=sequential,
        alternative=alternative,
        mid_p=mid_p,
        reference=reference,
        comparisons=comparisons,
        adjust=adjust,
        return_null=return_null,
        random_state=random_state,
        confidence_level=confidence_level,
    )
    return _test_cells(w, w.copy(), labels, None, options, effective_n_threads(n_jobs))


def confusion_counts(y_true, y_pred, group, *, sample_weight=None, pos_label=None, data=None):
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
    w, _ = _counts.cell_sums((2 * y + yhat).astype(np.uint8), codes, len(labels), weights)
    return (np.ldexp(w, exponent) if exponent else w), labels


@dataclass(frozen=True)
class _Options:
    """The options of a test of confusion-matrix rates, checked once (_check_options)."""

    metric: ConfusionMetric
    scheme: str
    studentize: bool
    variance: str
    method: str
    n_permutations: int | None  # fixed-size Monte Carlo; None: sequential
    sequential: Sequential | None  # the sequential test's options, None when fixed
    alternative: str
    mid_p: bool
    reference: object
    comparisons: str
    adjust: str
    return_null: bool
    random_state: object
    confidence_level: float


def _check_options(
    *,
    metric,
    scheme,
    studentize,
    variance,
    method,
    n_permutations,
    sequential,
    alternative,
    mid_p,
    reference,
    comparisons,
    adjust,
    return_null,
    random_state,
    confidence_level,
) -> _Options:
    spec_metric = get_metric(metric)
    check_choice(scheme, "scheme", SCHEMES)
    check_choice(variance, "variance", VARIANCES)
    check_choice(method, "method", METHODS)
    check_choice(alternative, "alternative", ALTERNATIVES)
    check_choice(comparisons, "comparisons", ("reference", "all"))
    check_choice(adjust, "adjust", ADJUSTMENTS)
    fixed, seq_options = resolve(n_permutations, sequential)
    if not isinstance(studentize, (bool, np.bool_)):
        raise TypeError(f"studentize must be True or False, got {show_value(studentize)}")
    if spec_metric.n_parts > 1 and alternative != "two-sided":
        raise ValueError("equalized_odds combines two differences; only 'two-sided' applies")
    check_level(confidence_level, "confidence_level")
    if method == "asymptotic" and not studentize:
        raise ValueError("method='asymptotic' needs a studentized statistic (studentize=True)")
    return _Options(
        metric=spec_metric,
        scheme=scheme,
        studentize=studentize,
        variance=variance,
        method=method,
        n_permutations=fixed,
        sequential=seq_options,
        alternative=alternative,
        mid_p=mid_p,
        reference=reference,
        comparisons=comparisons,
        adjust=adjust,
        return_null=return_null,
        random_state=random_state,
        confidence_level=confidence_level,
    )


def _test_cells(w, w2, labels, rows, options: _Options, n_threads) -> PermutationTestResult:
    """The test on per-group cell sums; `rows` = (cell, weights, codes) when weighted."""
    spec_metric, scheme, method = options.metric, options.scheme, options.method
    studentize, variance, alternative = options.studentize, options.variance, options.alternative
    reference, comparisons, adjust = options.reference, options.comparisons, options.adjust
    return_null, random_state, mid_p = options.return_null, options.random_state, options.mid_p
    confidence_level = options.confidence_level
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
    pairs = comparison_pairs(w.sum(axis=1), labels, reference, comparisons)
    check_rates_defined(spec_metric, w, labels, pairs)
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

    fixed, seq_options = options.n_permutations, options.sequential
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
                p, support, probs = exact_pair(
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
