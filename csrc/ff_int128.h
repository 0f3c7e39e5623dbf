/*
 * Exact signed 128-bit integers for the AUC kernels' placement sums (_auc.pyx).
 *
 * Sums of squared placements reach n^3 (2^96 for 2^32 rows), beyond 64 bits. GCC and Clang
 * have __int128; other compilers (MSVC) get two 64-bit halves in two's complement. Both
 * give the same results bit for bit: the arithmetic below is exact modulo 2^128 either way
 * (the kernels' sums stay far inside the range), and ff_i128_to_double rounds to nearest,
 * ties to even, as the compilers' own conversion of __int128 does.
 *
 *   ff_i128_of(a)            a (int64) as ff_i128
 *   ff_i128_add(a, b)        a + b
 *   ff_i128_sub(a, b)        a - b
 *   ff_i128_mul(a, b)        a * b of two int64, exact
 *   ff_i128_scale(a, b)      a * b, a ff_i128 and b an int64 (the product must fit)
 *   ff_i128_to_double(a)     a rounded to the nearest double
 *
 * Define FF_PORTABLE_INT128 to use the two halves on any compiler: the meson option
 * -Dportable-int128=true does (CI builds it that way), and tests/test_sampling.py compiles
 * this header both ways against Python integers.
 */
#ifndef FF_INT128_H
#define FF_INT128_H

#include <stdint.h>
#include <math.h>

#if defined(__SIZEOF_INT128__) && !defined(FF_PORTABLE_INT128)

#define FF_INT128_NATIVE 1
typedef __int128 ff_i128;

static inline ff_i128 ff_i128_of(int64_t a) { return a; }
static inline ff_i128 ff_i128_add(ff_i128 a, ff_i128 b) { return a + b; }
static inline ff_i128 ff_i128_sub(ff_i128 a, ff_i128 b) { return a - b; }
static inline ff_i128 ff_i128_mul(int64_t a, int64_t b) { return (ff_i128)a * b; }
static inline ff_i128 ff_i128_scale(ff_i128 a, int64_t b) { return a * b; }
static inline double ff_i128_to_double(ff_i128 a) { return (double)a; }

#else

#define FF_INT128_NATIVE 0
/* value = hi * 2^64 + lo, hi read as two's complement */
typedef struct {
    uint64_t lo;
    uint64_t hi;
} ff_i128;

static inline ff_i128 ff_i128_of(int64_t a)
{
    ff_i128 r;
    r.lo = (uint64_t)a;
    r.hi = a < 0 ? ~(uint64_t)0 : 0;
    return r;
}

static inline ff_i128 ff_i128_add(ff_i128 a, ff_i128 b)
{
    ff_i128 r;
    r.lo = a.lo + b.lo;
    r.hi = a.hi + b.hi + (r.lo < a.lo);
    return r;
}

static inline ff_i128 ff_i128_sub(ff_i128 a, ff_i128 b)
{
    ff_i128 r;
    r.lo = a.lo - b.lo;
    r.hi = a.hi - b.hi - (a.lo < b.lo);
    return r;
}

/* Unsigned 64 x 64 -> 128 from 32-bit halves (schoolbook). */
static inline ff_i128 ff_u64_mul_full(uint64_t a, uint64_t b)
{
    uint64_t a0 = a & 0xFFFFFFFFu, a1 = a >> 32, b0 = b & 0xFFFFFFFFu, b1 = b >> 32;
    uint64_t p00 = a0 * b0, p01 = a0 * b1, p10 = a1 * b0, p11 = a1 * b1;
    uint64_t mid = (p00 >> 32) + (p01 & 0xFFFFFFFFu) + (p10 & 0xFFFFFFFFu);
    ff_i128 r;
    r.lo = (mid << 32) | (p00 & 0xFFFFFFFFu);
    r.hi = p11 + (p01 >> 32) + (p10 >> 32) + (mid >> 32);
    return r;
}

/* Signed: the unsigned product of the two's-complement words, high word corrected by
 * subtracting b (a < 0) and a (b < 0). */
static inline ff_i128 ff_i128_mul(int64_t a, int64_t b)
{
    ff_i128 r = ff_u64_mul_full((uint64_t)a, (uint64_t)b);
    if (a < 0) r.hi -= (uint64_t)b;
    if (b < 0) r.hi -= (uint64_t)a;
    return r;
}

/* Low 128 bits of a * b with b sign-extended: (a.hi 2^64 + a.lo)(b_hi 2^64 + b) mod 2^128. */
static inline ff_i128 ff_i128_scale(ff_i128 a, int64_t b)
{
    uint64_t ub = (uint64_t)b, b_hi = b < 0 ? ~(uint64_t)0 : 0;
    ff_i128 r = ff_u64_mul_full(a.lo, ub);
    r.hi += a.hi * ub + a.lo * b_hi;
    return r;
}

/* Round to nearest, ties to even: the top 64 bits of |a| (the bits shifted out OR-ed
 * into the lowest, a sticky bit below the rounding position), rounded to 53 bits by hand,
 * then scaled by a power of two (exact). */
static inline double ff_i128_to_double(ff_i128 a)
{
    int negative = (int)(a.hi >> 63), n = 0;
    uint64_t hi = a.hi, lo = a.lo, top, mant, rem, h;
    double magnitude;
    if (negative) { /* |a|; -2^127 becomes 2^127 as an unsigned value */
        lo = ~lo + 1;
        hi = ~hi + (lo == 0);
    }
    if (hi == 0 && lo < ((uint64_t)1 << 53)) {
        magnitude = (double)(int64_t)lo; /* exact */
    } else {
        int length; /* bit length of |a|, 54..128 */
        if (hi == 0) {
            for (h = lo; h; h >>= 1) n++;
            top = lo << (64 - n);
            length = n;
        } else {
            for (h = hi; h; h >>= 1) n++;
            top = n == 64 ? hi : (hi << (64 - n)) | (lo >> n);
            top |= (n == 64 ? lo : lo & (((uint64_t)1 << n) - 1)) != 0;
            length = 64 + n;
        }
        mant = top >> 11;
        rem = top & 0x7FF;
        if (rem > 0x400 || (rem == 0x400 && (mant & 1))) mant++;
        magnitude = ldexp((double)(int64_t)mant, length - 53); /* mant <= 2^53: exact */
    }
    return negative ? -magnitude : magnitude;
}

#endif

#endif /* FF_INT128_H */
