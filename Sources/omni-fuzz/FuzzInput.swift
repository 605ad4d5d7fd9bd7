/// Reads a framed fuzz input: a few leading bytes choose options or carry fixed-size parameters, the rest is the
/// message. Reading past the end yields zeros and empty slices, so every input is a valid frame.
struct FuzzInput {
    private let bytes: [UInt8]
    private var index = 0

    init(_ bytes: [UInt8]) { self.bytes = bytes }

    var isAtEnd: Bool { index >= bytes.count }

    mutating func byte() -> UInt8 {
        guard index < bytes.count else { return 0 }
        defer { index += 1 }
        return bytes[index]
    }

    mutating func take(_ count: Int) -> [UInt8] {
        let end = min(bytes.count, index + max(0, count))
        defer { index = end }
        return Array(bytes[index..<end])
    }

    mutating func bigEndianUInt64() -> UInt64 {
        take(8).reduce(0) { $0 << 8 | UInt64($1) }
    }

    mutating func rest() -> [UInt8] {
        defer { index = bytes.count }
        return Array(bytes[index...])
    }

    /// Builds the frame `FuzzInput` reads: the same layout written by seeders.
    struct Builder {
        private(set) var bytes: [UInt8] = []

        mutating func byte(_ value: UInt8) { bytes.append(value) }
        mutating func raw(_ value: [UInt8]) { bytes += value }
        mutating func bigEndianUInt64(_ value: UInt64) {
            for shift in stride(from: 56, through: 0, by: -8) { bytes.append(UInt8(truncatingIfNeeded: value >> UInt64(shift))) }
        }
        /// A length byte then the bytes (at most 255).
        mutating func short(_ value: [UInt8]) {
            let piece = value.prefix(255)
            bytes.append(UInt8(piece.count))
            bytes += piece
        }
    }
}

extension FuzzInput {
    /// A length byte then that many bytes (the counterpart of `Builder.short`).
    mutating func short() -> [UInt8] { take(Int(byte())) }
}

/// Text inputs: the bytes as a String when they are valid UTF-8 (text parsers take Strings), else nil.
func utf8Text(_ bytes: [UInt8]) -> String? {
    String(validating: bytes, as: UTF8.self)
}
