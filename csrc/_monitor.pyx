"""Block e-values of the fairness monitor (fastfair/monitor/inference.py).

For each element (a comparison of one metric and one null line of the gap), the plug-in
alternative is shrunk towards its projection on the line, projected again with the block's
denominators (Farrington-Manning's restricted MLE, the closed form of fastfair/_score.py),
and the block's log-likelihood ratio of the two is returned. Elements are independent: the
loop is split among threads with the same results for any thread count.
"""
import numpy as np

from cython.parallel cimport prange
from libc.math cimport M_PI, acos, cos, fabs, log, sqrt

cdef inline double _xlogy(double x, double y) noexcept nogil:
    if x == 0.0:
        return 0.0
    return x * log(y)


cdef inline double _clip01(double q) noexcept nogil:
    return 0.0 if q < 0.0 else (1.0 if q > 1.0 else q)


cdef inline void _restricted(double x1, double n1, double x2, double n2, double d,
                             double* q1, double* q2) noexcept nogil:
    """(q1, q2) maximising the binomial likelihood under q1 - q2 = d (_score.restricted_mle)."""
    cdef double p1 = x1 / n1, p2 = x2 / n2, theta = n2 / n1
    cdef double a = 1.0 + theta
    cdef double b = -(1.0 + theta + p1 + theta * p2 + d * (theta + 2.0))
    cdef double c = d * d + d * (2.0 * p1 + theta + 1.0) + p1 + theta * p2
    cdef double e = -p1 * d * (1.0 + d)
    cdef double v = b * b * b / (27.0 * a * a * a) - b * c / (6.0 * a * a) + e / (2.0 * a)
    cdef double s = b * b / (9.0 * a * a) - c / (3.0 * a)
    cdef double u = sqrt(s) if s > 0.0 else 0.0
    cdef double ratio, w
    if v < 0.0:
        u = -u
    ratio = 0.0 if u == 0.0 else v / (u * u * u)
    ratio = -1.0 if ratio < -1.0 else (1.0 if ratio > 1.0 else ratio)
    w = (M_PI + acos(ratio)) / 3.0
    q1[0] = _clip01(2.0 * u * cos(w) - b / (3.0 * a))
    q2[0] = _clip01(q1[0] - d)


cdef inline double _one(const double[:, ::1] blk, const double[:, ::1] seen, double d,
                        Py_ssize_t i, double prior, double shrink, double[::1] gap) noexcept nogil:
    cdef double p1 = (seen[i, 0] + prior) / (seen[i, 1] + 2.0 * prior)
    cdef double p2 = (seen[i, 2] + prior) / (seen[i, 3] + 2.0 * prior)
    cdef double smaller = seen[i, 1] if seen[i, 1] < seen[i, 3] else seen[i, 3]
    cdef double wt = smaller / (smaller + shrink)
    cdef double w1 = seen[i, 1] if seen[i, 1] > 1.0 else 1.0
    cdef double w2 = seen[i, 3] if seen[i, 3] > 1.0 else 1.0
    cdef double t1, t2, a1, a2, q1, q2, out
    cdef double x1 = blk[i, 0], n1 = blk[i, 1], x2 = blk[i, 2], n2 = blk[i, 3]
    gap[i] = p1 - p2
    if n1 <= 0.0 or n2 <= 0.0 or smaller <= 0.0:
        return 0.0  # a group missing from the block, or no rows seen: no bet
    _restricted(p1 * w1, w1, p2 * w2, w2, d, &t1, &t2)
    a1 = t1 + wt * (p1 - t1)
    a2 = t2 + wt * (p2 - t2)
    _restricted(a1 * n1, n1, a2 * n2, n2, d, &q1, &q2)
    out = (_xlogy(x1, a1) - _xlogy(x1, q1) + _xlogy(n1 - x1, 1.0 - a1)
           - _xlogy(n1 - x1, 1.0 - q1) + _xlogy(x2, a2) - _xlogy(x2, q2)
           + _xlogy(n2 - x2, 1.0 - a2) - _xlogy(n2 - x2, 1.0 - q2))
    return 0.0 if out != out else out  # inf - inf at the grid's edge: no bet


def block_log_evidence(const double[:, ::1] block, const double[:, ::1] seen,
                       const double[::1] lines, double prior, double shrink, int n_threads=1):
    """Per element i: the block's log e-factor on line lines[i], and the plug-in gap.

    `block` and `seen` have shape (L, 4): successes and denominator of the group, then of
    the reference, in the block and before it. Returns (log, gap), arrays of length L.
    """
    cdef Py_ssize_t n = lines.shape[0], i
    if block.shape[0] != n or seen.shape[0] != n or block.shape[1] != 4 or seen.shape[1] != 4:
        raise ValueError(
            f"block and seen must have shape ({n}, 4), got ({block.shape[0]}, {block.shape[1]}) "
            f"and ({seen.shape[0]}, {seen.shape[1]})"
        )
    log_e = np.empty(n, dtype=np.float64)
    gap = np.empty(n, dtype=np.float64)
    cdef double[::1] lo = log_e, ga = gap
    with nogil:
        for i in prange(n, num_threads=n_threads, schedule='static'):
            lo[i] = _one(block, seen, lines[i], i, prior, shrink, ga)
    return log_e, gap
