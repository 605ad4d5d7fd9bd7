/// Incremental UTF-8 validation (RFC 3629): text messages may split a code point across fragments, and an invalid
/// sequence must fail as soon as its first bad byte arrives (RFC 6455 §8.1).
public struct WebSocketUTF8Validator: Sendable {
    /// Continuation bytes still owed by the current code point.
    private var remaining = 0
    /// Allowed range of the next continuation byte; tighter than 0x80...0xBF right after E0, ED, F0 and F4, which
    /// is how overlong forms, surrogates and code points above U+10FFFF are excluded.
    private var lower: UInt8 = 0x80
    private var upper: UInt8 = 0xBF

    public init() {}

    /// True when no code point is left unfinished.
    public var isComplete: Bool { remaining == 0 }

    /// Feeds more bytes; false as soon as they cannot be part of valid UTF-8. After false the state is undefined.
    public mutating func validate(_ bytes: UnsafeRawBufferPointer) -> Bool {
        guard let base = bytes.baseAddress else { return true }
        let count = bytes.count
        var index = 0
        while index < count {
            if remaining == 0 {
                // ASCII runs are the common case: check eight bytes per step.
                while index + 8 <= count,
                      base.loadUnaligned(fromByteOffset: index, as: UInt64.self) & 0x8080_8080_8080_8080 == 0 {
                    index += 8
                }
                guard index < count else { return true }
                let byte = base.load(fromByteOffset: index, as: UInt8.self)
                index += 1
                switch byte {
                case 0x00...0x7F: continue
                case 0xC2...0xDF: remaining = 1; lower = 0x80; upper = 0xBF
                case 0xE0: remaining = 2; lower = 0xA0; upper = 0xBF
                case 0xE1...0xEC, 0xEE...0xEF: remaining = 2; lower = 0x80; upper = 0xBF
                case 0xED: remaining = 2; lower = 0x80; upper = 0x9F
                case 0xF0: remaining = 3; lower = 0x90; upper = 0xBF
                case 0xF1...0xF3: remaining = 3; lower = 0x80; upper = 0xBF
                case 0xF4: remaining = 3; lower = 0x80; upper = 0x8F
                default: return false
                }
            } else {
                let byte = base.load(fromByteOffset: index, as: UInt8.self)
                index += 1
                guard byte >= lower, byte <= upper else { return false }
                remaining -= 1
                lower = 0x80
                upper = 0xBF
            }
        }
        return true
    }

    /// One-shot check of a complete byte string.
    public static func isValid(_ bytes: [UInt8]) -> Bool {
        var validator = WebSocketUTF8Validator()
        return bytes.withUnsafeBytes { validator.validate($0) } && validator.isComplete
    }
}
