import FoundationEssentials

/// How strictly and how far `CBOR.decode` reads untrusted input. Exceeding a limit is a `CodecError` of kind
/// `.limitExceeded` with the byte offset; lengths in the input are never trusted for allocation beyond what the
/// remaining input could hold.
public struct CBORDecodingOptions: Sendable {
    /// Nesting of arrays, maps and tags (a top-level scalar has depth 0).
    public var maxDepth: Int
    /// Data items in the whole input, counting map keys, nested items and string chunks.
    public var maxItems: Int
    /// Bytes in one byte or text string (all chunks of an indefinite string together).
    public var maxStringBytes: Int
    /// The decoded value holds a copy of every string, so this also bounds what decoding allocates beyond the
    /// input (32 MiB by default; 1 Mi items cost another ~25 MiB).
    public var maxInputBytes: Int
    /// Refuse invalid UTF-8 in text strings, duplicate map keys and bytes after the top-level item. When off,
    /// invalid UTF-8 is repaired with U+FFFD, duplicates are kept in order and trailing bytes are ignored.
    public var strict: Bool
    /// Accept only RFC 8949 §4.2.1 deterministic encoding: shortest integer/length/tag heads, definite lengths,
    /// floats in the shortest exact width, map keys in bytewise order of their encodings.
    public var requireCanonical: Bool
    public var allowIndefiniteLength: Bool
    /// Decode indefinite-length items into `.byteChunks`, `.textChunks`, `.indefiniteArray`, `.indefiniteMap`
    /// (for faithful re-encoding) instead of the plain definite cases.
    public var preserveIndefiniteLength: Bool
    /// Drop a leading self-described CBOR tag (55799) from the top-level item.
    public var stripSelfDescribeTag: Bool

    public init(maxDepth: Int = 128, maxItems: Int = 1 << 20, maxStringBytes: Int = 16 << 20,
                maxInputBytes: Int = 32 << 20, strict: Bool = true, requireCanonical: Bool = false,
                allowIndefiniteLength: Bool = true, preserveIndefiniteLength: Bool = false,
                stripSelfDescribeTag: Bool = false) {
        self.maxDepth = maxDepth
        self.maxItems = maxItems
        self.maxStringBytes = maxStringBytes
        self.maxInputBytes = maxInputBytes
        self.strict = strict
        self.requireCanonical = requireCanonical
        self.allowIndefiniteLength = allowIndefiniteLength
        self.preserveIndefiniteLength = preserveIndefiniteLength
        self.stripSelfDescribeTag = stripSelfDescribeTag
    }

    /// Strict, canonical heads not required (what omni uses for IC responses and App Attest objects).
    public static let `default` = CBORDecodingOptions()
    /// Strict and deterministic (RFC 8949 §4.2.1).
    public static let canonical = CBORDecodingOptions(requireCanonical: true, allowIndefiniteLength: false)
    /// Well-formedness only: no UTF-8, duplicate-key or trailing-byte checks.
    public static let lenient = CBORDecodingOptions(strict: false)
}

extension CBOR {
    /// Decodes exactly one data item from `bytes` (with `strict`, nothing may follow it).
    public static func decode(_ bytes: some ContiguousBytes, options: CBORDecodingOptions = .default)
        throws(CodecError) -> CBOR
    {
        try decodePrefix(bytes, options: options).item
    }

    /// Decodes the data item at the start of `bytes` and says how many bytes it took. With `strict`, trailing
    /// bytes are still an error; use `decodeSequence` for several items.
    public static func decodePrefix(_ bytes: some ContiguousBytes, options: CBORDecodingOptions = .default)
        throws(CodecError) -> (item: CBOR, byteCount: Int)
    {
        let result = bytes.withUnsafeBytes { buffer -> Result<(item: CBOR, byteCount: Int), CodecError> in
            do throws(CodecError) {
                var reader = try CBORReader(buffer, options: options)
                var item = try reader.readTopLevel()
                if options.stripSelfDescribeTag, case .tagged(CBOR.selfDescribeTag, let content) = item { item = content }
                if options.strict, reader.offset < buffer.count {
                    throw CodecError(.malformed, format: "CBOR",
                                     "\(buffer.count - reader.offset) unexpected byte(s) after the data item",
                                     offset: reader.offset)
                }
                return .success((item, reader.offset))
            } catch {
                return .failure(error)
            }
        }
        return try result.get()
    }

