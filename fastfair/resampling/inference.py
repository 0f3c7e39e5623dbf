"""Inference: the test on the statistics (p-values, intervals), then packing (resampling tests
of any metric, means and correlations)."""

from __future__ import annotations

import itertools
import math

import numpy as np

from fastfair import _means
from fastfair._comparisons import comparison_pairs
from fastfair._pvalues import asymptotic_pvalue, exact_pvalue, family_adjusted
from fastfair._random import stream_key
from fastfair._scipy import special, stats
from fastfair._sequential import Sampler, draw_all, keep_samplers, monte_carlo_summary
from fastfair._validation import show_value, unit_scale
from fastfair.resampling.ingest import (
    _OBSERVED,
    _PROGRESS_GUESS,
    MAX_EXACT_SUBSETS,
    SCALE_BLOCK,
    _BootstrapOptions,
    _Options,
    _resolve_progress,
)
from fastfair.resampling.results import BootstrapTestResult, GenericTestResult, MetricError
from fastfair.resampling.statistics import (
    _GroupResamples,
    _Groups,
    _mean_fn,
    _PairEngine,
    _safe_ratio,
    _welch_from_sums,
)


def _weighted_mean_variance_fn(v, w):
    """Variance of a weighted mean, n/(n-1) sum w^2 (v - m)^2 / (sum w)^2. (Unweighted row
    metrics take the Welch variance in _welch_from_sums, never this function.)"""
    n = v.shape[-1]
    m = _mean_fn(v, w)[..., None]
    sw = w.sum(axis=-1)
    return n / (n - 1) * (w * w * (v - m) ** 2).sum(axis=-1) / (sw * sw)


def _draw_pairs(results, options: _Options):
    """Draw every pair's permutations (fixed or sequential); fill p-values and counts."""
    samplers = [r["sampler"] for r in results if r.get("sampler") is not None]
    if not samplers:
        return None
    decision = draw_all(samplers, options.n_permutations, options.sequential, options.adjust)
    for r in results:
        s = r["sampler"]
        r["pvalue"], r["count"], r["null"] = s.pvalue, s.count, s.null()
    return decision


def _run_pair(engine, options: _Options) -> dict:
    """The observed statistic of one pair and its p-value (asymptotic) or Sampler."""
    mode, n_bootstrap = options.mode, options.n_bootstrap
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
    if options.method == "asymptotic":
        out["pvalue"] = float(asymptotic_pvalue(observed, options.alternative))
        return out
    draw = _pair_draw(engine, mode, n_bootstrap, options.sequential is not None)
    out["sampler"] = Sampler(draw, observed, options.alternative, options.return_null)
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


def _assemble(results, groups: _Groups, metric_label, options: _Options, decision):
    """The result of pairwise tests (each a dict of _run_pair or _mean_pair); `decision`:
    the sequential decisions of _draw_pairs."""
    fixed, seq_options = options.n_permutations, options.sequential
    pairs, labels = groups.pairs, groups.labels
    single = len(pairs) == 1
    pick = (
        (lambda key: results[0][key])
        if single
        else (lambda key: np.array([r[key] for r in results], dtype=np.float64))
    )
    pvalues = np.array([r["pvalue"] for r in results])
    monte_carlo = results[0]["count"] is not None
    exact = results[0].get("exact", False)
    interval, n_used, null, null_probabilities = None, None, None, None
    if monte_carlo:
        samplers = [r["sampler"] for r in results]
        interval, n_used, decision, null = monte_carlo_summary(samplers, fixed, decision, single)
    elif exact and options.return_null and single:
        null = results[0]["null"]
        null_probabilities = np.full(len(null), 1.0 / len(null))
    label_list = labels.tolist()
    se = None if results[0]["se"] is None else pick("se")
    difference_interval = None
    if all(r["interval_se"] is not None for r in results):
        z = special.ndtri(0.5 + options.confidence_level / 2.0)
        diff, half = pick("difference"), z * pick("interval_se")
        difference_interval = (diff - half, diff + half)
    mode = options.mode
    res = GenericTestResult(
        statistic=pick("statistic"),
        pvalue=pick("pvalue"),
        difference=pick("difference"),
        metric=metric_label,
        groups=labels,
        group_values=groups.values,
        group_denominators=groups.sizes,
        comparisons=[(label_list[i], label_list[j]) for i, j in pairs],
        scheme="full",
        studentize=mode != "none",
        variance=mode,
        method="monte_carlo" if monte_carlo else "exact" if exact else options.method,
        alternative=options.alternative,
        n_permutations=n_used,
        pvalue_adjusted=family_adjusted(pvalues, options.adjust),
        adjust=options.adjust if len(pairs) > 1 else None,
        pvalue_interval=interval,
        weighted=groups.weighted,
        null_distribution=null,
        null_probabilities=null_probabilities,
        n_bootstrap=options.n_bootstrap if mode.startswith("bootstrap") else None,
        standard_error=se,
        confidence_interval=difference_interval,
        confidence_level=options.confidence_level,
        decision=decision if seq_options is not None else None,
        sequential=seq_options if monte_carlo else None,
    )
    return keep_samplers(res, [r["sampler"] for r in results] if monte_carlo else None)


