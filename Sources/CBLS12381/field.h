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

/// Montgomery multiplication a·b/R mod p: CIOS with the "no-carry" shortcut, valid because p's top limb
/// is below 2^63 − 1 (the running sum never needs a seventh limb). Inputs < p, output < p.
INLINE void fp_mul(fp *r, const fp *a, const fp *b) {
    u64 t[6] = {0, 0, 0, 0, 0, 0};
    for (int i = 0; i < 6; i++) {
        u64 bi = b->l[i];
        u128 z = (u128)a->l[0] * bi + t[0];
        u64 carry_a = (u64)(z >> 64);
        t[0] = (u64)z;
        u64 m = t[0] * FP_INV_NEG;
        z = (u128)m * FP_P[0] + t[0];
        u64 carry_m = (u64)(z >> 64);
        for (int j = 1; j < 6; j++) {
            z = (u128)a->l[j] * bi + t[j] + carry_a;
            carry_a = (u64)(z >> 64);
            z = (u128)m * FP_P[j] + (u64)z + carry_m;
            carry_m = (u64)(z >> 64);
            t[j - 1] = (u64)z;
        }
        t[5] = carry_a + carry_m;
    }
    fp_reduce_once(r->l, t);
}

INLINE void fp_sqr(fp *r, const fp *a) { fp_mul(r, a, a); }

/// Full 768-bit product of two 6-limb values (inputs may be unreduced, up to 2^384).
INLINE void mul_wide(u64 r[12], const u64 a[6], const u64 b[6]) {
    u64 carry;
    {
        carry = 0;
        for (int j = 0; j < 6; j++) {
            u128 z = (u128)a[j] * b[0] + carry;
            r[j] = (u64)z;
            carry = (u64)(z >> 64);
        }
        r[6] = carry;
    }
    for (int i = 1; i < 6; i++) {
        carry = 0;
        for (int j = 0; j < 6; j++) {
            u128 z = (u128)a[j] * b[i] + r[i + j] + carry;
            r[i + j] = (u64)z;
            carry = (u64)(z >> 64);
        }
        r[i + 6] = carry;
    }
}

/// Montgomery reduction T/R mod p of a 12-limb T < p·R, output fully reduced. The low half is reduced in
/// place (each step keeps the running value below 2^384) and the high half is added at the end: the sum is
/// below 2p, so one conditional subtraction finishes.
INLINE void redc_wide(fp *r, const u64 t[12]) {
    u64 acc[6];
    for (int i = 0; i < 6; i++) acc[i] = t[i];
    for (int i = 0; i < 6; i++) {
        u64 m = acc[0] * FP_INV_NEG;
        u128 z = (u128)m * FP_P[0] + acc[0];
        u64 carry = (u64)(z >> 64);
        for (int j = 1; j < 6; j++) {
            z = (u128)m * FP_P[j] + acc[j] + carry;
            acc[j - 1] = (u64)z;
            carry = (u64)(z >> 64);
        }
        acc[5] = carry;
    }
    u64 s[6], c = 0;
    for (int i = 0; i < 6; i++) s[i] = adc(acc[i], t[i + 6], c, &c);
    fp_reduce_once(r->l, s);
}

INLINE void wide_add(u64 r[12], const u64 a[12], const u64 b[12]) {
    u64 c = 0;
    for (int i = 0; i < 12; i++) r[i] = adc(a[i], b[i], c, &c);
}

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
INLINE void fp2_mul_fp(fp2 *r, const fp2 *a, const fp *b) { fp_mul(&r->c0, &a->c0, b); fp_mul(&r->c1, &a->c1, b); }

/// Karatsuba with one reduction per output coefficient (lazy reduction, Aranha et al. ePrint 2010/526):
/// c1 = (a0+a1)(b0+b1) − a0b0 − a1b1 stays below 2p² < pR; c0 = a0b0 − a1b1 gets p·R added when negative.
INLINE void fp2_mul(fp2 *r, const fp2 *a, const fp2 *b) {
    u64 t0[12], t1[12], t2[12];
    fp sa, sb;
    mul_wide(t0, a->c0.l, b->c0.l);
    mul_wide(t1, a->c1.l, b->c1.l);
    fp_add_unreduced(&sa, &a->c0, &a->c1);
    fp_add_unreduced(&sb, &b->c0, &b->c1);
    mul_wide(t2, sa.l, sb.l);
    wide_sub(t2, t2, t0);
    wide_sub(t2, t2, t1);
    u64 borrow = wide_sub(t0, t0, t1);
    wide_add_p_high(t0, (u64)0 - borrow);
    redc_wide(&r->c0, t0);
    redc_wide(&r->c1, t2);
}

/// (a0 + a1 u)² = (a0 + a1)(a0 − a1) + 2 a0 a1 u, each product below 4p² < pR.
INLINE void fp2_sqr(fp2 *r, const fp2 *a) {
    u64 t0[12], t1[12];
    fp s, d, a0x2;
    fp_add_unreduced(&s, &a->c0, &a->c1);
    fp_sub_unreduced(&d, &a->c0, &a->c1);
    fp_add_unreduced(&a0x2, &a->c0, &a->c0);
    mul_wide(t0, s.l, d.l);
    mul_wide(t1, a0x2.l, a->c1.l);
    redc_wide(&r->c0, t0);
    redc_wide(&r->c1, t1);
}

/// Multiplication by the non-residue ξ = 1 + u: (c0 − c1) + (c0 + c1) u.
INLINE void fp2_mul_xi(fp2 *r, const fp2 *a) {
    fp t0, t1;
    fp_sub(&t0, &a->c0, &a->c1);
    fp_add(&t1, &a->c0, &a->c1);
    r->c0 = t0;
    r->c1 = t1;
}

#endif
