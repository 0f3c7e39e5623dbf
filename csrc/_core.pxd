# Declarations shared by the fastfair kernels: counter-based random streams (ff_random.h),
# sampling helpers on them (ff_sampling.h), rate statistics on cell sums (ff_rates.h) and
# exact 128-bit integer sums (ff_int128.h).
# numpy's C distributions are cimported from numpy.random.c_distributions where used.
from libc.stdint cimport int64_t, uint32_t, uint64_t
from numpy.random cimport bitgen_t


cdef extern from "ff_random.h" nogil:
    ctypedef struct ff_philox_t:
        pass
    ctypedef struct ff_stream_t:
        ff_philox_t philox
        bitgen_t bitgen
    void ff_stream_init(ff_stream_t *s, uint64_t key, uint32_t stream_id, uint64_t index)
    uint32_t ff_next_u32(ff_philox_t *s)
    uint64_t ff_next_u64(ff_philox_t *s)
    ctypedef struct ff_fast_t:
        pass
    void ff_fast_init(ff_fast_t *s, uint64_t key, uint32_t stream_id, uint64_t index)
    uint32_t ff_fast_u32(ff_fast_t *s)
    uint64_t ff_fast_u64(ff_fast_t *s)
    double ff_fast_double(ff_fast_t *s)
    int FF_OPENMP_ENABLED


cdef extern from "ff_sampling.h" nogil:
    int ff_ctz64(uint64_t x)
    int ff_popcount64(uint64_t x)
    int64_t ff_count_below(const uint64_t *bits, int64_t n)
    uint32_t ff_fast_bounded_u32(ff_fast_t *s, uint32_t m)
    void ff_floyd_bits(ff_fast_t *s, uint64_t *bits, int64_t lo, int64_t m, int64_t k,
                       uint32_t *chosen)
    void ff_shuffle_f64(ff_fast_t *s, double *a, int64_t n)
    void ff_shuffle_u32(ff_fast_t *s, uint32_t *a, int64_t n)
    void ff_shuffle_intp(ff_fast_t *s, Py_ssize_t *a, int64_t n)


cdef extern from "ff_int128.h" nogil:
    # __int128 (GCC, Clang) or two 64-bit halves (other compilers, FF_PORTABLE_INT128):
    # opaque here, so Cython code can only use the functions, which exist in both.
    ctypedef struct ff_i128:
        pass
    int FF_INT128_NATIVE
    ff_i128 ff_i128_of(int64_t a)
    ff_i128 ff_i128_add(ff_i128 a, ff_i128 b)
    ff_i128 ff_i128_sub(ff_i128 a, ff_i128 b)
    ff_i128 ff_i128_mul(int64_t a, int64_t b)
    ff_i128 ff_i128_scale(ff_i128 a, int64_t b)
    double ff_i128_to_double(ff_i128 a)


cdef extern from "ff_rates.h" nogil:
    ctypedef struct ff_metric_t:
        int num_mask[2]
        int den_mask[2]
        int n_parts
        int studentize
        int pooled
    double ff_metric_statistic(const ff_metric_t *m, const double *w, const double *w2,
                               int a, int b)


cdef inline ff_metric_t metric_from_spec(tuple spec):
    """spec = (num_masks, den_masks, studentize, pooled), masks as tuples of 1 or 2 ints."""
    cdef ff_metric_t m
    num_masks, den_masks, studentize, pooled = spec
    m.n_parts = len(num_masks)
    for part in range(m.n_parts):
        m.num_mask[part] = num_masks[part]
        m.den_mask[part] = den_masks[part]
    m.studentize = bool(studentize)
    m.pooled = bool(pooled)
    return m


# Input checks run by the kernels before they enter nogil code (a kernel that trusts its
# inputs writes out of bounds on inconsistent sizes instead of raising). Each returns the
# problem as a message, or None; the caller raises ValueError with it.
cdef inline str check_pairs(const Py_ssize_t[:, ::1] pairs, Py_ssize_t n_groups):
    cdef Py_ssize_t p
    if pairs.shape[0] and pairs.shape[1] != 2:
        return f"pairs must have shape (n_pairs, 2), got (., {pairs.shape[1]})"
    for p in range(pairs.shape[0]):
        if not (0 <= pairs[p, 0] < n_groups and 0 <= pairs[p, 1] < n_groups):
            return f"pairs must hold group codes in [0, {n_groups})"
    return None


cdef inline str check_codes(const Py_ssize_t[::1] codes, Py_ssize_t n_groups, Py_ssize_t n):
    cdef Py_ssize_t i
    cdef bint bad = False
    if codes.shape[0] != n:
        return f"codes has {codes.shape[0]} entries for {n} rows"
    if n_groups < 1:
        return f"n_groups must be at least 1, got {n_groups}"
    with nogil:
        for i in range(n):
            if codes[i] < 0 or codes[i] >= n_groups:
                bad = True
                break
    if bad:
        return f"codes must lie in [0, {n_groups})"
    return None


cdef inline str check_small_codes(const unsigned char[::1] codes, int limit, str name):
    cdef Py_ssize_t i
    cdef bint bad = False
    with nogil:
        for i in range(codes.shape[0]):
            if codes[i] >= limit:
                bad = True
                break
    if bad:
        return f"{name} must lie in [0, {limit})"
    return None


cdef inline str check_strata(tuple strata):
    if len(strata) > 4:
        return f"at most 4 strata, got {len(strata)}"
    for mask in strata:
        if not 0 <= mask < 16:
            return f"stratum masks are subsets of the 4 cells (0..15), got {mask}"
    return None
