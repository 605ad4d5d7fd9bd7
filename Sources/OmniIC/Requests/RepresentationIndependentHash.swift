import OmniCodec
import OmniCrypto

/// The IC's representation-independent hash (interface spec § Request ids), computed over the CBOR data model so
/// that what is hashed is exactly what is sent:
///
/// - byte string: SHA-256(bytes); text: SHA-256(UTF-8);
/// - unsigned integer (or bignum, tag 2): SHA-256(shortest ULEB128); negative integer: SHA-256(shortest SLEB128);
/// - array: SHA-256(concatenation of the elements' hashes);
/// - map (text keys): SHA-256(concatenation, sorted bytewise, of SHA-256(key) ‖ hash(value) per entry).
///
/// Floats, booleans, null and other tags have no representation-independent hash and are refused.
public enum RepresentationIndependentHash {
    /// Nesting deeper than this is refused (requests nest four levels; responses five).
    public static let maxDepth = 64

    /// The hash of any supported value.
    public static func hash(_ value: CBOR) throws(ICError) -> [UInt8] {
        try hash(value, depth: 0)
    }

    /// The hash of a map given as (key, value) pairs; the pairs' order does not matter.
    public static func hashOfMap(_ entries: [(key: String, value: CBOR)]) throws(ICError) -> [UInt8] {
        try hashOfMap(entries, depth: 0)
    }

    private static func hash(_ value: CBOR, depth: Int) throws(ICError) -> [UInt8] {
        guard depth <= maxDepth else { throw ICError.malformed("value nested deeper than \(maxDepth) levels") }
        switch value {
        case .bytes, .byteChunks:
            return SHA256.hash(value.bytes ?? [])
        case .text, .textChunks:
            return SHA256.hash(Array((value.text ?? "").utf8))
        case .unsigned(let n):
            return SHA256.hash(LEB128.encoded(n))
        case .negative(let n):
            // −1 − n as a signed LEB128; n ≥ 2^63 does not fit Int64 and goes through BigInt.
            if n <= UInt64(Int64.max) { return SHA256.hash(LEB128.encodedSigned(-1 - Int64(n))) }
            return SHA256.hash(LEB128.encodedSigned(BigInt(isNegative: true, magnitude: BigUInt(n) + BigUInt(1))))
        case .tagged(2, let content):
            guard let magnitude = content.bytes else { throw ICError.malformed("bignum (tag 2) without a byte string") }
            return SHA256.hash(LEB128.encoded(BigUInt(bigEndian: magnitude)))
        case .tagged(CBOR.selfDescribeTag, let content):
            return try hash(content, depth: depth + 1)
        case .array, .indefiniteArray:
            var hasher = SHA256.Hasher()
            for element in value.array ?? [] { hasher.update(try hash(element, depth: depth + 1)) }
            return hasher.finalize()
        case .map, .indefiniteMap:
            var entries: [(key: String, value: CBOR)] = []
            for pair in value.map ?? [] {
                guard let key = pair.key.text else {
                    throw ICError.malformed("a map key is \(pair.key.kindName), expected text")
                }
                entries.append((key, pair.value))
            }
            return try hashOfMap(entries, depth: depth + 1)
        default:
            throw ICError.malformed("\(value.kindName) has no representation-independent hash")
        }
    }

    private static func hashOfMap(_ entries: [(key: String, value: CBOR)], depth: Int) throws(ICError) -> [UInt8] {
        var concatenations: [[UInt8]] = []
        concatenations.reserveCapacity(entries.count)
        for entry in entries {
            concatenations.append(SHA256.hash(Array(entry.key.utf8)) + (try hash(entry.value, depth: depth)))
        }
        concatenations.sort { $0.lexicographicallyPrecedes($1) }
        var hasher = SHA256.Hasher()
        for bytes in concatenations { hasher.update(bytes) }
        return hasher.finalize()
    }
}
