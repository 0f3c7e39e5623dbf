# Declarations shared by the fastfair kernels: counter-based random streams (ff_random.h),
# sampling helpers on them (ff_sampling.h) and rate statistics on cell sums (ff_rates.h).
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
