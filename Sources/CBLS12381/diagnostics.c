// Diagnostics for tests: internal identities checked on pseudo-random elements, and the compiled-in constants.
#include "bls_internal.h"
#include "constants.h"

static u64 next_random(u64 *state) {
    // xorshift64*: reproducible filler for test elements, not for secrets.
    *state ^= *state >> 12;
    *state ^= *state << 25;
    *state ^= *state >> 27;
    return *state * 0x2545f4914f6cdd1dULL;
}

static void random_fp(fp *r, u64 *state) {
    u64 plain[6];
    for (int i = 0; i < 6; i++) plain[i] = next_random(state);
    plain[5] &= 0x0fffffffffffffffULL;  // below p
    fp_from_plain(r, plain);
}

static void random_fp12(fp12 *r, u64 *state) {
    fp2 *c = &r->c0.c0;
    for (int i = 0; i < 6; i++) {
        random_fp(&c[i].c0, state);
        random_fp(&c[i].c1, state);
    }
}

/// p as big-endian bytes, and p² (96 bytes).
static void modulus_bytes(uint8_t p_be[48], uint8_t p2_be[96]) {
    for (int i = 0; i < 6; i++)
        for (int j = 0; j < 8; j++) p_be[(5 - i) * 8 + j] = (uint8_t)(FP_P[i] >> (56 - 8 * j));
    u64 sq[12];
    mul_wide(sq, FP_P, FP_P);
    for (int i = 0; i < 12; i++)
        for (int j = 0; j < 8; j++) p2_be[(11 - i) * 8 + j] = (uint8_t)(sq[i] >> (56 - 8 * j));
}

int bls_self_test(void) {
    u64 state = 0x9e3779b97f4a7c15ULL;
    fp12 f, g, h, one;
    fp12_one(&one);
    random_fp12(&f, &state);
    uint8_t p_be[48], p2_be[96];
    modulus_bytes(p_be, p2_be);

    // 1. Frobenius maps agree with exponentiation by p and p².
    fp12_frobenius(&g, &f);
    fp12_pow_bytes(&h, &f, p_be, 48);
    if (!fp12_equal_internal(&g, &h)) return 1;
    fp12_frobenius2(&g, &f);
    fp12_pow_bytes(&h, &f, p2_be, 96);
    if (!fp12_equal_internal(&g, &h)) return 2;

    // 2. Inversion and squaring in Fp12.
    fp12_inv(&g, &f);
    fp12_mul(&g, &g, &f);
    if (!fp12_equal_internal(&g, &one)) return 3;
    fp12_sqr(&g, &f);
    fp12_mul(&h, &f, &f);
    if (!fp12_equal_internal(&g, &h)) return 4;

    // 3. Cyclotomic squaring equals squaring after the easy part of the final exponentiation.
    fp12 m;
    fp12_inv(&g, &f);
    fp12_conj(&m, &f);
    fp12_mul(&m, &m, &g);
    fp12_frobenius2(&g, &m);
    fp12_mul(&m, &g, &m);
    fp12_cyclotomic_sqr(&g, &m);
    fp12_sqr(&h, &m);
    if (!fp12_equal_internal(&g, &h)) return 5;
    fp12_cyclotomic_sqr(&g, &g);
    fp12_sqr(&h, &h);
    if (!fp12_equal_internal(&g, &h)) return 6;

    // 4. Sparse line multiplication equals the dense product.
    fp2 l0, l1, l4;
    random_fp(&l0.c0, &state); random_fp(&l0.c1, &state);
    random_fp(&l1.c0, &state); random_fp(&l1.c1, &state);
    random_fp(&l4.c0, &state); random_fp(&l4.c1, &state);
    fp12 line = {0};
    line.c0.c0 = l0;
    line.c0.c1 = l1;
    line.c1.c1 = l4;
    fp12_mul_by_line(&g, &f, &l0, &l1, &l4);
    fp12_mul(&h, &f, &line);
    if (!fp12_equal_internal(&g, &h)) return 7;

    // 5. Square roots and inverses in Fp and Fp2; the 512-bit reduction.
    for (int i = 0; i < 8; i++) {
        fp a, sq, root, inv, prod;
        random_fp(&a, &state);
        fp_sqr(&sq, &a);
        if (!fp_sqrt(&root, &sq)) return 8;
        fp_sqr(&root, &root);
        if (!fp_equal(&root, &sq)) return 9;
        fp_inv(&inv, &a);
        fp_mul(&prod, &inv, &a);
        if (!fp_is_one(&prod)) return 10;
        fp2 b, b2, broot, binv;
        random_fp(&b.c0, &state);
        random_fp(&b.c1, &state);
        if (i == 0) b.c1 = (fp){{0}};  // exercise the a1 = 0 branch
        fp2_sqr(&b2, &b);
        if (!fp2_sqrt(&broot, &b2)) return 11;
        fp2_sqr(&broot, &broot);
        if (!fp2_equal(&broot, &b2)) return 12;
        fp2_inv(&binv, &b);
        fp2_mul(&binv, &binv, &b);
        if (!fp_is_one(&binv.c0) || !fp_is_zero(&binv.c1)) return 13;
        // ξ = 1 + u is not a square in Fp2 (it defines the sextic twist)
        fp2 xi = {FP_ONE, FP_ONE};
        if (fp2_sqrt(&broot, &xi)) return 14;
    }
    return 0;
}

