"""Score statistics and intervals for a difference of two independent proportions.

Miettinen & Nurminen (1985), "Comparative analysis of two rates", Stat. Med. 4: 213-226;
Farrington & Manning (1990), Stat. Med. 9: 1447-1454. For proportions p1 = x1/n1 and
p2 = x2/n2 and a hypothesised difference d = p1 - p2, the score statistic is

    Z(d) = (p1_hat - p2_hat - d) / sqrt(V(d)),
    V(d) = (p1~ (1 - p1~) / n1 + p2~ (1 - p2~) / n2) * N / (N - 1),

with (p1~, p2~ = p1~ - d) the maximum-likelihood estimates restricted to p1 - p2 = d (the
root of a cubic, closed form below) and N = n1 + n2; without the factor N / (N - 1) it is the
Farrington-Manning statistic. Z(d) decreases in d, so the interval {d : |Z(d)| <= z} is found
by bisection; it is the set of tolerances a two-sided score test does not reject, which is
what makes the intervals, tolerance tests and equivalence tests of fastfair agree.

Weighted rates use Kish effective sizes: n = (sum w)^2 / sum w^2 and x = p_hat * n.
"""

from __future__ import annotations

import math

import numpy as np

from fastfair._scipy import special

#: Bisection steps on [-1, 1]: 2^-60 is below double precision of a difference.
_BISECTION_STEPS = 60
#: Up to this many comparisons the interval ends are found on plain floats, not arrays.
_SCALAR_PATH_MAX = 64


def _cubic(x1, n1, x2, n2, d):
    """The Farrington-Manning cubic a q^3 + b q^2 + c q + e = 0 in the restricted p1 (eq.
    13), reduced for its trigonometric root: (a, b, v, s) with v = b^3 / (27 a^3) -
    b c / (6 a^2) + e / (2 a) and s = b^2 / (9 a^2) - c / (3 a). Plain arithmetic, the same
    on floats (the interval's scalar path) and on arrays."""
    p1, p2 = x1 / n1, x2 / n2
    theta = n2 / n1
    a = 1.0 + theta
    b = -(1.0 + theta + p1 + theta * p2 + d * (theta + 2.0))
    c = d * d + d * (2.0 * p1 + theta + 1.0) + p1 + theta * p2
    e = -p1 * d * (1.0 + d)
    v = b**3 / (27.0 * a**3) - b * c / (6.0 * a * a) + e / (2.0 * a)
    return a, b, v, b * b / (9.0 * a * a) - c / (3.0 * a)


def restricted_mle(x1, n1, x2, n2, d):
    """Maximum-likelihood (p1, p2) under p1 - p2 = d (Farrington & Manning 1990, eq. 13).

    Arrays broadcast; returns (p1~, p2~) clipped to [0, 1].
    """
    x1, n1, x2, n2, d = np.broadcast_arrays(
        *(np.asarray(v, dtype=np.float64) for v in (x1, n1, x2, n2, d))
    )
    a, b, v, s = _cubic(x1, n1, x2, n2, d)
    u = np.sqrt(np.maximum(s, 0.0))
    u = np.where(v < 0, -u, u)
    with np.errstate(divide="ignore", invalid="ignore"):
        ratio = np.where(u == 0, 0.0, v / u**3)
    w = (np.pi + np.arccos(np.clip(ratio, -1.0, 1.0))) / 3.0
    q1 = np.clip(2.0 * u * np.cos(w) - b / (3.0 * a), 0.0, 1.0)
    q2 = np.clip(q1 - d, 0.0, 1.0)
    return q1, q2


def unpooled_variance(p1, n1, p2, n2):
    """Plug-in variance of p1 - p2, p1(1 - p1)/n1 + p2(1 - p2)/n2 (the Wald statistic's).

    Where it is 0 (both rates 0 or 1) the rates are shrunk by half a pseudo-observation,
    r = (p n + 1/2)/(n + 1), and the variance is r1(1 - r1)/(n1 + 1) + r2(1 - r2)/(n2 + 1),
    so a non-zero difference has a finite statistic. The one rule of the package: the
    permutation tests' unpooled statistic does the same in compiled code (csrc/ff_rates.h);
    tests/test_tolerance.py checks that both give the same statistic.
    """
    p1, n1, p2, n2 = (np.asarray(v, dtype=np.float64) for v in (p1, n1, p2, n2))
    var = p1 * (1 - p1) / n1 + p2 * (1 - p2) / n2
    r1, r2 = (p1 * n1 + 0.5) / (n1 + 1.0), (p2 * n2 + 0.5) / (n2 + 1.0)
    shrunk = r1 * (1.0 - r1) / (n1 + 1.0) + r2 * (1.0 - r2) / (n2 + 1.0)
    return np.where(var > 0, var, shrunk)


