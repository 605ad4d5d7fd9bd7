// G2 ⊂ E2(Fp2): y² = x³ + 4(1 + u). Compressed decoding with every check, subgroup test, group operations.
#include <string.h>
#include "bls_internal.h"
#include "constants.h"

#define F fp2
#define FOP(op) fp2_##op
#define G(name) g2_##name
#define AFFINE bls_g2_affine
#define CURVE_B G2_B
#define FIELD_ONE FP2_ONE
#include "curve_impl.h"

static const uint8_t GROUP_ORDER[32] = {
    0x73, 0xed, 0xa7, 0x53, 0x29, 0x9d, 0x7d, 0x48, 0x33, 0x39, 0xd8, 0x08, 0x09, 0xa1, 0xd8, 0x05,
    0x53, 0xbd, 0xa4, 0x02, 0xff, 0xfe, 0x5b, 0xfe, 0xff, 0xff, 0xff, 0xff, 0x00, 0x00, 0x00, 0x01,
};

int bls_g2_in_subgroup(const bls_g2_affine *q) {
    // Scott (ePrint 2021/1130): Q ∈ G2 ⟺ ψ(Q) = [x]Q = −[|x|]Q, ψ(x, y) = (x̄·cx, ȳ·cy).
    if (q->infinity) return 1;
    g2_jac t;
    g2_mul_u64_affine(&t, q, BLS_X_ABS);
    if (g2_jac_is_infinity(&t)) return 0;
    fp2 z2, z3, px, py, lhs, rhs;
    fp2_sqr(&z2, &t.z);
    fp2_mul(&z3, &z2, &t.z);
    fp2_conj(&px, &q->x);
    fp2_mul(&px, &px, &PSI_CX);
    fp2_conj(&py, &q->y);
    fp2_mul(&py, &py, &PSI_CY);
    fp2_mul(&lhs, &px, &z2);
    if (!fp2_equal(&lhs, &t.x)) return 0;
    fp2_mul(&lhs, &py, &z3);
    fp2_neg(&rhs, &t.y);
    return fp2_equal(&lhs, &rhs);
}

int bls_g2_in_subgroup_slow(const bls_g2_affine *q) {
    g2_jac t;
    g2_mul_bytes(&t, q, GROUP_ORDER, sizeof GROUP_ORDER);
    return g2_jac_is_infinity(&t);
}

static int all_zero(const uint8_t *b, size_t n) {
    uint8_t acc = 0;
    for (size_t i = 0; i < n; i++) acc |= b[i];
    return acc == 0;
}

bls_decode_status bls_g2_decompress(bls_g2_affine *out, const uint8_t in[96], int check_subgroup) {
    uint8_t flags = in[0] & 0xe0;
    *out = (bls_g2_affine){0};
    if (!(flags & 0x80)) return BLS_DECODE_NOT_COMPRESSED;
    if (flags & 0x40) {
        if ((flags & 0x20) || (in[0] & 0x1f) || !all_zero(in + 1, 95)) return BLS_DECODE_BAD_INFINITY;
        out->infinity = 1;
        return BLS_DECODE_OK;
    }
    // The encoding holds c1 first, then c0.
    uint8_t c1b[48];
    memcpy(c1b, in, 48);
    c1b[0] &= 0x1f;
    fp2 x, y, rhs;
    if (!bls_fp_from_bytes(&x.c1, c1b) || !bls_fp_from_bytes(&x.c0, in + 48)) return BLS_DECODE_NON_CANONICAL;
    fp2_sqr(&rhs, &x);
    fp2_mul(&rhs, &rhs, &x);
    fp2_add(&rhs, &rhs, &G2_B);
    if (!fp2_sqrt(&y, &rhs)) return BLS_DECODE_NOT_ON_CURVE;
    if (fp2_is_lex_largest(&y) != !!(flags & 0x20)) fp2_neg(&y, &y);
    out->x = x;
    out->y = y;
    if (check_subgroup && !bls_g2_in_subgroup(out)) return BLS_DECODE_NOT_IN_SUBGROUP;
    return BLS_DECODE_OK;
}

void bls_g2_compress(uint8_t out[96], const bls_g2_affine *q) {
    if (q->infinity) {
        memset(out, 0, 96);
        out[0] = 0xc0;
        return;
    }
    bls_fp_to_bytes(out, &q->x.c1);
    bls_fp_to_bytes(out + 48, &q->x.c0);
    out[0] |= 0x80;
    if (fp2_is_lex_largest(&q->y)) out[0] |= 0x20;
}

void bls_g2_generator(bls_g2_affine *out) {
    out->x = G2_GEN_X;
    out->y = G2_GEN_Y;
    out->infinity = 0;
}

void bls_g2_add(bls_g2_affine *out, const bls_g2_affine *a, const bls_g2_affine *b) {
    g2_jac t;
    g2_from_affine(&t, a);
    g2_add_affine(&t, &t, b);
    g2_to_affine(out, &t);
}

void bls_g2_neg(bls_g2_affine *out, const bls_g2_affine *a) {
    *out = *a;
    if (!a->infinity) fp2_neg(&out->y, &a->y);
}

void bls_g2_mul(bls_g2_affine *out, const bls_g2_affine *a, const uint8_t *scalar, size_t len) {
    g2_jac t;
    g2_mul_bytes(&t, a, scalar, len);
    g2_to_affine(out, &t);
}

int bls_g2_equal(const bls_g2_affine *a, const bls_g2_affine *b) {
    if (a->infinity || b->infinity) return a->infinity && b->infinity;
    return fp2_equal(&a->x, &b->x) && fp2_equal(&a->y, &b->y);
}
