/// RFC 6455 §5.2 opcodes. Values 0x3–0x7 and 0xB–0xF are reserved and rejected by the decoder.
public enum WebSocketOpcode: UInt8, Sendable {
    case continuation = 0x0
    case text = 0x1
    case binary = 0x2
    case close = 0x8
    case ping = 0x9
    case pong = 0xA

    public var isControl: Bool { rawValue & 0x8 != 0 }
}

/// A close status code (RFC 6455 §7.4). Codes that may never appear on the wire (1005, 1006, 1015) are still
/// representable because they describe local outcomes ("no status received", "closed abnormally").
public struct WebSocketCloseCode: RawRepresentable, Hashable, Sendable, CustomStringConvertible {
    public let rawValue: UInt16
    public init(rawValue: UInt16) { self.rawValue = rawValue }
    public init(_ rawValue: UInt16) { self.rawValue = rawValue }

    public static let normal = WebSocketCloseCode(1000)
    public static let goingAway = WebSocketCloseCode(1001)
    public static let protocolError = WebSocketCloseCode(1002)
    public static let unsupportedData = WebSocketCloseCode(1003)
    /// Local meaning only: the peer's close frame carried no status code.
    public static let noStatusReceived = WebSocketCloseCode(1005)
    /// Local meaning only: the connection ended without a closing handshake.
    public static let abnormalClosure = WebSocketCloseCode(1006)
    public static let invalidPayload = WebSocketCloseCode(1007)
    public static let policyViolation = WebSocketCloseCode(1008)
    public static let messageTooBig = WebSocketCloseCode(1009)
    public static let mandatoryExtension = WebSocketCloseCode(1010)
    public static let internalError = WebSocketCloseCode(1011)

    /// Whether the code may be sent in (and accepted from) a close frame: 1000–1003, 1007–1011, the IANA-registered
    /// 1012–1014 (service restart, try again later, bad gateway; real servers send them) and 3000–4999.
    public var isValidOnWire: Bool {
        switch rawValue {
        case 1000...1003, 1007...1014, 3000...4999: return true
        default: return false
        }
    }

    public var description: String { String(rawValue) }
}

/// What a closing handshake carried: the status code (1005 when the frame had none) and the UTF-8 reason.
public struct WebSocketCloseInfo: Equatable, Sendable, CustomStringConvertible {
    public let code: WebSocketCloseCode
    public let reason: String
    public init(code: WebSocketCloseCode, reason: String = "") {
        self.code = code
        self.reason = reason
    }
    public var description: String { reason.isEmpty ? "close \(code)" : "close \(code) \"\(reason)\"" }
}

/// Serialises frames. Client frames must be masked with a fresh key (RFC 6455 §5.3); server frames never are.
public enum WebSocketFrameEncoder {
    /// Largest header: 2 bytes + 8-byte length + 4-byte masking key.
    public static let maximumHeaderLength = 14

    /// Appends one frame to `output`. `mask` is the masking key in wire order, or nil for an unmasked frame.
    public static func append(
        opcode: WebSocketOpcode, fin: Bool, payload: UnsafeRawBufferPointer, mask: UInt32?, to output: inout [UInt8]
    ) {
        output.append((fin ? 0x80 : 0) | opcode.rawValue)
        let maskBit: UInt8 = mask == nil ? 0 : 0x80
        let count = payload.count
        if count < 126 {
            output.append(maskBit | UInt8(count))
        } else if count <= 0xFFFF {
            output.append(maskBit | 126)
            output.append(UInt8(truncatingIfNeeded: count >> 8))
            output.append(UInt8(truncatingIfNeeded: count))
        } else {
            output.append(maskBit | 127)
            let length = UInt64(count)
            for shift in stride(from: 56, through: 0, by: -8) { output.append(UInt8(truncatingIfNeeded: length >> UInt64(shift))) }
        }
        let payloadStart: Int
        if let mask {
            output.append(UInt8(truncatingIfNeeded: mask >> 24))
            output.append(UInt8(truncatingIfNeeded: mask >> 16))
            output.append(UInt8(truncatingIfNeeded: mask >> 8))
            output.append(UInt8(truncatingIfNeeded: mask))
            payloadStart = output.count
        } else {
            payloadStart = output.count
        }
        output.append(contentsOf: payload)
        if let mask, count > 0 {
            output.withUnsafeMutableBytes { bytes in
                WebSocketMasking.apply(mask: mask, to: UnsafeMutableRawBufferPointer(rebasing: bytes[payloadStart...]))
            }
        }
    }

    /// Convenience for tests and small frames.
    public static func frame(opcode: WebSocketOpcode, fin: Bool = true, payload: [UInt8], mask: UInt32? = nil) -> [UInt8] {
        var output: [UInt8] = []
        output.reserveCapacity(payload.count + maximumHeaderLength)
        payload.withUnsafeBytes { append(opcode: opcode, fin: fin, payload: $0, mask: mask, to: &output) }
        return output
    }

    /// The payload of a close frame: big-endian code then the UTF-8 reason. 1005 means "no status": empty payload.
    public static func closePayload(code: WebSocketCloseCode, reason: String) -> [UInt8] {
        if code == .noStatusReceived { return [] }
        return [UInt8(truncatingIfNeeded: code.rawValue >> 8), UInt8(truncatingIfNeeded: code.rawValue)] + Array(reason.utf8)
    }
}

/// XOR masking (RFC 6455 §5.3), eight bytes at a time.
public enum WebSocketMasking {
    /// Masks or unmasks `buffer` in place. `mask` holds the key in wire order (first key byte in the top bits);
    /// `offset` is the position of `buffer`'s first byte within the frame payload, so a payload can be processed
    /// in pieces.
    public static func apply(mask: UInt32, to buffer: UnsafeMutableRawBufferPointer, offset: Int = 0) {
        guard let base = buffer.baseAddress, !buffer.isEmpty else { return }
        let rotation = UInt32((offset & 3) * 8)
        // Rotate so the key byte that applies to buffer[0] sits in the top bits.
        let key = rotation == 0 ? mask : (mask << rotation) | (mask >> (32 - rotation))
        // In memory (little or big endian alike) the 8-byte word must read key0 key1 key2 key3 key0 ….
        let keyBytes = UInt32(bigEndian: key)
        let wideKey = UInt64(keyBytes) | (UInt64(keyBytes) << 32)
        let count = buffer.count
        var index = 0
        while index + 8 <= count {
            let word = base.loadUnaligned(fromByteOffset: index, as: UInt64.self) ^ wideKey
            base.storeBytes(of: word, toByteOffset: index, as: UInt64.self)
            index += 8
        }
        while index < count {
            let keyByte = UInt8(truncatingIfNeeded: key >> UInt32(24 - (index & 3) * 8))
            base.storeBytes(of: base.load(fromByteOffset: index, as: UInt8.self) ^ keyByte, toByteOffset: index, as: UInt8.self)
            index += 1
        }
    }
}
