// The extension tower Fp2 ⊂ Fp6 = Fp2[v]/(v³ − ξ) ⊂ Fp12 = Fp6[w]/(w² − v), ξ = 1 + u.
#include "bls_internal.h"
#include "constants.h"

// ---- Fp2 ----

void fp2_inv(fp2 *r, const fp2 *a) {
    // 1/(a0 + a1 u) = (a0 − a1 u)/(a0² + a1²)
    fp t0, t1;
    fp_sqr(&t0, &a->c0);
    fp_sqr(&t1, &a->c1);
    fp_add(&t0, &t0, &t1);
    fp_inv(&t1, &t0);
    fp_mul(&r->c0, &a->c0, &t1);
    fp_mul(&t0, &a->c1, &t1);
    fp_neg(&r->c1, &t0);
}

int fp2_sqrt(fp2 *r, const fp2 *a) {
    fp2 root;
    if (fp_is_zero(&a->c1)) {
        // a ∈ Fp: either √a0 ∈ Fp, or −a0 is a square (−1 is not) and √a = √(−a0)·u.
        fp t;
        if (fp_sqrt(&root.c0, &a->c0)) {
            root.c1 = (fp){{0}};
        } else {
            fp_neg(&t, &a->c0);
            if (!fp_sqrt(&root.c1, &t)) return 0;
            root.c0 = (fp){{0}};
        }
        *r = root;
        return 1;
    }
    // Norm method: a is a square iff N(a) = a0² + a1² is a square in Fp. With α = √N(a), exactly one of
    // δ = (a0 ± α)/2 is a square. s = δ^((p−3)/4) gives both cases without an inversion:
    //   s²δ = 1  → √a = sδ + (a1 s/2) u;   s²δ = −1 → √a = a1 s/2 − sδ u.
    fp norm, alpha, t, delta, s, s2d, half_a1s;
    fp_sqr(&norm, &a->c0);
    fp_sqr(&t, &a->c1);
    fp_add(&norm, &norm, &t);
    if (!fp_sqrt(&alpha, &norm)) return 0;
    fp_add(&delta, &a->c0, &alpha);
    fp_half(&delta, &delta);
    fp_pow(&s, &delta, P_MINUS_3_DIV_4_PLAIN.l, 6);
    fp_sqr(&t, &s);
    fp_mul(&s2d, &t, &delta);
    fp_mul(&t, &s, &delta);
    fp_mul(&half_a1s, &a->c1, &s);
    fp_half(&half_a1s, &half_a1s);
    if (fp_is_one(&s2d)) {
        root.c0 = t;
        root.c1 = half_a1s;
    } else {
        root.c0 = half_a1s;
        fp_neg(&root.c1, &t);
    }
    // Defensive: confirm the root (also rejects δ = 0, which cannot happen when a1 ≠ 0).
    fp2 check;
    fp2_sqr(&check, &root);
    if (!fp2_equal(&check, a)) return 0;
    *r = root;
    return 1;
}

int fp2_is_lex_largest(const fp2 *a) {
    if (!fp_is_zero(&a->c1)) return fp_is_lex_largest(&a->c1);
    return fp_is_lex_largest(&a->c0);
}

// ---- Fp6 ----

void fp6_add(fp6 *r, const fp6 *a, const fp6 *b) {
    fp2_add(&r->c0, &a->c0, &b->c0);
    fp2_add(&r->c1, &a->c1, &b->c1);
    fp2_add(&r->c2, &a->c2, &b->c2);
}

void fp6_sub(fp6 *r, const fp6 *a, const fp6 *b) {
    fp2_sub(&r->c0, &a->c0, &b->c0);
    fp2_sub(&r->c1, &a->c1, &b->c1);
    fp2_sub(&r->c2, &a->c2, &b->c2);
}

