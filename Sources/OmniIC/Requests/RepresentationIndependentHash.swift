import OmniCodec
import OmniCrypto

/// The IC's representation-independent hash (interface spec § Request ids):
///
/// - blob: SHA-256(bytes); text: SHA-256(UTF-8);
/// - nat: SHA-256(shortest ULEB128); int: SHA-256(shortest SLEB128);
/// - array: SHA-256(concatenation of the elements' hashes);
/// - map (text keys): SHA-256(concatenation, sorted bytewise, of SHA-256(key) ‖ hash(value) per entry).
///
/// Requests are hashed from the CBOR that is sent, so what is hashed is exactly what is signed: byte and text
/// strings map to blob and text, unsigned integers and bignums (tag 2) to nat, negative integers to int, the
/// self-describe tag is transparent. Floats, booleans, null and other tags have no hash and are refused.
public enum RepresentationIndependentHash {
    /// Nesting deeper than this is refused (requests nest four levels, responses five).
    public static let maxDepth = 64

    /// A value in the hash's own data model. It can say what CBOR cannot: CBOR has one non-negative integer type,
    /// while the hash tells nat (ULEB128) from int (SLEB128: 73 hashes as `c9 00`, not `49`).
    public indirect enum Value: Sendable, Equatable {
        case blob([UInt8])
        case text(String)
        case nat(BigUInt)
        case int(BigInt)
        case array([Value])
        case map([(key: String, value: Value)])

        public static func == (lhs: Value, rhs: Value) -> Bool {
            switch (lhs, rhs) {
            case (.blob(let a), .blob(let b)): a == b
            case (.text(let a), .text(let b)): a == b
            case (.nat(let a), .nat(let b)): a == b
            case (.int(let a), .int(let b)): a == b
            case (.array(let a), .array(let b)): a == b
            case (.map(let a), .map(let b)): a.count == b.count && zip(a, b).allSatisfy { $0.key == $1.key && $0.value == $1.value }
            default: false
            }
        }

        /// The value a CBOR item denotes (see the type's documentation for the mapping).
        public init(cbor: CBOR) throws(ICError) {
            try self.init(cbor: cbor, depth: 0)
        }

        private init(cbor: CBOR, depth: Int) throws(ICError) {
            guard depth <= RepresentationIndependentHash.maxDepth else {
                throw ICError.malformed("value nested deeper than \(RepresentationIndependentHash.maxDepth) levels")
            }
            switch cbor {
            case .bytes, .byteChunks: self = .blob(cbor.bytes ?? [])
            case .text, .textChunks: self = .text(cbor.text ?? "")
            case .unsigned(let n): self = .nat(BigUInt(n))
            case .negative(let n): self = .int(BigInt(isNegative: true, magnitude: BigUInt(n) + BigUInt(1)))
            case .tagged(2, let content):
                guard let magnitude = content.bytes else { throw ICError.malformed("bignum (tag 2) without a byte string") }
                self = .nat(BigUInt(bigEndian: magnitude))
            case .tagged(CBOR.selfDescribeTag, let content):
                try self.init(cbor: content, depth: depth + 1)
            case .array, .indefiniteArray:
                var items: [Value] = []
                for element in cbor.array ?? [] { items.append(try Value(cbor: element, depth: depth + 1)) }
                self = .array(items)
            case .map, .indefiniteMap:
                var entries: [(key: String, value: Value)] = []
                for pair in cbor.map ?? [] {
                    guard let key = pair.key.text else { throw ICError.malformed("a map key is \(pair.key.kindName), expected text") }
                    entries.append((key, try Value(cbor: pair.value, depth: depth + 1)))
                }
                self = .map(entries)
            default:
                throw ICError.malformed("\(cbor.kindName) has no representation-independent hash")
            }
        }
    }

    /// The hash of a CBOR item.
    public static func hash(_ value: CBOR) throws(ICError) -> [UInt8] {
        hash(try Value(cbor: value))
    }

    /// The hash of a `Value`. Recursion is bounded: a `Value` built from CBOR is at most `maxDepth` deep.
    public static func hash(_ value: Value) -> [UInt8] {
        switch value {
        case .blob(let bytes): return SHA256.hash(bytes)
        case .text(let text): return SHA256.hash(Array(text.utf8))
        case .nat(let number): return SHA256.hash(LEB128.encoded(number))
        case .int(let number): return SHA256.hash(LEB128.encodedSigned(number))
        case .array(let items):
            var hasher = SHA256.Hasher()
            for item in items { hasher.update(hash(item)) }
            return hasher.finalize()
        case .map(let entries):
            var concatenations = entries.map { SHA256.hash(Array($0.key.utf8)) + hash($0.value) }
            concatenations.sort { $0.lexicographicallyPrecedes($1) }
            var hasher = SHA256.Hasher()
            for bytes in concatenations { hasher.update(bytes) }
            return hasher.finalize()
        }
    }
}
