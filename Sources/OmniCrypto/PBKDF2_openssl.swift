internal import COpenSSL

/// PBKDF2 (RFC 8018) with HMAC-`H`, over OpenSSL `PKCS5_PBKDF2_HMAC`.
public enum PBKDF2<H: HashFunction> {
    /// Output is capped so that a hostile parameter cannot ask for an arbitrarily large allocation.
    public static var maximumOutputByteCount: Int { 1 << 20 }

    /// Derives `outputByteCount` bytes (1…1 MiB) from `password` and `salt` with `iterations` (≥ 1) rounds.
    /// The work is proportional to `iterations` × ⌈outputByteCount / HashLen⌉: bound `iterations` when it
    /// comes from untrusted input.
    public static func deriveKey(
        password: some Collection<UInt8>, salt: some Collection<UInt8>, iterations: Int, outputByteCount: Int
    ) throws(CryptoError) -> [UInt8] {
        guard iterations >= 1, iterations <= Int(Int32.max) else {
            throw CryptoError(.invalidInput, "PBKDF2 iteration count must be 1…\(Int32.max), got \(iterations)")
        }
        guard outputByteCount >= 1, outputByteCount <= maximumOutputByteCount else {
            throw CryptoError(.invalidInput,
                              "PBKDF2 output length must be 1…\(maximumOutputByteCount) bytes, got \(outputByteCount)")
        }
        guard password.count <= Int(Int32.max), salt.count <= Int(Int32.max) else {
            throw CryptoError(.invalidInput, "PBKDF2 password and salt must each be shorter than 2 GiB")
        }
        var out = [UInt8](repeating: 0, count: outputByteCount)
        let status = withContiguousBytes(password) { password in
            withContiguousBytes(salt) { salt in
                out.withUnsafeMutableBufferPointer { output in
                    PKCS5_PBKDF2_HMAC(password.bindMemory(to: CChar.self).baseAddress, Int32(password.count),
                                      salt.bindMemory(to: UInt8.self).baseAddress, Int32(salt.count),
                                      Int32(iterations), H.algorithm.evpMD, Int32(outputByteCount), output.baseAddress)
                }
            }
        }
        guard status == 1 else { throw CryptoError.openssl(.library, "PBKDF2-HMAC-\(H.algorithm.rawValue) failed") }
        return out
    }
}
