"""Tail probabilities of exact unconditional tests of two independent binomials.

Chan (1998), "Exact tests of equivalence and efficacy with a non-zero lower bound for
comparative studies", Stat. Med. 17: 1403-1413. For X1 ~ Bin(n1, p1), X2 ~ Bin(n2, p2) and
a rejection region R of outcomes (x1, x2), the test's size on the null boundary is

    P_(p1, p2)(R) = sum_{(x1, x2) in R} b(x1; n1, p1) b(x2; n2, p2),

maximised over the nuisance rate. R is passed as runs: for outcome x2 = run_x2[r] of the
second binomial, the outcomes x1 in [run_lo[r], run_hi[r]] of the first. One nuisance value
costs O(n1 + n2 + runs): the first binomial's pmf is accumulated once into a cumulative sum,
so a run costs one subtraction; the log binomial coefficients are computed once for all
nuisance values. Every nuisance value is independent, so results do not depend on threads.

Windowed sums (``tol > 0``): for large groups almost all terms are negligible, so each
binomial's pmf is computed only on a window [L, U] around its mode outside which its mass is
at most ``tol`` on each side, by the Chernoff bound P(X <= k) <= exp(-n D(k/n || p)) for
k <= np (and P(X >= k) <= exp(-n D(k/n || p)) for k >= np), D the Kullback-Leibler
divergence of Bernoulli(k/n) from Bernoulli(p). The windowed probability P_w of a region
drops only terms outside the windows, so

    P_w <= P(R) <= P_w + P(X1 outside W1) + P(X2 outside W2) <= P_w + 4 tol.

A window is about 2 sqrt(2 log(1/tol) n p (1 - p)) + 1 terms wide, so a nuisance value costs
O(sqrt(n1) + sqrt(n2) + log(runs)) instead of O(n1 + n2 + runs). ``tol = 0`` sums every
term (the order of the operations is then that of the full sum).
"""
import numpy as np

from cython.parallel cimport parallel, prange
from libc.math cimport exp, floor, log, log1p, lgamma
from libc.stdint cimport int64_t
from libc.stdlib cimport free, malloc


def log_binomial_coefficients(Py_ssize_t n):
    """log C(n, k) for k = 0..n."""
    out = np.empty(n + 1, dtype=np.float64)
    cdef double[::1] o = out
    cdef Py_ssize_t k
    cdef double top = lgamma(n + 1.0)
    for k in range(n + 1):
        o[k] = top - lgamma(k + 1.0) - lgamma(n - k + 1.0)
    return out


cdef inline double _kl(double a, double p) noexcept nogil:
    """D(a || p) of Bernoulli distributions, 0 <= a <= 1, 0 < p < 1."""
    cdef double out = 0.0
    if a > 0.0:
        out = a * log(a / p)
    if a < 1.0:
        out = out + (1.0 - a) * log((1.0 - a) / (1.0 - p))
    return out


cdef inline Py_ssize_t _kl_boundary(Py_ssize_t keep, Py_ssize_t drop, Py_ssize_t n, double p,
                                    double log_tol) noexcept nogil:
    """Bisection between `keep`, where n D(keep/n || p) >= -log_tol, and `drop`, where it
    does not (D is monotone between them): the last k on keep's side where it holds."""
    cdef Py_ssize_t m
    while (drop - keep if drop > keep else keep - drop) > 1:
        m = (keep + drop) // 2
        if n * _kl(m / <double> n, p) >= -log_tol:
            keep = m
        else:
            drop = m
    return keep


cdef inline Py_ssize_t _window_lo(Py_ssize_t n, double p, double log_tol) noexcept nogil:
    """Smallest k kept: P(X < k) <= exp(log_tol) for X ~ Bin(n, p) (Chernoff); 0 when
    log_tol is 0 (no window). Returned, not written through a pointer, so that inside
    prange the caller's variable is thread-private."""
    cdef Py_ssize_t mode
    if log_tol >= 0.0 or p <= 0.0:
        return 0
    if p >= 1.0:
        return n
    mode = <Py_ssize_t> floor(n * p)
    # largest a <= mode with n D(a/n || p) >= -log_tol (D decreases on [0, np]); every a
    # kept by the bisection satisfies it, so P(X <= a) <= tol
    if n * _kl(0.0, p) < -log_tol:
        return 0
    return _kl_boundary(0, mode, n, p, log_tol) + 1


cdef inline Py_ssize_t _window_hi(Py_ssize_t n, double p, double log_tol) noexcept nogil:
    """Largest k kept: P(X > k) <= exp(log_tol) (Chernoff); n when log_tol is 0."""
    cdef Py_ssize_t mode
    if log_tol >= 0.0 or p >= 1.0:
        return n
    if p <= 0.0:
        return 0
    mode = <Py_ssize_t> floor(n * p)
    # smallest b >= mode + 1 with n D(b/n || p) >= -log_tol (D increases on [np, n]); every
    # b kept satisfies it, so P(X >= b) <= tol
    if mode + 1 > n or n * _kl(1.0, p) < -log_tol:
        return n
    if n * _kl((mode + 1) / <double> n, p) >= -log_tol:
        return mode
    return _kl_boundary(n, mode + 1, n, p, log_tol) - 1


