// BLS12-381 arithmetic in C (Montgomery field, towers, curve groups, pairing, hash to G1).
// Only the Swift target OmniBLS uses this header; its public API is Swift. Verification handles public data only,
// so nothing here is constant-time.
#ifndef CBLS12381_H
#define CBLS12381_H
#include <stdint.h>
#include <stddef.h>

/// An element of Fp in Montgomery form: 6 little-endian 64-bit limbs, always fully reduced (< p).
typedef struct { uint64_t l[6]; } bls_fp;
/// c0 + c1·u with u² = −1.
typedef struct { bls_fp c0, c1; } bls_fp2;
/// c0 + c1·v + c2·v² with v³ = 1 + u.
typedef struct { bls_fp2 c0, c1, c2; } bls_fp6;
/// c0 + c1·w with w² = v.
typedef struct { bls_fp6 c0, c1; } bls_fp12;

/// Affine points; `infinity` != 0 marks the identity (x and y are then zero).
typedef struct { bls_fp x, y; int32_t infinity; } bls_g1_affine;
typedef struct { bls_fp2 x, y; int32_t infinity; } bls_g2_affine;

/// Why a compressed point was refused. Values are stable: the Swift layer maps them to its error enum.
typedef enum {
    BLS_DECODE_OK = 0,
    BLS_DECODE_NOT_COMPRESSED = 1,      // compression flag (0x80) clear
    BLS_DECODE_BAD_INFINITY = 2,        // infinity flag set but other bits (sign flag, x) not all zero
    BLS_DECODE_NON_CANONICAL = 3,       // a coordinate is >= p
    BLS_DECODE_NOT_ON_CURVE = 4,        // x³ + b has no square root
    BLS_DECODE_NOT_IN_SUBGROUP = 5,     // on the curve but not of order r
    BLS_DECODE_IDENTITY = 6,            // a valid encoding of the identity, refused where a key/signature is needed
} bls_decode_status;

/// Precomputed Miller-loop lines of one G2 point: 63 doubling + 5 addition steps.
#define BLS_LINE_COUNT 68
typedef struct { bls_fp2 c[3]; } bls_line;
typedef struct { bls_line lines[BLS_LINE_COUNT]; int32_t infinity; } bls_g2_lines;

// Field elements ↔ 48-byte big-endian integers. from_bytes returns 0 if the value is >= p.
int bls_fp_from_bytes(bls_fp *out, const uint8_t in[48]);
void bls_fp_to_bytes(uint8_t out[48], const bls_fp *a);
/// Reduces a 64-byte big-endian integer mod p (RFC 9380 hash_to_field with L = 64).
void bls_fp_from_wide_bytes(bls_fp *out, const uint8_t in[64]);

// Compressed (ZCash format) encodings. `check_subgroup` = 0 skips only the subgroup test (for tests/benchmarks).
bls_decode_status bls_g1_decompress(bls_g1_affine *out, const uint8_t in[48], int check_subgroup);
bls_decode_status bls_g2_decompress(bls_g2_affine *out, const uint8_t in[96], int check_subgroup);
void bls_g1_compress(uint8_t out[48], const bls_g1_affine *p);
void bls_g2_compress(uint8_t out[96], const bls_g2_affine *p);
/// Affine coordinates from (x, y) byte strings; returns a bls_decode_status (no subgroup check).
bls_decode_status bls_g1_from_xy(bls_g1_affine *out, const uint8_t x[48], const uint8_t y[48]);
void bls_g1_to_xy(uint8_t x[48], uint8_t y[48], const bls_g1_affine *p);

/// Subgroup membership with the endomorphism tests (Scott, ePrint 2021/1130) and the slow [r]P == O oracle.
int bls_g1_in_subgroup(const bls_g1_affine *p);
int bls_g2_in_subgroup(const bls_g2_affine *p);
int bls_g1_in_subgroup_slow(const bls_g1_affine *p);
int bls_g2_in_subgroup_slow(const bls_g2_affine *p);

// Group operations on affine values (results normalised); scalars are big-endian byte strings of any length.
void bls_g1_generator(bls_g1_affine *out);
void bls_g2_generator(bls_g2_affine *out);
void bls_g1_add(bls_g1_affine *out, const bls_g1_affine *a, const bls_g1_affine *b);
void bls_g2_add(bls_g2_affine *out, const bls_g2_affine *a, const bls_g2_affine *b);
void bls_g1_neg(bls_g1_affine *out, const bls_g1_affine *a);
void bls_g2_neg(bls_g2_affine *out, const bls_g2_affine *a);
void bls_g1_mul(bls_g1_affine *out, const bls_g1_affine *a, const uint8_t *scalar, size_t len);
void bls_g2_mul(bls_g2_affine *out, const bls_g2_affine *a, const uint8_t *scalar, size_t len);
int bls_g1_equal(const bls_g1_affine *a, const bls_g1_affine *b);
int bls_g2_equal(const bls_g2_affine *a, const bls_g2_affine *b);

