// Fp and Fp2 arithmetic, inlined into every user. Elements are in Montgomery form and fully reduced (< p)
// unless a name says otherwise; "wide" values are 12-limb double-width products awaiting one reduction.
#ifndef BLS_FIELD_H
#define BLS_FIELD_H
#include "CBLS12381.h"

typedef unsigned __int128 u128;
typedef uint64_t u64;
typedef bls_fp fp;
typedef bls_fp2 fp2;
typedef bls_fp6 fp6;
typedef bls_fp12 fp12;

#define INLINE static inline __attribute__((always_inline))

static const u64 FP_P[6] = {
    0xb9feffffffffaaabULL, 0x1eabfffeb153ffffULL, 0x6730d2a0f6b0f624ULL,
    0x64774b84f38512bfULL, 0x4b1ba7b6434bacd7ULL, 0x1a0111ea397fe69aULL,
};
#define FP_INV_NEG 0x89f3fffcfffcfffdULL /* -p^-1 mod 2^64 */

// Carry/borrow chains. clang's builtins compile to adc/sbb sequences; the __int128 fallback is correct but
// materialises every carry.
#if defined(__has_builtin) && __has_builtin(__builtin_addcll) && __has_builtin(__builtin_subcll)
INLINE u64 adc(u64 a, u64 b, u64 carry_in, u64 *carry_out) {
    unsigned long long c;
    u64 r = __builtin_addcll(a, b, carry_in, &c);
    *carry_out = c;
    return r;
}

INLINE u64 sbb(u64 a, u64 b, u64 borrow_in, u64 *borrow_out) {
    unsigned long long c;
    u64 r = __builtin_subcll(a, b, borrow_in, &c);
    *borrow_out = c;
    return r;
}
#else
INLINE u64 adc(u64 a, u64 b, u64 carry_in, u64 *carry_out) {
    u128 t = (u128)a + b + carry_in;
    *carry_out = (u64)(t >> 64);
    return (u64)t;
}

INLINE u64 sbb(u64 a, u64 b, u64 borrow_in, u64 *borrow_out) {
    u128 t = (u128)a - b - borrow_in;
    *borrow_out = (u64)(t >> 64) & 1;
    return (u64)t;
}
#endif

/// r = s - p if s >= p else s, for s < 2p (6 limbs, no carry beyond).
INLINE void fp_reduce_once(u64 r[6], const u64 s[6]) {
    u64 d[6], b = 0;
    for (int i = 0; i < 6; i++) d[i] = sbb(s[i], FP_P[i], b, &b);
    u64 keep = (u64)0 - b;  // all ones when s < p
    for (int i = 0; i < 6; i++) r[i] = (s[i] & keep) | (d[i] & ~keep);
}

INLINE void fp_add(fp *r, const fp *a, const fp *b) {
    u64 s[6], c = 0;
    for (int i = 0; i < 6; i++) s[i] = adc(a->l[i], b->l[i], c, &c);
    fp_reduce_once(r->l, s);
}

/// a + b without reduction: < 2p when both inputs are < p (p < 2^381, so no overflow).
INLINE void fp_add_unreduced(fp *r, const fp *a, const fp *b) {
    u64 c = 0;
    for (int i = 0; i < 6; i++) r->l[i] = adc(a->l[i], b->l[i], c, &c);
}

INLINE void fp_sub(fp *r, const fp *a, const fp *b) {
    u64 d[6], bw = 0, c = 0;
    for (int i = 0; i < 6; i++) d[i] = sbb(a->l[i], b->l[i], bw, &bw);
    u64 mask = (u64)0 - bw;  // add p back on borrow
    for (int i = 0; i < 6; i++) r->l[i] = adc(d[i], FP_P[i] & mask, c, &c);
}

/// a - b + p without reduction: in (0, 2p).
INLINE void fp_sub_unreduced(fp *r, const fp *a, const fp *b) {
    u64 s[6], c = 0, bw = 0;
    for (int i = 0; i < 6; i++) s[i] = adc(a->l[i], FP_P[i], c, &c);
    for (int i = 0; i < 6; i++) r->l[i] = sbb(s[i], b->l[i], bw, &bw);
}

INLINE void fp_dbl(fp *r, const fp *a) { fp_add(r, a, a); }

INLINE int fp_is_zero(const fp *a) {
    return (a->l[0] | a->l[1] | a->l[2] | a->l[3] | a->l[4] | a->l[5]) == 0;
}