cdef inline void _pmf(const double[::1] logc, double p, Py_ssize_t lo, Py_ssize_t hi,
                      double* out) noexcept nogil:
    """out[k - lo] = b(k; n, p) for k = lo..hi (n = len(logc) - 1); exact zeros at p = 0
    or 1 (the window then holds the one outcome of mass 1, or all of them)."""
    cdef Py_ssize_t n = logc.shape[0] - 1
    cdef Py_ssize_t k
    cdef double lp, lq
    if p <= 0.0 or p >= 1.0:
        for k in range(lo, hi + 1):
            out[k - lo] = 0.0
        if (0 if p <= 0.0 else n) >= lo and (0 if p <= 0.0 else n) <= hi:
            out[(0 if p <= 0.0 else n) - lo] = 1.0
        return
    lp = log(p)
    lq = log1p(-p)
    for k in range(lo, hi + 1):
        out[k - lo] = exp(logc[k] + k * lp + (n - k) * lq)


def region_probabilities(const double[::1] logc1, const double[::1] logc2,
                         const double[::1] p1, const double[::1] p2,
                         const int64_t[::1] run_x2, const int64_t[::1] run_lo,
                         const int64_t[::1] run_hi, int n_threads=1, double tol=0.0):
    """P((X1, X2) in R) under (p1[g], p2[g]) for every g; R given as runs (see module doc),
    run_x2 non-decreasing. ``tol`` > 0: windowed sums, low by at most 4 tol (module doc)."""
    cdef Py_ssize_t n1 = logc1.shape[0] - 1
    cdef Py_ssize_t n2 = logc2.shape[0] - 1
    cdef Py_ssize_t n_grid = p1.shape[0]
    cdef Py_ssize_t n_runs = run_x2.shape[0]
    if p2.shape[0] != n_grid:
        raise ValueError("p1 and p2 must have the same length")
    if run_lo.shape[0] != n_runs or run_hi.shape[0] != n_runs:
        raise ValueError("run_x2, run_lo and run_hi must have the same length")
    if n_runs and (np.min(run_x2) < 0 or np.max(run_x2) > n2 or np.min(run_lo) < 0
                   or np.max(run_hi) > n1 or (np.asarray(run_hi) < np.asarray(run_lo) - 1).any()):
        raise ValueError(f"runs must lie in x2 in [0, {n2}] and [lo, hi] within [0, {n1}]")
    if n_runs > 1 and (np.diff(np.asarray(run_x2)) < 0).any():
        raise ValueError("run_x2 must be non-decreasing")
    if n_threads < 1:
        raise ValueError(f"n_threads must be >= 1, got {n_threads}")
    if not 0.0 <= tol < 1.0:
        raise ValueError(f"tol must be in [0, 1), got {tol}")
    out = np.empty(n_grid, dtype=np.float64)
    cdef double[::1] o = out
    cdef double log_tol = log(tol) if tol > 0.0 else 0.0
    cdef Py_ssize_t g, k, r, a, b, lo1, hi1, lo2, hi2, first, last
    cdef double* cum
    cdef double* pmf2
    cdef double acc
    with nogil, parallel(num_threads=n_threads):
        cum = <double*> malloc((n1 + 2) * sizeof(double))
        pmf2 = <double*> malloc((n2 + 1) * sizeof(double))
        for g in prange(n_grid, schedule='static'):
            lo1 = _window_lo(n1, p1[g], log_tol)
            hi1 = _window_hi(n1, p1[g], log_tol)
            lo2 = _window_lo(n2, p2[g], log_tol)
            hi2 = _window_hi(n2, p2[g], log_tol)
            # cum[k + 1 - lo1] = b(lo1) + ... + b(k) for k in [lo1, hi1], cum[0] = 0
            _pmf(logc1, p1[g], lo1, hi1, cum + 1)
            cum[0] = 0.0
            for k in range(1, hi1 - lo1 + 2):
                cum[k] = cum[k] + cum[k - 1]
            _pmf(logc2, p2[g], lo2, hi2, pmf2)
            # runs with x2 in [lo2, hi2]: the first by bisection (run_x2 is sorted)
            a = 0
            b = n_runs
            while a < b:
                r = (a + b) // 2
                if run_x2[r] < lo2:
                    a = r + 1
                else:
                    b = r
            acc = 0.0
            for r in range(a, n_runs):
                if run_x2[r] > hi2:
                    break
                first = run_lo[r] if run_lo[r] > lo1 else lo1
                last = run_hi[r] if run_hi[r] < hi1 else hi1
                if first <= last:
                    acc = acc + pmf2[run_x2[r] - lo2] * (cum[last + 1 - lo1] - cum[first - lo1])
            o[g] = acc
        free(cum)
        free(pmf2)
    return out
