"""Kernel sums on a grid, accumulated cluster by cluster (Nadaraya-Watson with dependent data).

For observations (y_mi, s_mi) of cluster m (a user), group G_m and cluster weight w_m, and
grid points t_j, the per-cluster sums are

    A_mj = sum_i y_mi K((s_mi - t_j) / h),    B_mj = sum_i K((s_mi - t_j) / h),

with K(u) = exp(-u^2 / 2) (Gaussian, cut at |u| <= 8: K < 1.3e-14 beyond) or 1 - u^2 on
|u| < 1 (Epanechnikov); kernel constants cancel in every ratio built from these sums.
`kernel_sums` makes one pass over the observations grouped by cluster, holds A_m. and B_m.
in a per-thread buffer of length (grid) and adds a_mj = w_m A_mj and b_mj = w_m B_mj to
per-group totals:

    sum_a[g, j] = sum_{m in g} a_mj            sum_b[g, j] = sum_{m in g} b_mj
    sum_aa, sum_ab, sum_bb, sum_b4[g, j]: sums of a_mj^2, a_mj b_mj, b_mj^2, b_mj^4
    n_clusters[g, j]: clusters with b_mj > 0;  max_b[g, j] = max_m b_mj

and optionally the cross-grid matrices cov_aa[g, j, k] = sum a_mj a_mk, cov_ab = sum a_mj b_mk,
cov_bb = sum b_mj b_mk, from which the cluster-robust covariance of the estimates at any two
grid points follows once the estimates are known. Memory is O(clusters + groups x grid^2),
never O(observations x grid). Clusters are split into a fixed number of chunks (independent
of the thread count) whose partial sums are reduced in order, so results are bit-identical
for any number of threads.

On a uniform grid the Gaussian kernel is evaluated by a multiplicative recurrence: with
u_j = (s - t_j) / h and d = (t_{j+1} - t_j) / h, K_{j+1} = K_j r_j with r_j = exp(u_j d - d^2/2)
and r_{j+1} = r_j exp(-d^2): three exp calls per observation (K at the nearest point and the
first ratio each way; exp(-d^2) once per grid) instead of one per grid point.
"""
import numpy as np

from cython.parallel cimport parallel, prange
from libc.math cimport INFINITY, ceil, exp, floor, sqrt
from libc.stdint cimport int32_t, int64_t, uint8_t, uint64_t
from libc.stdlib cimport calloc, free, malloc

from numpy.random.c_distributions cimport random_standard_normal

from _core cimport ff_stream_init, ff_stream_t


