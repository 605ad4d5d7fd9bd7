// The multiplication kernels of Fp and Fp2, kept out of line: inlining them into the tower code makes the
// functions so large that the compiler spills and runs them several times slower.
#include "field.h"

/// Montgomery multiplication a·b/R mod p: CIOS with the "no-carry" shortcut, valid because p's top limb
/// is below 2^63 − 1 (the running sum never needs a seventh limb). Inputs may be unreduced up to 2p: the sum
/// stays below a + p < 2^383 and the result below a·b/R + p < 1.41p, so one conditional subtraction ends
/// below p.
INLINE void mont_mul_inline(fp *r, const fp *a, const fp *b) {
    u64 t[6] = {0, 0, 0, 0, 0, 0};
#pragma clang loop unroll(full)
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


/// Full 768-bit product of two 6-limb values (inputs may be unreduced, up to 2^384).
INLINE void mul_wide_inline(u64 r[12], const u64 a[6], const u64 b[6]) {
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
INLINE void redc_wide_inline(fp *r, const u64 t[12]) {
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

#if defined(__x86_64__)
#define BLS_HAVE_ADX 1
#include <cpuid.h>
#include "field_adx.h"

/// 1 when the CPU has BMI2 and ADX (set once at load time; tests may switch it off to cover the fallback).
static _Atomic int use_adx = 0;

static int cpu_has_adx(void) {
    unsigned eax, ebx, ecx, edx;
    return __get_cpuid_count(7, 0, &eax, &ebx, &ecx, &edx) && (ebx >> 8 & 1) && (ebx >> 19 & 1);
}

__attribute__((constructor)) static void detect_adx(void) { use_adx = cpu_has_adx(); }

int bls_use_assembly_kernels(int enable) {
    use_adx = enable && cpu_has_adx();
    return use_adx;
}

#define ADX_ENABLED __builtin_expect(use_adx, 1)
#else
#define BLS_HAVE_ADX 0

int bls_use_assembly_kernels(int enable) {
    (void)enable;
    return 0;
}
#endif

void fp_mul(fp *r, const fp *a, const fp *b) {
#if BLS_HAVE_ADX
    if (ADX_ENABLED) {
        u64 t[6];
        mont_mul_adx(t, a->l, b->l);
        fp_reduce_once(r->l, t);
        return;
    }
#endif
    mont_mul_inline(r, a, b);
}

void fp_sqr(fp *r, const fp *a) { fp_mul(r, a, a); }

INLINE void mul_wide_dispatch(u64 r[12], const u64 a[6], const u64 b[6]) {
#if BLS_HAVE_ADX
    if (ADX_ENABLED) {
        mul_wide_adx(r, a, b);
        return;
    }
#endif
    mul_wide_inline(r, a, b);
}

INLINE void redc_wide_dispatch(fp *r, const u64 t[12]) {
#if BLS_HAVE_ADX
    if (ADX_ENABLED) {
        u64 s[6];
        redc_adx(s, t);
        fp_reduce_once(r->l, s);
        return;
    }
#endif
    redc_wide_inline(r, t);
}

void mul_wide(u64 r[12], const u64 a[6], const u64 b[6]) { mul_wide_dispatch(r, a, b); }
void redc_wide(fp *r, const u64 t[12]) { redc_wide_dispatch(r, t); }

/// Karatsuba with one reduction per output coefficient (lazy reduction, Aranha et al. ePrint 2010/526):
/// c1 = (a0+a1)(b0+b1) − a0b0 − a1b1 stays below 2p² < pR; c0 = a0b0 − a1b1 gets p·R added when negative.
void fp2_mul(fp2 *r, const fp2 *a, const fp2 *b) {
    u64 t0[12], t1[12], t2[12];
    fp sa, sb;
    fp_add_unreduced(&sa, &a->c0, &a->c1);
    fp_add_unreduced(&sb, &b->c0, &b->c1);
    mul_wide_dispatch(t0, a->c0.l, b->c0.l);
    mul_wide_dispatch(t1, a->c1.l, b->c1.l);
    mul_wide_dispatch(t2, sa.l, sb.l);
    wide_sub(t2, t2, t0);
    wide_sub(t2, t2, t1);
    u64 borrow = wide_sub(t0, t0, t1);
    wide_add_p_high(t0, (u64)0 - borrow);
    redc_wide_dispatch(&r->c0, t0);
    redc_wide_dispatch(&r->c1, t2);
}

/// (a0 + a1 u)² = (a0 + a1)(a0 − a1) + 2 a0 a1 u with unreduced factors below 2p: a Montgomery product of
/// such factors is below 4p²/R + p < 1.41p, so one conditional subtraction still gives a result below p.
void fp2_sqr(fp2 *r, const fp2 *a) {
    fp s, d, a0x2;
    fp_add_unreduced(&s, &a->c0, &a->c1);
    fp_sub_unreduced(&d, &a->c0, &a->c1);
    fp_add_unreduced(&a0x2, &a->c0, &a->c0);
    fp_mul(&r->c1, &a0x2, &a->c1);
    fp_mul(&r->c0, &s, &d);
}