INLINE int fp_equal(const fp *a, const fp *b) {
    u64 d = 0;
    for (int i = 0; i < 6; i++) d |= a->l[i] ^ b->l[i];
    return d == 0;
}

INLINE void fp_neg(fp *r, const fp *a) {
    u64 d[6], bw = 0;
    for (int i = 0; i < 6; i++) d[i] = sbb(FP_P[i], a->l[i], bw, &bw);
    u64 nonzero = (u64)0 - (u64)!fp_is_zero(a);
    for (int i = 0; i < 6; i++) r->l[i] = d[i] & nonzero;
}

/// a / 2: add p when odd (the sum stays below 2^382), then shift.
INLINE void fp_half(fp *r, const fp *a) {
    u64 odd = (u64)0 - (a->l[0] & 1), s[6], c = 0;
    for (int i = 0; i < 6; i++) s[i] = adc(a->l[i], FP_P[i] & odd, c, &c);
    for (int i = 0; i < 5; i++) r->l[i] = (s[i] >> 1) | (s[i + 1] << 63);
    r->l[5] = s[5] >> 1;
}

/// Montgomery multiplication a·b/R mod p (inputs below 2p, output fully reduced).
void fp_mul(fp *r, const fp *a, const fp *b);
void fp_sqr(fp *r, const fp *a);

/// Full 768-bit product of two 6-limb values (inputs may be unreduced, up to 2^384).
void mul_wide(u64 r[12], const u64 a[6], const u64 b[6]);
/// Montgomery reduction T/R mod p of a 12-limb T < p·R; output fully reduced.
void redc_wide(fp *r, const u64 t[12]);

/// r = a - b; returns the borrow.
INLINE u64 wide_sub(u64 r[12], const u64 a[12], const u64 b[12]) {
    u64 bw = 0;
    for (int i = 0; i < 12; i++) r[i] = sbb(a[i], b[i], bw, &bw);
    return bw;
}

/// Adds p·2^384 when `mask` is all ones (makes a negative wide difference non-negative again).
INLINE void wide_add_p_high(u64 r[12], u64 mask) {
    u64 c = 0;
    for (int i = 0; i < 6; i++) r[i + 6] = adc(r[i + 6], FP_P[i] & mask, c, &c);
}

// ---- Fp2 = Fp[u]/(u² + 1) ----

INLINE void fp2_add(fp2 *r, const fp2 *a, const fp2 *b) { fp_add(&r->c0, &a->c0, &b->c0); fp_add(&r->c1, &a->c1, &b->c1); }
INLINE void fp2_sub(fp2 *r, const fp2 *a, const fp2 *b) { fp_sub(&r->c0, &a->c0, &b->c0); fp_sub(&r->c1, &a->c1, &b->c1); }
INLINE void fp2_dbl(fp2 *r, const fp2 *a) { fp_dbl(&r->c0, &a->c0); fp_dbl(&r->c1, &a->c1); }
INLINE void fp2_neg(fp2 *r, const fp2 *a) { fp_neg(&r->c0, &a->c0); fp_neg(&r->c1, &a->c1); }
INLINE void fp2_half(fp2 *r, const fp2 *a) { fp_half(&r->c0, &a->c0); fp_half(&r->c1, &a->c1); }
INLINE void fp2_conj(fp2 *r, const fp2 *a) { r->c0 = a->c0; fp_neg(&r->c1, &a->c1); }
INLINE int fp2_is_zero(const fp2 *a) { return fp_is_zero(&a->c0) && fp_is_zero(&a->c1); }
INLINE int fp2_equal(const fp2 *a, const fp2 *b) { return fp_equal(&a->c0, &b->c0) && fp_equal(&a->c1, &b->c1); }
INLINE void fp2_mul_fp(fp2 *r, const fp2 *a, const fp *b) {
    fp_mul(&r->c0, &a->c0, b);
    fp_mul(&r->c1, &a->c1, b);
}

void fp2_mul(fp2 *r, const fp2 *a, const fp2 *b);
void fp2_sqr(fp2 *r, const fp2 *a);

/// Multiplication by the non-residue ξ = 1 + u: (c0 − c1) + (c0 + c1) u.
INLINE void fp2_mul_xi(fp2 *r, const fp2 *a) {
    fp t0, t1;
    fp_sub(&t0, &a->c0, &a->c1);
    fp_add(&t1, &a->c0, &a->c1);
    r->c0 = t0;
    r->c1 = t1;
}

#endif
