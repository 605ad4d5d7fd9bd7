internal import COpenSSL

/// The SHA-1/SHA-2 digests the crypto layer offers, as a value (for APIs that pick a digest at run time,
/// e.g. ECDSA). The raw value is OpenSSL's algorithm name.
public enum DigestAlgorithm: String, Sendable, CaseIterable {
    case sha1 = "SHA1"
    case sha224 = "SHA224"
    case sha256 = "SHA256"
    case sha384 = "SHA384"
    case sha512 = "SHA512"

    /// Output length in bytes.
    public var byteCount: Int {
        switch self {
        case .sha1: 20
        case .sha224: 28
        case .sha256: 32
        case .sha384: 48
        case .sha512: 64
        }
    }

    /// Input block length in bytes (the HMAC block size).
    public var blockByteCount: Int {
        switch self {
        case .sha1, .sha224, .sha256: 64
        case .sha384, .sha512: 128
        }
    }

    /// One-shot digest of `bytes`.
    public func hash(_ bytes: some Collection<UInt8>) -> [UInt8] {
        evpDigest(evpMD, bytes, byteCount)
    }

    /// The OpenSSL digest object. Fetched once per algorithm: the legacy `EVP_sha256()` handles make OpenSSL 3
    /// look the implementation up again on every use, which costs more than hashing a short input.
    var evpMD: OpaquePointer {
        switch self {
        case .sha1: FetchedDigests.sha1
        case .sha224: FetchedDigests.sha224
        case .sha256: FetchedDigests.sha256
        case .sha384: FetchedDigests.sha384
        case .sha512: FetchedDigests.sha512
        }
    }
}

private enum FetchedDigests {
    static let sha1 = fetch("SHA1", EVP_sha1())
    static let sha224 = fetch("SHA224", EVP_sha224())
    static let sha256 = fetch("SHA256", EVP_sha256())
    static let sha384 = fetch("SHA384", EVP_sha384())
    static let sha512 = fetch("SHA512", EVP_sha512())

    /// The fetched digest lives for the whole process (never freed); the legacy handle is the fallback.
    private static func fetch(_ name: String, _ legacy: OpaquePointer?) -> OpaquePointer {
        if let fetched = EVP_MD_fetch(nil, name, nil) { return fetched }
        clearOpenSSLErrors()
        guard let legacy else { fatalError("OpenSSL has no \(name) digest (broken installation)") }
        return legacy
    }
}

/// A hash function usable as a type parameter (`HMAC<SHA256>`, `HKDF<SHA512>`, `SHA256.Hasher`).
public protocol HashFunction {
    static var algorithm: DigestAlgorithm { get }
}

/// One-shot message digests over OpenSSL's EVP interface. Outputs are plain byte arrays.
public enum SHA256: HashFunction {
    public static let byteCount = 32
    public static var algorithm: DigestAlgorithm { .sha256 }
    public typealias Hasher = DigestHasher<SHA256>
    public static func hash(_ bytes: some Collection<UInt8>) -> [UInt8] { evpDigest(FetchedDigests.sha256, bytes, 32) }
}

public enum SHA224: HashFunction {
    public static let byteCount = 28
    public static var algorithm: DigestAlgorithm { .sha224 }
    public typealias Hasher = DigestHasher<SHA224>
    public static func hash(_ bytes: some Collection<UInt8>) -> [UInt8] { evpDigest(FetchedDigests.sha224, bytes, 28) }
}

public enum SHA384: HashFunction {
    public static let byteCount = 48
    public static var algorithm: DigestAlgorithm { .sha384 }
    public typealias Hasher = DigestHasher<SHA384>
    public static func hash(_ bytes: some Collection<UInt8>) -> [UInt8] { evpDigest(FetchedDigests.sha384, bytes, 48) }
}

public enum SHA512: HashFunction {
    public static let byteCount = 64
    public static var algorithm: DigestAlgorithm { .sha512 }
    public typealias Hasher = DigestHasher<SHA512>
    public static func hash(_ bytes: some Collection<UInt8>) -> [UInt8] { evpDigest(FetchedDigests.sha512, bytes, 64) }
}

/// Digests that are broken for collision resistance; present only where a protocol fixes them
/// (the WebSocket handshake's Sec-WebSocket-Accept).
public enum Insecure {
    public enum SHA1: HashFunction {
        public static let byteCount = 20
        public static var algorithm: DigestAlgorithm { .sha1 }
        public typealias Hasher = DigestHasher<SHA1>
        public static func hash(_ bytes: some Collection<UInt8>) -> [UInt8] { evpDigest(FetchedDigests.sha1, bytes, 20) }
    }
}

/// Incremental hashing: `var h = SHA256.Hasher(); h.update(part1); h.update(part2); let d = h.finalize()`.
/// A value type: copies hash independently (copy-on-write of the OpenSSL context). `finalize()` does not
/// consume the state, so a hasher can produce digests of successive prefixes.
public struct DigestHasher<H: HashFunction>: Sendable {
    private var context: DigestContext

    public init() {
        context = DigestContext(H.algorithm.evpMD)
    }

    public mutating func update(_ bytes: some Collection<UInt8>) {
        if !isKnownUniquelyReferenced(&context) { context = context.copy() }
        let pointer = context.pointer
        withContiguousBytes(bytes) { buffer in
            // Cannot fail for an initialised context of a built-in digest.
            _ = EVP_DigestUpdate(pointer, buffer.baseAddress, buffer.count)
        }
    }

    /// The digest of everything passed to `update` so far.
    public func finalize() -> [UInt8] {
        let finishing = context.copy()
        var out = [UInt8](repeating: 0, count: H.algorithm.byteCount)
        out.withUnsafeMutableBufferPointer { _ = EVP_DigestFinal_ex(finishing.pointer, $0.baseAddress, nil) }
        return out
    }
}

/// Owns one `EVP_MD_CTX`.
private final class DigestContext: @unchecked Sendable {
    let pointer: OpaquePointer

    init(_ md: OpaquePointer) {
        guard let context = EVP_MD_CTX_new() else { fatalError("OpenSSL could not allocate a digest context") }
        pointer = context
        _ = EVP_DigestInit_ex(pointer, md, nil)
    }

    private init(adopting pointer: OpaquePointer) { self.pointer = pointer }

    func copy() -> DigestContext {
        guard let duplicate = EVP_MD_CTX_new() else { fatalError("OpenSSL could not allocate a digest context") }
        _ = EVP_MD_CTX_copy_ex(duplicate, pointer)
        return DigestContext(adopting: duplicate)
    }

    deinit { EVP_MD_CTX_free(pointer) }
}

private func evpDigest(_ md: OpaquePointer, _ bytes: some Collection<UInt8>, _ size: Int) -> [UInt8] {
    var out = [UInt8](repeating: 0, count: size)
    withContiguousBytes(bytes) { input in
        out.withUnsafeMutableBufferPointer { output in
            // EVP_Digest cannot fail for these built-in digests with valid buffers.
            _ = EVP_Digest(input.baseAddress, input.count, output.baseAddress, nil, md, nil)
        }
    }
    return out
}
