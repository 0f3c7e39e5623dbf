"""Exact power of the audit's exact conditional test of a rate difference between two groups.

The audit tests a rate metric (TPR, PPV, selection rate, ...) of two groups with the exact
permutation test under the conditional scheme (:func:`fastfair.permutation_test_from_counts`,
``method="auto"``): the rows of the metric's denominator (e.g. the positives for TPR) are
permuted, so given the denominators ``m1, m2`` and the total count ``t`` of the numerator
the first group's count is hypergeometric, and the studentized statistic with the pooled
variance is a monotone function of ``|x1 - t m1 / M|`` (two-sided) or of ``x1``.

Power at group sizes ``n1, n2`` is the expectation over the denominators
(``D_g ~ Binomial(n_g, d_g)``) and the numerators (``X_g ~ Binomial(m_g, r_g)``) of the
test's rejection. For fixed denominators it is enumerated exactly on the
(total, first count) lattice; the denominators are summed exactly where their window is
small, and otherwise over equal-mass bins of their distribution, each represented by its
mean (a quadrature validated against the full sum in tests/test_planning_exact.py).
"""

from __future__ import annotations

import math

import numpy as np

from fastfair._scipy import special, stats

#: Half-width, in standard deviations, of every window summed (the mass outside ~1e-10).
WIDTH = 6.5
#: Denominator windows with at most this many values are summed exactly.
FULL_WINDOW = 30
#: Otherwise their distribution is cut into this many equal-mass bins.
BINS = 9


def binomial_window(n: int, p: float) -> tuple[int, int, np.ndarray]:
    """(lo, hi, pmf on lo..hi) of Binomial(n, p), all but ~1e-10 of its mass."""
    if n == 0 or p <= 0.0 or p >= 1.0:
        v = n if p >= 1.0 else 0
        return v, v, np.ones(1)
    sd = math.sqrt(n * p * (1.0 - p))
    lo = max(0, math.floor(n * p - WIDTH * sd - 2))
    hi = min(n, math.ceil(n * p + WIDTH * sd + 2))
    return lo, hi, stats.binom.pmf(np.arange(lo, hi + 1), n, p)


def _lookup(pmf: np.ndarray, lo: int, idx: np.ndarray) -> np.ndarray:
    j = idx - lo
    ok = (j >= 0) & (j < pmf.size)
    return np.where(ok, pmf[np.clip(j, 0, pmf.size - 1)], 0.0)


def _two_sided_pvalues(pmf: np.ndarray, x: np.ndarray, mu: np.ndarray, start: np.ndarray):
    """P0(|X - mu| >= |x - mu|) on every row (a total t) of the lattice."""
    upper = np.cumsum(pmf[:, ::-1], axis=1)[:, ::-1]  # P(X >= x)
    lower = np.cumsum(pmf, axis=1)  # P(X <= x)
    mirror = 2.0 * mu[:, None] - x  # the point as far from the mean on the other side
    ncol = x.shape[1]
    j_lo = np.floor(mirror + 1e-9).astype(np.int64) - start[:, None]
    j_hi = np.ceil(mirror - 1e-9).astype(np.int64) - start[:, None]
    o_lo = np.take_along_axis(lower, np.clip(j_lo, 0, ncol - 1), 1)
    o_lo = np.where(j_lo < 0, 0.0, np.where(j_lo >= ncol, 1.0, o_lo))
    o_hi = np.take_along_axis(upper, np.clip(j_hi, 0, ncol - 1), 1)
    o_hi = np.where(j_hi >= ncol, 0.0, np.where(j_hi < 0, 1.0, o_hi))
    out = np.where(x >= mu[:, None], upper + o_lo, lower + o_hi)
    # x at the mean is its own mirror: every outcome is as far, the row's whole mass (the
    # sum above counts P(X = mu) twice)
    return np.where(np.abs(x - mu[:, None]) <= 1e-9, upper[:, :1], out)