// Hash to G1 (RFC 9380, BLS12381G1_XMD:SHA-256_SSWU_*). The caller does expand_message_xmd.
/// map_to_curve: simplified SWU on E' followed by the 11-isogeny; no cofactor clearing.
void bls_map_to_g1(bls_g1_affine *out, const bls_fp *u);
/// clear_cofactor by h_eff = 1 − x.
void bls_g1_clear_cofactor(bls_g1_affine *out, const bls_g1_affine *p);
/// hash_to_curve from the 128 uniform bytes of expand_message_xmd: clear(map(u0) + map(u1)).
void bls_hash_to_g1(bls_g1_affine *out, const uint8_t uniform[128]);
/// encode_to_curve (NU) from 64 uniform bytes: clear(map(u)).
void bls_encode_to_g1(bls_g1_affine *out, const uint8_t uniform[64]);

// Pairing.
/// Lines of the Miller loop for one G2 point (the identity gives a table flagged infinite). The loop computes
/// [|x|]Q on the way, so it also decides subgroup membership: returns 1 iff q ∈ G2 (q on the curve).
int bls_g2_precompute_lines(bls_g2_lines *out, const bls_g2_affine *q);
/// Returns 1 iff Π e(p[i], q[i]) == 1 (pairs with an identity point contribute 1). n may be 0.
int bls_pairing_product_is_one(const bls_g1_affine *p, const bls_g2_lines *const *q, size_t n);

/// The core IC check on decoded points: e(sig, −g2) · e(h, pk) == 1, pk given by its lines.
int bls_verify_decoded(const bls_g1_affine *sig, const bls_g2_lines *pk, const bls_g1_affine *h);

/// Outcome of a verification from encodings: `valid` = 1 when the pairing check passed; otherwise `subject`
/// names the refused input (0 = none: the pairing check failed, 1 = signature, 2 = public key) and `status`
/// says why (a bls_decode_status).
typedef struct { int32_t valid, subject, status; } bls_verify_result;
enum { BLS_SUBJECT_NONE = 0, BLS_SUBJECT_SIGNATURE = 1, BLS_SUBJECT_PUBLIC_KEY = 2 };

/// Decodes a public key strictly (no identity, subgroup checked) and precomputes its Miller-loop lines.
bls_decode_status bls_public_key_prepare(bls_g2_affine *point, bls_g2_lines *lines, const uint8_t pk[96]);
/// Decodes a signature strictly (no identity, subgroup checked).
bls_decode_status bls_signature_decode(bls_g1_affine *out, const uint8_t sig[48]);
/// Full verification: `uniform` is expand_message_xmd(msg, DST, 128).
bls_verify_result bls_verify_compressed(const uint8_t sig[48], const uint8_t pk[96], const uint8_t uniform[128]);
bls_verify_result bls_verify_with_lines(const uint8_t sig[48], const bls_g2_lines *pk, const uint8_t uniform[128]);
/// Random-linear-combination batch check of decoded triples: 1 iff e(Σ rᵢ sigᵢ, −g2) · Π e(rᵢ hᵢ, pkᵢ) == 1,
/// −1 if memory ran out. Scalars rᵢ must be non-zero.
int bls_batch_check(const bls_g1_affine *sigs, const bls_g1_affine *hashes, const bls_g2_lines *const *pks,
                    const uint64_t *scalars, size_t n);

/// Compiled-in constants, exposed so tests can compare them with the published values.
typedef enum {
    BLS_CONSTANT_SSWU_A = 0,         // A' of the 11-isogenous curve
    BLS_CONSTANT_SSWU_B = 1,         // B'
    BLS_CONSTANT_SSWU_Z = 2,         // Z = 11
    BLS_CONSTANT_ISO_X_NUM = 3,      // isogeny coefficients, degree 0 first, monic denominators included
    BLS_CONSTANT_ISO_X_DEN = 4,
    BLS_CONSTANT_ISO_Y_NUM = 5,
    BLS_CONSTANT_ISO_Y_DEN = 6,
    BLS_CONSTANT_G1_BETA = 7,        // cube root of unity of σ
    BLS_CONSTANT_PSI_CX = 8,         // index 0 = c0, 1 = c1
    BLS_CONSTANT_PSI_CY = 9,
    BLS_CONSTANT_MONTGOMERY_R = 10,  // R mod p (the limbs of 1 in Montgomery form)
    BLS_CONSTANT_MONTGOMERY_R2 = 11, // R² mod p
    BLS_CONSTANT_MODULUS = 12,       // p
} bls_constant;
/// Canonical big-endian bytes of element `index` of a constant; returns 0 if the index is out of range.
int bls_constant_bytes(bls_constant which, size_t index, uint8_t out[48]);
/// −p⁻¹ mod 2⁶⁴, |x| and h_eff as compiled in.
uint64_t bls_constant_n0(void);
uint64_t bls_constant_x_abs(void);
uint64_t bls_constant_h_eff(void);

/// Selects the MULX/ADX field kernels (x86-64 CPUs with BMI2 and ADX, chosen automatically at load time) or
/// the portable C ones; returns 1 if the assembly kernels are now in use. For tests of both paths.
int bls_use_assembly_kernels(int enable);

/// Self-checks of internal identities that have no public entry point (Frobenius constants against
/// exponentiation, cyclotomic against generic squaring, inverses, square roots). Returns 0 on success,
/// otherwise the number of the first failing check.
int bls_self_test(void);

#endif
