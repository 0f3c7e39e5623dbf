"""Per-sample inner problem of the Wasserstein projection test (docs/wasserstein.md).

With a quadratic ground cost the inner problem of sample i reduces to one dimension: moving
the score u_i = beta'x_i + b to z costs (z - u_i)^2 / b2 (b2 = squared dual norm of beta),

    phi_i = min_z (z - u_i)^2 / b2 + t sigmoid(z),        t = gamma * lambda_i,

and every sample of one (a, y) cell shares t. With c = t b2 / 2 the stationarity condition is
G(z) = z + c sigmoid'(z) = u (k = sigmoid'(z) / 2 in [0, 1/8] of the spec: z = u - 2 c k).
By the reflection sigmoid(-z) = 1 - sigmoid(z) the case c < 0 maps to c > 0. For
0 <= c <= 6 sqrt(3) the objective is convex and the root is unique in [u - c/4, u]. For larger
c, G increases on (-inf, z1], decreases on [z1, z2], increases on [z2, inf), where
sigmoid''(z1,2) = -1/c; the local minima are the roots on the two increasing pieces, each
found by safeguarded Newton on its own bracket, and the smaller is the global minimum. No
grid is needed: the bracketing is exact.
"""
import numpy as np

from cython.parallel cimport prange
from libc.math cimport exp, fabs, fmax, fmin, INFINITY, NAN

cdef enum:
    CHUNK = 8192  # samples per chunk: sums are reduced in fixed chunks for any thread count
    MAXIT = 200

cdef double CONVEX_LIMIT = 10.392304845413264  # 6 sqrt(3) = 1 / max |sigmoid''|


cdef inline void _sig(double z, double *s, double *d1, double *d2) noexcept nogil:
    """sigmoid, sigmoid' and sigmoid'' at z, without overflow."""
    cdef double e = exp(-fabs(z))
    cdef double inv = 1.0 / (1.0 + e)
    d1[0] = e * inv * inv
    if z >= 0:
        s[0] = inv
        d2[0] = -d1[0] * (1.0 - e) * inv
    else:
        s[0] = e * inv
        d2[0] = d1[0] * (1.0 - e) * inv


cdef inline double _root(double u, double c, double lo, double hi, double z) noexcept nogil:
    """Root of G(z) = z + c sigmoid'(z) - u on [lo, hi], where G increases, G(lo) <= 0 <= G(hi)."""
    cdef double s, d1, d2, g, dg, znew
    cdef int it
    if hi <= lo:
        return lo
    z = fmin(fmax(z, lo), hi)
    for it in range(MAXIT):
        _sig(z, &s, &d1, &d2)
        g = z + c * d1 - u
        if g > 0:
            hi = z
        elif g < 0:
            lo = z
        else:
            return z
        dg = 1.0 + c * d2
        znew = z - g / dg if dg > 0 else lo - 1.0
        if lo < znew < hi:
            # Newton converges quadratically: the next error is below |G2 / (2 G1)| step^2
            # (G1, G2 the first two derivatives of G), where |G2| <= c / 8 and G1 ~ dg
            if c * (znew - z) * (znew - z) <= 3e-15 * dg * (1.0 + fabs(z)):
                return znew
        else:
            znew = 0.5 * (lo + hi)
            if hi - lo <= 4e-16 * (1.0 + fabs(z)):
                return znew
        z = znew
    return z


cdef inline double _objective(double z, double u, double c) noexcept nogil:
    cdef double s, d1, d2
    _sig(z, &s, &d1, &d2)
    return (z - u) * (z - u) + 2.0 * c * s