static void fp6_neg(fp6 *r, const fp6 *a) {
    fp2_neg(&r->c0, &a->c0);
    fp2_neg(&r->c1, &a->c1);
    fp2_neg(&r->c2, &a->c2);
}

/// r = a·v = ξ a2 + a0 v + a1 v².
static void fp6_mul_by_v(fp6 *r, const fp6 *a) {
    fp2 t;
    fp2_mul_xi(&t, &a->c2);
    r->c2 = a->c1;
    r->c1 = a->c0;
    r->c0 = t;
}

void fp6_mul(fp6 *r, const fp6 *a, const fp6 *b) {
    // Karatsuba: 6 Fp2 multiplications.
    fp2 t0, t1, t2, s0, s1, u0, u1, u2;
    fp2_mul(&t0, &a->c0, &b->c0);
    fp2_mul(&t1, &a->c1, &b->c1);
    fp2_mul(&t2, &a->c2, &b->c2);
    // c0 = t0 + ξ((a1 + a2)(b1 + b2) − t1 − t2)
    fp2_add(&s0, &a->c1, &a->c2);
    fp2_add(&s1, &b->c1, &b->c2);
    fp2_mul(&u0, &s0, &s1);
    fp2_sub(&u0, &u0, &t1);
    fp2_sub(&u0, &u0, &t2);
    fp2_mul_xi(&u0, &u0);
    fp2_add(&u0, &u0, &t0);
    // c1 = (a0 + a1)(b0 + b1) − t0 − t1 + ξ t2
    fp2_add(&s0, &a->c0, &a->c1);
    fp2_add(&s1, &b->c0, &b->c1);
    fp2_mul(&u1, &s0, &s1);
    fp2_sub(&u1, &u1, &t0);
    fp2_sub(&u1, &u1, &t1);
    fp2_mul_xi(&s0, &t2);
    fp2_add(&u1, &u1, &s0);
    // c2 = (a0 + a2)(b0 + b2) − t0 − t2 + t1
    fp2_add(&s0, &a->c0, &a->c2);
    fp2_add(&s1, &b->c0, &b->c2);
    fp2_mul(&u2, &s0, &s1);
    fp2_sub(&u2, &u2, &t0);
    fp2_sub(&u2, &u2, &t2);
    fp2_add(&u2, &u2, &t1);
    r->c0 = u0;
    r->c1 = u1;
    r->c2 = u2;
}

void fp6_sqr(fp6 *r, const fp6 *a) {
    // Chung–Hasan SQR2: s0 = a0², s1 = 2a0a1, s2 = (a0 − a1 + a2)², s3 = 2a1a2, s4 = a2².
    fp2 s0, s1, s2, s3, s4, t;
    fp2_sqr(&s0, &a->c0);
    fp2_mul(&s1, &a->c0, &a->c1);
    fp2_dbl(&s1, &s1);
    fp2_sub(&t, &a->c0, &a->c1);
    fp2_add(&t, &t, &a->c2);
    fp2_sqr(&s2, &t);
    fp2_mul(&s3, &a->c1, &a->c2);
    fp2_dbl(&s3, &s3);
    fp2_sqr(&s4, &a->c2);
    fp2_mul_xi(&t, &s3);
    fp2_add(&r->c0, &s0, &t);
    fp2_mul_xi(&t, &s4);
    fp2 c1;
    fp2_add(&c1, &s1, &t);
    fp2_add(&t, &s1, &s2);
    fp2_add(&t, &t, &s3);
    fp2_sub(&t, &t, &s0);
    fp2_sub(&r->c2, &t, &s4);
    r->c1 = c1;
}

