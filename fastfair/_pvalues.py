"""p-values from permutation distributions, their Monte-Carlo error, and multiplicity.

Conventions (scipy.stats; Phipson & Smyth 2010): a Monte-Carlo p-value with B random
permutations is (1 + #{T_b at least as extreme as T_obs}) / (1 + B), valid at finite B; an
exact p-value from the enumerated distribution has no +1. Statistics within a relative
1e-12 of the observed one count as ties (they differ only by rounding): relative to the
larger of |observed| and 1, or, when every permuted statistic is below 1 in size, of
|observed| and the largest of them (statistics in units of 1e-12 are not all ties).
"""

from __future__ import annotations

import numpy as np

from fastfair._scipy import special, stats
from fastfair._validation import show_value

__all__ = [
    "ALTERNATIVES",
    "adjust_pvalues",
    "asymptotic_pvalue",
    "exact_pvalue",
    "max_exceedance_pvalues",
    "maxt_pvalues",
    "monte_carlo_pvalue",
    "wilson_interval",
]

ALTERNATIVES = ("two-sided", "greater", "less")
_RTOL = 1e-12


def orient_extremes(null, observed, alternative):
    """Map (null, observed) so that larger means more extreme, for any alternative."""
    null = np.asarray(null, dtype=np.float64)
    observed = np.asarray(observed, dtype=np.float64)
    if alternative == "two-sided":
        return np.abs(null), np.abs(observed)
    if alternative == "less":
        return -null, -observed
    return null, observed


def tie_tolerance(observed, null=None):
    """Tie tolerance: _RTOL times max(|observed|, 1), the 1 lowered to the size of the
    largest permuted statistic (per column) when it is smaller."""
    floor = 1.0
    if null is not None and np.size(null):
        size = np.abs(np.asarray(null, dtype=np.float64))
        floor = np.minimum(1.0, np.where(np.isfinite(size), size, 0.0).max(axis=0))
    return _RTOL * np.maximum(np.abs(observed), floor)


def monte_carlo_pvalue(null, observed, alternative="two-sided"):
    """(1 + count of permuted statistics as extreme as observed) / (1 + B).

    null has shape (B,) or (B, C) with observed of shape () or (C,). Returns
    (pvalue, count) where count is the number of extreme permuted statistics.
    """
    null_o, obs_o = orient_extremes(null, observed, alternative)
    count = np.sum(null_o >= obs_o - tie_tolerance(obs_o, null_o), axis=0)
    return (count + 1.0) / (null_o.shape[0] + 1.0), count


def exact_pvalue(values, probabilities, observed, alternative="two-sided", mid_p=False):
    """p-value from an enumerated permutation distribution (values with probabilities).

    With mid_p, statistics tied with the observed one count one half (Lancaster's mid-p:
    less conservative for discrete distributions, no longer guaranteed <= alpha).
    """
    vals_o, obs_o = orient_extremes(values, observed, alternative)
    tol = tie_tolerance(obs_o, vals_o)
    probabilities = np.asarray(probabilities, dtype=np.float64)
    ge = probabilities[vals_o >= obs_o - tol].sum()
    if mid_p:
        ties = probabilities[np.abs(vals_o - obs_o) <= tol].sum()
        ge -= 0.5 * ties
    return float(min(1.0, max(0.0, ge)))


def asymptotic_pvalue(statistic, alternative="two-sided", df=None):
    """p-value of a statistic that is N(0, 1) (df None) or chi-square with df under H0."""
    statistic = np.asarray(statistic, dtype=np.float64)
    if df is not None:
        return stats.chi2.sf(statistic, df)
    if alternative == "two-sided":
        return 2.0 * special.ndtr(-np.abs(statistic))
    if alternative == "greater":
        return special.ndtr(-statistic)
    return special.ndtr(statistic)


def wilson_interval(count, n, confidence_level=0.95):
    """Wilson score interval for a binomial proportion count / n (arrays allowed).

    For a Monte-Carlo p-value pass count = number of extreme permutations and n = B: the
    interval covers the p-value that infinitely many permutations would give.
    """
    count = np.asarray(count, dtype=np.float64)
    z = special.ndtri(0.5 + confidence_level / 2.0)
    phat = count / n
    denom = 1.0 + z * z / n
    centre = (phat + z * z / (2.0 * n)) / denom
    half = z * np.sqrt(phat * (1.0 - phat) / n + z * z / (4.0 * n * n)) / denom
    return np.clip(centre - half, 0.0, 1.0), np.clip(centre + half, 0.0, 1.0)


def adjust_pvalues(pvalues, method="holm"):
    """Adjusted p-values: "holm" (step-down) and "bonferroni" control the family-wise error
    rate, "bh" (Benjamini-Hochberg step-up) the false discovery rate; "none" copies."""
    p = np.asarray(pvalues, dtype=np.float64)
    m = p.size
    if method == "none" or m <= 1:
        return p.copy()
    if method == "bonferroni":
        return np.minimum(1.0, p * m)
    if method in ("holm", "bh"):
        order = np.argsort(p, kind="stable")
        if method == "holm":  # max over j <= i of (m - j + 1) p_(j)
            stepped = np.maximum.accumulate((m - np.arange(m)) * p[order])
        else:  # min over j >= i of m p_(j) / j
            stepped = np.minimum.accumulate((p[order] * m / np.arange(1, m + 1))[::-1])[::-1]
        adjusted = np.empty(m)
        adjusted[order] = np.minimum(1.0, stepped)
        return adjusted
    raise ValueError(
        f"adjust must be one of 'holm', 'bonferroni', 'bh', 'none'; got {show_value(method)}"
    )


def maxt_pvalues(joint_null, observed, alternative="two-sided"):
    """Single-step max-T adjusted p-values (Westfall & Young 1993).

    joint_null has shape (B, C): the C statistics of each joint permutation of all groups.
    The adjusted p-value of comparison c is (1 + #{b: max_c' T_bc' >= T_c}) / (1 + B).
    """
    null_o, obs_o = orient_extremes(joint_null, observed, alternative)
    return max_exceedance_pvalues(null_o.max(axis=1), obs_o - tie_tolerance(obs_o, null_o))


def family_adjusted(pvalues, adjust, observed=None, alternative="two-sided", joint_null=None):
    """Family-wise adjusted p-values of several comparisons, None for one: `adjust`
    (:func:`adjust_pvalues`), or ``"maxT"`` from the joint permutation statistics that
    ``joint_null()`` draws (single-step max-T, never below the raw p-value)."""
    if len(pvalues) < 2:
        return None
    if adjust == "maxT":
        return np.maximum(maxt_pvalues(joint_null(), observed, alternative), pvalues)
    return adjust_pvalues(pvalues, adjust)


def max_exceedance_pvalues(maxima, thresholds):
    """(1 + #{b: maxima_b >= threshold}) / (1 + B) for each threshold: max-T p-values from
    the B resampled maxima of a family's statistics (thresholds already lowered by the
    tie tolerance)."""
    maxima = np.asarray(maxima, dtype=np.float64)
    count = np.sum(maxima[:, None] >= np.atleast_1d(thresholds)[None, :], axis=0)
    return (count + 1.0) / (maxima.shape[0] + 1.0)