def score_statistic(x1, n1, x2, n2, d, *, correction: bool = True):
    """Z(d) of Miettinen-Nurminen (`correction`) or Farrington-Manning; 0/0 gives 0.

    A non-zero numerator with zero restricted variance (only at d = +-1) gives +-inf.
    """
    x1, n1, x2, n2, d = np.broadcast_arrays(
        *(np.asarray(v, dtype=np.float64) for v in (x1, n1, x2, n2, d))
    )
    q1, q2 = restricted_mle(x1, n1, x2, n2, d)
    var = q1 * (1.0 - q1) / n1 + q2 * (1.0 - q2) / n2
    if correction:
        total = n1 + n2
        var = var * total / np.maximum(total - 1.0, 1e-300)
    num = x1 / n1 - x2 / n2 - d
    with np.errstate(divide="ignore", invalid="ignore"):
        z = np.where(var > 0, num / np.sqrt(var), np.copysign(np.inf, num))
    # |num| below rounding of the rates counts as zero
    return np.where(np.abs(num) <= 1e-14, 0.0, z)


def score_interval(x1, n1, x2, n2, confidence_level: float = 0.95, *, correction: bool = True):
    """Two-sided score interval of p1 - p2 (Miettinen-Nurminen by default).

    The interval is {d : -z <= Z(d) <= z}, z = z_{(1 + level) / 2}; its ends are found by
    bisection (Z decreases in d). Returns (lower, upper) arrays of the broadcast shape.
    """
    z = special.ndtri(0.5 + confidence_level / 2.0)
    return score_bound(x1, n1, x2, n2, z, "lower", correction=correction), score_bound(
        x1, n1, x2, n2, z, "upper", correction=correction
    )


def score_bound(x1, n1, x2, n2, z, side: str, *, correction: bool = True):
    """One end of the score interval: the d with Z(d) = z (lower) or Z(d) = -z (upper).

    `z` may be an array (broadcast). Lower: the smallest d not rejected by the one-sided
    test of H0: p1 - p2 <= d at level Phi(-z), i.e. inf{d : Z(d) <= z}; upper symmetrically.
    """
    x1, n1, x2, n2, z = np.broadcast_arrays(
        *(np.asarray(v, dtype=np.float64) for v in (x1, n1, x2, n2, z))
    )
    if x1.size <= _SCALAR_PATH_MAX:  # a few comparisons: plain floats, ~100x less overhead
        out = np.array(
            [
                _bound_scalar(*map(float, args), side, correction)
                for args in zip(x1.ravel(), n1.ravel(), x2.ravel(), n2.ravel(), z.ravel())
            ]
        ).reshape(x1.shape)
        return out if out.ndim else float(out)
    diff = x1 / n1 - x2 / n2
    if side == "lower":
        lo, hi = np.full(diff.shape, -1.0), diff.copy()  # Z(lo) > z >= Z(hi) = 0 (z >= 0)
        target = z
    else:
        lo, hi = diff.copy(), np.full(diff.shape, 1.0)  # Z(lo) = 0 >= -z > Z(hi)
        target = -z
    for _ in range(_BISECTION_STEPS):
        mid = 0.5 * (lo + hi)
        zm = score_statistic(x1, n1, x2, n2, mid, correction=correction)
        if side == "lower":
            above = zm > target
            lo, hi = np.where(above, mid, lo), np.where(above, hi, mid)
        else:
            above = zm >= target
            lo, hi = np.where(above, mid, lo), np.where(above, hi, mid)
    out = hi if side == "lower" else lo
    return out if out.ndim else float(out)


def _z_scalar(x1: float, n1: float, x2: float, n2: float, d: float, correction: bool) -> float:
    """score_statistic for one comparison in plain floats (the same formulas)."""
    a, b, v, s = _cubic(x1, n1, x2, n2, d)
    u = math.sqrt(max(s, 0.0))
    if v < 0:
        u = -u
    ratio = 0.0 if u == 0 else min(max(v / u**3, -1.0), 1.0)
    w = (math.pi + math.acos(ratio)) / 3.0
    q1 = min(max(2.0 * u * math.cos(w) - b / (3.0 * a), 0.0), 1.0)
    q2 = min(max(q1 - d, 0.0), 1.0)
    var = q1 * (1.0 - q1) / n1 + q2 * (1.0 - q2) / n2
    if correction:
        var *= (n1 + n2) / max(n1 + n2 - 1.0, 1e-300)
    num = x1 / n1 - x2 / n2 - d
    if abs(num) <= 1e-14:
        return 0.0
    return num / math.sqrt(var) if var > 0 else math.copysign(math.inf, num)


