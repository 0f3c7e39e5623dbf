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
"""
import numpy as np

from cython.parallel cimport parallel, prange
from libc.math cimport exp, log, log1p, lgamma
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


cdef inline void _pmf(const double[::1] logc, double p, double* out) noexcept nogil:
    """b(k; n, p) for k = 0..n (n = len(logc) - 1); exact zeros at p = 0 or 1."""
    cdef Py_ssize_t n = logc.shape[0] - 1
    cdef Py_ssize_t k
    cdef double lp, lq
    if p <= 0.0 or p >= 1.0:
        for k in range(n + 1):
            out[k] = 0.0
        out[0 if p <= 0.0 else n] = 1.0
        return
    lp = log(p)
    lq = log1p(-p)
    for k in range(n + 1):
        out[k] = exp(logc[k] + k * lp + (n - k) * lq)


def region_probabilities(const double[::1] logc1, const double[::1] logc2,
                         const double[::1] p1, const double[::1] p2,
                         const int64_t[::1] run_x2, const int64_t[::1] run_lo,
                         const int64_t[::1] run_hi, int n_threads=1):
    """P((X1, X2) in R) under (p1[g], p2[g]) for every g; R given as runs (see module doc)."""
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
    if n_threads < 1:
        raise ValueError(f"n_threads must be >= 1, got {n_threads}")
    out = np.empty(n_grid, dtype=np.float64)
    cdef double[::1] o = out
    cdef Py_ssize_t g, k, r
    cdef double* cum
    cdef double* pmf2
    cdef double acc
    with nogil, parallel(num_threads=n_threads):
        cum = <double*> malloc((n1 + 2) * sizeof(double))
        pmf2 = <double*> malloc((n2 + 1) * sizeof(double))
        for g in prange(n_grid, schedule='static'):
            _pmf(logc1, p1[g], cum + 1)  # cum[k + 1] = b(k), then summed in place
            cum[0] = 0.0
            for k in range(1, n1 + 2):
                cum[k] = cum[k] + cum[k - 1]
            _pmf(logc2, p2[g], pmf2)
            acc = 0.0
            for r in range(n_runs):
                acc = acc + pmf2[run_x2[r]] * (cum[run_hi[r] + 1] - cum[run_lo[r]])
            o[g] = acc
        free(cum)
        free(pmf2)
    return out
