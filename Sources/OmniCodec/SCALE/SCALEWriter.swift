/// Builds SCALE: little-endian fixed integers, canonical compact integers, length-prefixed strings and bytes.
public struct SCALEWriter: Sendable {
    public private(set) var bytes: [UInt8]

    public init(capacity: Int = 64) {
        bytes = []
        bytes.reserveCapacity(capacity)
    }

    public mutating func u8(_ value: UInt8) { bytes.append(value) }

    public mutating func integer(_ value: UInt128, _ width: SCALEInteger) {
        for shift in 0..<width.byteCount { bytes.append(UInt8(truncatingIfNeeded: value >> (8 * shift))) }
    }

    public mutating func u32(_ value: UInt32) { integer(UInt128(value), .u32) }
    public mutating func u64(_ value: UInt64) { integer(UInt128(value), .u64) }
    public mutating func bool(_ value: Bool) { bytes.append(value ? 1 : 0) }

    /// The shortest of the four compact modes (the only form decoders accept).
    public mutating func compact(_ value: UInt128) {
        switch value {
        case ..<(1 << 6):
            bytes.append(UInt8(value << 2))
        case ..<(1 << 14):
            let word = UInt16(value << 2) | 1
            bytes.append(UInt8(word & 0xFF))
            bytes.append(UInt8(word >> 8))
        case ..<(1 << 30):
            let word = UInt32(value << 2) | 2
            for shift in 0..<4 { bytes.append(UInt8(truncatingIfNeeded: word >> (8 * shift))) }
        default:
            var count = 0
            var rest = value
            while rest > 0 { count += 1; rest >>= 8 }
            bytes.append(UInt8((count - 4) << 2) | 3)
            for shift in 0..<count { bytes.append(UInt8(truncatingIfNeeded: value >> (8 * shift))) }
        }
    }

    /// `Vec<u8>`: compact length ‖ bytes.
    public mutating func bytes(_ data: some Collection<UInt8>) {
        compact(UInt128(data.count))
        bytes.append(contentsOf: data)
    }

    /// `str`: compact byte length ‖ UTF-8.
    public mutating func string(_ text: String) {
        compact(UInt128(text.utf8.count))
        bytes.append(contentsOf: text.utf8)
    }

    /// Bytes with no prefix (`[u8; N]`, already-encoded parts).
    public mutating func raw(_ data: some Collection<UInt8>) { bytes.append(contentsOf: data) }
}
