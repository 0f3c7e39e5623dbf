"""The public functions: ingest -> statistics -> inference (resampling tests of any metric,
means and correlations)."""

from __future__ import annotations

import math
from collections.abc import Callable
from typing import TYPE_CHECKING, Any

import numpy as np

from fastfair import _means
from fastfair._deprecation import renamed_arguments
from fastfair._parallel import effective_n_threads
from fastfair._pvalues import ALTERNATIVES, asymptotic_pvalue
from fastfair._random import stream_key
from fastfair._scipy import stats
from fastfair._sequential import (
    Sampler,
    Sequential,
    draw_all,
    keep_samplers,
    monte_carlo_summary,
    resolve,
)
from fastfair._validation import (
    as_1d,
    as_finite_float,
    as_groups,
    as_weights,
    check_choice,
    check_flag,
    check_same_length,
    resolve_columns,
    unit_scale,
)
from fastfair.resampling.inference import (
    _basic_bootstrap,
    _mean_difference,
    _test_pairs,
    _weighted_mean_variance_fn,
)
from fastfair.resampling.ingest import (
    ROW_METRICS,
    _check_bootstrap_options,
    _check_mean_options,
    _check_row_options,
)
from fastfair.resampling.results import (
    BootstrapTestResult,
    CorrelationTestResult,
    GenericTestResult,
)
from fastfair.resampling.statistics import (
    _confusion_resamples,
    _Evaluator,
    _mean_fn,
    _metric_name,
    _row_resamples,
    _row_values,
    _safe_ratio,
)

if TYPE_CHECKING:
    from collections.abc import Hashable, Mapping

    import pandas
    from numpy.typing import ArrayLike