    /// Decodes a CBOR sequence (RFC 8742): zero or more data items back to back.
    public static func decodeSequence(_ bytes: some ContiguousBytes, options: CBORDecodingOptions = .default)
        throws(CodecError) -> [CBOR]
    {
        let result = bytes.withUnsafeBytes { buffer -> Result<[CBOR], CodecError> in
            do throws(CodecError) {
                var reader = try CBORReader(buffer, options: options)
                var items: [CBOR] = []
                while reader.offset < buffer.count { items.append(try reader.readTopLevel()) }
                return .success(items)
            } catch {
                return .failure(error)
            }
        }
        return try result.get()
    }
}

/// A recursive-descent reader over borrowed bytes. Recursion is bounded by `maxDepth`; the error path (with its
/// `$[3]."key"` location) is assembled only while an error propagates, so valid input pays nothing for it.
struct CBORReader {
    private let bytes: UnsafeRawBufferPointer
    private let options: CBORDecodingOptions
    private(set) var offset = 0
    private var itemCount = 0

    private static let breakByte: UInt8 = 0xFF

    init(_ bytes: UnsafeRawBufferPointer, options: CBORDecodingOptions) throws(CodecError) {
        guard bytes.count <= options.maxInputBytes else {
            throw CodecError(.limitExceeded, format: "CBOR",
                             "input of \(bytes.count) bytes exceeds the limit of \(options.maxInputBytes)", offset: 0)
        }
        self.bytes = bytes
        self.options = options
    }

    mutating func readTopLevel() throws(CodecError) -> CBOR {
        do {
            return try readItem(depth: 0)
        } catch {
            // Every error leaves here with at least the root path.
            throw error.path == nil ? error.withPath("$") : error
        }
    }

    // MARK: Errors

    private func malformed(_ message: String, at position: Int) -> CodecError {
        CodecError(.malformed, format: "CBOR", message, offset: position)
    }

    private func limit(_ message: String, at position: Int) -> CodecError {
        CodecError(.limitExceeded, format: "CBOR", message, offset: position)
    }

    private func nonCanonical(_ message: String, at position: Int) -> CodecError {
        CodecError(.unsupported, format: "CBOR", "non-canonical encoding: " + message, offset: position)
    }

    // MARK: Heads

    /// One initial byte and its argument. `argument` is nil for additional information 31 (indefinite/break).
    private struct Head {
        let major: UInt8
        let info: UInt8
        let argument: UInt64?
        let start: Int
    }

    private var remaining: Int { bytes.count - offset }

    private mutating func readHead() throws(CodecError) -> Head {
        let start = offset
        guard offset < bytes.count else { throw malformed("unexpected end of input, expected a data item", at: start) }
        let initial = bytes[offset]
        offset += 1
        let major = initial >> 5
        let info = initial & 0x1F
        let argument: UInt64?
        switch info {
        case 0..<24: argument = UInt64(info)
        case 24...27:
            let size = 1 << Int(info - 24)
            guard remaining >= size else {
                throw malformed("truncated head: \(size) argument byte(s) expected, \(remaining) left", at: start)
            }
            var value: UInt64 = 0
            for i in 0..<size { value = value << 8 | UInt64(bytes[offset + i]) }
            offset += size
            argument = value
            // Floats (major 7, info 25…27) carry bits, not a count; their width is checked separately.
            if options.requireCanonical, major != 7 || info == 24 {
                let minimum: UInt64 = info == 24 ? 24 : 1 << (UInt64(size) * 4)
                if value < minimum {
                    throw nonCanonical("argument \(value) not in its shortest form", at: start)
                }
            }
        case 28...30:
            throw malformed("reserved additional information \(info) in initial byte 0x\(hex(initial))", at: start)
        default:
            argument = nil
        }
        return Head(major: major, info: info, argument: argument, start: start)
    }

