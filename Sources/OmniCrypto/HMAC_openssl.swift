internal import COpenSSL

/// HMAC (RFC 2104) over OpenSSL's EVP_MAC, e.g. `HMAC<SHA256>.authenticationCode(for: data, key: key)`.
/// Keys of any length are accepted (longer than a block they are hashed first, as the RFC says).
public struct HMAC<H: HashFunction>: Sendable {
    private var context: MACContext

    /// Starts an incremental MAC under `key`.
    public init(key: some Collection<UInt8>) {
        context = MACContext(algorithm: H.algorithm, key: key)
    }

    public mutating func update(_ bytes: some Collection<UInt8>) {
        if !isKnownUniquelyReferenced(&context) { context = context.copy() }
        let pointer = context.pointer
        withContiguousBytes(bytes) { input in
            _ = EVP_MAC_update(pointer, input.bindMemory(to: UInt8.self).baseAddress, input.count)
        }
    }

    /// The MAC of everything passed to `update` so far; the state stays usable.
    public func finalize() -> [UInt8] {
        context.copy().finish()
    }

    /// One-shot MAC of `bytes` under `key`.
    public static func authenticationCode(for bytes: some Collection<UInt8>, key: some Collection<UInt8>) -> [UInt8] {
        let context = MACContext(algorithm: H.algorithm, key: key)
        withContiguousBytes(bytes) { input in
            _ = EVP_MAC_update(context.pointer, input.bindMemory(to: UInt8.self).baseAddress, input.count)
        }
        return context.finish()
    }

    /// Recomputes the MAC and compares it with `code` in constant time.
    public static func isValidAuthenticationCode(
        _ code: some Collection<UInt8>, for bytes: some Collection<UInt8>, key: some Collection<UInt8>
    ) -> Bool {
        ConstantTime.equals(authenticationCode(for: bytes, key: key), code)
    }
}

/// Owns one `EVP_MAC_CTX` set up for HMAC with a given digest and key.
private final class MACContext: @unchecked Sendable {
    /// OpenSSL's HMAC implementation, fetched once for the process (fetching is the slow part of setup).
    private static let hmac: OpaquePointer = {
        guard let mac = EVP_MAC_fetch(nil, "HMAC", nil) else { fatalError("OpenSSL has no HMAC (broken installation)") }
        return mac
    }()

    let pointer: OpaquePointer
    let byteCount: Int

    init(algorithm: DigestAlgorithm, key: some Collection<UInt8>) {
        guard let context = EVP_MAC_CTX_new(Self.hmac) else { fatalError("OpenSSL could not allocate a MAC context") }
        pointer = context
        byteCount = algorithm.byteCount
        var digestName = Array(algorithm.rawValue.utf8CString)
        // EVP_MAC_init treats a NULL key as "reuse the previous key", so an empty key needs a real address.
        var emptyKeyPlaceholder: UInt8 = 0
        let status = "digest".withCString { parameterName in
            digestName.withUnsafeMutableBufferPointer { name in
                let parameters = [
                    OSSL_PARAM_construct_utf8_string(parameterName, name.baseAddress, 0),
                    OSSL_PARAM_construct_end(),
                ]
                return withContiguousBytes(key) { key in
                    if key.isEmpty {
                        return EVP_MAC_init(pointer, &emptyKeyPlaceholder, 0, parameters)
                    }
                    return EVP_MAC_init(pointer, key.bindMemory(to: UInt8.self).baseAddress, key.count, parameters)
                }
            }
        }
        // Fixed, valid parameters: a failure here means a broken OpenSSL, not bad input.
        if status != 1 { fatalError("OpenSSL HMAC-\(algorithm.rawValue) setup failed") }
    }

    private init(adopting pointer: OpaquePointer, byteCount: Int) {
        self.pointer = pointer
        self.byteCount = byteCount
    }

    func copy() -> MACContext {
        guard let duplicate = EVP_MAC_CTX_dup(pointer) else { fatalError("OpenSSL could not copy a MAC context") }
        return MACContext(adopting: duplicate, byteCount: byteCount)
    }

    func finish() -> [UInt8] {
        var out = [UInt8](repeating: 0, count: byteCount)
        var written = 0
        out.withUnsafeMutableBufferPointer { _ = EVP_MAC_final(pointer, $0.baseAddress, &written, byteCount) }
        return out
    }

    /// EVP_MAC_CTX_free wipes the key schedule.
    deinit { EVP_MAC_CTX_free(pointer) }
}
