"""Inference: every slice against its complement, with error control over the search.

A metric is a rate: successes (e.g. TP) among units (e.g. the rows with y_true = 1). Under
the null that the slicing features carry no information on the success among the units
(predictions exchangeable among the rows of each label for the TPR), slice s's successes
X_s are hypergeometric: X_s ~ H(N units, K successes, n_s drawn). Its statistic

    z_s = (X_s - n_s K / N) / sqrt(n_s (N - n_s) K (N - K) / (N^2 (N - 1)))

has null mean 0 and variance 1 exactly, whatever the slice's size, so the maximum over
slices is balanced (a large slice does not dominate the critical value). It is the pooled
two-sample statistic of the slice against its complement times sqrt((N - 1) / N).
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from fastfair._pvalues import max_exceedance_pvalues, orient_extremes, tie_tolerance
from fastfair._random import stream_key
from fastfair._scipy import special, stats
from fastfair._slices import slice_null, slice_null_dense
from fastfair.slices.results import FoundSlice

__all__ = [
    "Family",
    "adjust_family",
    "exact_pvalues",
    "found_slice",
    "null_maxima",
    "rate_parts",
    "simultaneous_intervals",
    "standardize",
]

_ALTERNATIVE_CODE = {"two-sided": 0, "greater": 1, "less": 2}


@dataclass(frozen=True)
class Family:
    """The slices tested: indices into the lattice, their counts and observed statistics."""

    index: np.ndarray
    units: np.ndarray
    successes: np.ndarray
    mean: np.ndarray
    inv_sd: np.ndarray
    statistic: np.ndarray
    n_units: int
    n_successes: int


def rate_parts(counts: np.ndarray, num_mask: int, den_mask: int) -> tuple[np.ndarray, np.ndarray]:
    """(successes, units) from confusion counts of shape (..., 4)."""
    num = sum(counts[..., c] for c in range(4) if num_mask & (1 << c))
    den = sum(counts[..., c] for c in range(4) if den_mask & (1 << c))
    return np.asarray(num, dtype=np.int64), np.asarray(den, dtype=np.int64)


def standardize(index, successes, units, n_successes: int, n_units: int) -> Family:
    """Standardize each tested slice by its exact hypergeometric null mean and variance."""
    n, big_n, k = units.astype(np.float64), float(n_units), float(n_successes)
    mean = n * k / big_n
    var = n * (big_n - n) * k * (big_n - k) / (big_n * big_n * (big_n - 1.0))
    inv_sd = 1.0 / np.sqrt(var)
    statistic = (successes - mean) * inv_sd
    return Family(index, units, successes, mean, inv_sd, statistic, n_units, n_successes)


def exact_pvalues(fam: Family, alternative: str) -> np.ndarray:
    """Each slice's exact hypergeometric p-value, ordered by the same statistic."""
    law = stats.hypergeom(fam.n_units, fam.n_successes, fam.units)
    x = fam.successes
    if alternative == "greater":
        return np.clip(law.sf(x - 1), 0.0, 1.0)
    if alternative == "less":
        return np.clip(law.cdf(x), 0.0, 1.0)
    gap = np.abs(x - fam.mean)
    slack = 1e-9 * (1.0 + fam.mean)
    low = np.floor(fam.mean - gap + slack)
    high = np.ceil(fam.mean + gap - slack)
    return np.clip(law.cdf(low) + law.sf(high - 1), 0.0, 1.0)


def null_maxima(fam: Family, cell_map, cell_units, options, random_state, n_threads,
                layout=None):  # fmt: skip
    """The joint permutations' maxima and each slice's exceedance count (csrc/_slices.pyx):
    by the dense marginal walk when `layout` is given, else by the map of each set (the
    same draws, so the same results)."""
    _, observed = orient_extremes(fam.statistic, fam.statistic, options.alternative)
    threshold = observed - tie_tolerance(observed)
    subset = use_subset(fam.n_successes, fam.n_units, len(cell_units))
    if layout is not None:
        return slice_null_dense(
            np.ascontiguousarray(cell_units, dtype=np.int64), fam.n_successes, layout.cell_index,
            layout.levels, min(options.max_depth, layout.levels.size), layout.leaf_offset,
            layout.leaf_map, np.ascontiguousarray(fam.mean), np.ascontiguousarray(fam.inv_sd),
            np.ascontiguousarray(threshold), _ALTERNATIVE_CODE[options.alternative],
            options.n_permutations, stream_key(random_state), 0, n_threads, 0, subset,
        )  # fmt: skip
    maxima, exceed, _ = slice_null(
        np.ascontiguousarray(cell_units, dtype=np.int64), fam.n_successes, cell_map,
        np.ascontiguousarray(fam.mean), np.ascontiguousarray(fam.inv_sd),
        np.ascontiguousarray(threshold), _ALTERNATIVE_CODE[options.alternative],
        options.n_permutations, stream_key(random_state), 0, n_threads, 0, False, subset,
    )  # fmt: skip
    return maxima, exceed


