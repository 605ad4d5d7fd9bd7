internal import CSodium

/// ChaCha20-Poly1305 AEAD, IETF variant (RFC 8439: 96-bit nonce, 16-byte tag) through libsodium.
/// The combined form is `ciphertext ‖ tag`, as libsodium, RFC 8439 and Iroha Connect lay it out.
public enum ChaChaPoly {
    public static let keyByteCount = 32
    public static let nonceByteCount = 12
    public static let tagByteCount = 16

    /// Encrypts and authenticates `plaintext` (and authenticates `aad`); returns `ciphertext ‖ tag`.
    /// Never reuse a (key, nonce) pair.
    public static func seal(
        _ plaintext: some Collection<UInt8>, key: some Collection<UInt8>, nonce: some Collection<UInt8>,
        authenticating aad: some Collection<UInt8> = [UInt8]()
    ) throws(CryptoError) -> [UInt8] {
        let (ciphertext, tag) = try sealDetached(plaintext, key: key, nonce: nonce, authenticating: aad)
        return ciphertext + tag
    }

    /// Like `seal`, with the tag returned separately.
    public static func sealDetached(
        _ plaintext: some Collection<UInt8>, key: some Collection<UInt8>, nonce: some Collection<UInt8>,
        authenticating aad: some Collection<UInt8> = [UInt8]()
    ) throws(CryptoError) -> (ciphertext: [UInt8], tag: [UInt8]) {
        var (key, nonce) = try checkKeyAndNonce(key, nonce)
        defer { wipe(&key) }
        Sodium.ensureInitialized()
        // libsodium needs a valid output address even for an empty message: allocate at least one byte.
        var ciphertext = [UInt8](repeating: 0, count: max(plaintext.count, 1))
        var tag = [UInt8](repeating: 0, count: tagByteCount)
        withContiguousBytes(plaintext) { message in
            withContiguousBytes(aad) { aad in
                ciphertext.withUnsafeMutableBufferPointer { output in
                    _ = crypto_aead_chacha20poly1305_ietf_encrypt_detached(
                        output.baseAddress!, &tag, nil,
                        message.bindMemory(to: UInt8.self).baseAddress, UInt64(message.count),
                        aad.bindMemory(to: UInt8.self).baseAddress, UInt64(aad.count), nil, nonce, key)
                }
            }
        }
        ciphertext.removeLast(ciphertext.count - plaintext.count)
        return (ciphertext, tag)
    }

    /// Authenticates and decrypts `ciphertext ‖ tag`. Throws `.verificationFailed` when the tag does not match
    /// (wrong key, nonce, AAD or modified data); no plaintext is returned in that case.
    public static func open(
        _ sealed: some Collection<UInt8>, key: some Collection<UInt8>, nonce: some Collection<UInt8>,
        authenticating aad: some Collection<UInt8> = [UInt8]()
    ) throws(CryptoError) -> [UInt8] {
        guard sealed.count >= tagByteCount else {
            throw CryptoError(.invalidInput, "ChaCha20-Poly1305 input must be at least the 16-byte tag, got \(sealed.count) bytes")
        }
        let bytes = Array(sealed)
        return try openDetached(bytes.dropLast(tagByteCount), tag: bytes.suffix(tagByteCount), key: key, nonce: nonce,
                                authenticating: aad)
    }

    /// Like `open`, with the tag given separately.
    public static func openDetached(
        _ ciphertext: some Collection<UInt8>, tag: some Collection<UInt8>, key: some Collection<UInt8>,
        nonce: some Collection<UInt8>, authenticating aad: some Collection<UInt8> = [UInt8]()
    ) throws(CryptoError) -> [UInt8] {
        var (key, nonce) = try checkKeyAndNonce(key, nonce)
        defer { wipe(&key) }
        guard tag.count == tagByteCount else {
            throw CryptoError(.invalidInput, "ChaCha20-Poly1305 tag must be 16 bytes, got \(tag.count)")
        }
        Sodium.ensureInitialized()
        let tag = Array(tag)
        // As in sealing, libsodium wants real addresses even for empty data: one spare byte each.
        let messageLength = ciphertext.count
        let input = Array(ciphertext) + [0]
        var plaintext = [UInt8](repeating: 0, count: messageLength + 1)
        let status = withContiguousBytes(aad) { aad in
            plaintext.withUnsafeMutableBufferPointer { output in
                crypto_aead_chacha20poly1305_ietf_decrypt_detached(
                    output.baseAddress, nil, input, UInt64(messageLength),
                    tag, aad.bindMemory(to: UInt8.self).baseAddress, UInt64(aad.count), nonce, key)
            }
        }
        plaintext.removeLast()
        guard status == 0 else {
            throw CryptoError(.verificationFailed, "ChaCha20-Poly1305 authentication failed (wrong key, nonce, AAD or modified ciphertext)")
        }
        return plaintext
    }

    private static func checkKeyAndNonce(
        _ key: some Collection<UInt8>, _ nonce: some Collection<UInt8>
    ) throws(CryptoError) -> ([UInt8], [UInt8]) {
        guard key.count == keyByteCount else {
            throw CryptoError(.invalidKey, "ChaCha20-Poly1305 key must be 32 bytes, got \(key.count)")
        }
        guard nonce.count == nonceByteCount else {
            throw CryptoError(.invalidInput, "ChaCha20-Poly1305 nonce must be 12 bytes, got \(nonce.count)")
        }
        return (Array(key), Array(nonce))
    }
}
