internal import CBLS12381

/// One (signature, key, message) triple of a batch.
public struct BLSBatchItem: Sendable {
    public var signature: [UInt8]
    public var publicKey: BLSPublicKey
    public var message: [UInt8]

    public init(signature: [UInt8], publicKey: BLSPublicKey, message: [UInt8]) {
        self.signature = signature
        self.publicKey = publicKey
        self.message = message
    }
}

extension BLS {
    /// Verifies many triples at once. Malformed signatures fail individually with their `BLSError`; the
    /// well-formed ones are checked together with a random linear combination,
    /// e(Σ rᵢ sigᵢ, −g2) · Π e(rᵢ H(mᵢ), pkᵢ) = 1 with independent random odd 64-bit rᵢ (all points are
    /// in the prime-order groups, so a batch with a bad signature passes with probability about 2⁻⁶³). If the
    /// combined check fails, each triple is verified alone to find the bad ones. Results are in input order.
    public static func verifyBatch(_ items: [BLSBatchItem], dst: [UInt8] = icDST) -> [Result<BLSVerification, BLSError>] {
        var results = [Result<BLSVerification, BLSError>](repeating: .success(.valid), count: items.count)
        let tag = dstPrime(dst)
        var signatures: [bls_g1_affine] = [], hashes: [bls_g1_affine] = [], indices: [Int] = []
        for (index, item) in items.enumerated() {
            guard item.signature.count == signatureLength else {
                results[index] = .failure(BLSError(.wrongLength, .signature,
                                                   detail: "\(item.signature.count) bytes, expected \(signatureLength)"))
                continue
            }
            var signature = bls_g1_affine()
            let status = item.signature.withUnsafeBufferPointer { bls_signature_decode(&signature, $0.baseAddress) }
            if let error = BLSError(status: status, subject: .signature, encoding: item.signature) {
                results[index] = .failure(error)
                continue
            }
            let uniform = expandXMD(item.message, dstPrime: tag, length: 128)
            var hash = bls_g1_affine()
            uniform.withUnsafeBufferPointer { bls_hash_to_g1(&hash, $0.baseAddress) }
            signatures.append(signature)
            hashes.append(hash)
            indices.append(index)
        }
        if indices.count >= 2 && combinedCheck(signatures, hashes, indices.map { items[$0].publicKey }) { return results }
        for (position, index) in indices.enumerated() {
            let ok = withUnsafePointer(to: signatures[position]) { sig in
                withUnsafePointer(to: hashes[position]) { hash in
                    bls_verify_decoded(sig, items[index].publicKey.lines.pointer, hash)
                }
            }
            results[index] = .success(ok != 0 ? .valid : .invalid(.pairingCheckFailed))
        }
        return results
    }

    private static func combinedCheck(_ signatures: [bls_g1_affine], _ hashes: [bls_g1_affine], _ keys: [BLSPublicKey]) -> Bool {
        var generator = SystemRandomNumberGenerator()
        let scalars = (0..<signatures.count).map { _ in generator.next() | 1 }  // odd, hence non-zero
        let tables: [UnsafePointer<bls_g2_lines>?] = keys.map { UnsafePointer($0.lines.pointer) }
        let ok = withExtendedLifetime(keys) {
            signatures.withUnsafeBufferPointer { s in
                hashes.withUnsafeBufferPointer { h in
                    tables.withUnsafeBufferPointer { t in
                        scalars.withUnsafeBufferPointer { r in
                            bls_batch_check(s.baseAddress, h.baseAddress, t.baseAddress, r.baseAddress, s.count)
                        }
                    }
                }
            }
        }
        return ok == 1
    }
}
