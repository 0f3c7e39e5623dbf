/*
 * Sampling helpers shared by the fastfair kernels, one definition each:
 *
 *   ff_ctz64, ff_popcount64   bit scans: GCC/Clang builtins, MSVC intrinsics, or plain C
 *   ff_count_below            set bits of a bitmap below an index
 *   ff_fast_bounded_u32       uniform integer in [0, m) (Lemire 2019, unbiased)
 *   ff_floyd_bits             uniform k-subset of a range into a bitmap (Floyd)
 *   ff_shuffle_f64/_u32/_intp uniform permutation of an array in place (Fisher-Yates)
 *
 * They draw from the fast stream of ff_random.h. The order of the draws is part of every
 * kernel's results (a permutation is a pure function of (key, stream_id, index)), so each
 * helper makes exactly the draws, in the order, of the loops it replaced: a kernel that
 * switches to a helper keeps its outputs bit-identical (tests/golden_results.json pins them).
 *
 * Include after Python.h (Cython modules do): ff_shuffle_intp works on Py_ssize_t.
 * Define FF_PLAIN_C_BITS to use the plain-C bit scans on any compiler (tested that way).
 */
#ifndef FF_SAMPLING_H
#define FF_SAMPLING_H

#include <stdint.h>
#include "ff_random.h"

/* ---- bit scans ------------------------------------------------------------------- */

#if !defined(FF_PLAIN_C_BITS) && (defined(__GNUC__) || defined(__clang__))

/* Index of the lowest set bit of x != 0. */
static inline int ff_ctz64(uint64_t x) { return __builtin_ctzll(x); }
/* Number of set bits of x. */
static inline int ff_popcount64(uint64_t x) { return __builtin_popcountll(x); }

#elif !defined(FF_PLAIN_C_BITS) && defined(_MSC_VER) && (defined(_M_X64) || defined(_M_ARM64))

#include <intrin.h>
static inline int ff_ctz64(uint64_t x)
{
    unsigned long i;
    _BitScanForward64(&i, x);
    return (int)i;
}
#define FF_POPCOUNT_PLAIN_C 1 /* __popcnt64 needs the POPCNT instruction: not assumed */

#else

/* de Bruijn multiplication: x & -x isolates the lowest set bit; the product's top six bits
 * are distinct for the 64 powers of two (Leiserson, Prokop & Randall 1998). */
static inline int ff_ctz64(uint64_t x)
{
    static const unsigned char index64[64] = {
        0,  1,  48, 2,  57, 49, 28, 3,  61, 58, 50, 42, 38, 29, 17, 4,
        62, 55, 59, 36, 53, 51, 43, 22, 45, 39, 33, 30, 24, 18, 12, 5,
        63, 47, 56, 27, 60, 41, 37, 16, 54, 35, 52, 21, 44, 32, 23, 11,
        46, 26, 40, 15, 34, 20, 31, 10, 25, 14, 19, 9,  13, 8,  7,  6,
    };
    return index64[((x & (0 - x)) * UINT64_C(0x03F79D71B4CB0A89)) >> 58];
}
#define FF_POPCOUNT_PLAIN_C 1

#endif

#ifdef FF_POPCOUNT_PLAIN_C
static inline int ff_popcount64(uint64_t x)
{
    x = x - ((x >> 1) & UINT64_C(0x5555555555555555));
    x = (x & UINT64_C(0x3333333333333333)) + ((x >> 2) & UINT64_C(0x3333333333333333));
    x = (x + (x >> 4)) & UINT64_C(0x0F0F0F0F0F0F0F0F);
    return (int)((x * UINT64_C(0x0101010101010101)) >> 56);
}
#endif

/* Number of set bits of `bits` among indices 0 .. n-1. */
static inline int64_t ff_count_below(const uint64_t *bits, int64_t n)
{
    int64_t count = 0, w;
    for (w = 0; w < (n >> 6); w++) count += ff_popcount64(bits[w]);
    if (n & 63) count += ff_popcount64(bits[w] & ((((uint64_t)1) << (n & 63)) - 1));
    return count;
}

/* ---- draws --------------------------------------------------------------------- */

/* Uniform integer in [0, m), m >= 1 (Lemire 2019, "Fast random integer generation in an
 * interval"): the high word of u * m, rejecting the low words below 2^32 mod m. */
static inline uint32_t ff_fast_bounded_u32(ff_fast_t *s, uint32_t m)
{
    uint64_t prod = (uint64_t)ff_fast_u32(s) * m;
    uint32_t low = (uint32_t)prod;
    if (low < m) {
        uint32_t threshold = (uint32_t)(0u - m) % m;
        while (low < threshold) {
            prod = (uint64_t)ff_fast_u32(s) * m;
            low = (uint32_t)prod;
        }
    }
    return (uint32_t)(prod >> 32);
}

/* Floyd's algorithm: set k uniformly chosen bits among lo .. lo+m-1 of `bits` (clear there
 * on entry), m < 2^32, with exactly k draws: for j = m-k .. m-1, t = draw in [0, j]; t is
 * taken unless already set, then j is. With chosen != NULL, chosen[i] receives the i-th
 * index taken, relative to lo. */
static inline void ff_floyd_bits(ff_fast_t *s, uint64_t *bits, int64_t lo, int64_t m,
                                 int64_t k, uint32_t *chosen)
{
    for (int64_t j = m - k; j < m; j++) {
        int64_t t = lo + (int64_t)ff_fast_bounded_u32(s, (uint32_t)(j + 1));
        if ((bits[t >> 6] >> (t & 63)) & 1) t = lo + j;
        bits[t >> 6] |= (uint64_t)1 << (t & 63);
        if (chosen != NULL) chosen[j - (m - k)] = (uint32_t)(t - lo);
    }
}

/* Fisher-Yates (Durstenfeld): for i = n-1 .. 1, swap a[i] with a[draw in [0, i]]. One
 * definition, instantiated for the element types the kernels shuffle. n < 2^32. */
#define FF_DEFINE_SHUFFLE(NAME, TYPE)                                             \
    static inline void NAME(ff_fast_t *s, TYPE *a, int64_t n)                     \
    {                                                                             \
        for (int64_t i = n - 1; i > 0; i--) {                                     \
            uint32_t j = ff_fast_bounded_u32(s, (uint32_t)(i + 1));               \
            TYPE tmp = a[i];                                                      \
            a[i] = a[j];                                                          \
            a[j] = tmp;                                                           \
        }                                                                         \
    }
FF_DEFINE_SHUFFLE(ff_shuffle_f64, double)
FF_DEFINE_SHUFFLE(ff_shuffle_u32, uint32_t)
FF_DEFINE_SHUFFLE(ff_shuffle_intp, Py_ssize_t)
#undef FF_DEFINE_SHUFFLE

#endif /* FF_SAMPLING_H */
