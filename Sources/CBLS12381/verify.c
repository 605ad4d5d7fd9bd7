// Verification entry points on encodings: strict decoding with the IC policy (identity refused) and the pairing check.
#include <stdlib.h>
#include "bls_internal.h"

bls_decode_status bls_public_key_prepare(bls_g2_affine *point, bls_g2_lines *lines, const uint8_t pk[96]) {
    // Decode without the separate subgroup test: the line precomputation decides membership on the way.
    bls_decode_status status = bls_g2_decompress(point, pk, 0);
    if (status != BLS_DECODE_OK) return status;
    if (point->infinity) return BLS_DECODE_IDENTITY;
    if (!bls_g2_precompute_lines(lines, point)) return BLS_DECODE_NOT_IN_SUBGROUP;
    return BLS_DECODE_OK;
}

bls_decode_status bls_signature_decode(bls_g1_affine *out, const uint8_t sig[48]) {
    bls_decode_status status = bls_g1_decompress(out, sig, 1);
    if (status != BLS_DECODE_OK) return status;
    return out->infinity ? BLS_DECODE_IDENTITY : BLS_DECODE_OK;
}

bls_verify_result bls_verify_with_lines(const uint8_t sig[48], const bls_g2_lines *pk, const uint8_t uniform[128]) {
    bls_g1_affine s, h;
    bls_decode_status status = bls_signature_decode(&s, sig);
    if (status != BLS_DECODE_OK) return (bls_verify_result){0, BLS_SUBJECT_SIGNATURE, status};
    bls_hash_to_g1(&h, uniform);
    int ok = bls_verify_decoded(&s, pk, &h);
    return (bls_verify_result){ok, BLS_SUBJECT_NONE, BLS_DECODE_OK};
}

bls_verify_result bls_verify_compressed(const uint8_t sig[48], const uint8_t pk[96], const uint8_t uniform[128]) {
    bls_g1_affine s;
    bls_decode_status status = bls_signature_decode(&s, sig);
    if (status != BLS_DECODE_OK) return (bls_verify_result){0, BLS_SUBJECT_SIGNATURE, status};
    bls_g2_affine q;
    bls_g2_lines lines;
    status = bls_public_key_prepare(&q, &lines, pk);
    if (status != BLS_DECODE_OK) return (bls_verify_result){0, BLS_SUBJECT_PUBLIC_KEY, status};
    bls_g1_affine h;
    bls_hash_to_g1(&h, uniform);
    int ok = bls_verify_decoded(&s, &lines, &h);
    return (bls_verify_result){ok, BLS_SUBJECT_NONE, BLS_DECODE_OK};
}

int bls_batch_check(const bls_g1_affine *sigs, const bls_g1_affine *hashes, const bls_g2_lines *const *pks,
                    const uint64_t *scalars, size_t n) {
    // points[0] = Σ rᵢ sigᵢ paired with −g2; points[i + 1] = rᵢ hᵢ paired with pkᵢ.
    bls_g1_affine *points = malloc((n + 1) * sizeof *points);
    const bls_g2_lines **lines = malloc((n + 1) * sizeof *lines);
    int ok = -1;
    if (points && lines && bls_g1_batch_scale(points + 1, points, sigs, hashes, scalars, n) == 0) {
        lines[0] = bls_neg_g2_lines();
        for (size_t i = 0; i < n; i++) lines[i + 1] = pks[i];
        ok = bls_pairing_product_is_one(points, lines, n + 1);
    }
    free(points);
    free((void *)lines);
    return ok;
}