def _bound_scalar(x1, n1, x2, n2, z, side, correction) -> float:
    """score_bound of one comparison: the same bisection on plain floats."""
    diff = x1 / n1 - x2 / n2
    lo, hi = (-1.0, diff) if side == "lower" else (diff, 1.0)
    target = z if side == "lower" else -z
    for _ in range(_BISECTION_STEPS):
        mid = 0.5 * (lo + hi)
        zm = _z_scalar(x1, n1, x2, n2, mid, correction)
        above = zm > target if side == "lower" else zm >= target
        lo, hi = (mid, hi) if above else (lo, mid)
    return hi if side == "lower" else lo


def kish_counts(rate, sum_w, sum_w2):
    """Effective (x, n) of a weighted rate: n = (sum w)^2 / sum w^2, x = rate * n."""
    n = np.asarray(sum_w, dtype=np.float64) ** 2 / np.asarray(sum_w2, dtype=np.float64)
    return np.asarray(rate, dtype=np.float64) * n, n


#: hybrid_interval gives a group Clopper-Pearson limits when it has fewer events or
#: non-events than this (Wilson's score limits otherwise): with a huge reference the
#: interval of a difference is that of the small group's rate, and Wilson's limits cover
#: only 0.86 at 15 rows and a rate of 0.99 (validation/difference_interval_coverage.py).
EXACT_LIMITS_BELOW = 50


def rate_limits(x, n, confidence_level: float = 0.95, exact_below: float = EXACT_LIMITS_BELOW):
    """Two-sided limits of one rate x / n: Clopper-Pearson (exact) where min(x, n - x) <
    `exact_below`, Wilson's score limits elsewhere. Returns (lower, upper) arrays.

    Examples
    --------
    >>> lo, hi = rate_limits(14, 15)
    >>> round(float(lo), 4), round(float(hi), 4)
    (0.6805, 0.9983)
    """
    x, n = np.broadcast_arrays(*(np.asarray(v, dtype=np.float64) for v in (x, n)))
    tail = (1.0 - confidence_level) / 2.0
    z = special.ndtri(1.0 - tail)
    with np.errstate(divide="ignore", invalid="ignore"):
        p = x / n
        centre = (p + z * z / (2 * n)) / (1 + z * z / n)
        half = z * np.sqrt(p * (1 - p) / n + z * z / (4 * n * n)) / (1 + z * z / n)
        cp_lo = np.where(x > 0, special.betaincinv(np.maximum(x, 1e-300), n - x + 1, tail), 0.0)
        cp_hi = np.where(
            x < n, special.betaincinv(x + 1, np.maximum(n - x, 1e-300), 1 - tail), 1.0
        )
    exact = np.minimum(x, n - x) < exact_below
    return np.where(exact, cp_lo, centre - half), np.where(exact, cp_hi, centre + half)


def hybrid_interval(x1, n1, x2, n2, confidence_level: float = 0.95):
    """The audit's interval of a rate difference p1 - p2: the union of Miettinen-Nurminen's
    (:func:`score_interval`) and Newcombe's (1998) square-and-add from each rate's limits
    (:func:`rate_limits`: Clopper-Pearson for a group with fewer than EXACT_LIMITS_BELOW
    events or non-events, Wilson elsewhere).

    Square-and-add: lower = D - sqrt((p1 - l1)^2 + (u2 - p2)^2), upper = D + sqrt((u1 -
    p1)^2 + (p2 - l2)^2) with D = p1 - p2. It covers where a small group meets a huge
    reference (Miettinen-Nurminen's interval is then the small group's score interval: 0.86
    at 15 rows and a rate of 0.99), but alone it fell to 0.927 at 30 vs 30 rows and rates
    0.01 vs 0.99 (D near -1), where Miettinen-Nurminen's covers: the union covers at least
    0.951 on both grids of validation/results/difference_interval_coverage.txt (exact).

    Examples
    --------
    >>> lo, hi = hybrid_interval(14, 15, 95_000, 100_000)
    >>> round(float(lo), 4), round(float(hi), 4)
    (-0.2695, 0.0483)
    """
    x1, n1, x2, n2 = (np.asarray(v, dtype=np.float64) for v in (x1, n1, x2, n2))
    l1, u1 = rate_limits(x1, n1, confidence_level)
    l2, u2 = rate_limits(x2, n2, confidence_level)
    p1, p2 = x1 / n1, x2 / n2
    diff = p1 - p2
    lower = diff - np.sqrt((p1 - l1) ** 2 + (u2 - p2) ** 2)
    upper = diff + np.sqrt((u1 - p1) ** 2 + (p2 - l2) ** 2)
    score_lo, score_hi = score_interval(x1, n1, x2, n2, confidence_level)
    return np.minimum(lower, score_lo), np.maximum(upper, score_hi)
