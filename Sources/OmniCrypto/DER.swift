import OmniCodec

/// The small slice of DER that the key and signature formats here need: single-byte tags, definite minimal
/// lengths, no recursion. Certificates are parsed by OpenSSL, not by this reader.
struct DERReader {
    private let bytes: [UInt8]
    private var offset: Int
    private let end: Int
    /// Names the structure in error messages ("Ed25519 PKCS#8 key", "ECDSA DER signature").
    private let what: String
    private let errorKind: CryptoError.Kind

    init(_ bytes: [UInt8], what: String, errorKind: CryptoError.Kind) {
        self.init(bytes, range: 0..<bytes.count, what: what, errorKind: errorKind)
    }

    private init(_ bytes: [UInt8], range: Range<Int>, what: String, errorKind: CryptoError.Kind) {
        self.bytes = bytes
        offset = range.lowerBound
        end = range.upperBound
        self.what = what
        self.errorKind = errorKind
    }

    var isAtEnd: Bool { offset >= end }

    /// The tag of the next element, if any.
    var nextTag: UInt8? { offset < end ? bytes[offset] : nil }

    func error(_ message: String, at position: Int? = nil) -> CryptoError {
        CryptoError(errorKind, "malformed \(what) at byte \(position ?? offset): \(message)")
    }

    /// Reads one element with the expected tag and returns its content bytes.
    mutating func read(tag expected: UInt8) throws(CryptoError) -> [UInt8] {
        let range = try readRange(tag: expected)
        return Array(bytes[range])
    }

    /// Reads a constructed element with the expected tag and returns a reader over its content.
    mutating func readConstructed(tag expected: UInt8) throws(CryptoError) -> DERReader {
        let range = try readRange(tag: expected)
        return DERReader(bytes, range: range, what: what, errorKind: errorKind)
    }

    /// Reads a non-negative INTEGER in minimal encoding and returns its magnitude without leading zero.
    mutating func readUnsignedInteger() throws(CryptoError) -> [UInt8] {
        let start = offset
        let content = try read(tag: 0x02)
        guard let first = content.first else { throw error("empty INTEGER", at: start) }
        if first & 0x80 != 0 { throw error("negative INTEGER", at: start) }
        if content.count > 1, first == 0, content[1] & 0x80 == 0 { throw error("INTEGER not minimally encoded", at: start) }
        return first == 0 ? Array(content.dropFirst()) : content
    }

    func requireEnd() throws(CryptoError) {
        if !isAtEnd { throw error("\(end - offset) unexpected trailing bytes") }
    }

    private mutating func readRange(tag expected: UInt8) throws(CryptoError) -> Range<Int> {
        let start = offset
        guard offset < end else { throw error("expected tag 0x\(Hex.encode([expected])), found end of data") }
        let tag = bytes[offset]
        guard tag == expected else { throw error("expected tag 0x\(Hex.encode([expected])), found 0x\(Hex.encode([tag]))") }
        offset += 1
        guard offset < end else { throw error("missing length") }
        let first = bytes[offset]
        offset += 1
        var length = 0
        if first < 0x80 {
            length = Int(first)
        } else {
            let lengthBytes = Int(first & 0x7f)
            // Lengths above 2^32 never occur in keys or signatures; indefinite (0x80) is not DER.
            guard lengthBytes >= 1, lengthBytes <= 4 else { throw error("unsupported length form", at: offset - 1) }
            guard end - offset >= lengthBytes else { throw error("truncated length") }
            for _ in 0..<lengthBytes {
                length = (length << 8) | Int(bytes[offset])
                offset += 1
            }
            guard length >= 0x80, length >> ((lengthBytes - 1) * 8) != 0 else {
                throw error("length not minimally encoded", at: start + 1)
            }
        }
        guard length <= end - offset else { throw error("length \(length) exceeds the \(end - offset) remaining bytes", at: start) }
        defer { offset += length }
        return offset..<(offset + length)
    }
}

enum DER {
    /// One element: tag, minimal definite length, content.
    static func element(tag: UInt8, _ content: [UInt8]) -> [UInt8] {
        var out: [UInt8] = [tag]
        let count = content.count
        if count < 0x80 {
            out.append(UInt8(count))
        } else {
            var lengthBytes: [UInt8] = []
            var remaining = count
            while remaining > 0 {
                lengthBytes.insert(UInt8(remaining & 0xff), at: 0)
                remaining >>= 8
            }
            out.append(0x80 | UInt8(lengthBytes.count))
            out.append(contentsOf: lengthBytes)
        }
        out.append(contentsOf: content)
        return out
    }

    static func sequence(_ parts: [UInt8]...) -> [UInt8] {
        element(tag: 0x30, parts.flatMap { $0 })
    }

    /// A non-negative INTEGER from big-endian magnitude bytes (leading zeros stripped, sign byte added).
    static func unsignedInteger(_ magnitude: [UInt8]) -> [UInt8] {
        var content = Array(magnitude.drop(while: { $0 == 0 }))
        if content.isEmpty { content = [0] }
        if content[0] & 0x80 != 0 { content.insert(0, at: 0) }
        return element(tag: 0x02, content)
    }
}
