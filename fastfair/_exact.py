"""Exact enumeration of the permutation distribution of two groups' cell counts
(multivariate hypergeometric within each stratum, truncated to Hoeffding windows)."""

from __future__ import annotations

import math

import numpy as np

from fastfair import _counts
from fastfair._metrics import ConfusionMetric
from fastfair._pvalues import exact_pvalue
from fastfair._scipy import special

#: Largest number of support points an exact enumeration may visit.
MAX_EXACT_POINTS = 2_000_000
#: Mass of the permutation distribution that exact enumeration may neglect (Hoeffding bound).
EXACT_NEGLECTED_MASS = 1e-20


class ExactInfeasibleError(ValueError):
    """Exact enumeration of the permutation distribution would be too large."""


def _too_many(points: int) -> ExactInfeasibleError:
    return ExactInfeasibleError(
        f"the exact test is infeasible here: enumerating the permutation distribution needs "
        f"{points:.3g} support points (at most {MAX_EXACT_POINTS:,}); use "
        "method='monte_carlo' (or 'asymptotic')"
    )


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
        if hi - lo + 1 > MAX_EXACT_POINTS:  # checked before the support is allocated
            raise _too_many(hi - lo + 1)
        x = np.arange(lo, hi + 1)
        return [x, n_a - x], _hypergeom_pmf(sizes[0], sizes[1], n_a, lo, hi)
    if len(sizes) == 3:
        total = sum(sizes)
        lo1, hi1 = _hypergeom_window(sizes[0], total - sizes[0], n_a)
        lo2, hi2 = _hypergeom_window(sizes[1], total - sizes[1], n_a)
        if (hi1 - lo1 + 1) * (hi2 - lo2 + 1) > MAX_EXACT_POINTS:
            raise _too_many((hi1 - lo1 + 1) * (hi2 - lo2 + 1))
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
            raise _too_many(n_points)
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


def exact_pair(counts, spec_metric, spec, strata, observed, alternative, mid_p, want_null):
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
    p = math.fsum(p1 * tail[lo])
    if mid_p:
        hi = np.searchsorted(v2s, observed - v1 + tol, side="right")
        p -= 0.5 * math.fsum(p1 * (tail[lo] - tail[hi]))
    support = probs = None
    if want_null and len(v1) * len(v2) <= MAX_EXACT_POINTS:
        support = np.add.outer(v1, v2).ravel()
        probs = np.outer(p1, p2).ravel()
    p += 4 * EXACT_NEGLECTED_MASS  # mass outside the windows
    return min(1.0, max(0.0, p)), support, probs