def _test_pairs(evaluator, codes, labels, weights, options: _Options, progress, exponent=0):
    """Algorithm 1 (or its shortcut, or Welch) on every compared pair of groups: the
    permutation_test_rows engine for a callable or a weighted / bootstrapped row metric.
    `weights` are the user's rescaled by 2**-exponent (as_weights): the groups' sums of
    weights are reported in the user's unit."""
    sizes = np.bincount(codes, minlength=len(labels))
    pairs = comparison_pairs(sizes, labels, options.reference, options.comparisons)
    rows_of = [np.flatnonzero(codes == g) for g in range(len(labels))]
    group_w = sizes.astype(np.float64)
    if weights is not None:
        group_w = np.ldexp(np.bincount(codes, weights=weights, minlength=len(labels)), exponent)
    mode, n_bootstrap = options.mode, options.n_bootstrap
    if mode == "welch":
        small = [labels[g] for g in np.unique(pairs) if sizes[g] < 2]
        if small:
            raise ValueError(
                f"Welch studentization needs >= 2 rows per group; group {show_value(small[0])}"
            )
    key = stream_key(options.random_state)
    fixed = options.n_permutations
    n_permutations = fixed if fixed is not None else _PROGRESS_GUESS
    per_pair = {
        "none": 2 * n_permutations,
        "welch": 2 * n_permutations,
        "bootstrap-fast": 2 * (n_permutations + n_bootstrap),
        "bootstrap": 2 * (n_permutations + 1) * (n_bootstrap + 1),
    }[mode]
    evals = 2 + per_pair if options.method != "asymptotic" else 2 + 2 * n_bootstrap
    bar = _resolve_progress(progress, evals * len(pairs))
    try:
        group_values = np.full(len(labels), np.nan)
        results = []
        for c, (ga, gb) in enumerate(pairs):
            engine = _PairEngine(
                evaluator, rows_of[ga], rows_of[gb], (labels[ga], labels[gb]), key, c, bar
            )
            results.append(_run_pair(engine, options))
            group_values[ga], group_values[gb] = results[-1]["values"]
        decision = _draw_pairs(results, options)
    finally:
        if bar is not None:
            bar.close()
    groups = _Groups(labels, pairs, group_values, group_w, weighted=weights is not None)
    return _assemble(results, groups, evaluator.name, options, decision)


def _mean_difference(values, codes, labels, metric_label, options: _Options) -> GenericTestResult:
    """Difference of means of `values` between groups (Welch-studentized or raw), with the
    permutations in the compiled core (subset sums of the smaller group)."""
    sizes = np.bincount(codes, minlength=len(labels))
    pairs = comparison_pairs(sizes, labels, options.reference, options.comparisons)
    if options.mode == "welch":
        small = [labels[g] for g in np.unique(pairs) if sizes[g] < 2]
        if small:
            raise ValueError(
                f"Welch studentization needs at least 2 rows in every group; group "
                f"{show_value(small[0])} has {sizes[labels.tolist().index(small[0])]}"
            )
    sums = np.bincount(codes, weights=values, minlength=len(labels))
    groups = _Groups(labels, pairs, sums / sizes, sizes.astype(np.float64), weighted=False)
    key = stream_key(options.random_state) if options.method != "asymptotic" else 0
    results = []
    for c, (ga, gb) in enumerate(pairs):
        rows_a, rows_b = np.flatnonzero(codes == ga), np.flatnonzero(codes == gb)
        results.append(_mean_pair(values[rows_a], values[rows_b], options, key, c))
    decision = _draw_pairs(results, options)
    return _assemble(results, groups, metric_label, options, decision)


def _comb_capped(n: int, k: int, cap: int) -> int:
    """C(n, k), or cap + 1 as soon as it exceeds cap (math.comb(1e6, 5e5) takes seconds)."""
    c = 1
    for i in range(1, k + 1):
        c = c * (n - k + i) // i  # C(n - k + i, i), increasing in i
        if c > cap:
            return cap + 1
    return c


def _welch_pvalue(observed, ua, ub, na, nb, alternative) -> float:
    """Welch's t p-value of `observed` with the Welch-Satterthwaite df of the variances of
    the group means `ua`, `ub` (any common unit)."""
    df = (ua + ub) ** 2 / (ua**2 / (na - 1) + ub**2 / (nb - 1)) if ua + ub > 0 else 1.0
    if alternative == "two-sided":
        p = 2.0 * stats.t.sf(abs(observed), df)
    elif alternative == "greater":
        p = stats.t.sf(observed, df)
    else:
        p = stats.t.cdf(observed, df)
    return float(min(1.0, p))