def use_subset(n_successes: int, n_units: int, n_cells: int) -> bool:
    """Draw a permutation as a uniform subset of the units (about 4 ns per unit drawn) rather
    than one hypergeometric draw per cell (about 120 ns): when the smaller of successes and
    failures is below 25 draws per cell (measured, csrc/_slices.pyx). Same law either way."""
    return min(n_successes, n_units - n_successes) < 25 * n_cells and n_units < 2**32 - 1


def adjust_family(
    fam: Family, raw: np.ndarray, maxima, options
) -> tuple[np.ndarray, float, float]:
    """(adjusted p-values, critical value, effective number of slices)."""
    m = raw.size
    alpha = options.alpha
    if options.adjust == "maxT":
        _, observed = orient_extremes(fam.statistic, fam.statistic, options.alternative)
        adjusted = max_exceedance_pvalues(maxima, observed - tie_tolerance(observed))
        adjusted = np.maximum(adjusted, raw)  # never below the slice's own exact p-value
        rank = int(np.ceil((1.0 - alpha) * (maxima.size + 1))) - 1
        critical = float(np.sort(maxima)[min(rank, maxima.size - 1)])
        return adjusted, critical, alpha / float(np.mean(_exact_tails(fam, critical, options)))
    if options.adjust == "bonferroni":
        return np.minimum(1.0, raw * m), _quantile(alpha / m, options.alternative), float(m)
    adjusted = benjamini_yekutieli(raw)
    selected = max(int(np.sum(adjusted <= alpha)), 1)
    return adjusted, _quantile(alpha * selected / m, options.alternative), float(m)


def benjamini_yekutieli(p: np.ndarray) -> np.ndarray:
    """Benjamini-Yekutieli step-up adjusted p-values (FDR under any dependence)."""
    m = p.size
    c_m = float(np.sum(1.0 / np.arange(1, m + 1)))
    order = np.argsort(p, kind="stable")
    stepped = np.minimum.accumulate((p[order] * m * c_m / np.arange(1, m + 1))[::-1])[::-1]
    adjusted = np.empty(m)
    adjusted[order] = np.minimum(1.0, stepped)
    return adjusted


def _exact_tails(fam: Family, critical: float, options) -> np.ndarray:
    """Each slice's exact null probability that its oriented statistic reaches `critical`."""
    law = stats.hypergeom(fam.n_units, fam.n_successes, fam.units)
    sd = 1.0 / fam.inv_sd
    slack = 1e-9 * (1.0 + fam.mean)
    upper = law.sf(np.ceil(fam.mean + critical * sd - slack) - 1)
    lower = law.cdf(np.floor(fam.mean - critical * sd + slack))
    if options.alternative == "greater":
        return upper
    if options.alternative == "less":
        return lower
    return upper + lower


def _quantile(level: float, alternative: str) -> float:
    per_side = level / 2.0 if alternative == "two-sided" else level
    return float(-special.ndtri(per_side))


def simultaneous_intervals(value, other, n, n_other, critical: float, alternative: str):
    """difference +- critical * its standard error (Agresti-Caffo: one success and one
    failure added to each side for the standard error only); one-sided bounds open."""
    p1 = (value * n + 1.0) / (n + 2.0)
    p2 = (other * n_other + 1.0) / (n_other + 2.0)
    se = np.sqrt(p1 * (1.0 - p1) / (n + 2.0) + p2 * (1.0 - p2) / (n_other + 2.0))
    diff = value - other
    lower = diff - critical * se if alternative != "less" else np.full_like(diff, -1.0)
    upper = diff + critical * se if alternative != "greater" else np.full_like(diff, 1.0)
    return np.maximum(lower, -1.0), np.minimum(upper, 1.0)


def found_slice(predicates, size, fam_row, fam: Family, interval, raw, adjusted, parents):
    """One :class:`FoundSlice` from the family's arrays at row `fam_row`."""
    x, n = int(fam.successes[fam_row]), int(fam.units[fam_row])
    value = x / n
    other = (fam.n_successes - x) / (fam.n_units - n)
    return FoundSlice(
        predicates=predicates, size=int(size), n=n, value=value, complement_value=other,
        difference=value - other,
        confidence_interval=(float(interval[0][fam_row]), float(interval[1][fam_row])),
        statistic=float(fam.statistic[fam_row]), pvalue=float(raw[fam_row]),
        pvalue_adjusted=float(adjusted[fam_row]), parent_values=parents,
    )  # fmt: skip