void fp6_inv(fp6 *r, const fp6 *a) {
    // t0 = a0² − ξ a1a2, t1 = ξ a2² − a0a1, t2 = a1² − a0a2, d = a0t0 + ξ(a2t1 + a1t2), 1/a = (t0, t1, t2)/d.
    fp2 t0, t1, t2, x, d;
    fp2_sqr(&t0, &a->c0);
    fp2_mul(&x, &a->c1, &a->c2);
    fp2_mul_xi(&x, &x);
    fp2_sub(&t0, &t0, &x);
    fp2_sqr(&t1, &a->c2);
    fp2_mul_xi(&t1, &t1);
    fp2_mul(&x, &a->c0, &a->c1);
    fp2_sub(&t1, &t1, &x);
    fp2_sqr(&t2, &a->c1);
    fp2_mul(&x, &a->c0, &a->c2);
    fp2_sub(&t2, &t2, &x);
    fp2_mul(&d, &a->c2, &t1);
    fp2_mul(&x, &a->c1, &t2);
    fp2_add(&d, &d, &x);
    fp2_mul_xi(&d, &d);
    fp2_mul(&x, &a->c0, &t0);
    fp2_add(&d, &d, &x);
    fp2_inv(&d, &d);
    fp2_mul(&r->c0, &t0, &d);
    fp2_mul(&r->c1, &t1, &d);
    fp2_mul(&r->c2, &t2, &d);
}

// ---- Fp12 ----

void fp12_one(fp12 *r) {
    *r = (fp12){0};
    r->c0.c0.c0 = FP_ONE;
}

void fp12_mul(fp12 *r, const fp12 *a, const fp12 *b) {
    // Karatsuba over Fp6: c0 = a0b0 + v a1b1, c1 = (a0 + a1)(b0 + b1) − a0b0 − a1b1.
    fp6 t0, t1, s0, s1, c1;
    fp6_mul(&t0, &a->c0, &b->c0);
    fp6_mul(&t1, &a->c1, &b->c1);
    fp6_add(&s0, &a->c0, &a->c1);
    fp6_add(&s1, &b->c0, &b->c1);
    fp6_mul(&c1, &s0, &s1);
    fp6_sub(&c1, &c1, &t0);
    fp6_sub(&c1, &c1, &t1);
    fp6_mul_by_v(&t1, &t1);
    fp6_add(&r->c0, &t0, &t1);
    r->c1 = c1;
}

void fp12_sqr(fp12 *r, const fp12 *a) {
    // Complex squaring: t = a0a1, c0 = (a0 + a1)(a0 + v a1) − t − v t, c1 = 2t.
    fp6 t, s0, s1, vt;
    fp6_mul(&t, &a->c0, &a->c1);
    fp6_add(&s0, &a->c0, &a->c1);
    fp6_mul_by_v(&s1, &a->c1);
    fp6_add(&s1, &s1, &a->c0);
    fp6_mul(&s0, &s0, &s1);
    fp6_mul_by_v(&vt, &t);
    fp6_sub(&s0, &s0, &t);
    fp6_sub(&r->c0, &s0, &vt);
    fp6_add(&r->c1, &t, &t);
}

void fp12_conj(fp12 *r, const fp12 *a) {
    r->c0 = a->c0;
    fp6_neg(&r->c1, &a->c1);
}

void fp12_inv(fp12 *r, const fp12 *a) {
    // 1/(a0 + a1 w) = (a0 − a1 w)/(a0² − v a1²)
    fp6 t0, t1;
    fp6_sqr(&t0, &a->c0);
    fp6_sqr(&t1, &a->c1);
    fp6_mul_by_v(&t1, &t1);
    fp6_sub(&t0, &t0, &t1);
    fp6_inv(&t0, &t0);
    fp6_mul(&r->c0, &a->c0, &t0);
    fp6_mul(&t1, &a->c1, &t0);
    fp6_neg(&r->c1, &t1);
}

// The coefficient of w^i: w^0 = c0.c0, w^1 = c1.c0, w^2 = c0.c1, w^3 = c1.c1, w^4 = c0.c2, w^5 = c1.c2.