    private func hex(_ byte: UInt8) -> String {
        let digits = String(byte, radix: 16)
        return digits.count == 1 ? "0" + digits : digits
    }

    private mutating func countItem(at position: Int) throws(CodecError) {
        itemCount += 1
        if itemCount > options.maxItems {
            throw limit("more than \(options.maxItems) data items", at: position)
        }
    }

    // MARK: Items

    private mutating func readItem(depth: Int) throws(CodecError) -> CBOR {
        let head = try readHead()
        try countItem(at: head.start)
        switch head.major {
        case 0:
            guard let n = head.argument else { throw malformed("indefinite length is not allowed for an integer", at: head.start) }
            return .unsigned(n)
        case 1:
            guard let n = head.argument else { throw malformed("indefinite length is not allowed for an integer", at: head.start) }
            return .negative(n)
        case 2:
            guard let length = head.argument else { return try readChunkedString(head, depth: depth) }
            return .bytes(Array(try readStringBytes(length: length, head: head)))
        case 3:
            guard let length = head.argument else { return try readChunkedString(head, depth: depth) }
            return .text(try readText(length: length, head: head))
        case 4:
            return try readArray(head, depth: depth + 1)
        case 5:
            return try readMap(head, depth: depth + 1)
        case 6:
            guard let number = head.argument else { throw malformed("indefinite length is not allowed for a tag", at: head.start) }
            guard depth + 1 <= options.maxDepth else {
                throw limit("nesting deeper than \(options.maxDepth)", at: head.start)
            }
            let content: CBOR
            do { content = try readItem(depth: depth + 1) } catch { throw error.prefixingPath("<\(number)>") }
            return .tagged(number, content)
        default:
            return try readSimpleOrFloat(head)
        }
    }

    private mutating func readSimpleOrFloat(_ head: Head) throws(CodecError) -> CBOR {
        switch head.info {
        case 20: return .bool(false)
        case 21: return .bool(true)
        case 22: return .null
        case 23: return .undefined
        case 0..<20: return .simple(head.info)
        case 24:
            // `readHead` guarantees the argument; a simple value below 32 in two bytes is not well-formed.
            let value = UInt8(truncatingIfNeeded: head.argument ?? 0)
            guard value >= 32 else {
                throw malformed("simple value \(value) must use the one-byte form", at: head.start)
            }
            return .simple(value)
        case 25, 26, 27:
            let bits = head.argument ?? 0
            let value: Double
            let width: CBOR.FloatWidth
            switch head.info {
            case 25: value = CBORFloatBits.double(fromHalf: UInt16(truncatingIfNeeded: bits)); width = .half
            case 26: value = CBORFloatBits.double(fromSingle: UInt32(truncatingIfNeeded: bits)); width = .single
            default: value = Double(bitPattern: bits); width = .double
            }
            if options.requireCanonical, CBORFloatBits.shortestWidth(value).rawValue < width.rawValue {
                throw nonCanonical("float \(value) fits a narrower width than \(width)", at: head.start)
            }
            return .float(value, width: width)
        default:
            throw malformed("unexpected break code", at: head.start)
        }
    }

    /// Checks a definite string length against the input and the limit, then returns its bytes.
    private mutating func readStringBytes(length: UInt64, head: Head) throws(CodecError) -> UnsafeRawBufferPointer {
        if length > UInt64(remaining) {
            throw malformed("truncated string: \(length) bytes declared, \(remaining) left", at: head.start)
        }
        let count = Int(length)
        if count > options.maxStringBytes {
            throw limit("string of \(count) bytes exceeds the limit of \(options.maxStringBytes)", at: head.start)
        }
        let slice = UnsafeRawBufferPointer(rebasing: bytes[offset..<offset + count])
        offset += count
        return slice
    }