static void plain_to_bytes(uint8_t out[48], const u64 plain[6]) {
    for (int i = 0; i < 6; i++)
        for (int j = 0; j < 8; j++) out[(5 - i) * 8 + j] = (uint8_t)(plain[i] >> (56 - 8 * j));
}

int bls_constant_bytes(bls_constant which, size_t index, uint8_t out[48]) {
    const fp *table = NULL;
    size_t count = 1;
    switch (which) {
    case BLS_CONSTANT_SSWU_A: table = &SSWU_A; break;
    case BLS_CONSTANT_SSWU_B: table = &SSWU_B; break;
    case BLS_CONSTANT_SSWU_Z: table = &SSWU_Z; break;
    case BLS_CONSTANT_ISO_X_NUM: table = ISO_X_NUM; count = sizeof ISO_X_NUM / sizeof *ISO_X_NUM; break;
    case BLS_CONSTANT_ISO_X_DEN: table = ISO_X_DEN; count = sizeof ISO_X_DEN / sizeof *ISO_X_DEN; break;
    case BLS_CONSTANT_ISO_Y_NUM: table = ISO_Y_NUM; count = sizeof ISO_Y_NUM / sizeof *ISO_Y_NUM; break;
    case BLS_CONSTANT_ISO_Y_DEN: table = ISO_Y_DEN; count = sizeof ISO_Y_DEN / sizeof *ISO_Y_DEN; break;
    case BLS_CONSTANT_G1_BETA: table = &G1_BETA; break;
    case BLS_CONSTANT_PSI_CX: table = &PSI_CX.c0; count = 2; break;
    case BLS_CONSTANT_PSI_CY: table = &PSI_CY.c0; count = 2; break;
    case BLS_CONSTANT_MONTGOMERY_R:
        if (index != 0) return 0;
        plain_to_bytes(out, FP_ONE.l);
        return 1;
    case BLS_CONSTANT_MONTGOMERY_R2:
        if (index != 0) return 0;
        plain_to_bytes(out, R2_PLAIN.l);
        return 1;
    case BLS_CONSTANT_MODULUS:
        if (index != 0) return 0;
        plain_to_bytes(out, FP_P);
        return 1;
    default: return 0;
    }
    if (index >= count) return 0;
    bls_fp_to_bytes(out, &table[index]);
    return 1;
}

uint64_t bls_constant_n0(void) { return FP_INV_NEG; }
uint64_t bls_constant_x_abs(void) { return BLS_X_ABS; }
uint64_t bls_constant_h_eff(void) { return BLS_H_EFF; }
