/// Limits of a DER read. Certificates are parsed by OpenSSL; DER here is keys, signatures and small payloads.
public struct DERLimits: Equatable, Sendable {
    /// The largest input a reader accepts (and so the longest element).
    public var maxInputBytes: Int
    /// How many constructed elements deep a reader may descend.
    public var maxDepth: Int

    public init(maxInputBytes: Int = 1 << 20, maxDepth: Int = 16) {
        self.maxInputBytes = maxInputBytes
        self.maxDepth = maxDepth
    }

    public static let `default` = DERLimits()
}

/// A reader of DER TLVs (X.690 §10): one-byte tags (multi-byte tag numbers are refused), definite lengths in
/// their shortest form only (no indefinite length, no long form for lengths below 128, no leading zero length
/// bytes, at most four length bytes), every length checked against what remains of the enclosing element.
/// Errors are `CodecError`s of format "DER" with the byte offset into the whole input.
public struct DERReader: Sendable {
    private let bytes: [UInt8]
    /// Offset of the next element in `bytes`.
    public private(set) var offset: Int
    private let end: Int
    private let depth: Int
    private let limits: DERLimits

    /// A reader over all of `bytes`; throws when they exceed `limits.maxInputBytes`.
    public init(_ bytes: [UInt8], limits: DERLimits = .default) throws(CodecError) {
        guard bytes.count <= limits.maxInputBytes else {
            throw CodecError(.limitExceeded, format: "DER", "input of \(bytes.count) bytes exceeds the limit of \(limits.maxInputBytes)",
                             offset: 0)
        }
        self.init(bytes, range: 0..<bytes.count, depth: 0, limits: limits)
    }

    fileprivate init(_ bytes: [UInt8], range: Range<Int>, depth: Int, limits: DERLimits) {
        self.bytes = bytes
        offset = range.lowerBound
        end = range.upperBound
        self.depth = depth
        self.limits = limits
    }

    public var isAtEnd: Bool { offset >= end }

    /// The tag of the next element, if any.
    public var nextTag: UInt8? { offset < end ? bytes[offset] : nil }

    /// The bytes not read yet.
    public var remainingBytes: [UInt8] { Array(bytes[offset..<end]) }

    /// An error of this input at `position` (default: the next element).
    public func error(_ message: String, at position: Int? = nil, kind: CodecError.Kind = .malformed) -> CodecError {
        CodecError(kind, format: "DER", message, offset: position ?? offset)
    }

    /// Reads the next element, whatever its tag.
    public mutating func readElement() throws(CodecError) -> DERElement {
        let start = offset
        guard offset < end else { throw error("expected an element, found the end of the data") }
        let tag = bytes[offset]
        guard tag & 0x1F != 0x1F else { throw error("multi-byte tag 0x\(Hex.encode([tag])) is not supported", kind: .unsupported) }
        let content = try contentRange(afterTagAt: start)
        offset = content.upperBound
        return DERElement(tag: tag, offset: start, bytes: bytes, content: content, depth: depth, limits: limits)
    }

    /// Reads one element with the expected tag and returns its content bytes.
    public mutating func read(tag expected: UInt8) throws(CodecError) -> [UInt8] {
        try readElement(tag: expected).content
    }

    /// Reads a constructed element with the expected tag (or a primitive one that holds DER, like PKCS#8's
    /// privateKey OCTET STRING) and returns a reader over its content; offsets stay those of the whole input.
    public mutating func readConstructed(tag expected: UInt8) throws(CodecError) -> DERReader {
        try readElement(tag: expected).contents()
    }

    /// Reads a non-negative INTEGER in minimal encoding and returns its magnitude without a leading zero
    /// (zero is the empty magnitude).
    public mutating func readUnsignedInteger() throws(CodecError) -> [UInt8] {
        let start = offset
        let content = try read(tag: 0x02)
        guard let first = content.first else { throw error("empty INTEGER", at: start) }
        if first & 0x80 != 0 { throw error("negative INTEGER", at: start) }
        if content.count > 1, first == 0, content[1] & 0x80 == 0 { throw error("INTEGER not minimally encoded", at: start) }
        return first == 0 ? Array(content.dropFirst()) : content
    }

    /// Reads a non-negative INTEGER that fits in 64 bits.
    public mutating func readUInt64() throws(CodecError) -> UInt64 {
        let start = offset
        let magnitude = try readUnsignedInteger()
        guard magnitude.count <= 8 else { throw error("INTEGER of \(magnitude.count) bytes does not fit in 64 bits", at: start) }
        return magnitude.reduce(0) { $0 << 8 | UInt64($1) }
    }

