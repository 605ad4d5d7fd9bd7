/// Limits for decoding untrusted SCALE. Element counts are also always bounded by the bytes actually left.
public struct SCALELimits: Sendable, Equatable {
    /// Nesting of composite values (structs, enums, vectors, options, tuples, results).
    public var maxDepth: Int
    /// Bytes in one input (a frame or a payload).
    public var maxBytes: Int
    /// Values decoded from one input (every integer, field, element and variant counts). A value costs about 50
    /// bytes in memory and as little as one byte on the wire, so this, not `maxBytes`, bounds memory.
    public var maxValues: Int

    public init(maxDepth: Int = 64, maxBytes: Int = 8 << 20, maxValues: Int = 1 << 20) {
        self.maxDepth = maxDepth
        self.maxBytes = maxBytes
        self.maxValues = maxValues
    }

    public static let `default` = SCALELimits()
}

/// The widths of SCALE's fixed little-endian integers (and of the value a `Compact` carries).
public enum SCALEInteger: String, Sendable, Equatable, CaseIterable {
    case u8, u16, u32, u64, u128

    public var byteCount: Int {
        switch self {
        case .u8: 1
        case .u16: 2
        case .u32: 4
        case .u64: 8
        case .u128: 16
        }
    }

    public var maximum: UInt128 { byteCount == 16 ? .max : (UInt128(1) << (8 * byteCount)) - 1 }
}

/// Reads SCALE primitives over the shared `ByteCursor`. Errors are `CodecError(format: "SCALE")` with the absolute
/// byte offset and a JSON-style field path (`$.payload.items[3].label`) that callers maintain with `push`/`pop`.
public struct SCALEReader: Sendable {
    public private(set) var cursor: ByteCursor
    public let limits: SCALELimits
    /// Values decoded so far, against `limits.maxValues`.
    private var valueCount = 0

    /// Reads `bytes` from `start` (offsets in errors stay absolute, so a payload's errors point into its frame).
    public init(_ bytes: [UInt8], start: Int = 0, limits: SCALELimits = .default) {
        cursor = ByteCursor(bytes, format: "SCALE", pathStyle: .jsonPath, start: start)
        self.limits = limits
    }

    public var position: Int { cursor.position }
    public var remaining: Int { cursor.remaining }
    public var isAtEnd: Bool { cursor.isAtEnd }

    /// Counts one decoded value against `limits.maxValues`.
    public mutating func countValue() throws(CodecError) {
        valueCount += 1
        if valueCount > limits.maxValues { throw limitError("more than \(limits.maxValues) values") }
    }

    public mutating func push(_ component: String) { cursor.push(component) }
    public mutating func pop() { cursor.pop() }

    public func error(_ message: String, at offset: Int? = nil) -> CodecError { cursor.error(message, at: offset) }
    public func limitError(_ message: String, at offset: Int? = nil) -> CodecError { cursor.limitError(message, at: offset) }

    /// Fails unless every byte was read.
    public func finish() throws(CodecError) {
        guard cursor.isAtEnd else { throw error("\(cursor.remaining) trailing bytes after the value") }
    }

    // MARK: - Fixed-width

    public mutating func u8() throws(CodecError) -> UInt8 { try cursor.byte("u8") }

    public mutating func integer(_ width: SCALEInteger) throws(CodecError) -> UInt128 {
        if width == .u128 {
            let low = try cursor.littleEndian(8, "u128")
            let high = try cursor.littleEndian(8, "u128")
            return UInt128(high) << 64 | UInt128(low)
        }
        return UInt128(try cursor.littleEndian(width.byteCount, width.rawValue))
    }

    public mutating func u32() throws(CodecError) -> UInt32 { UInt32(try cursor.littleEndian(4, "u32")) }
    public mutating func u64() throws(CodecError) -> UInt64 { try cursor.littleEndian(8, "u64") }

    public mutating func bool() throws(CodecError) -> Bool {
        let start = cursor.position
        let byte = try cursor.byte("bool")
        guard byte <= 1 else { throw error("bool must be 00 or 01, got \(Hex.encode([byte]))", at: start) }
        return byte == 1
    }

    // MARK: - Compact

    /// A compact integer in its canonical (shortest) form, at most `width` wide. Non-canonical encodings, which
    /// parity-scale-codec also refuses, are errors: every value has exactly one encoding.
    public mutating func compact(_ width: SCALEInteger = .u128) throws(CodecError) -> UInt128 {
        let start = cursor.position
        let first = try cursor.byte("compact")
        let value: UInt128
        switch first & 3 {
        case 0:
            value = UInt128(first >> 2)
        case 1:
            let second = try cursor.byte("compact")
            value = UInt128((UInt16(second) << 8 | UInt16(first)) >> 2)
            guard value >= 1 << 6 else { throw error("compact \(value) is not in its shortest form (two-byte mode)", at: start) }
        case 2:
            let rest = try cursor.littleEndian(3, "compact")
            value = UInt128((UInt32(rest) << 8 | UInt32(first)) >> 2)
            guard value >= 1 << 14 else { throw error("compact \(value) is not in its shortest form (four-byte mode)", at: start) }
        default:
            let count = Int(first >> 2) + 4
            guard count <= 16 else {
                throw error("compact of \(count) bytes exceeds 128 bits", at: start)
            }
            let slice = try cursor.take(count, "compact")
            guard slice.last != 0 else { throw error("compact of \(count) bytes has a zero top byte (not shortest form)", at: start) }
            var accumulated: UInt128 = 0
            for (shift, byte) in slice.enumerated() { accumulated |= UInt128(byte) << (8 * shift) }
            guard accumulated >= 1 << 30 else { throw error("compact \(accumulated) is not in its shortest form (big-integer mode)", at: start) }
            value = accumulated
        }
        guard value <= width.maximum else { throw error("compact \(value) exceeds \(width.rawValue)", at: start) }
        return value
    }

    /// A compact length or count, which must fit in the bytes left when each element takes at least
    /// `minimumElementSize` bytes (so a hostile count never makes us allocate or loop beyond the input).
    public mutating func length(minimumElementSize: Int = 1, _ what: String) throws(CodecError) -> Int {
        let start = cursor.position
        let value = try compact(.u32)
        let bound = remaining / max(1, minimumElementSize)
        guard value <= UInt128(bound) else {
            throw error("\(what) of \(value) cannot fit in the \(remaining) bytes left", at: start)
        }
        return Int(value)
    }

    // MARK: - Byte strings

    /// `Vec<u8>`: compact length ‖ bytes.
    public mutating func bytes() throws(CodecError) -> [UInt8] {
        let count = try length("byte string of length")
        return Array(try cursor.take(count, "bytes"))
    }

    /// `[u8; N]`: N raw bytes, no prefix.
    public mutating func fixedBytes(_ count: Int) throws(CodecError) -> [UInt8] {
        Array(try cursor.take(count, "[u8; \(count)]"))
    }

    /// `str`: compact byte length ‖ UTF-8, strictly validated (no replacement characters standing in for data).
    public mutating func string() throws(CodecError) -> String {
        let count = try length("string of length")
        let textStart = cursor.position
        let utf8 = Array(try cursor.take(count, "str"))
        do {
            return try UTF8Validation.string(utf8)
        } catch {
            throw self.error("string is not valid UTF-8 (\(error.message))", at: textStart + (error.offset ?? 0))
        }
    }

    /// The rest of the input, consumed.
    public mutating func rest() -> [UInt8] { Array(cursor.rest()) }
}
