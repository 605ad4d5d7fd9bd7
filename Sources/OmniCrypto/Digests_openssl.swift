internal import COpenSSL

/// One-shot message digests over OpenSSL's EVP interface. Outputs are plain byte arrays.
public enum SHA256 {
    public static let byteCount = 32
    public static func hash(_ bytes: some Collection<UInt8>) -> [UInt8] { evpDigest(EVP_sha256(), bytes, 32) }
}

public enum SHA224 {
    public static let byteCount = 28
    public static func hash(_ bytes: some Collection<UInt8>) -> [UInt8] { evpDigest(EVP_sha224(), bytes, 28) }
}

public enum SHA384 {
    public static let byteCount = 48
    public static func hash(_ bytes: some Collection<UInt8>) -> [UInt8] { evpDigest(EVP_sha384(), bytes, 48) }
}

public enum SHA512 {
    public static let byteCount = 64
    public static func hash(_ bytes: some Collection<UInt8>) -> [UInt8] { evpDigest(EVP_sha512(), bytes, 64) }
}

/// Digests that are broken for collision resistance; present only where a protocol fixes them
/// (the WebSocket handshake's Sec-WebSocket-Accept).
public enum Insecure {
    public enum SHA1 {
        public static let byteCount = 20
        public static func hash(_ bytes: some Collection<UInt8>) -> [UInt8] { evpDigest(EVP_sha1(), bytes, 20) }
    }
}

private func evpDigest(_ md: OpaquePointer?, _ bytes: some Collection<UInt8>, _ size: Int) -> [UInt8] {
    var out = [UInt8](repeating: 0, count: size)
    func digest(_ input: UnsafeRawBufferPointer) {
        out.withUnsafeMutableBufferPointer { output in
            // EVP_Digest cannot fail for these built-in digests with valid buffers.
            _ = EVP_Digest(input.baseAddress, input.count, output.baseAddress, nil, md, nil)
        }
    }
    if bytes.withContiguousStorageIfAvailable({ digest(UnsafeRawBufferPointer($0)) }) == nil {
        Array(bytes).withUnsafeBytes { digest($0) }
    }
    return out
}