    /// Fails unless every byte of this element (or input) has been read.
    public func requireEnd() throws(CodecError) {
        if !isAtEnd { throw error("\(end - offset) unexpected trailing bytes") }
    }

    private mutating func readElement(tag expected: UInt8) throws(CodecError) -> DERElement {
        guard let tag = nextTag else { throw error("expected tag 0x\(Hex.encode([expected])), found the end of the data") }
        guard tag == expected else { throw error("expected tag 0x\(Hex.encode([expected])), found 0x\(Hex.encode([tag]))") }
        return try readElement()
    }

    /// The content of the element whose tag is at `start`: its length in the one DER form, then that many bytes.
    private func contentRange(afterTagAt start: Int) throws(CodecError) -> Range<Int> {
        var cursor = start + 1
        guard cursor < end else { throw error("missing length", at: cursor) }
        let first = bytes[cursor]
        cursor += 1
        var length = 0
        if first < 0x80 {
            length = Int(first)
        } else {
            let lengthBytes = Int(first & 0x7F)
            guard lengthBytes != 0 else { throw error("indefinite length is not DER", at: start + 1) }
            // Four length bytes already exceed any input a reader accepts.
            guard lengthBytes <= 4 else { throw error("length of \(lengthBytes) bytes is not supported", at: start + 1, kind: .limitExceeded) }
            guard end - cursor >= lengthBytes else { throw error("truncated length", at: start + 1) }
            guard bytes[cursor] != 0 else { throw error("length not minimally encoded", at: start + 1) }
            for _ in 0..<lengthBytes {
                length = length << 8 | Int(bytes[cursor])
                cursor += 1
            }
            guard length >= 0x80 else { throw error("length not minimally encoded", at: start + 1) }
        }
        guard length <= end - cursor else { throw error("length \(length) exceeds the \(end - cursor) remaining bytes", at: start) }
        return cursor..<(cursor + length)
    }
}

/// One element as read: its tag, where it starts, and its content.
public struct DERElement: Sendable {
    public let tag: UInt8
    /// Offset of the tag byte in the input.
    public let offset: Int
    private let bytes: [UInt8]
    private let contentRange: Range<Int>
    private let depth: Int
    private let limits: DERLimits

    fileprivate init(tag: UInt8, offset: Int, bytes: [UInt8], content: Range<Int>, depth: Int, limits: DERLimits) {
        self.tag = tag
        self.offset = offset
        self.bytes = bytes
        contentRange = content
        self.depth = depth
        self.limits = limits
    }

    /// The content bytes.
    public var content: [UInt8] { Array(bytes[contentRange]) }

    /// A reader over the content (of a constructed element), one level deeper.
    public func contents() throws(CodecError) -> DERReader {
        guard depth < limits.maxDepth else {
            throw CodecError(.limitExceeded, format: "DER", "nesting deeper than \(limits.maxDepth) elements", offset: offset)
        }
        return DERReader(bytes, range: contentRange, depth: depth + 1, limits: limits)
    }
}

/// Writes DER: tag, the shortest definite length, content.
public enum DERWriter {
    public static func element(tag: UInt8, _ content: [UInt8]) -> [UInt8] {
        let count = content.count
        if count < 0x80 { return [tag, UInt8(count)] + content }
        var lengthBytes: [UInt8] = []
        var remaining = count
        while remaining > 0 {
            lengthBytes.insert(UInt8(remaining & 0xFF), at: 0)
            remaining >>= 8
        }
        return [tag, 0x80 | UInt8(lengthBytes.count)] + lengthBytes + content
    }

    /// A SEQUENCE of already encoded elements.
    public static func sequence(_ parts: [UInt8]...) -> [UInt8] {
        element(tag: 0x30, parts.flatMap { $0 })
    }

    /// A non-negative INTEGER from big-endian magnitude bytes (leading zeros stripped, a sign byte added).
    public static func unsignedInteger(_ magnitude: [UInt8]) -> [UInt8] {
        var content = Array(magnitude.drop(while: { $0 == 0 }))
        if content.isEmpty { content = [0] }
        if content[0] & 0x80 != 0 { content.insert(0, at: 0) }
        return element(tag: 0x02, content)
    }
}
