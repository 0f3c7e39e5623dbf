/*
 * Counter-based random streams for fastfair kernels.
 *
 * Philox4x32-10 (Salmon et al. 2011, "Parallel random numbers: as easy as 1, 2, 3").
 * A stream is keyed by a 64-bit key (from the user's random_state) and addressed by a
 * 32-bit stream id and a 64-bit work-item index (the permutation number), so the draws of
 * permutation b are the same whichever thread runs it: results do not depend on n_jobs.
 * The stream is wrapped as a numpy bitgen_t so numpy's C distributions (hypergeometric)
 * can draw from it without the GIL. Bounded draws, subsets and shuffles on these streams are
 * in ff_sampling.h.
 */
#ifndef FF_RANDOM_H
#define FF_RANDOM_H

#include <stdint.h>
#include "numpy/random/bitgen.h"

#define FF_PHILOX_M0 0xD2511F53u
#define FF_PHILOX_M1 0xCD9E8D57u
#define FF_PHILOX_W0 0x9E3779B9u
#define FF_PHILOX_W1 0xBB67AE85u

typedef struct {
    uint32_t key[2];
    uint32_t ctr[4]; /* ctr[0] block counter, ctr[1] stream id, ctr[2..3] item index */
    uint32_t out[4];
    int pos;         /* next unread word of out; 4 means empty */
} ff_philox_t;

typedef struct {
    ff_philox_t philox;
    bitgen_t bitgen;
} ff_stream_t;

static inline void ff_philox_block(const uint32_t key_in[2], const uint32_t ctr_in[4],
                                   uint32_t out[4])
{
    uint32_t k0 = key_in[0], k1 = key_in[1];
    uint32_t c0 = ctr_in[0], c1 = ctr_in[1], c2 = ctr_in[2], c3 = ctr_in[3];
    for (int round = 0; round < 10; round++) {
        uint64_t p0 = (uint64_t)FF_PHILOX_M0 * c0;
        uint64_t p1 = (uint64_t)FF_PHILOX_M1 * c2;
        uint32_t n0 = (uint32_t)(p1 >> 32) ^ c1 ^ k0;
        uint32_t n2 = (uint32_t)(p0 >> 32) ^ c3 ^ k1;
        c1 = (uint32_t)p1;
        c3 = (uint32_t)p0;
        c0 = n0;
        c2 = n2;
        k0 += FF_PHILOX_W0;
        k1 += FF_PHILOX_W1;
    }
    out[0] = c0; out[1] = c1; out[2] = c2; out[3] = c3;
}

static inline uint32_t ff_next_u32(ff_philox_t *s)
{
    if (s->pos == 4) {
        ff_philox_block(s->key, s->ctr, s->out);
        s->ctr[0]++;
        s->pos = 0;
    }
    return s->out[s->pos++];
}

static inline uint64_t ff_next_u64(ff_philox_t *s)
{
    uint64_t hi = ff_next_u32(s);
    return (hi << 32) | ff_next_u32(s);
}

/* Uniform double in [0, 1) on the 2^-53 grid from the top 53 bits of x (numpy's rule). */
static inline double ff_unit_double(uint64_t x)
{
    return (double)(x >> 11) * (1.0 / 9007199254740992.0);
}

static uint64_t ff_bitgen_u64(void *st) { return ff_next_u64((ff_philox_t *)st); }
static uint32_t ff_bitgen_u32(void *st) { return ff_next_u32((ff_philox_t *)st); }
static double ff_bitgen_double(void *st) { return ff_unit_double(ff_next_u64((ff_philox_t *)st)); }

/* Position stream `s` at the start of work item `index` of stream `stream_id`. */
static inline void ff_stream_init(ff_stream_t *s, uint64_t key, uint32_t stream_id,
                                  uint64_t index)
{
    s->philox.key[0] = (uint32_t)key;
    s->philox.key[1] = (uint32_t)(key >> 32);
    s->philox.ctr[0] = 0;
    s->philox.ctr[1] = stream_id;
    s->philox.ctr[2] = (uint32_t)index;
    s->philox.ctr[3] = (uint32_t)(index >> 32);
    s->philox.pos = 4;
    s->bitgen.state = &s->philox;
    s->bitgen.next_uint64 = ff_bitgen_u64;
    s->bitgen.next_uint32 = ff_bitgen_u32;
    s->bitgen.next_double = ff_bitgen_double;
    s->bitgen.next_raw = ff_bitgen_u64;
}

/*
 * A fast stream for kernels that draw many numbers per work item (row-level permutations):
 * SFC64 (Doty-Humphrey; the generator behind numpy's SFC64), seeded from the Philox block of
 * (key, stream_id, index). The draws of item `index` are still a pure function of the key
 * and the index, so results do not depend on the thread count; SFC64 then costs about a
 * nanosecond per 64 bits instead of Philox's four.
 */
typedef struct {
    uint64_t a, b, c, counter;
    uint32_t spare;
    int has_spare;
} ff_fast_t;

static inline uint64_t ff_fast_u64(ff_fast_t *s)
{
    uint64_t out = s->a + s->b + s->counter++;
    s->a = s->b ^ (s->b >> 11);
    s->b = s->c + (s->c << 3);
    s->c = ((s->c << 24) | (s->c >> 40)) + out;
    return out;
}

static inline void ff_fast_init(ff_fast_t *s, uint64_t key, uint32_t stream_id, uint64_t index)
{
    ff_stream_t seed;
    ff_stream_init(&seed, key, stream_id, index);
    s->a = ff_next_u64(&seed.philox);
    s->b = ff_next_u64(&seed.philox);
    s->c = ff_next_u64(&seed.philox);
    s->counter = 1;
    s->has_spare = 0;
    for (int i = 0; i < 12; i++) ff_fast_u64(s);
}

static inline double ff_fast_double(ff_fast_t *s) { return ff_unit_double(ff_fast_u64(s)); }

static inline uint32_t ff_fast_u32(ff_fast_t *s)
{
    if (s->has_spare) {
        s->has_spare = 0;
        return s->spare;
    }
    uint64_t x = ff_fast_u64(s);
    s->spare = (uint32_t)(x >> 32);
    s->has_spare = 1;
    return (uint32_t)x;
}

#ifdef _OPENMP
#define FF_OPENMP_ENABLED 1
#else
#define FF_OPENMP_ENABLED 0
#endif

#endif /* FF_RANDOM_H */
