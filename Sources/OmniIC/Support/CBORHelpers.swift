import OmniCodec

extension CBOR {
    /// What kind of item this is, for error messages about untrusted values (never echoes the value itself).
    var kindName: String {
        switch self {
        case .unsigned: "an unsigned integer"
        case .negative: "a negative integer"
        case .bytes, .byteChunks: "a byte string"
        case .text, .textChunks: "a text string"
        case .array, .indefiniteArray: "an array"
        case .map, .indefiniteMap: "a map"
        case .tagged(let tag, _): "tag \(tag)"
        case .bool: "a boolean"
        case .null: "null"
        case .undefined: "undefined"
        case .simple: "a simple value"
        case .float: "a float"
        }
    }
}

extension BigUInt {
    /// The value of big-endian bytes (leading zeros allowed).
    init(bigEndian bytes: [UInt8]) {
        var limbs: [UInt64] = []
        limbs.reserveCapacity(bytes.count / 8 + 1)
        var index = bytes.count
        while index > 0 {
            let start = Swift.max(0, index - 8)
            var limb: UInt64 = 0
            for byte in bytes[start..<index] { limb = limb << 8 | UInt64(byte) }
            limbs.append(limb)
            index = start
        }
        self.init(limbs: limbs)
    }
}

/// Decoding limits for the IC's CBOR inputs: strict (no duplicate keys, no trailing bytes, valid UTF-8).
enum ICCBOR {
    static func decode(_ bytes: [UInt8], what: String, maxBytes: Int, maxDepth: Int = 128,
                       maxItems: Int = 1 << 20) throws(ICError) -> CBOR {
        guard bytes.count <= maxBytes else {
            throw ICError.malformed("\(what) of \(bytes.count) bytes exceeds the limit of \(maxBytes) bytes")
        }
        let options = CBORDecodingOptions(maxDepth: maxDepth, maxItems: maxItems, maxStringBytes: maxBytes,
                                          maxInputBytes: maxBytes, strict: true, stripSelfDescribeTag: true)
        do {
            return try CBOR.decode(bytes, options: options)
        } catch {
            throw ICError.codec(error, what)
        }
    }

    static func encode(_ value: CBOR, what: String) throws(ICError) -> [UInt8] {
        do {
            return try value.encoded()
        } catch {
            throw ICError(.internalFailure, "cannot encode \(what): \(error)")
        }
    }
}

/// Typed access to the fields of an untrusted CBOR map, with errors that name the field.
struct CBORFields {
    let pairs: [CBOR.Pair]
    let what: String

    init(_ value: CBOR, what: String) throws(ICError) {
        guard let pairs = value.untagged.map else { throw ICError.malformed("\(what) is \(value.kindName), expected a map") }
        self.pairs = pairs
        self.what = what
    }

    func optional(_ key: String) -> CBOR? {
        for pair in pairs { if pair.key.text == key { return pair.value } }
        return nil
    }

    /// A present, non-null field.
    func optionalNonNull(_ key: String) -> CBOR? {
        guard let value = optional(key), !value.isNull else { return nil }
        return value
    }

    func required(_ key: String) throws(ICError) -> CBOR {
        guard let value = optionalNonNull(key) else { throw ICError.malformed("\(what) has no \"\(key)\" field") }
        return value
    }

    func bytes(_ key: String) throws(ICError) -> [UInt8] {
        let value = try required(key)
        guard let bytes = value.bytes else { throw ICError.malformed("\(what).\(key) is \(value.kindName), expected bytes") }
        return bytes
    }

    func optionalBytes(_ key: String) throws(ICError) -> [UInt8]? {
        guard let value = optionalNonNull(key) else { return nil }
        guard let bytes = value.bytes else { throw ICError.malformed("\(what).\(key) is \(value.kindName), expected bytes") }
        return bytes
    }

    func text(_ key: String) throws(ICError) -> String {
        let value = try required(key)
        guard let text = value.text else { throw ICError.malformed("\(what).\(key) is \(value.kindName), expected text") }
        return text
    }

    func optionalText(_ key: String) throws(ICError) -> String? {
        guard let value = optionalNonNull(key) else { return nil }
        guard let text = value.text else { throw ICError.malformed("\(what).\(key) is \(value.kindName), expected text") }
        return text
    }

    func natural(_ key: String) throws(ICError) -> UInt64 {
        let value = try required(key)
        guard let number = value.uint else {
            throw ICError.malformed("\(what).\(key) is \(value.kindName), expected an unsigned integer below 2^64")
        }
        return number
    }

    func array(_ key: String) throws(ICError) -> [CBOR] {
        let value = try required(key)
        guard let items = value.array else { throw ICError.malformed("\(what).\(key) is \(value.kindName), expected an array") }
        return items
    }
}