void fp12_frobenius(fp12 *r, const fp12 *a) {
    fp2 t;
    fp2_conj(&r->c0.c0, &a->c0.c0);
    fp2_conj(&t, &a->c1.c0); fp2_mul(&r->c1.c0, &t, &FROB1[1]);
    fp2_conj(&t, &a->c0.c1); fp2_mul(&r->c0.c1, &t, &FROB1[2]);
    fp2_conj(&t, &a->c1.c1); fp2_mul(&r->c1.c1, &t, &FROB1[3]);
    fp2_conj(&t, &a->c0.c2); fp2_mul(&r->c0.c2, &t, &FROB1[4]);
    fp2_conj(&t, &a->c1.c2); fp2_mul(&r->c1.c2, &t, &FROB1[5]);
}

void fp12_frobenius2(fp12 *r, const fp12 *a) {
    r->c0.c0 = a->c0.c0;
    fp2_mul_fp(&r->c1.c0, &a->c1.c0, &FROB2[1]);
    fp2_mul_fp(&r->c0.c1, &a->c0.c1, &FROB2[2]);
    fp2_mul_fp(&r->c1.c1, &a->c1.c1, &FROB2[3]);
    fp2_mul_fp(&r->c0.c2, &a->c0.c2, &FROB2[4]);
    fp2_mul_fp(&r->c1.c2, &a->c1.c2, &FROB2[5]);
}

/// (x + y s)² in Fp4 = Fp2[s]/(s² − ξ): (x² + ξ y²) + ((x + y)² − x² − y²) s.
static void fp4_sqr(fp2 *r0, fp2 *r1, const fp2 *x, const fp2 *y) {
    fp2 t0, t1, t2;
    fp2_sqr(&t0, x);
    fp2_sqr(&t1, y);
    fp2_add(&t2, x, y);
    fp2_sqr(&t2, &t2);
    fp2_sub(&t2, &t2, &t0);
    fp2_sub(r1, &t2, &t1);
    fp2_mul_xi(&t1, &t1);
    fp2_add(r0, &t0, &t1);
}

void fp12_cyclotomic_sqr(fp12 *r, const fp12 *a) {
    // Granger–Scott (ePrint 2009/565): write a = A + B w + C w² over Fp4 = Fp2[s], s = w³, with
    // A = (w^0, w^3), B = (w^1, w^4), C = (w^2, w^5). In the cyclotomic subgroup
    // A' = 3A² − 2Ā, B' = 3sC² + 2B̄, C' = 3B² − 2C̄, where (x + ys)‾ = x − ys and s(x + ys) = ξy + xs.
    fp2 a0, a1, b0, b1, c0, c1, t;
    fp4_sqr(&a0, &a1, &a->c0.c0, &a->c1.c1);
    fp4_sqr(&b0, &b1, &a->c1.c0, &a->c0.c2);
    fp4_sqr(&c0, &c1, &a->c0.c1, &a->c1.c2);
    fp2_mul_xi(&c1, &c1);
    // 3z − 2x = 2(z − x) + z and 3z + 2x = 2(z + x) + z
#define MINUS(dst, z, x) fp2_sub(&t, &(z), &(x)); fp2_dbl(&t, &t); fp2_add(&(dst), &t, &(z));
#define PLUS(dst, z, x) fp2_add(&t, &(z), &(x)); fp2_dbl(&t, &t); fp2_add(&(dst), &t, &(z));
    // Each output coefficient reads only the same input coefficient, so r may alias a.
    MINUS(r->c0.c0, a0, a->c0.c0)
    PLUS(r->c1.c1, a1, a->c1.c1)
    PLUS(r->c1.c0, c1, a->c1.c0)
    MINUS(r->c0.c2, c0, a->c0.c2)
    MINUS(r->c0.c1, b0, a->c0.c1)
    PLUS(r->c1.c2, b1, a->c1.c2)
#undef MINUS
#undef PLUS
}