def conditional_power(
    m1: int, m2: int, r1: float, r2: float, alpha: float, side: int, logfact: np.ndarray
) -> float:
    """Power of the exact conditional test with denominators ``m1, m2`` fixed.

    ``side``: 0 two-sided, +1 rejects large first counts, -1 small ones. ``logfact`` holds
    ``log k!`` for k = 0..m1 + m2 at least.
    """
    if m1 == 0 or m2 == 0:
        return 0.0  # the audit cannot test an empty group
    a1, _, w1 = binomial_window(m1, r1)
    a2, _, w2 = binomial_window(m2, r2)
    v1, v2 = m1 * r1 * (1 - r1), m2 * r2 * (1 - r2)
    mean_t, sd_t, big_m = m1 * r1 + m2 * r2, math.sqrt(v1 + v2), m1 + m2
    t = np.arange(
        max(0, math.floor(mean_t - WIDTH * sd_t - 2)),
        min(big_m, math.ceil(mean_t + WIDTH * sd_t + 2)) + 1,
    )
    mu = t * (m1 / big_m)
    sd_null = math.sqrt(m1 * m2 / (4.0 * max(big_m - 1, 1)))  # the largest, at t = M/2
    sd_alt = math.sqrt(v1 * v2 / (v1 + v2)) if v1 + v2 > 0 else 0.0
    half = math.ceil(abs(m1 * r1 - m1 * mean_t / big_m) + WIDTH * max(sd_null, sd_alt) + 2)
    start = np.floor(mu).astype(np.int64) - half
    x = start[:, None] + np.arange(2 * half + 1)[None, :]
    tt = t[:, None]
    valid = (x >= 0) & (x <= m1) & (x <= tt) & (tt - x <= m2)
    xs = np.where(valid, x, 0)
    log_row = logfact[m1] + logfact[m2] - logfact[big_m] + logfact[t] + logfact[big_m - t]
    log_cell = logfact[xs] + logfact[m1 - xs] + logfact[tt - xs] + logfact[m2 - tt + xs]
    pmf = np.where(valid, np.exp(np.where(valid, log_row[:, None] - log_cell, -np.inf)), 0.0)
    if side == 0:
        pval = _two_sided_pvalues(pmf, x, mu, start)
    elif side > 0:
        pval = np.cumsum(pmf[:, ::-1], axis=1)[:, ::-1]
    else:
        pval = np.cumsum(pmf, axis=1)
    alt = _lookup(w1, a1, x) * _lookup(w2, a2, tt - x)
    return float(np.sum(alt[pval <= alpha]))


def lattice_cells(n: tuple[int, int], den: tuple[float, float], rate: tuple[float, float]):
    """Cells of the (total, count) lattice of one :func:`conditional_power` at the expected
    denominators: the cost of an exact power grows with it."""
    m1, m2 = max(1.0, n[0] * den[0]), max(1.0, n[1] * den[1])
    v1, v2 = m1 * rate[0] * (1 - rate[0]), m2 * rate[1] * (1 - rate[1])
    big_m = m1 + m2
    sd_null = math.sqrt(m1 * m2 / (4.0 * big_m))
    sd_alt = math.sqrt(v1 * v2 / (v1 + v2)) if v1 + v2 > 0 else 0.0
    shift = abs(m1 * rate[0] - m1 * (m1 * rate[0] + m2 * rate[1]) / big_m)
    rows = 2 * WIDTH * math.sqrt(v1 + v2) + 5
    return rows * (2 * (shift + WIDTH * max(sd_null, sd_alt)) + 5)


def denominator_nodes(n: int, d: float, bins: int = BINS) -> tuple[np.ndarray, np.ndarray]:
    """Values and weights summing over a group's denominator ``D ~ Binomial(n, d)``.

    Every value of its window when there are at most FULL_WINDOW, else ``bins`` equal-mass
    bins, each represented by its mean rounded to an integer."""
    lo, hi, w = binomial_window(n, d)
    m = np.arange(lo, hi + 1)
    w = w / w.sum()
    if m.size <= max(FULL_WINDOW, bins):
        return m, w
    which = np.minimum(((np.cumsum(w) - 0.5 * w) * bins).astype(np.int64), bins - 1)
    mass = np.bincount(which, weights=w, minlength=bins)
    mean = np.bincount(which, weights=w * m, minlength=bins)
    keep = mass > 0
    return np.round(mean[keep] / mass[keep]).astype(np.int64), mass[keep]


def exact_power(
    n: tuple[int, int],
    den: tuple[float, float],
    rate: tuple[float, float],
    alpha: float,
    side: int,
    bins: int = BINS,
) -> float:
    """Power of the audit's exact conditional test with ``n`` rows per group, each group's
    denominator fraction ``den`` (1 for the selection rate and accuracy) and metric ``rate``.
    """
    m1s, w1 = denominator_nodes(int(n[0]), den[0], bins)
    m2s, w2 = denominator_nodes(int(n[1]), den[1], bins)
    logfact = special.gammaln(np.arange(m1s.max() + m2s.max() + 2, dtype=np.float64) + 1.0)
    total = 0.0
    for m1, p1 in zip(m1s.tolist(), w1):
        for m2, p2 in zip(m2s.tolist(), w2):
            total += p1 * p2 * conditional_power(m1, m2, rate[0], rate[1], alpha, side, logfact)
    return min(1.0, total)