cdef extern from *:
    """
    /* y[k] += a * x[k] for k < n, vectorized (the covariance outer products). */
    static inline void ff_axpy(double *restrict y, const double *restrict x, double a,
                               Py_ssize_t n)
    {
        #ifdef _OPENMP
        #pragma omp simd
        #endif
        for (Py_ssize_t k = 0; k < n; k++) y[k] += a * x[k];
    }

    /* Four axpys in a row, y += a0 x0; y += a1 x1; y += a2 x2; y += a3 x3, with y held in
       registers between them: each y[k] gets the same four additions in the same order as
       four ff_axpy calls, so the same result, for a quarter of the loads and stores of y. */
    static inline void ff_axpy4(double *restrict y, const double *restrict x0,
                                const double *restrict x1, const double *restrict x2,
                                const double *restrict x3, double a0, double a1, double a2,
                                double a3, Py_ssize_t n)
    {
        #ifdef _OPENMP
        #pragma omp simd
        #endif
        for (Py_ssize_t k = 0; k < n; k++) {
            double t = y[k];
            t += a0 * x0[k];
            t += a1 * x1[k];
            t += a2 * x2[k];
            t += a3 * x3[k];
            y[k] = t;
        }
    }

    /* The two hot loops below, also compiled for AVX2 and picked at run time where the CPU
       has it (GCC on x86-64 Linux): twice the doubles per instruction. AVX2 alone does not
       enable FMA, so every product and sum is rounded as in the baseline build: identical
       results on every CPU. */
    #if defined(__GNUC__) && !defined(__clang__) && defined(__x86_64__) && defined(__linux__)
    #define FF_VECTOR_CLONES __attribute__((target_clones("avx2", "default")))
    #else
    #define FF_VECTOR_CLONES
    #endif

    /* d_g = root_g e_g for each of K groups of P points (rows[g, k, :] = root[g, :, k]):
       each d_gj summed over k in increasing order. */
    FF_VECTOR_CLONES
    static void ff_root_times(double *restrict d, const double *restrict rows,
                              const double *restrict e, Py_ssize_t K, Py_ssize_t P)
    {
        for (Py_ssize_t g = 0; g < K; g++) {
            double *dg = d + g * P;
            const double *rg = rows + g * P * P, *eg = e + g * P;
            Py_ssize_t k = 0;
            for (Py_ssize_t j = 0; j < P; j++) dg[j] = 0.0;
            for (; k + 4 <= P; k += 4)
                ff_axpy4(dg, rg + k * P, rg + (k + 1) * P, rg + (k + 2) * P, rg + (k + 3) * P,
                         eg[k], eg[k + 1], eg[k + 2], eg[k + 3], P);
            for (; k < P; k++) ff_axpy(dg, rg + k * P, eg[k], P);
        }
    }

    #define FF_COV_BLOCK 32

    /* The cross-grid outer products of a block of n clusters of one group (rows u of xa, xb:
       a cluster's weighted sums a_u., b_u. on the grid of G points, zero outside its window
       [lo[u], hi[u]]) added to the group's cov_aa, cov_ab, cov_bb (G x G; upper triangles of
       cov_aa and cov_bb), then the rows zeroed. Each element receives the clusters' products
       in cluster order, skipping the clusters with a_uj = b_uj = 0, exactly as one axpy per
       cluster and grid point would add them (the products past a cluster's window are
       zeros, which leave a sum unchanged); four clusters at a time, so that a row of the
       matrices stays in registers across them. */
    FF_VECTOR_CLONES
    static void ff_cov_flush(double *restrict caa, double *restrict cab, double *restrict cbb,
                             double *restrict xa, double *restrict xb, const Py_ssize_t *lo,
                             const Py_ssize_t *hi, Py_ssize_t n, Py_ssize_t G)
    {
        Py_ssize_t sel[FF_COV_BLOCK];
        Py_ssize_t first = G, last = -1;
        for (Py_ssize_t u = 0; u < n; u++) {
            if (lo[u] < first) first = lo[u];
            if (hi[u] > last) last = hi[u];
        }
        for (Py_ssize_t j = first; j <= last; j++) {
            Py_ssize_t m = 0, i = 0;
            for (Py_ssize_t u = 0; u < n; u++)
                if (xa[u * G + j] != 0.0 || xb[u * G + j] != 0.0) sel[m++] = u;
            double *raa = caa + j * G, *rab = cab + j * G, *rbb = cbb + j * G;
            for (; i + 4 <= m; i += 4) {
                const double *a0 = xa + sel[i] * G, *a1 = xa + sel[i + 1] * G;
                const double *a2 = xa + sel[i + 2] * G, *a3 = xa + sel[i + 3] * G;
                const double *b0 = xb + sel[i] * G, *b1 = xb + sel[i + 1] * G;
                const double *b2 = xb + sel[i + 2] * G, *b3 = xb + sel[i + 3] * G;
                Py_ssize_t l = lo[sel[i]], h = hi[sel[i]];
                for (Py_ssize_t q = 1; q < 4; q++) {
                    if (lo[sel[i + q]] < l) l = lo[sel[i + q]];
                    if (hi[sel[i + q]] > h) h = hi[sel[i + q]];
                }
                ff_axpy4(raa + j, a0 + j, a1 + j, a2 + j, a3 + j,
                         a0[j], a1[j], a2[j], a3[j], h + 1 - j);
                ff_axpy4(rbb + j, b0 + j, b1 + j, b2 + j, b3 + j,
                         b0[j], b1[j], b2[j], b3[j], h + 1 - j);
                ff_axpy4(rab + l, b0 + l, b1 + l, b2 + l, b3 + l,
                         a0[j], a1[j], a2[j], a3[j], h + 1 - l);
            }
            for (; i < m; i++) {
                const double *au = xa + sel[i] * G, *bu = xb + sel[i] * G;
                Py_ssize_t l = lo[sel[i]], h = hi[sel[i]];
                ff_axpy(raa + j, au + j, au[j], h + 1 - j);
                ff_axpy(rbb + j, bu + j, bu[j], h + 1 - j);
                ff_axpy(rab + l, bu + l, au[j], h + 1 - l);
            }
        }
        for (Py_ssize_t u = 0; u < n; u++)
            for (Py_ssize_t k = lo[u]; k <= hi[u]; k++) {
                xa[u * G + k] = 0.0;
                xb[u * G + k] = 0.0;
            }
    }
    """
    void ff_axpy(double *y, const double *x, double a, Py_ssize_t n) nogil
    void ff_axpy4(double *y, const double *x0, const double *x1, const double *x2,
                  const double *x3, double a0, double a1, double a2, double a3,
                  Py_ssize_t n) nogil
    void ff_cov_flush(double *caa, double *cab, double *cbb, double *xa, double *xb,
                      const Py_ssize_t *lo, const Py_ssize_t *hi, Py_ssize_t n,
                      Py_ssize_t G) nogil
    void ff_root_times(double *d, const double *rows, const double *e, Py_ssize_t K,
                       Py_ssize_t P) nogil
    enum: FF_COV_BLOCK


cdef enum:
    KERNEL_GAUSSIAN = 0
    KERNEL_EPANECHNIKOV = 1
    MAX_CHUNKS = 64

#: Kernel reach in bandwidths: K(u) = 0 (Epanechnikov) or < 1.3e-14 (Gaussian) beyond it.
GAUSSIAN_REACH = 8.0
EPANECHNIKOV_REACH = 1.0
KERNELS = {"gaussian": KERNEL_GAUSSIAN, "epanechnikov": KERNEL_EPANECHNIKOV}
_REACH = {KERNEL_GAUSSIAN: GAUSSIAN_REACH, KERNEL_EPANECHNIKOV: EPANECHNIKOV_REACH}

# Budget for per-chunk partial sums (bytes): caps the chunk count for large grids.
_PARTIAL_BUDGET = 48 * 1024 * 1024


def kernel_reach(kernel):
    """Reach of `kernel` ("gaussian" or "epanechnikov") in bandwidths."""
    return _REACH[KERNELS[kernel]]


def sort_by_cluster(const Py_ssize_t[::1] cluster, Py_ssize_t n_clusters,
                    const Py_ssize_t[::1] group, const double[::1] score=None,
                    const double[::1] y=None):
    """Stable counting sort of rows by cluster code, and each cluster's group.

    Returns (order, starts, cluster_group, conflict), or with `score` and `y`
    (score_sorted, y_sorted, starts, cluster_group, conflict) where the rows are copied in
    cluster order (no index array: the kernel passes then read memory sequentially).
    Rows of cluster m are order[starts[m]:starts[m + 1]]; cluster_group[m] is the group
    code of its rows; conflict is -1, or a row whose group differs from an earlier row of
    its cluster. O(rows + clusters).
    """
    cdef Py_ssize_t n = cluster.shape[0], i, c, pos
    cdef bint gather = score is not None and y is not None
    starts_np = np.zeros(n_clusters + 1, dtype=np.intp)
    cgroup_np = np.full(n_clusters, -1, dtype=np.intp)
    cdef Py_ssize_t[::1] starts = starts_np, cgroup = cgroup_np
    cdef Py_ssize_t conflict = -1
    fill_np = np.empty(n_clusters, dtype=np.intp)
    cdef Py_ssize_t[::1] fill = fill_np
    order_np = np.empty(0 if gather else n, dtype=np.intp)
    s_np = np.empty(n if gather else 0, dtype=np.float64)
    y_np = np.empty(n if gather else 0, dtype=np.float64)
    cdef Py_ssize_t[::1] order = order_np
    cdef double[::1] s_out = s_np, y_out = y_np
    with nogil:
        for i in range(n):
            c = cluster[i]
            starts[c + 1] += 1
            if cgroup[c] == -1:
                cgroup[c] = group[i]
            elif cgroup[c] != group[i] and conflict == -1:
                conflict = i
        for c in range(n_clusters):
            starts[c + 1] += starts[c]
            fill[c] = starts[c]
        if gather:
            for i in range(n):
                c = cluster[i]
                pos = fill[c]
                s_out[pos] = score[i]
                y_out[pos] = y[i]
                fill[c] = pos + 1
        else:
            for i in range(n):
                c = cluster[i]
                order[fill[c]] = i
                fill[c] += 1
    if gather:
        return s_np, y_np, starts_np, cgroup_np, conflict
    return order_np, starts_np, cgroup_np, conflict


