// G1 ⊂ E1(Fp): y² = x³ + 4. Compressed decoding with every check, subgroup test, group operations.
#include <stdlib.h>
#include <string.h>
#include "bls_internal.h"
#include "constants.h"

#define F fp
#define FOP(op) fp_##op
#define G(name) g1_##name
#define AFFINE bls_g1_affine
#define CURVE_B G1_B
#define FIELD_ONE FP_ONE
#include "curve_impl.h"

/// r = 0x73eda753299d7d483339d80809a1d80553bda402fffe5bfeffffffff00000001, big-endian.
static const uint8_t GROUP_ORDER[32] = {
    0x73, 0xed, 0xa7, 0x53, 0x29, 0x9d, 0x7d, 0x48, 0x33, 0x39, 0xd8, 0x08, 0x09, 0xa1, 0xd8, 0x05,
    0x53, 0xbd, 0xa4, 0x02, 0xff, 0xfe, 0x5b, 0xfe, 0xff, 0xff, 0xff, 0xff, 0x00, 0x00, 0x00, 0x01,
};

int bls_g1_in_subgroup(const bls_g1_affine *p) {
    // Scott (ePrint 2021/1130): P ∈ G1 ⟺ σ(P) = −[x²]P with σ(x, y) = (βx, y).
    if (p->infinity) return 1;
    g1_jac t;
    g1_mul_u64_affine(&t, p, BLS_X_ABS);
    g1_mul_u64(&t, &t, BLS_X_ABS);
    if (g1_jac_is_infinity(&t)) return 0;
    fp z2, z3, lhs, rhs;
    fp_sqr(&z2, &t.z);
    fp_mul(&z3, &z2, &t.z);
    fp_mul(&lhs, &p->x, &G1_BETA);
    fp_mul(&lhs, &lhs, &z2);
    if (!fp_equal(&lhs, &t.x)) return 0;
    fp_mul(&lhs, &p->y, &z3);
    fp_neg(&rhs, &t.y);
    return fp_equal(&lhs, &rhs);
}

int bls_g1_in_subgroup_slow(const bls_g1_affine *p) {
    g1_jac t;
    g1_mul_bytes(&t, p, GROUP_ORDER, sizeof GROUP_ORDER);
    return g1_jac_is_infinity(&t);
}

static int all_zero(const uint8_t *b, size_t n) {
    uint8_t acc = 0;
    for (size_t i = 0; i < n; i++) acc |= b[i];
    return acc == 0;
}

bls_decode_status bls_g1_decompress(bls_g1_affine *out, const uint8_t in[48], int check_subgroup) {
    uint8_t flags = in[0] & 0xe0;
    *out = (bls_g1_affine){0};
    if (!(flags & 0x80)) return BLS_DECODE_NOT_COMPRESSED;
    if (flags & 0x40) {
        if ((flags & 0x20) || (in[0] & 0x1f) || !all_zero(in + 1, 47)) return BLS_DECODE_BAD_INFINITY;
        out->infinity = 1;
        return BLS_DECODE_OK;
    }
    uint8_t xb[48];
    memcpy(xb, in, 48);
    xb[0] &= 0x1f;
    fp x, y, rhs;
    if (!bls_fp_from_bytes(&x, xb)) return BLS_DECODE_NON_CANONICAL;
    fp_sqr(&rhs, &x);
    fp_mul(&rhs, &rhs, &x);
    fp_add(&rhs, &rhs, &G1_B);
    if (!fp_sqrt(&y, &rhs)) return BLS_DECODE_NOT_ON_CURVE;
    if (fp_is_lex_largest(&y) != !!(flags & 0x20)) fp_neg(&y, &y);
    out->x = x;
    out->y = y;
    if (check_subgroup && !bls_g1_in_subgroup(out)) return BLS_DECODE_NOT_IN_SUBGROUP;
    return BLS_DECODE_OK;
}

void bls_g1_compress(uint8_t out[48], const bls_g1_affine *p) {
    if (p->infinity) {
        memset(out, 0, 48);
        out[0] = 0xc0;
        return;
    }
    bls_fp_to_bytes(out, &p->x);
    out[0] |= 0x80;
    if (fp_is_lex_largest(&p->y)) out[0] |= 0x20;
}

bls_decode_status bls_g1_from_xy(bls_g1_affine *out, const uint8_t x[48], const uint8_t y[48]) {
    *out = (bls_g1_affine){0};
    if (!bls_fp_from_bytes(&out->x, x) || !bls_fp_from_bytes(&out->y, y)) return BLS_DECODE_NON_CANONICAL;
    if (!g1_affine_on_curve(out)) return BLS_DECODE_NOT_ON_CURVE;
    return BLS_DECODE_OK;
}

void bls_g1_to_xy(uint8_t x[48], uint8_t y[48], const bls_g1_affine *p) {
    bls_fp_to_bytes(x, &p->x);
    bls_fp_to_bytes(y, &p->y);
}

void bls_g1_generator(bls_g1_affine *out) {
    out->x = G1_GEN_X;
    out->y = G1_GEN_Y;
    out->infinity = 0;
}