void fp12_mul_by_line(fp12 *r, const fp12 *a, const fp2 *l0, const fp2 *l1, const fp2 *l4) {
    // The line is L0 + L1 w with L0 = l0 + l1 v and L1 = l4 v. Karatsuba over Fp6 with sparse factors:
    // a0·L0 (5 Fp2 mults), a1·L1 (3), (a0 + a1)(L0 + L1) (5).
    fp6 t0, t1, s;
    fp2 x0, x1, x2, y;
    const fp6 *a0 = &a->c0, *a1 = &a->c1;
    // t0 = a0·(l0 + l1 v)
    fp2_mul(&x0, &a0->c0, l0);
    fp2_mul(&x1, &a0->c1, l1);
    fp2_add(&y, &a0->c1, &a0->c2);
    fp2_mul(&t0.c0, &y, l1);
    fp2_sub(&t0.c0, &t0.c0, &x1);
    fp2_mul_xi(&t0.c0, &t0.c0);
    fp2_add(&t0.c0, &t0.c0, &x0);
    fp2_add(&y, &a0->c0, &a0->c1);
    fp2 z;
    fp2_add(&z, l0, l1);
    fp2_mul(&t0.c1, &y, &z);
    fp2_sub(&t0.c1, &t0.c1, &x0);
    fp2_sub(&t0.c1, &t0.c1, &x1);
    fp2_mul(&x2, &a0->c2, l0);
    fp2_add(&t0.c2, &x2, &x1);
    // t1 = a1·(l4 v) = ξ a12 l4 + a10 l4 v + a11 l4 v²
    fp2_mul(&x0, &a1->c2, l4);
    fp2_mul_xi(&t1.c0, &x0);
    fp2_mul(&t1.c1, &a1->c0, l4);
    fp2_mul(&t1.c2, &a1->c1, l4);
    // s = (a0 + a1)·(l0 + (l1 + l4) v)
    fp6 sum;
    fp6_add(&sum, a0, a1);
    fp2 m1;
    fp2_add(&m1, l1, l4);
    fp2_mul(&x0, &sum.c0, l0);
    fp2_mul(&x1, &sum.c1, &m1);
    fp2_add(&y, &sum.c1, &sum.c2);
    fp2_mul(&s.c0, &y, &m1);
    fp2_sub(&s.c0, &s.c0, &x1);
    fp2_mul_xi(&s.c0, &s.c0);
    fp2_add(&s.c0, &s.c0, &x0);
    fp2_add(&y, &sum.c0, &sum.c1);
    fp2_add(&z, l0, &m1);
    fp2_mul(&s.c1, &y, &z);
    fp2_sub(&s.c1, &s.c1, &x0);
    fp2_sub(&s.c1, &s.c1, &x1);
    fp2_mul(&x2, &sum.c2, l0);
    fp2_add(&s.c2, &x2, &x1);
    // r = (t0 + v t1) + (s − t0 − t1) w
    fp6_sub(&s, &s, &t0);
    fp6_sub(&s, &s, &t1);
    fp6_mul_by_v(&t1, &t1);
    fp6_add(&r->c0, &t0, &t1);
    r->c1 = s;
}

int fp12_is_one_internal(const fp12 *a) {
    fp12 one;
    fp12_one(&one);
    return fp12_equal_internal(a, &one);
}

int fp12_equal_internal(const fp12 *a, const fp12 *b) {
    const fp2 *x = &a->c0.c0, *y = &b->c0.c0;
    for (int i = 0; i < 6; i++)
        if (!fp2_equal(&x[i], &y[i])) return 0;
    return 1;
}

void fp12_pow_bytes(fp12 *r, const fp12 *a, const uint8_t *e, size_t len) {
    fp12 acc;
    fp12_one(&acc);
    for (size_t i = 0; i < len; i++)
        for (int b = 7; b >= 0; b--) {
            fp12_sqr(&acc, &acc);
            if ((e[i] >> b) & 1) fp12_mul(&acc, &acc, a);
        }
    *r = acc;
}
