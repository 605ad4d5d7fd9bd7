// Fp beyond the inlined basics: exponentiation, inversion, square roots, conversions and sign rules.
#include "bls_internal.h"
#include "constants.h"

void fp_pow(fp *r, const fp *a, const u64 *e, int limbs) {
    // Sliding window of 5 bits over the odd powers a, a³, …, a³¹.
    fp odd[16], a2;
    odd[0] = *a;
    fp_sqr(&a2, a);
    for (int i = 1; i < 16; i++) fp_mul(&odd[i], &odd[i - 1], &a2);
    fp acc = FP_ONE;
    int started = 0;
    int bit = limbs * 64 - 1;
    while (bit >= 0) {
        if (((e[bit / 64] >> (bit % 64)) & 1) == 0) {
            if (started) fp_sqr(&acc, &acc);
            bit--;
            continue;
        }
        // Longest window [bit, low] of at most 5 bits that ends in a set bit.
        int low = bit - 4 < 0 ? 0 : bit - 4;
        while (((e[low / 64] >> (low % 64)) & 1) == 0) low++;
        unsigned window = 0;
        for (int i = bit; i >= low; i--) window = (window << 1) | (unsigned)((e[i / 64] >> (i % 64)) & 1);
        if (started) {
            for (int i = bit; i >= low; i--) fp_sqr(&acc, &acc);
            fp_mul(&acc, &acc, &odd[window >> 1]);
        } else {
            acc = odd[window >> 1];
            started = 1;
        }
        bit = low - 1;
    }
    *r = acc;
}

void fp_inv(fp *r, const fp *a) { fp_pow(r, a, P_MINUS_2_PLAIN.l, 6); }

int fp_sqrt(fp *r, const fp *a) {
    fp root, check;
    fp_pow(&root, a, P_PLUS_1_DIV_4_PLAIN.l, 6);
    fp_sqr(&check, &root);
    if (!fp_equal(&check, a)) return 0;
    *r = root;
    return 1;
}

void fp_from_plain(fp *r, const u64 plain[6]) {
    fp t;
    for (int i = 0; i < 6; i++) t.l[i] = plain[i];
    fp_mul(r, &t, &R2_PLAIN);
}

void fp_to_plain(u64 plain[6], const fp *a) {
    static const fp one_plain = {{1, 0, 0, 0, 0, 0}};
    fp t;
    fp_mul(&t, a, &one_plain);
    for (int i = 0; i < 6; i++) plain[i] = t.l[i];
}

int fp_sgn0(const fp *a) {
    u64 plain[6];
    fp_to_plain(plain, a);
    return (int)(plain[0] & 1);
}

int fp_is_lex_largest(const fp *a) {
    u64 plain[6], bw = 0;
    fp_to_plain(plain, a);
    // (p−1)/2 − a borrows exactly when a > (p−1)/2.
    for (int i = 0; i < 6; i++) (void)sbb(P_MINUS_1_DIV_2_PLAIN.l[i], plain[i], bw, &bw);
    return (int)bw;
}

int fp_is_one(const fp *a) { return fp_equal(a, &FP_ONE); }

static void limbs_from_be(u64 out[6], const uint8_t in[48]) {
    for (int i = 0; i < 6; i++) {
        u64 v = 0;
        for (int j = 0; j < 8; j++) v = (v << 8) | in[(5 - i) * 8 + j];
        out[i] = v;
    }
}

int bls_fp_from_bytes(bls_fp *out, const uint8_t in[48]) {
    u64 plain[6], bw = 0;
    limbs_from_be(plain, in);
    for (int i = 0; i < 6; i++) (void)sbb(plain[i], FP_P[i], bw, &bw);
    if (!bw) return 0;  // plain >= p
    fp_from_plain(out, plain);
    return 1;
}

void bls_fp_to_bytes(uint8_t out[48], const bls_fp *a) {
    u64 plain[6];
    fp_to_plain(plain, a);
    for (int i = 0; i < 6; i++)
        for (int j = 0; j < 8; j++) out[(5 - i) * 8 + j] = (uint8_t)(plain[i] >> (56 - 8 * j));
}

void bls_fp_from_wide_bytes(bls_fp *out, const uint8_t in[64]) {
    // T < 2^512 < p·R, so redc(T) = T/R mod p; multiplying by R³ in Montgomery form gives T·R mod p.
    u64 t[12] = {0};
    for (int i = 0; i < 8; i++) {
        u64 v = 0;
        for (int j = 0; j < 8; j++) v = (v << 8) | in[(7 - i) * 8 + j];
        t[i] = v;
    }
    fp reduced;
    redc_wide(&reduced, t);
    fp_mul(out, &reduced, &R3_PLAIN);
}