    private mutating func readText(length: UInt64, head: Head) throws(CodecError) -> String {
        let contentStart = offset
        let units = try readStringBytes(length: length, head: head).assumingMemoryBound(to: UInt8.self)
        // Validating here (instead of String(validating:)) keeps the hot path specialized and gives the offset.
        let invalid = UTF8Validation.firstInvalidByte(units)
        if invalid < units.count, options.strict {
            throw malformed("invalid UTF-8 in text string", at: contentStart + invalid)
        }
        return String(decoding: units, as: UTF8.self)
    }

    /// An indefinite-length byte or text string: definite chunks of the same major type up to a break.
    private mutating func readChunkedString(_ head: Head, depth: Int) throws(CodecError) -> CBOR {
        try checkIndefiniteAllowed(head)
        let isText = head.major == 3
        var byteChunks: [[UInt8]] = []
        var textChunks: [String] = []
        var total = 0
        while true {
            guard offset < bytes.count else {
                throw malformed("unexpected end of input in indefinite-length string", at: offset)
            }
            if bytes[offset] == CBORReader.breakByte { offset += 1; break }
            let chunkIndex = isText ? textChunks.count : byteChunks.count
            do throws(CodecError) {
                let chunk = try readHead()
                try countItem(at: chunk.start)
                guard chunk.major == head.major else {
                    throw malformed("chunk of major type \(chunk.major) inside an indefinite-length "
                                    + (isText ? "text" : "byte") + " string", at: chunk.start)
                }
                guard let length = chunk.argument else {
                    throw malformed("nested indefinite-length string chunk", at: chunk.start)
                }
                if length > UInt64(options.maxStringBytes - total) {
                    if length > UInt64(remaining) {
                        throw malformed("truncated string: \(length) bytes declared, \(remaining) left", at: chunk.start)
                    }
                    throw limit("string longer than the limit of \(options.maxStringBytes) bytes", at: head.start)
                }
                total += Int(length)
                if isText {
                    textChunks.append(try readText(length: length, head: chunk))
                } else {
                    byteChunks.append(Array(try readStringBytes(length: length, head: chunk)))
                }
            } catch {
                throw error.prefixingPath("(\(chunkIndex))")
            }
        }
        if isText {
            return options.preserveIndefiniteLength ? .textChunks(textChunks) : .text(textChunks.joined())
        }
        return options.preserveIndefiniteLength ? .byteChunks(byteChunks) : .bytes(Array(byteChunks.joined()))
    }

    private func checkIndefiniteAllowed(_ head: Head) throws(CodecError) {
        if options.requireCanonical {
            throw nonCanonical("indefinite length", at: head.start)
        }
        if !options.allowIndefiniteLength {
            throw CodecError(.unsupported, format: "CBOR", "indefinite-length items are not accepted", offset: head.start)
        }
    }

    private func enter(_ head: Head, depth: Int) throws(CodecError) {
        if depth > options.maxDepth { throw limit("nesting deeper than \(options.maxDepth)", at: head.start) }
    }

    private mutating func readArray(_ head: Head, depth: Int) throws(CodecError) -> CBOR {
        try enter(head, depth: depth)
        var items: [CBOR] = []
        if let declared = head.argument {
            // Every item takes at least one byte, so a count beyond the remaining input is a truncation.
            guard declared <= UInt64(remaining) else {
                throw malformed("truncated array: \(declared) items declared, \(remaining) bytes left", at: head.start)
            }
            let count = Int(declared)
            items.reserveCapacity(count)
            for index in 0..<count {
                do { items.append(try readItem(depth: depth)) } catch { throw error.prefixingPath("[\(index)]") }
            }
            return .array(items)
        }
        try checkIndefiniteAllowed(head)
        while true {
            guard offset < bytes.count else { throw malformed("unexpected end of input in indefinite-length array", at: offset) }
            if bytes[offset] == CBORReader.breakByte { offset += 1; break }
            do { items.append(try readItem(depth: depth)) } catch { throw error.prefixingPath("[\(items.count)]") }
        }
        return options.preserveIndefiniteLength ? .indefiniteArray(items) : .array(items)
    }