def cluster_order(const int32_t[::1] cluster, Py_ssize_t n_clusters):
    """Stable counting sort of rows by 32-bit cluster code: (order, starts), compact.

    The rows of cluster m are order[starts[m]:starts[m + 1]], in their original order;
    order is int32 (4 bytes a row: an audit of 10^8 rows sorts in 0.4 GB), so the rows
    must number fewer than 2^31. O(rows + clusters).
    """
    cdef Py_ssize_t n = cluster.shape[0], i, c, bad = -1
    if n >= 2**31 - 1:
        raise ValueError(f"cluster_order sorts fewer than 2^31 rows, got {n}")
    starts_np = np.zeros(n_clusters + 1, dtype=np.intp)
    fill_np = np.empty(n_clusters, dtype=np.intp)
    order_np = np.empty(n, dtype=np.int32)
    cdef Py_ssize_t[::1] starts = starts_np, fill = fill_np
    cdef int32_t[::1] order = order_np
    with nogil:
        for i in range(n):
            c = cluster[i]
            if c < 0 or c >= n_clusters:
                bad = i
                break
            starts[c + 1] += 1
    if bad >= 0:
        raise ValueError(f"cluster code {cluster[bad]} outside 0..{n_clusters - 1}")
    with nogil:
        for c in range(n_clusters):
            starts[c + 1] += starts[c]
            fill[c] = starts[c]
        for i in range(n):
            c = cluster[i]
            order[fill[c]] = <int32_t>i
            fill[c] += 1
    return order_np, starts_np


def pack_short_text(const int64_t[::1] offsets, const uint8_t[::1] data, uint64_t[::1] out):
    """Strings as 64-bit keys in their byte order: string i (bytes data[offsets[i]:
    offsets[i + 1]]) big-endian in out[i], zero-padded to 8 bytes, so that keys compare as
    the strings do byte by byte (a NUL byte would tie a string with its padded prefix).
    Returns -1, or the first string longer than 8 bytes or holding a NUL byte (out is then
    incomplete)."""
    cdef Py_ssize_t n = out.shape[0], i, b, a, m, bad = -1
    cdef uint64_t key, ch
    if offsets.shape[0] != n + 1:
        raise ValueError("offsets needs one entry more than out")
    with nogil:
        for i in range(n):
            a = offsets[i]
            m = offsets[i + 1] - a
            if m > 8 or a < 0 or a + m > data.shape[0]:
                bad = i
                break
            key = 0
            for b in range(m):
                ch = data[a + b]
                if ch == 0:
                    bad = i
                    break
                key = key | (ch << (56 - 8 * b))
            if bad >= 0:
                break
            out[i] = key
    return bad


def compact_keys(uint64_t[::1] keys):
    """In place, for a stable radix sort by key: each key becomes its varying bits (those that
    differ between keys), in order, above ceil(log2 n) bits holding the row index.

    Returns (index bits, the 8 byte masks of the varying bits (most significant byte first),
    the bits of the others), or (-1, masks, 0) with the keys unchanged when the varying
    bits and the index need more than 64 bits. Each byte's varying bits are gathered by a
    table of its 256 values.
    """
    cdef Py_ssize_t n = keys.shape[0], i, v
    cdef uint64_t x = 0, c, first
    cdef int b, t, bit, width = 0, ib
    cdef int widths[8]
    cdef uint64_t table[8][256]
    masks_np = np.zeros(8, dtype=np.uint8)
    cdef uint8_t[::1] masks = masks_np
    if n == 0:
        return -1, masks_np, 0
    first = keys[0]
    with nogil:
        for i in range(n):
            x = x | (keys[i] ^ first)
    for b in range(8):
        masks[b] = (x >> (56 - 8 * b)) & 0xFF
        widths[b] = 0
        for bit in range(8):
            widths[b] += (masks[b] >> bit) & 1
        width += widths[b]
        for v in range(256):  # the varying bits of byte value v, packed (pext)
            c = 0
            t = 0
            for bit in range(8):
                if (masks[b] >> bit) & 1:
                    c = c | ((<uint64_t> ((v >> bit) & 1)) << t)
                    t += 1
            table[b][v] = c
    ib = max(1, int(n - 1).bit_length())
    if width + ib > 64:
        return -1, masks_np, 0
    with nogil:
        for i in range(n):
            c = 0
            for b in range(8):
                if widths[b]:
                    c = (c << widths[b]) | table[b][(keys[i] >> (56 - 8 * b)) & 0xFF]
            keys[i] = (c << ib) | <uint64_t> i
    return ib, masks_np, first & ~x