cdef inline double _solve(double u, double c, double z1, double z2, double g1, double g2,
                          double *alt, double *gap) noexcept nogil:
    """Global minimizer z of (z - u)^2 + 2 c sigmoid(z) for c >= 0 (reflected coordinates).

    alt / gap: the other local minimizer and its excess objective (NaN / inf if none).
    """
    cdef double s, d1, d2, zl, zr, ql, qr
    alt[0] = NAN
    gap[0] = INFINITY
    if c == 0:
        return u
    _sig(u, &s, &d1, &d2)
    if c <= CONVEX_LIMIT:
        return _root(u, c, u - 0.25 * c, u, u - c * d1 / fmax(1.0 + c * d2, 0.5))
    if u < g2:  # only the left piece (-inf, z1] holds a root
        return _root(u, c, u - 0.25 * c, fmin(u, z1), u - c * d1)
    if u > g1:  # only the right piece [z2, inf)
        return _root(u, c, fmax(u - 0.25 * c, z2), u, u - c * d1)
    zl = _root(u, c, u - 0.25 * c, fmin(u, z1), u - c * d1)
    zr = _root(u, c, fmax(u - 0.25 * c, z2), u, u)
    ql = _objective(zl, u, c)
    qr = _objective(zr, u, c)
    if qr < ql:
        alt[0] = zl
        gap[0] = ql - qr
        return zr
    alt[0] = zr
    gap[0] = qr - ql
    return zl


def cell_sums(const double[::1] u, double t, double b2, double z1, double z2,
              int n_threads=1, double[::1] z_out=None, double[::1] alt_out=None,
              double[::1] gap_out=None):
    """Sums over one (a, y) cell of the inner problem at t = gamma * lambda.

    z1 < z2 are the points where sigmoid'' = -1/|c| (c = t b2 / 2; ignored when
    |c| <= 6 sqrt(3)). Returns (sum of (z - u)^2 / b2, sum of sigmoid(z), sum of
    sigmoid'(z)^2 / (1 + c sigmoid''(z))). With z_out (and alt_out, gap_out), writes each
    sample's minimizer z, the other local minimizer (NaN if none), and the excess of its
    objective (in units of b2 * phi; inf if none).
    """
    cdef Py_ssize_t n = u.shape[0]
    cdef Py_ssize_t n_chunks = (n + CHUNK - 1) // CHUNK
    cdef double c = 0.5 * t * b2
    cdef double sign = -1.0 if c < 0 else 1.0
    cdef double ca = fabs(c)
    cdef double s, d1, d2, g1 = 0.0, g2 = 0.0, z, ur, alt, gap, a_cost, a_sig, a_curv
    cdef bint store = z_out is not None
    cdef Py_ssize_t k, i, start, stop
    if store and (z_out.shape[0] != n or alt_out is None or gap_out is None
                  or alt_out.shape[0] != n or gap_out.shape[0] != n):
        raise ValueError("z_out, alt_out and gap_out must all be given with u's length")
    if ca > CONVEX_LIMIT:
        _sig(z1, &s, &d1, &d2)
        g1 = z1 + ca * d1
        _sig(z2, &s, &d1, &d2)
        g2 = z2 + ca * d1
    if n_threads > n_chunks:  # no idle threads: a team costs more than a small cell
        n_threads = max(<int> n_chunks, 1)
    partial = np.zeros((max(n_chunks, 1), 3), dtype=np.float64)
    cdef double[:, ::1] part = partial
    with nogil:
        for k in prange(n_chunks, num_threads=n_threads, schedule='dynamic'):
            start = k * CHUNK
            stop = min(start + CHUNK, n)
            a_cost = 0.0
            a_sig = 0.0
            a_curv = 0.0
            for i in range(start, stop):
                # assigned here so that Cython makes them thread-private (they are also
                # written through pointers, which it cannot see)
                s = 0.0
                d1 = 0.0
                d2 = 0.0
                alt = 0.0
                gap = 0.0
                ur = sign * u[i]
                z = sign * _solve(ur, ca, z1, z2, g1, g2, &alt, &gap)
                _sig(z, &s, &d1, &d2)
                a_cost = a_cost + (z - u[i]) * (z - u[i])
                a_sig = a_sig + s
                a_curv = a_curv + d1 * d1 / (1.0 + c * d2)
                if store:
                    z_out[i] = z
                    alt_out[i] = sign * alt
                    gap_out[i] = gap
            part[k, 0] = a_cost / b2
            part[k, 1] = a_sig
            part[k, 2] = a_curv
    totals = partial.sum(axis=0)
    return float(totals[0]), float(totals[1]), float(totals[2])