def _subset_sums_exact(cen, k):
    """Sum and sum of squares of `cen` over every k-subset of its rows (exact enumeration,
    at most MAX_EXACT_SUBSETS subsets)."""
    n = cen.size
    n_subsets = _comb_capped(n, k, MAX_EXACT_SUBSETS)
    if n_subsets > MAX_EXACT_SUBSETS:
        raise ValueError(
            f"method='exact' would enumerate more than MAX_EXACT_SUBSETS = {MAX_EXACT_SUBSETS} "
            f"splits (C({n}, {k})); use 'monte_carlo'"
        )
    combos = np.fromiter(
        itertools.chain.from_iterable(itertools.combinations(range(n), k)),
        dtype=np.intp,
        count=n_subsets * k,
    ).reshape(n_subsets, k)
    sub = cen[combos]
    return sub.sum(axis=1), (sub * sub).sum(axis=1)


def _mean_pair(va, vb, options: _Options, key, stream) -> dict:
    """The observed Welch (or raw) statistic of one pair and its p-value (asymptotic or
    exact enumeration) or Sampler (subset sums on stream `stream`)."""
    studentize, method, alternative = options.mode == "welch", options.method, options.alternative
    na, nb = len(va), len(vb)
    pooled = np.concatenate([va, vb])
    centre = pooled.mean()
    # in units of 2**e, so that the sums of squares cannot overflow (values of 1e160)
    cen, e = unit_scale(np.ascontiguousarray(pooled - centre))
    s1, s2 = cen.sum(), (cen * cen).sum()
    ca = cen[:na]
    s1a, s2a = ca.sum(), (ca * ca).sum()

    def welch(s1a, s2a, na, s1b, s2b, nb):  # the raw difference back in the values' unit
        t = _welch_from_sums(s1a, s2a, na, s1b, s2b, nb, studentize)
        return t if studentize else np.ldexp(t, e)

    observed = float(welch(s1a, s2a, na, s1 - s1a, s2 - s2a, nb))
    # variances of the group means in units of 4**e (exactly those of the values, scaled)
    ua = np.ldexp(va, -e).var(ddof=1) / na if na >= 2 else math.nan
    ub = np.ldexp(vb, -e).var(ddof=1) / nb if nb >= 2 else math.nan
    out = {
        "values": (va.mean(), vb.mean()),
        "difference": float(va.mean() - vb.mean()),
        "statistic": observed,
        "null": None,
        "count": None,
        "exact": False,
        "se": None,
    }
    se = float(np.ldexp(math.sqrt(ua + ub), e)) if min(na, nb) >= 2 else None
    if studentize:
        out["se"] = se
    out["interval_se"] = se
    if method == "asymptotic":
        out["pvalue"] = _welch_pvalue(observed, ua, ub, na, nb, alternative)
        return out
    k = min(na, nb)
    exact = method == "exact"

    def null_of(ss1, ss2):
        if na == k:  # the subset is the first group's rows
            return welch(ss1, ss2, na, s1 - ss1, s2 - ss2, nb)
        return welch(s1 - ss1, s2 - ss2, na, ss1, ss2, nb)

    if exact:
        ss1, ss2 = _subset_sums_exact(cen, k)
    else:

        def draw(start: int, count: int) -> np.ndarray:
            sums = _means.subset_sums(cen, k, count, key, stream, options.n_threads, start)
            return null_of(sums[:, 0], sums[:, 1])

        out["sampler"] = Sampler(draw, observed, alternative, options.return_null)
        return out

    null = null_of(ss1, ss2)
    out["null"] = null
    out["exact"] = True
    out["pvalue"] = exact_pvalue(null, np.full(len(null), 1.0 / len(null)), observed, alternative)
    return out


def _basic_bootstrap(resamples: _GroupResamples, options: _BootstrapOptions):
    """The basic bootstrap test of each compared pair (Sec. 4.2) and its result."""
    labels = resamples.labels
    sizes = np.bincount(resamples.codes, minlength=len(labels))
    pairs = comparison_pairs(sizes, labels, options.reference, options.comparisons)
    boots = {g: resamples.draw(g) for g in np.unique(pairs).tolist()}
    a_level = 1.0 - options.confidence_level
    diffs, pvals, los, his, nulls = [], [], [], [], []
    for ga, gb in pairs:
        t = resamples.values[ga] - resamples.values[gb]
        d = boots[ga] - boots[gb] - t
        d = d[np.isfinite(d)]
        if d.size == 0:
            raise ValueError("every bootstrap resample left a group's metric undefined")
        upper, lower = np.mean(d >= t), np.mean(d <= t)
        p = {"two-sided": min(1.0, 2 * min(upper, lower)), "greater": upper, "less": lower}
        q_lo, q_hi = np.quantile(d, [a_level / 2, 1 - a_level / 2])
        diffs.append(t)
        pvals.append(float(p[options.alternative]))
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
        metric=resamples.name,
        groups=labels,
        group_values=resamples.values,
        comparisons=[(label_list[i], label_list[j]) for i, j in pairs],
        alternative=options.alternative,
        confidence_level=options.confidence_level,
        n_bootstrap=options.n_bootstrap,
        pvalue_adjusted=family_adjusted(pv, options.adjust),
        adjust=options.adjust if not single else None,
        null_distribution=nulls[0] if options.return_null and single else None,
    )
