# Declarations shared by the fastfair kernels: counter-based random streams (ff_random.h),
# rate statistics on cell sums (ff_rates.h), and numpy's nogil hypergeometric sampler.
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
    uint32_t ff_bounded_u32(ff_philox_t *s, uint32_t m)
    ctypedef struct ff_fast_t:
        pass
    void ff_fast_init(ff_fast_t *s, uint64_t key, uint32_t stream_id, uint64_t index)
    uint32_t ff_fast_bounded_u32(ff_fast_t *s, uint32_t m)
    int FF_OPENMP_ENABLED


cdef extern from "ff_rates.h" nogil:
    ctypedef struct ff_metric_t:
        int num_mask[2]
        int den_mask[2]
        int n_parts
        int studentize
        int pooled
    double ff_metric_statistic(const ff_metric_t *m, const double *w, const double *w2,
                               int a, int b)


cdef extern from "numpy/random/distributions.h" nogil:
    int64_t random_hypergeometric(bitgen_t *bitgen_state, int64_t good, int64_t bad,
                                  int64_t sample)


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