def permutation_test_rows(
    y_true: ArrayLike | str,
    y_pred: ArrayLike | str,
    group: ArrayLike | str,
    *,
    metric: str | Callable[..., float],
    studentize: bool | str = True,
    method: str = "auto",
    n_permutations: int | None = None,
    sequential: Sequential | None = None,
    alternative: str = "two-sided",
    reference: Hashable | None = None,
    comparisons: str = "reference",
    adjust: str = "holm",
    sample_weight: ArrayLike | str | None = None,
    data: Mapping[str, Any] | pandas.DataFrame | None = None,
    return_null: bool = False,
    random_state: int | np.random.Generator | np.random.SeedSequence | None = None,
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
    options = _check_row_options(locals())
    cols = resolve_columns(
        data, y_true=y_true, y_pred=y_pred, group=group, sample_weight=sample_weight
    )
    weights, exponent = cols["sample_weight"], 0
    if weights is not None:
        weights, exponent = as_weights(weights, "sample_weight", return_exponent=True)
    if isinstance(metric, str):
        name = metric.lower()
        y = None if name == "mean_score" and cols["y_true"] is None else cols["y_true"]
        p = None if name == "mean_outcome" and cols["y_pred"] is None else cols["y_pred"]
        y = as_finite_float(y, "y_true") if name != "mean_score" else None
        p = as_finite_float(p, "y_pred") if name != "mean_outcome" else None
        check_same_length(y_true=y, y_pred=p, group=cols["group"], sample_weight=weights)
        values = _row_values(name, y, p)
        codes, labels = as_groups(cols["group"], "group")
        if weights is None and options.mode in ("welch", "none"):
            return _mean_difference(values, codes, labels, name, options)
        # unweighted here: bootstrap studentization, which needs no variance function
        arrays = (values,) if weights is None else (values, weights)
        evaluator = _Evaluator(
            _mean_fn, arrays, name, True, variance_fn=_weighted_mean_variance_fn
        )
    else:
        y = as_1d(cols["y_true"], "y_true")
        p = as_1d(cols["y_pred"], "y_pred")
        check_same_length(y_true=y, y_pred=p, group=cols["group"], sample_weight=weights)
        codes, labels = as_groups(cols["group"], "group")
        arrays = (y, p) if weights is None else (y, p, weights)
        evaluator = _Evaluator(
            metric, arrays, _metric_name(metric), vectorized, weights is not None
        )
    return _test_pairs(evaluator, codes, labels, weights, options, progress, exponent)


# --------------------------------------------------------------------------------------
# Difference of means in the compiled core
# --------------------------------------------------------------------------------------


def mean_difference_test(
    values: ArrayLike | str,
    group: ArrayLike | str,
    *,
    studentize: bool = True,
    method: str = "auto",
    n_permutations: int | None = None,
    sequential: Sequential | None = None,
    alternative: str = "two-sided",
    reference: Hashable | None = None,
    comparisons: str = "reference",
    adjust: str = "holm",
    data: Mapping[str, Any] | pandas.DataFrame | None = None,
    return_null: bool = False,
    random_state: int | np.random.Generator | np.random.SeedSequence | None = None,
    n_jobs: int | None = None,
) -> GenericTestResult:
    r"""Permutation test of a difference of means of any per-row value between groups.

    For residuals, losses, scores or continuous outcomes: the Welch-studentized difference

    .. math::
        S = \frac{\bar v_A - \bar v_B}{\sqrt{s_A^2/n_A + s_B^2/n_B}}

    (KDD 2020 Sec. 3.4 and docs/resampling.md: a mean is asymptotically normal, so the Welch
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
    n_permutations, sequential, reference, comparisons, data, random_state, n_jobs
        As in :func:`fastfair.permutation_test`: a fixed number of permutations or, by
        default, a sequential test; the default reference is the largest group.
    alternative : {"two-sided", "greater", "less"}
        ``"greater"``: the first group of a comparison has the larger mean.
    adjust : {"holm", "bonferroni", "none"}
        Family-wise adjustment with more than two groups.
    return_null : bool
        Keep the permuted statistics (exact: the support, with `null_probabilities`).

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
    >>> from fastfair.resampling import mean_difference_test
    >>> res = mean_difference_test(residual, group, random_state=0)
    >>> res.comparisons, round(res.difference, 4), res.decision, res.n_permutations
    ([(1, 0)], 0.0755, 'retain', 735)
    >>> [round(p, 3) for p in res.pvalue_interval]  # valid under optional stopping
    [0.05, 0.148]
    """
    arguments = dict(locals())
    cols = resolve_columns(data, values=values, group=group)
    v = as_finite_float(cols["values"], "values")
    check_same_length(values=v, group=cols["group"])
    codes, labels = as_groups(cols["group"], "group")
    return _mean_difference(v, codes, labels, "mean", _check_mean_options(arguments))


# --------------------------------------------------------------------------------------
# Correlation with a continuous attribute
# --------------------------------------------------------------------------------------


@renamed_arguments(x="attribute", e="values")
def correlation_test(
    attribute: ArrayLike | str,
    values: ArrayLike | str,
    *,
    studentize: bool = True,
    method: str = "monte_carlo",
    n_permutations: int | None = None,
    sequential: Sequential | None = None,
    alternative: str = "two-sided",
    data: Mapping[str, Any] | pandas.DataFrame | None = None,
    return_null: bool = False,
    random_state: int | np.random.Generator | np.random.SeedSequence | None = None,
    n_jobs: int | None = None,
) -> CorrelationTestResult:
    r"""Test for correlation between a continuous protected attribute and model error.

    Pearson's :math:`r` permuted as it is (FairTest's statistic) is a valid test of
    independence only: when x and e are uncorrelated but dependent (e.g. the error's
    variance changes with age) its permutation distribution has the wrong variance and the
    test rejects far too often (KDD 2020 Sec. 4.1, Table 1: 0.75 at level 0.05). The
    studentized statistic (DiCiccio & Romano 2017; docs/resampling.md)

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
    n_permutations, sequential, data, return_null, random_state, n_jobs
        As in :func:`fastfair.permutation_test` (a fixed number of permutations or, by
        default, a sequential test).
    alternative : {"two-sided", "greater", "less"}
        ``"greater"``: positive correlation.

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
    >>> from fastfair.resampling import correlation_test
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
    check_flag(studentize, "studentize")
    fixed, seq_options = resolve(n_permutations, sequential)
    # constant on the raw values: centred, a constant 0.1 leaves rounding residues that
    # the unit scaling below would blow up into a "correlation" with a p-value
    for name, raw in (("attribute", xv), ("values", ev)):
        if raw.min() == raw.max():
            raise ValueError(f"{name} is constant; the correlation is undefined")
    # every statistic here is free of the unit: scaled, the sums of squares cannot overflow
    xc = np.ascontiguousarray(unit_scale(xv - xv.mean())[0])
    ec = np.ascontiguousarray(unit_scale(ev - ev.mean())[0])
    sxx, see = float(xc @ xc), float(ec @ ec)
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
    interval, n_used, decision, _ = monte_carlo_summary([sampler], fixed, decision, True)
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
    return keep_samplers(res, [sampler])


# --------------------------------------------------------------------------------------
# The basic bootstrap (Sec. 4.2), to compare with
# --------------------------------------------------------------------------------------


def basic_bootstrap_test(
    y_true: ArrayLike | str,
    y_pred: ArrayLike | str,
    group: ArrayLike | str,
    *,
    metric: str | Callable = "tpr",
    n_bootstrap: int = 9999,
    alternative: str = "two-sided",
    confidence_level: float = 0.95,
    reference: Hashable | None = None,
    comparisons: str = "reference",
    adjust: str = "holm",
    sample_weight: ArrayLike | str | None = None,
    pos_label: Hashable | None = None,
    vectorized: bool = False,
    data: Mapping[str, Any] | pandas.DataFrame | None = None,
    return_null: bool = False,
    random_state: int | np.random.Generator | np.random.SeedSequence | None = None,
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
    >>> from fastfair.resampling import basic_bootstrap_test
    >>> res = basic_bootstrap_test(y, pred, group, metric="fnr", random_state=0)
    >>> round(res.difference, 4), round(res.pvalue, 3)
    (0.0288, 0.536)
    """
    options = _check_bootstrap_options(locals())
    cols = resolve_columns(
        data, y_true=y_true, y_pred=y_pred, group=group, sample_weight=sample_weight
    )
    key = stream_key(random_state)
    if isinstance(metric, str) and metric.lower() not in ROW_METRICS:
        resamples = _confusion_resamples(cols, metric, pos_label, key, options.n_bootstrap)
    else:
        resamples = _row_resamples(cols, metric, vectorized, key, options.n_bootstrap)
    return _basic_bootstrap(resamples, options)