def key_runs(const uint64_t[::1] keys, int ib):
    """Of compact keys sorted by their high bits (`compact_keys`, then a radix sort): the
    rows in that order (int32, so fewer than 2^31), the first position of each run of
    equal high bits (then n) and each run's high bits."""
    cdef Py_ssize_t n = keys.shape[0], r, m = 0
    cdef uint64_t low = ((<uint64_t> 1) << ib) - 1
    if n >= 2**31 - 1:
        raise ValueError(f"key_runs orders fewer than 2^31 rows, got {n}")
    order_np = np.empty(n, dtype=np.int32)
    heads_np = np.empty(n + 1, dtype=np.intp)
    cdef int32_t[::1] order = order_np
    cdef Py_ssize_t[::1] heads = heads_np
    with nogil:
        for r in range(n):
            order[r] = <int32_t> (keys[r] & low)
            if r == 0 or (keys[r] >> ib) != (keys[r - 1] >> ib):
                heads[m] = r
                m += 1
        heads[m] = n
    starts_np = heads_np[: m + 1].copy()
    return order_np, starts_np, np.asarray(keys)[starts_np[:-1]] >> np.uint64(ib)


cdef struct grid_t:
    const double *t
    Py_ssize_t n
    int uniform
    double t0
    double step
    double h
    double reach
    int kernel
    double d  # step / h, and exp(-d^2) and d^2 / 2 of the Gaussian recurrence
    double q
    double half


cdef inline Py_ssize_t _lower_bound(const double *t, Py_ssize_t n, double x) noexcept nogil:
    """First index j with t[j] >= x (n if none)."""
    cdef Py_ssize_t lo = 0, hi = n, mid
    while lo < hi:
        mid = (lo + hi) >> 1
        if t[mid] < x:
            lo = mid + 1
        else:
            hi = mid
    return lo


cdef inline int _window(const grid_t *gr, double x, Py_ssize_t *jlo, Py_ssize_t *jhi) noexcept nogil:
    """Grid indices [jlo, jhi] within the kernel's reach of x; returns 0 when empty."""
    cdef double r = gr.reach * gr.h
    cdef double a, b
    if gr.uniform:
        a = ceil((x - r - gr.t0) / gr.step)
        b = floor((x + r - gr.t0) / gr.step)
        if a < 0:
            a = 0
        if b > gr.n - 1:
            b = gr.n - 1
        if a > b:
            return 0
        jlo[0] = <Py_ssize_t> a
        jhi[0] = <Py_ssize_t> b
    else:
        jlo[0] = _lower_bound(gr.t, gr.n, x - r)
        jhi[0] = _lower_bound(gr.t, gr.n, x + r) - 1
        if jhi[0] >= gr.n:
            jhi[0] = gr.n - 1
        if jlo[0] > jhi[0]:
            return 0
    return 1


cdef inline int _add_observation(const grid_t *gr, double x, double yi, double *bufa,
                                 double *bufb, Py_ssize_t *lo, Py_ssize_t *hi) noexcept nogil:
    """Add K((x - t_j)/h) and yi K(...) to the buffers over x's window; extend [lo, hi]."""
    cdef Py_ssize_t jlo, jhi, j, j0
    cdef double u, k, k0, r, q, d, half
    if not _window(gr, x, &jlo, &jhi):
        return 0
    if jlo < lo[0]:
        lo[0] = jlo
    if jhi > hi[0]:
        hi[0] = jhi
    if gr.kernel == KERNEL_GAUSSIAN and gr.uniform and jhi > jlo:
        # Start at the grid point nearest x (largest K) and walk outwards.
        j0 = <Py_ssize_t> floor((x - gr.t0) / gr.step + 0.5)
        if j0 < jlo:
            j0 = jlo
        if j0 > jhi:
            j0 = jhi
        d = gr.d
        u = (x - gr.t[j0]) / gr.h
        q = gr.q
        half = gr.half
        k0 = exp(-0.5 * u * u)
        k = k0
        bufb[j0] += k
        bufa[j0] += yi * k
        r = exp(u * d - half)
        for j in range(j0 + 1, jhi + 1):
            k = k * r
            r = r * q
            bufb[j] += k
            bufa[j] += yi * k
        k = k0
        r = exp(-u * d - half)
        j = j0 - 1
        while j >= jlo:
            k = k * r
            r = r * q
            bufb[j] += k
            bufa[j] += yi * k
            j -= 1
    else:
        for j in range(jlo, jhi + 1):
            u = (x - gr.t[j]) / gr.h
            if gr.kernel == KERNEL_GAUSSIAN:
                k = exp(-0.5 * u * u)
            else:
                k = 1.0 - u * u
                if k <= 0.0:
                    continue
            bufb[j] += k
            bufa[j] += yi * k
    return 1


cdef inline void _fill_cluster(const grid_t *gr, const double *score, const double *y,
                               const Py_ssize_t *order, Py_ssize_t start, Py_ssize_t stop,
                               double *bufa, double *bufb, Py_ssize_t *lo, Py_ssize_t *hi,
                               Py_ssize_t *in_reach) noexcept nogil:
    """Per-cluster sums A_m., B_m. of rows order[start:stop] into zeroed buffers."""
    cdef Py_ssize_t r, i
    lo[0] = gr.n
    hi[0] = -1
    for r in range(start, stop):
        i = order[r] if order != NULL else r
        in_reach[0] += _add_observation(gr, score[i], y[i], bufa, bufb, lo, hi)


cdef grid_t _make_grid(const double[::1] grid, double bandwidth, int kernel):
    cdef grid_t gr
    cdef Py_ssize_t n = grid.shape[0], j
    cdef double step, tol
    gr.t = &grid[0]
    gr.n = n
    gr.h = bandwidth
    gr.kernel = kernel
    gr.reach = _REACH[kernel]
    gr.t0 = grid[0]
    gr.uniform = 0
    gr.step = 0.0
    if n >= 2:
        step = (grid[n - 1] - grid[0]) / (n - 1)
        tol = 1e-9 * step
        gr.uniform = step > 0
        for j in range(n):
            if abs(grid[j] - (grid[0] + j * step)) > tol:
                gr.uniform = 0
                break
        gr.step = step
    gr.d = gr.step / gr.h
    gr.q = exp(-gr.d * gr.d)
    gr.half = 0.5 * gr.d * gr.d
    return gr


