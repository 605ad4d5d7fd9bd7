internal import COpenSSL
internal import COmniShims

/// Versions of the C libraries the crypto layer runs on, as loaded at run time (for `omni version`).
public enum CryptoLibraries {
    /// OpenSSL's version text, e.g. "OpenSSL 3.0.19 27 Jan 2026".
    public static var opensslVersion: String {
        String(cString: OpenSSL_version(OPENSSL_VERSION))
    }
}

extension CryptoError {
    /// An error carrying `context` plus every entry of OpenSSL's (thread-local) error queue, which it empties.
    static func openssl(_ kind: Kind, _ context: String) -> CryptoError {
        var reasons: [String] = []
        var buffer = [CChar](repeating: 0, count: 256)
        while true {
            let code = ERR_get_error()
            if code == 0 { break }
            // Cap the count: a queue that never drains must not hang us.
            if reasons.count < 8 {
                ERR_error_string_n(code, &buffer, buffer.count)
                reasons.append(String(cString: buffer))
            }
        }
        if reasons.isEmpty { return CryptoError(kind, context) }
        return CryptoError(kind, context + " (OpenSSL: " + reasons.joined(separator: "; ") + ")")
    }
}

/// Empties OpenSSL's error queue, so that a later failure reports only its own reasons.
@inline(__always)
func clearOpenSSLErrors() {
    ERR_clear_error()
}

/// Everything written to a memory BIO so far.
func readMemoryBIO(_ bio: OpaquePointer) -> [UInt8] {
    let pending = BIO_ctrl_pending(bio)
    guard pending > 0, pending <= Int(Int32.max) else { return [] }
    var bytes = [UInt8](repeating: 0, count: pending)
    let read = bytes.withUnsafeMutableBytes { BIO_read(bio, $0.baseAddress, Int32(pending)) }
    return read > 0 ? Array(bytes[0..<Int(read)]) : []
}

/// Calls `body` with a fresh memory BIO and frees it afterwards.
func withMemoryBIO<R, E: Error>(_ body: (OpaquePointer) throws(E) -> R) throws(E) -> R? {
    guard let bio = BIO_new(BIO_s_mem()) else { return nil }
    defer { BIO_free(bio) }
    return try body(bio)
}

/// Runs an OpenSSL `i2d_*` encoder into a Swift array (two calls: the first measures).
func encodeDER(_ encode: (UnsafeMutablePointer<UnsafeMutablePointer<UInt8>?>?) -> Int32) -> [UInt8]? {
    let length = encode(nil)
    guard length > 0 else { return nil }
    var bytes = [UInt8](repeating: 0, count: Int(length))
    let written = bytes.withUnsafeMutableBufferPointer { buffer -> Int32 in
        var cursor: UnsafeMutablePointer<UInt8>? = buffer.baseAddress
        return encode(&cursor)
    }
    return written == length ? bytes : nil
}

/// Runs an OpenSSL `d2i_*` decoder over `bytes`, requiring it to consume every byte: a value followed by
/// trailing data is freed with `free` and rejected.
func decodeDER<T>(
    _ bytes: [UInt8],
    _ decode: (UnsafeMutablePointer<UnsafePointer<UInt8>?>, Int) -> T?,
    free: (T) -> Void
) -> T? {
    guard !bytes.isEmpty else { return nil }
    return bytes.withUnsafeBufferPointer { buffer -> T? in
        var cursor: UnsafePointer<UInt8>? = buffer.baseAddress
        guard let value = decode(&cursor, buffer.count) else { return nil }
        guard cursor == buffer.baseAddress! + buffer.count else {
            free(value)
            return nil
        }
        return value
    }
}