    private mutating func readMap(_ head: Head, depth: Int) throws(CodecError) -> CBOR {
        try enter(head, depth: depth)
        var pairs: [CBOR.Pair] = []
        var previousKey: Range<Int>?
        var seenKeys: Set<CBOR> = []
        if let declared = head.argument {
            guard declared <= UInt64(remaining / 2) else {
                throw malformed("truncated map: \(declared) pairs declared, \(remaining) bytes left", at: head.start)
            }
            let count = Int(declared)
            pairs.reserveCapacity(count)
            for _ in 0..<count {
                try readPair(into: &pairs, previousKey: &previousKey, seenKeys: &seenKeys, depth: depth)
            }
            return .map(pairs)
        }
        try checkIndefiniteAllowed(head)
        while true {
            guard offset < bytes.count else { throw malformed("unexpected end of input in indefinite-length map", at: offset) }
            if bytes[offset] == CBORReader.breakByte { offset += 1; break }
            try readPair(into: &pairs, previousKey: &previousKey, seenKeys: &seenKeys, depth: depth)
        }
        return options.preserveIndefiniteLength ? .indefiniteMap(pairs) : .map(pairs)
    }

    /// Small maps (the common case) check duplicates by scanning; larger ones switch to a hash set.
    private static let linearDuplicateScanLimit = 16

    /// Reads one key/value pair. `previousKey` (the byte range of the last key) serves the canonical order check,
    /// `seenKeys` the duplicate check of large maps.
    private mutating func readPair(into pairs: inout [CBOR.Pair], previousKey: inout Range<Int>?,
                                   seenKeys: inout Set<CBOR>, depth: Int) throws(CodecError) {
        let index = pairs.count
        let keyStart = offset
        let key: CBOR
        do { key = try readItem(depth: depth) } catch { throw error.prefixingPath("{key \(index)}") }
        let keyEnd = offset
        if options.strict {
            var duplicate = false
            if index < CBORReader.linearDuplicateScanLimit {
                duplicate = pairs.contains(where: { $0.key == key })
            } else {
                if seenKeys.isEmpty { seenKeys = Set(pairs.map(\.key)) }
                duplicate = !seenKeys.insert(key).inserted
            }
            if duplicate {
                throw malformed("duplicate map key \(key.diagnostic(maxLength: 80))", at: keyStart)
                    .prefixingPath("{key \(index)}")
            }
        }
        if options.requireCanonical {
            // Deterministic order: each key's encoding sorts bytewise after the previous key's.
            if let previous = previousKey, !CBORReader.precedes(bytes[previous], bytes[keyStart..<keyEnd]) {
                throw nonCanonical("map keys not in bytewise lexicographic order", at: keyStart)
                    .prefixingPath("{key \(index)}")
            }
            previousKey = keyStart..<keyEnd
        }
        let value: CBOR
        do { value = try readItem(depth: depth) } catch { throw error.prefixingPath(CBORReader.pathComponent(for: key, index: index)) }
        pairs.append((key, value))
    }

    static func precedes(_ a: Slice<UnsafeRawBufferPointer>, _ b: Slice<UnsafeRawBufferPointer>) -> Bool {
        for (x, y) in zip(a, b) where x != y { return x < y }
        return a.count < b.count
    }

    static func pathComponent(for key: CBOR, index: Int) -> String {
        switch key {
        case .text, .textChunks: return "." + (key.text ?? "").debugDescription
        case .unsigned, .negative: return "{\(key.diagnostic(maxLength: 40))}"
        default: return "{value \(index)}"
        }
    }
}

extension CodecError {
    func withPath(_ path: String) -> CodecError {
        CodecError(kind, format: format, message, offset: offset, line: line, column: column, path: path)
    }

    /// Adds one enclosing component in front of the path built so far (`$` + component + inner part).
    func prefixingPath(_ component: String) -> CodecError {
        let inner = path.map { $0.hasPrefix("$") ? String($0.dropFirst()) : $0 } ?? ""
        return withPath("$" + component + inner)
    }
}