void bls_g1_add(bls_g1_affine *out, const bls_g1_affine *a, const bls_g1_affine *b) {
    g1_jac t;
    g1_from_affine(&t, a);
    g1_add_affine(&t, &t, b);
    g1_to_affine(out, &t);
}

void bls_g1_neg(bls_g1_affine *out, const bls_g1_affine *a) {
    *out = *a;
    if (!a->infinity) fp_neg(&out->y, &a->y);
}

void bls_g1_mul(bls_g1_affine *out, const bls_g1_affine *a, const uint8_t *scalar, size_t len) {
    g1_jac t;
    g1_mul_bytes(&t, a, scalar, len);
    g1_to_affine(out, &t);
}

int bls_g1_equal(const bls_g1_affine *a, const bls_g1_affine *b) {
    if (a->infinity || b->infinity) return a->infinity && b->infinity;
    return fp_equal(&a->x, &b->x) && fp_equal(&a->y, &b->y);
}

// ---- hash to curve (RFC 9380 §6.6.2, §6.6.3, §8.8.1) ----

/// sqrt_ratio for p ≡ 3 (mod 4) (RFC 9380 F.2.1.2): returns 1 and y = √(u/v) if u/v is a square,
/// else 0 and y = √(Z·u/v).
static int sqrt_ratio(fp *y, const fp *u, const fp *v) {
    fp tv1, tv2, y1, tv3;
    fp_sqr(&tv1, v);
    fp_mul(&tv2, u, v);
    fp_mul(&tv1, &tv1, &tv2);
    fp_pow(&y1, &tv1, P_MINUS_3_DIV_4_PLAIN.l, 6);
    fp_mul(&y1, &y1, &tv2);
    fp_sqr(&tv3, &y1);
    fp_mul(&tv3, &tv3, v);
    if (fp_equal(&tv3, u)) {
        *y = y1;
        return 1;
    }
    fp_mul(y, &y1, &SSWU_SQRT_MINUS_Z);
    return 0;
}

/// Σ k[i]·xn^i·xd^(deg−i): a polynomial in x = xn/xd, scaled by xd^deg (Horner's rule).
static void iso_poly(fp *r, const fp *k, int deg, const fp *xn, const fp xd_pow[16]) {
    fp acc = k[deg], t;
    for (int i = deg - 1; i >= 0; i--) {
        fp_mul(&acc, &acc, xn);
        fp_mul(&t, &k[i], &xd_pow[deg - i]);
        fp_add(&acc, &acc, &t);
    }
    *r = acc;
}

/// Simplified SWU on E' (straight-line version of RFC 9380 §6.6.2 with x kept as the fraction xn/xd),
/// then the 11-isogeny E' → E evaluated projectively. Returns the point in Jacobian coordinates;
/// a vanishing isogeny denominator yields the identity.
static void map_to_curve_jac(g1_jac *out, const fp *u) {
    fp tv1, tv2, tv3, tv4, tv5, tv6, xn, y, y1;
    fp_sqr(&tv1, u);
    fp_mul(&tv1, &tv1, &SSWU_Z);        // Z u²
    fp_sqr(&tv2, &tv1);
    fp_add(&tv2, &tv2, &tv1);           // Z²u⁴ + Zu²
    fp_add(&tv3, &tv2, &FP_ONE);
    fp_mul(&tv3, &tv3, &SSWU_B);        // B(tv2 + 1)
    if (fp_is_zero(&tv2)) tv4 = SSWU_Z; // exceptional case: x1 = B/(Z A)
    else fp_neg(&tv4, &tv2);
    fp_mul(&tv4, &tv4, &SSWU_A);        // xd
    fp_sqr(&tv2, &tv3);
    fp_sqr(&tv6, &tv4);
    fp_mul(&tv5, &tv6, &SSWU_A);
    fp_add(&tv2, &tv2, &tv5);
    fp_mul(&tv2, &tv2, &tv3);
    fp_mul(&tv6, &tv6, &tv4);
    fp_mul(&tv5, &tv6, &SSWU_B);
    fp_add(&tv2, &tv2, &tv5);           // gx1 · xd³
    fp_mul(&xn, &tv1, &tv3);            // x2 numerator
    int is_square = sqrt_ratio(&y1, &tv2, &tv6);
    fp_mul(&y, &tv1, u);
    fp_mul(&y, &y, &y1);
    if (is_square) {
        xn = tv3;
        y = y1;
    }
    if (fp_sgn0(u) != fp_sgn0(&y)) fp_neg(&y, &y);
    // Isogeny: x = Xnum/(xd·Xden), y = y'·Ynum/Yden with homogenised polynomials in (xn, xd).
    fp xd_pow[16];
    xd_pow[0] = FP_ONE;
    xd_pow[1] = tv4;
    for (int i = 2; i < 16; i++) fp_mul(&xd_pow[i], &xd_pow[i - 1], &tv4);
    fp x_num, x_den, y_num, y_den;
    iso_poly(&x_num, ISO_X_NUM, 11, &xn, xd_pow);
    iso_poly(&x_den, ISO_X_DEN, 10, &xn, xd_pow);
    fp_mul(&x_den, &x_den, &tv4);
    iso_poly(&y_num, ISO_Y_NUM, 15, &xn, xd_pow);
    iso_poly(&y_den, ISO_Y_DEN, 15, &xn, xd_pow);
    fp_mul(&y_num, &y_num, &y);
    // Jacobian with Z = Dx·Dy: X = Nx·Dx·Dy², Y = Ny·Dx³·Dy².
    fp dy2, dx3, t;
    fp_mul(&out->z, &x_den, &y_den);
    fp_sqr(&dy2, &y_den);
    fp_mul(&t, &x_num, &x_den);
    fp_mul(&out->x, &t, &dy2);
    fp_sqr(&dx3, &x_den);
    fp_mul(&dx3, &dx3, &x_den);
    fp_mul(&t, &y_num, &dx3);
    fp_mul(&out->y, &t, &dy2);
    if (fp_is_zero(&out->z)) g1_jac_set_infinity(out);
}