cdef Py_ssize_t _chunk_count(Py_ssize_t n_clusters, Py_ssize_t width):
    """Chunks of clusters whose partial sums (`width` doubles each) are reduced in order:
    about 256 clusters per chunk, at most MAX_CHUNKS and _PARTIAL_BUDGET bytes; a function
    of the data only, so sums are bit-identical for any number of threads."""
    return max(1, min(MAX_CHUNKS, n_clusters // 256 + 1, _PARTIAL_BUDGET // (8 * width)))


cdef const Py_ssize_t *_row_order(const Py_ssize_t[::1] order):
    """Pointer to `order`, or NULL when rows are already grouped by cluster (None/empty)."""
    return &order[0] if order is not None and order.shape[0] > 0 else NULL


def _check_inputs(score, y, order, starts, cluster_group, cluster_weight, grid, bandwidth):
    n_clusters = starts.shape[0] - 1
    if cluster_group.shape[0] != n_clusters or cluster_weight.shape[0] != n_clusters:
        raise ValueError("cluster_group and cluster_weight need one entry per cluster")
    if score.shape[0] != y.shape[0]:
        raise ValueError("score and y must have the same length")
    n_rows = starts[n_clusters] if n_clusters else 0
    if order is not None and order.shape[0] != n_rows:
        raise ValueError("order must index every row once (starts[-1] rows)")
    if n_rows > score.shape[0]:
        raise ValueError("starts[-1] exceeds the number of rows")
    if grid.shape[0] < 1 or np.any(np.diff(np.asarray(grid)) <= 0):
        raise ValueError("grid must be strictly increasing and non-empty")
    if not bandwidth > 0:
        raise ValueError(f"bandwidth must be > 0, got {bandwidth!r}")


def kernel_sums(const double[::1] score, const double[::1] y, const Py_ssize_t[::1] order,
                const Py_ssize_t[::1] starts, const Py_ssize_t[::1] cluster_group,
                const double[::1] cluster_weight, Py_ssize_t n_groups,
                const double[::1] grid, double bandwidth, str kernel="gaussian",
                bint covariance=False, int n_threads=1):
    """Per-group kernel sums on a sorted grid, accumulated cluster by cluster.

    Parameters
    ----------
    score, y : float64 arrays of shape (n,)
    order, starts : rows of cluster m are order[starts[m]:starts[m + 1]] (`sort_by_cluster`);
        order None means rows are already grouped: cluster m is rows starts[m]:starts[m + 1]
    cluster_group : group code (0..n_groups-1) of each cluster; -1 skips the cluster
    cluster_weight : w_m of each cluster (1/n_m per user, 1 per observation)
    grid : strictly increasing evaluation points
    bandwidth, kernel : h > 0 and "gaussian" or "epanechnikov"
    covariance : also return the cross-grid matrices cov_aa, cov_ab, cov_bb
        (n_groups, G, G); cov_aa and cov_bb are symmetric.

    Returns
    -------
    dict with sum_a, sum_b, sum_aa, sum_ab, sum_bb, sum_b4, max_b, n_clusters
    (n_groups, G), n_in_reach (n_groups,): rows within the kernel's reach of some grid
    point, and the cov_* matrices when requested.
    """
    _check_inputs(score, y, order, starts, cluster_group, cluster_weight, grid, bandwidth)
    cdef int kid = KERNELS[kernel]
    cdef grid_t gr = _make_grid(grid, bandwidth, kid)
    cdef Py_ssize_t G = grid.shape[0], M = starts.shape[0] - 1, K = n_groups
    cdef Py_ssize_t diag_width = K * (7 * G + 1)
    cdef Py_ssize_t cov_width = 3 * K * G * G if covariance else 0
    cdef Py_ssize_t width = diag_width + cov_width
    cdef Py_ssize_t n_chunks = _chunk_count(M, width)
    partial = np.zeros((n_chunks, width), dtype=np.float64)
    partial_max = np.zeros((n_chunks, K * G), dtype=np.float64)
    cdef double[:, ::1] part = partial
    cdef double[:, ::1] pmax = partial_max
    cdef Py_ssize_t c, m, j, k, g, lo, hi, cstart, cstop, reach_count
    cdef double w, aj, bj, b2
    cdef double *bufa
    cdef double *bufb
    cdef double *acc
    cdef double *amax
    cdef double *caa
    cdef double *cab
    cdef double *cbb
    cdef const double *s_ptr = &score[0]
    cdef const double *y_ptr = &y[0]
    cdef const Py_ssize_t *o_ptr = _row_order(order)
    cdef bint cov = covariance
    cdef Py_ssize_t nb, blk = FF_COV_BLOCK
    cdef double *xa
    cdef double *xb
    cdef Py_ssize_t *blo
    cdef Py_ssize_t *bhi
    cdef Py_ssize_t *nblk
    with nogil, parallel(num_threads=n_threads):
        bufa = <double *> calloc(G, sizeof(double))
        bufb = <double *> calloc(G, sizeof(double))
        # Per group, a block of clusters' weighted sums waiting for their outer products.
        xa = <double *> calloc(K * blk * G if cov else 1, sizeof(double))
        xb = <double *> calloc(K * blk * G if cov else 1, sizeof(double))
        blo = <Py_ssize_t *> malloc(K * blk * sizeof(Py_ssize_t))
        bhi = <Py_ssize_t *> malloc(K * blk * sizeof(Py_ssize_t))
        nblk = <Py_ssize_t *> calloc(K, sizeof(Py_ssize_t))
        for c in prange(n_chunks, schedule='dynamic', chunksize=1):
            cstart = (M * c) // n_chunks
            cstop = (M * (c + 1)) // n_chunks
            acc = &part[c, 0]
            amax = &pmax[c, 0]
            caa = acc + diag_width
            cab = caa + K * G * G
            cbb = cab + K * G * G
            for m in range(cstart, cstop):
                g = cluster_group[m]
                if g < 0:
                    continue
                # Assigned here, not only through the pointers below: Cython makes a variable
                # thread-private in prange only when the loop body assigns it directly.
                reach_count = 0
                lo = G
                hi = -1
                _fill_cluster(&gr, s_ptr, y_ptr, o_ptr, starts[m], starts[m + 1],
                              bufa, bufb, &lo, &hi, &reach_count)
                acc[7 * K * G + g] += reach_count
                if hi < lo:
                    continue
                w = cluster_weight[m]
                for j in range(lo, hi + 1):
                    bufa[j] = w * bufa[j]
                    bufb[j] = w * bufb[j]
                for j in range(lo, hi + 1):
                    aj = bufa[j]
                    bj = bufb[j]
                    if bj == 0.0 and aj == 0.0:
                        continue
                    acc[(0 * K + g) * G + j] += aj
                    acc[(1 * K + g) * G + j] += bj
                    acc[(2 * K + g) * G + j] += aj * aj
                    acc[(3 * K + g) * G + j] += aj * bj
                    b2 = bj * bj
                    acc[(4 * K + g) * G + j] += b2
                    acc[(6 * K + g) * G + j] += b2 * b2
                    if bj > amax[g * G + j]:
                        amax[g * G + j] = bj
                    if bj > 0.0:
                        acc[(5 * K + g) * G + j] += 1.0
                if cov:  # the outer products: in blocks of clusters (ff_cov_flush)
                    nb = nblk[g]
                    for j in range(lo, hi + 1):
                        xa[(g * blk + nb) * G + j] = bufa[j]
                        xb[(g * blk + nb) * G + j] = bufb[j]
                    blo[g * blk + nb] = lo
                    bhi[g * blk + nb] = hi
                    nblk[g] = nb + 1
                    if nb + 1 == blk:
                        ff_cov_flush(&caa[g * G * G], &cab[g * G * G], &cbb[g * G * G],
                                     &xa[g * blk * G], &xb[g * blk * G], &blo[g * blk],
                                     &bhi[g * blk], blk, G)
                        nblk[g] = 0
                for j in range(lo, hi + 1):
                    bufa[j] = 0.0
                    bufb[j] = 0.0
            for g in range(K):  # the chunk's last blocks
                if cov and nblk[g] > 0:
                    ff_cov_flush(&caa[g * G * G], &cab[g * G * G], &cbb[g * G * G],
                                 &xa[g * blk * G], &xb[g * blk * G], &blo[g * blk],
                                 &bhi[g * blk], nblk[g], G)
                    nblk[g] = 0
        free(bufa)
        free(bufb)
        free(xa)
        free(xb)
        free(blo)
        free(bhi)
        free(nblk)
    total = partial.sum(axis=0) if n_chunks > 1 else partial[0]
    diag = total[:7 * K * G].reshape(7, K, G)
    out = {
        "sum_a": diag[0].copy(), "sum_b": diag[1].copy(), "sum_aa": diag[2].copy(),
        "sum_ab": diag[3].copy(), "sum_bb": diag[4].copy(), "sum_b4": diag[6].copy(),
        "max_b": partial_max.max(axis=0).reshape(K, G),
        "n_clusters": diag[5].round().astype(np.int64),
        "n_in_reach": total[7 * K * G:diag_width].round().astype(np.int64),
    }
    if covariance:
        mats = total[diag_width:].reshape(3, K, G, G)
        upper = np.triu(np.ones((G, G), dtype=bool))
        for name, mat in (("cov_aa", mats[0]), ("cov_bb", mats[2])):
            sym = np.where(upper, mat, np.swapaxes(mat, 1, 2))
            out[name] = np.ascontiguousarray(sym)
        out["cov_ab"] = mats[1].copy()
    return out


def leverage_sums(const double[::1] score, const double[::1] y, const Py_ssize_t[::1] order,
                  const Py_ssize_t[::1] starts, const Py_ssize_t[::1] cluster_group,
                  const double[::1] cluster_weight, Py_ssize_t n_groups,
                  const double[::1] grid, double bandwidth, const double[:, ::1] sum_b,
                  const double[:, ::1] estimate, str kernel="gaussian",
                  bint covariance=False, int n_threads=1):
    """Second pass: leverage-adjusted (CR2) sums, once sum_b and the estimates are known.

    For cluster m of group g at grid point j, with a_mj, b_mj as in `kernel_sums`, the
    leverage p_mj = b_mj / sum_b[g, j] (the cluster's share of the kernel weight),
    omega = 1 / (1 - p) and the adjusted score ut_mj = (a_mj - f_gj b_mj) sqrt(omega)
    (f = `estimate`), returns per-group arrays (n_groups, G):

        cr2 = sum_m ut^2,  op2 = sum omega p^2,  op3 = sum omega p^3,  op4 = sum omega p^4,
        o2p4 = sum omega^2 p^4,  o2p5 = sum omega^2 p^5

    and with `covariance` the cross-grid matrix cov[g, j, k] = sum_m ut_mj ut_mk. A point
    held by one cluster (p = 1) uses 1 - p = 1e-12. Same chunking as `kernel_sums`:
    bit-identical for any n_threads. Memory O(groups x grid^2); time one kernel pass.
    """
    _check_inputs(score, y, order, starts, cluster_group, cluster_weight, grid, bandwidth)
    cdef int kid = KERNELS[kernel]
    cdef grid_t gr = _make_grid(grid, bandwidth, kid)
    cdef Py_ssize_t G = grid.shape[0], M = starts.shape[0] - 1, K = n_groups
    if sum_b.shape[0] != K or sum_b.shape[1] != G or estimate.shape[0] != K or \
            estimate.shape[1] != G:
        raise ValueError("sum_b and estimate must have shape (n_groups, grid)")
    cdef Py_ssize_t diag_width = 6 * K * G
    cdef Py_ssize_t cov_width = K * G * G if covariance else 0
    cdef Py_ssize_t width = diag_width + cov_width
    cdef Py_ssize_t n_chunks = _chunk_count(M, width)
    partial = np.zeros((n_chunks, width), dtype=np.float64)
    cdef double[:, ::1] part = partial
    cdef Py_ssize_t c, m, j, g, lo, hi, cstart, cstop, reach_count
    cdef double w, bt, p, q, om, u, ut, p2
    cdef double *bufa
    cdef double *bufb
    cdef double *acc
    cdef double *cov
    cdef const double *s_ptr = &score[0]
    cdef const double *y_ptr = &y[0]
    cdef const Py_ssize_t *o_ptr = _row_order(order)
    cdef bint want_cov = covariance
    with nogil, parallel(num_threads=n_threads):
        bufa = <double *> calloc(G, sizeof(double))
        bufb = <double *> calloc(G, sizeof(double))
        for c in prange(n_chunks, schedule='dynamic', chunksize=1):
            cstart = (M * c) // n_chunks
            cstop = (M * (c + 1)) // n_chunks
            acc = &part[c, 0]
            cov = acc + diag_width
            for m in range(cstart, cstop):
                g = cluster_group[m]
                if g < 0:
                    continue
                reach_count = 0  # assigned directly: thread-private (see kernel_sums)
                lo = G
                hi = -1
                _fill_cluster(&gr, s_ptr, y_ptr, o_ptr, starts[m], starts[m + 1],
                              bufa, bufb, &lo, &hi, &reach_count)
                if hi < lo:
                    continue
                w = cluster_weight[m]
                for j in range(lo, hi + 1):
                    bt = sum_b[g, j]
                    ut = 0.0
                    if bt > 0.0 and bufb[j] > 0.0:
                        p = w * bufb[j] / bt
                        q = 1.0 - p
                        if q < 1e-12:
                            q = 1e-12
                        om = 1.0 / q
                        u = w * bufa[j] - estimate[g, j] * (w * bufb[j])
                        ut = u * sqrt(om)
                        p2 = p * p
                        acc[(0 * K + g) * G + j] += ut * ut
                        acc[(1 * K + g) * G + j] += om * p2
                        acc[(2 * K + g) * G + j] += om * p2 * p
                        acc[(3 * K + g) * G + j] += om * p2 * p2
                        acc[(4 * K + g) * G + j] += om * om * p2 * p2
                        acc[(5 * K + g) * G + j] += om * om * p2 * p2 * p
                    bufa[j] = ut
                if want_cov:
                    for j in range(lo, hi + 1):
                        if bufa[j] != 0.0:
                            ff_axpy(&cov[(g * G + j) * G + j], &bufa[j], bufa[j], hi + 1 - j)
                for j in range(lo, hi + 1):
                    bufa[j] = 0.0
                    bufb[j] = 0.0
        free(bufa)
        free(bufb)
    total = partial.sum(axis=0) if n_chunks > 1 else partial[0]
    diag = total[:diag_width].reshape(6, K, G)
    out = {name: diag[i].copy()
           for i, name in enumerate(("cr2", "op2", "op3", "op4", "o2p4", "o2p5"))}
    if covariance:
        mat = total[diag_width:].reshape(K, G, G)
        upper = np.triu(np.ones((G, G), dtype=bool))
        out["cov"] = np.ascontiguousarray(np.where(upper, mat, np.swapaxes(mat, 1, 2)))
    return out


def cluster_contributions(const double[::1] score, const double[::1] y,
                          const Py_ssize_t[::1] order, const Py_ssize_t[::1] starts,
                          const double[::1] grid, double bandwidth, str kernel="gaussian",
                          int n_threads=1):
    """Dense per-cluster sums A (clusters, G) and B (clusters, G), unweighted.

    O(clusters x grid) memory: for small data, tests and leave-one-cluster-out work on a
    subset of clusters. Row m holds A_mj = sum_i y_mi K_mij and B_mj = sum_i K_mij.
    """
    cdef Py_ssize_t M = starts.shape[0] - 1, G = grid.shape[0]
    _check_inputs(score, y, order, starts, np.zeros(M, dtype=np.intp), np.zeros(M), grid,
                  bandwidth)
    cdef int kid = KERNELS[kernel]
    cdef grid_t gr = _make_grid(grid, bandwidth, kid)
    a_np = np.zeros((M, G), dtype=np.float64)
    b_np = np.zeros((M, G), dtype=np.float64)
    cdef double[:, ::1] a = a_np, b = b_np
    cdef Py_ssize_t m, lo, hi, cnt
    cdef const double *s_ptr = &score[0]
    cdef const double *y_ptr = &y[0]
    cdef const Py_ssize_t *o_ptr = _row_order(order)
    if M == 0 or G == 0:
        return a_np, b_np
    with nogil:
        for m in prange(M, num_threads=n_threads, schedule='static'):
            cnt = 0  # cnt, lo, hi assigned directly so that they are thread-private
            lo = G
            hi = -1
            _fill_cluster(&gr, s_ptr, y_ptr, o_ptr, starts[m], starts[m + 1],
                          &a[m, 0], &b[m, 0], &lo, &hi, &cnt)
    return a_np, b_np


def loco_cv_loss(const double[::1] score, const double[::1] y, const Py_ssize_t[::1] order,
                 const Py_ssize_t[::1] starts, const Py_ssize_t[::1] cluster_group,
                 const double[::1] cluster_weight, Py_ssize_t n_groups,
                 const double[::1] grid, double bandwidth, const double[::1] fallback,
                 str kernel="gaussian", int n_threads=1):
    """Leave-one-cluster-out squared-error loss of the Nadaraya-Watson fit.

    The estimate without cluster m at grid point j is
    (sum_a[g, j] - w_m A_mj) / (sum_b[g, j] - w_m B_mj); at each row of m it is linearly
    interpolated between the two grid points around the row's score (use a fine uniform
    grid spanning the scores). Where the leave-out denominator is below 1e-8 of the group's
    largest, the group's `fallback` value (its mean outcome) is used instead, so bandwidths
    too small to predict a cluster from the others are penalized, not ignored.
    Returns sum_m w_m sum_i (y_mi - f^(-m)(s_mi))^2 / sum_m w_m n_m.
    """
    sums = kernel_sums(score, y, order, starts, cluster_group, cluster_weight, n_groups,
                       grid, bandwidth, kernel, False, n_threads)
    cdef double[:, ::1] sa = sums["sum_a"], sb = sums["sum_b"]
    cdef Py_ssize_t G = grid.shape[0], M = starts.shape[0] - 1
    floor_np = 1e-8 * np.asarray(sums["sum_b"]).max(axis=1)
    cdef double[::1] floor_b = floor_np
    cdef int kid = KERNELS[kernel]
    cdef grid_t gr = _make_grid(grid, bandwidth, kid)
    cdef Py_ssize_t n_chunks = _chunk_count(M, 2)
    partial = np.zeros((n_chunks, 2), dtype=np.float64)
    cdef double[:, ::1] part = partial
    cdef Py_ssize_t c, m, r, i, j, g, lo, hi, cstart, cstop, cnt
    cdef double w, x, pos, frac, f0, f1, den, fit, resid
    cdef double *bufa
    cdef double *bufb
    cdef const double *s_ptr = &score[0]
    cdef const double *y_ptr = &y[0]
    cdef const Py_ssize_t *o_ptr = _row_order(order)
    if not gr.uniform or G < 2:
        raise ValueError("loco_cv_loss needs a uniform grid of at least 2 points")
    with nogil, parallel(num_threads=n_threads):
        bufa = <double *> calloc(G, sizeof(double))
        bufb = <double *> calloc(G, sizeof(double))
        for c in prange(n_chunks, schedule='dynamic', chunksize=1):
            cstart = (M * c) // n_chunks
            cstop = (M * (c + 1)) // n_chunks
            for m in range(cstart, cstop):
                g = cluster_group[m]
                if g < 0:
                    continue
                cnt = 0  # cnt, lo, hi assigned directly so that they are thread-private
                lo = G
                hi = -1
                _fill_cluster(&gr, s_ptr, y_ptr, o_ptr, starts[m], starts[m + 1],
                              bufa, bufb, &lo, &hi, &cnt)
                w = cluster_weight[m]
                for r in range(starts[m], starts[m + 1]):
                    i = o_ptr[r] if o_ptr != NULL else r
                    x = s_ptr[i]
                    pos = (x - gr.t0) / gr.step
                    j = <Py_ssize_t> floor(pos)
                    if j < 0:
                        j = 0
                    if j > G - 2:
                        j = G - 2
                    frac = pos - j
                    if frac < 0.0:
                        frac = 0.0
                    if frac > 1.0:
                        frac = 1.0
                    den = sb[g, j] - w * bufb[j]
                    f0 = (sa[g, j] - w * bufa[j]) / den if den > floor_b[g] else INFINITY
                    den = sb[g, j + 1] - w * bufb[j + 1]
                    f1 = (sa[g, j + 1] - w * bufa[j + 1]) / den if den > floor_b[g] else INFINITY
                    if f0 == INFINITY or f1 == INFINITY:
                        fit = fallback[g]
                    else:
                        fit = (1.0 - frac) * f0 + frac * f1
                    resid = y_ptr[i] - fit
                    part[c, 0] += w * resid * resid
                    part[c, 1] += w
                if hi >= lo:
                    for j in range(lo, hi + 1):
                        bufa[j] = 0.0
                        bufb[j] = 0.0
        free(bufa)
        free(bufb)
    total = partial.sum(axis=0)
    return float(total[0] / total[1]) if total[1] > 0 else float("nan")


def max_wald_draws(const double[:, :, ::1] root, const double[:, ::1] variance,
                   Py_ssize_t n_draws, uint64_t key, unsigned int stream_id, int n_threads=1,
                   Py_ssize_t start=0):
    """Maxima over grid points of Wald statistics of Gaussian multiplier-bootstrap draws.

    root[g] (P x P) is a square root of group g's covariance matrix C_g of the estimate at
    P grid points (C_g = root[g] root[g]^T); variance[g, j] = C_g[j, j]. Draw b takes
    e ~ N(0, I) from the random stream (key, stream_id, start + b) (so draws continue in later
    calls: a sequential test's blocks), sets D_g = root[g] e_g and returns
    max_j W_j with W_j = sum_g (D_gj - Dbar_j)^2 / variance[g, j], Dbar_j the
    precision-weighted mean (two groups: W_j = (D_1j - D_2j)^2 / (v_1j + v_2j) = z_j^2).
    Identical for any n_threads.

    D_gj = sum_k root[g, j, k] e_gk is summed over k in increasing order, as a plain loop
    would, but for all j at once (a vectorized axpy per k over the transposed root): the
    same sums, without the latency of one long dependent chain per j.
    """
    cdef Py_ssize_t K = root.shape[0], P = root.shape[1], b, g, j, k
    out_np = np.empty(n_draws, dtype=np.float64)
    cdef double[::1] out = out_np
    rows_np = np.ascontiguousarray(np.swapaxes(np.asarray(root), 1, 2))
    cdef const double[:, :, ::1] rows = rows_np  # rows[g, k, j] = root[g, j, k]
    cdef double *e
    cdef double *d
    cdef ff_stream_t *stream
    cdef double num, den, mean, wmax, wj, diff
    if P == 0:
        out_np[:] = 0.0
        return out_np
    with nogil, parallel(num_threads=n_threads):
        e = <double *> malloc(K * P * sizeof(double))
        d = <double *> malloc(K * P * sizeof(double))
        stream = <ff_stream_t *> malloc(sizeof(ff_stream_t))
        for b in prange(n_draws, schedule='static'):
            ff_stream_init(stream, key, stream_id, <uint64_t> (start + b))
            for k in range(K * P):
                e[k] = random_standard_normal(&stream.bitgen)
            ff_root_times(d, &rows[0, 0, 0], e, K, P)
            wmax = 0.0
            for j in range(P):
                num = 0.0
                den = 0.0
                for g in range(K):
                    num = num + d[g * P + j] / variance[g, j]
                    den = den + 1.0 / variance[g, j]
                mean = num / den
                wj = 0.0
                for g in range(K):
                    diff = d[g * P + j] - mean
                    wj = wj + diff * diff / variance[g, j]
                if wj > wmax:
                    wmax = wj
            out[b] = wmax
        free(e)
        free(d)
        free(stream)
    return out_np
