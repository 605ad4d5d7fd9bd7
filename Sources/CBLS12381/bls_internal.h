// Declarations shared between the C files of CBLS12381 (not part of the module's public header).
#ifndef BLS_INTERNAL_H
#define BLS_INTERNAL_H
#include "field.h"

// ---- fp.c ----
/// r = a^e for an exponent of `limbs` little-endian limbs (variable time; sliding window).
void fp_pow(fp *r, const fp *a, const u64 *e, int limbs);
/// r = 1/a (0 maps to 0).
void fp_inv(fp *r, const fp *a);
/// Returns 1 and r = √a if a is a square, else 0.
int fp_sqrt(fp *r, const fp *a);
void fp_from_plain(fp *r, const u64 plain[6]);
void fp_to_plain(u64 plain[6], const fp *a);
/// RFC 9380 sgn0: parity of the canonical integer.
int fp_sgn0(const fp *a);
/// Serialization sign rule: 1 iff a > (p − 1)/2 as a canonical integer.
int fp_is_lex_largest(const fp *a);
int fp_is_one(const fp *a);

// ---- tower.c ----
void fp2_inv(fp2 *r, const fp2 *a);
/// Returns 1 and r = √a if a is a square in Fp2, else 0.
int fp2_sqrt(fp2 *r, const fp2 *a);
int fp2_is_lex_largest(const fp2 *a);

void fp6_add(fp6 *r, const fp6 *a, const fp6 *b);
void fp6_sub(fp6 *r, const fp6 *a, const fp6 *b);
void fp6_mul(fp6 *r, const fp6 *a, const fp6 *b);
void fp6_sqr(fp6 *r, const fp6 *a);
void fp6_inv(fp6 *r, const fp6 *a);

void fp12_one(fp12 *r);
void fp12_mul(fp12 *r, const fp12 *a, const fp12 *b);
void fp12_sqr(fp12 *r, const fp12 *a);
void fp12_conj(fp12 *r, const fp12 *a);
void fp12_inv(fp12 *r, const fp12 *a);
/// r = a^p and r = a^(p²).
void fp12_frobenius(fp12 *r, const fp12 *a);
void fp12_frobenius2(fp12 *r, const fp12 *a);
/// Squaring valid only in the cyclotomic subgroup (after the easy part of the final exponentiation).
void fp12_cyclotomic_sqr(fp12 *r, const fp12 *a);
/// r = a · (c0 + c1·v + c4·v·w): multiplication by an evaluated Miller-loop line.
void fp12_mul_by_line(fp12 *r, const fp12 *a, const fp2 *c0, const fp2 *c1, const fp2 *c4);
int fp12_is_one_internal(const fp12 *a);
int fp12_equal_internal(const fp12 *a, const fp12 *b);
/// Generic exponentiation (tests only): big-endian exponent bytes.
void fp12_pow_bytes(fp12 *r, const fp12 *a, const uint8_t *e, size_t len);

// ---- g1.c ----
/// scaled_hashes[i] = [rᵢ]hashesᵢ and signature_sum = Σ [rᵢ]sigsᵢ, normalised together; −1 if out of memory.
int bls_g1_batch_scale(bls_g1_affine *scaled_hashes, bls_g1_affine *signature_sum, const bls_g1_affine *sigs,
                       const bls_g1_affine *hashes, const uint64_t *scalars, size_t n);

// ---- pairing.c ----
void final_exponentiation(fp12 *r, const fp12 *f);
void miller_loop_lines(fp12 *r, const bls_g1_affine *p, const bls_g2_lines *const *q, size_t n);
/// The lines of −g2, computed once (thread-safe).
const bls_g2_lines *bls_neg_g2_lines(void);

#endif