/// [h_eff]P with h_eff = 1 − x = 0xd201000000010001 (Wahby–Boneh; RFC 9380 §8.8.1).
static void clear_cofactor_jac(g1_jac *r, const g1_jac *p) { g1_mul_u64(r, p, BLS_H_EFF); }

void bls_map_to_g1(bls_g1_affine *out, const bls_fp *u) {
    g1_jac q;
    map_to_curve_jac(&q, u);
    g1_to_affine(out, &q);
}

void bls_g1_clear_cofactor(bls_g1_affine *out, const bls_g1_affine *p) {
    g1_jac q;
    g1_from_affine(&q, p);
    clear_cofactor_jac(&q, &q);
    g1_to_affine(out, &q);
}

void bls_hash_to_g1(bls_g1_affine *out, const uint8_t uniform[128]) {
    fp u0, u1;
    bls_fp_from_wide_bytes(&u0, uniform);
    bls_fp_from_wide_bytes(&u1, uniform + 64);
    g1_jac q0, q1;
    map_to_curve_jac(&q0, &u0);
    map_to_curve_jac(&q1, &u1);
    g1_add(&q0, &q0, &q1);
    clear_cofactor_jac(&q0, &q0);
    g1_to_affine(out, &q0);
}

void bls_encode_to_g1(bls_g1_affine *out, const uint8_t uniform[64]) {
    fp u;
    bls_fp_from_wide_bytes(&u, uniform);
    g1_jac q;
    map_to_curve_jac(&q, &u);
    clear_cofactor_jac(&q, &q);
    g1_to_affine(out, &q);
}

// ---- batch verification support ----

/// Normalises n Jacobian points with one shared inversion (Montgomery's trick); `prefix` is scratch of n elements.
static void batch_to_affine(bls_g1_affine *out, const g1_jac *in, fp *prefix, size_t n) {
    fp acc = FP_ONE;
    for (size_t i = 0; i < n; i++) {
        prefix[i] = acc;
        if (!g1_jac_is_infinity(&in[i])) fp_mul(&acc, &acc, &in[i].z);
    }
    fp inv;
    fp_inv(&inv, &acc);
    for (size_t i = n; i-- > 0;) {
        if (g1_jac_is_infinity(&in[i])) {
            out[i] = (bls_g1_affine){0};
            out[i].infinity = 1;
            continue;
        }
        fp zi, zi2, zi3;
        fp_mul(&zi, &inv, &prefix[i]);       // 1/Zᵢ
        fp_mul(&inv, &inv, &in[i].z);        // drop Zᵢ from the running inverse
        fp_sqr(&zi2, &zi);
        fp_mul(&zi3, &zi2, &zi);
        fp_mul(&out[i].x, &in[i].x, &zi2);
        fp_mul(&out[i].y, &in[i].y, &zi3);
        out[i].infinity = 0;
    }
}

int bls_g1_batch_scale(bls_g1_affine *scaled_hashes, bls_g1_affine *signature_sum, const bls_g1_affine *sigs,
                       const bls_g1_affine *hashes, const uint64_t *scalars, size_t n) {
    g1_jac *jac = malloc((n + 1) * sizeof *jac);
    fp *scratch = malloc((n + 1) * sizeof *scratch);
    bls_g1_affine *affine = malloc((n + 1) * sizeof *affine);
    if (!jac || !scratch || !affine) {
        free(jac);
        free(scratch);
        free(affine);
        return -1;
    }
    g1_jac_set_infinity(&jac[n]);
    for (size_t i = 0; i < n; i++) {
        g1_jac t;
        g1_mul_u64_affine(&t, &sigs[i], scalars[i]);
        g1_add(&jac[n], &jac[n], &t);
        g1_mul_u64_affine(&jac[i], &hashes[i], scalars[i]);
    }
    batch_to_affine(affine, jac, scratch, n + 1);
    for (size_t i = 0; i < n; i++) scaled_hashes[i] = affine[i];
    *signature_sum = affine[n];
    free(jac);
    free(scratch);
    free(affine);
    return 0;
}
