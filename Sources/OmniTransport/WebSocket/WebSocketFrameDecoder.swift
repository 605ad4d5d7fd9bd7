/// Which end of the connection we are: a server requires masked frames, a client requires unmasked ones.
public enum WebSocketRole: Sendable {
    case client
    case server
}

/// Incremental RFC 6455 decoder: feed bytes as they arrive (frames may be split anywhere), pull complete events.
/// It reassembles fragmented messages, validates UTF-8 of text messages across fragments and of close reasons,
/// and enforces the message size limit from each frame header, before the payload is buffered.
///
/// On a violation it throws and records the close code the connection must send (`failureCloseCode`):
/// 1002 protocol error, 1007 invalid UTF-8, 1009 message too big. A failed decoder keeps throwing.
public struct WebSocketFrameDecoder: Sendable {
    public enum Event: Equatable, Sendable {
        case text(String)
        case binary([UInt8])
        case ping([UInt8])
        case pong([UInt8])
        case close(WebSocketCloseInfo)
    }

    public let role: WebSocketRole
    public let maxMessageBytes: Int
    public private(set) var failureCloseCode: WebSocketCloseCode?
    /// Set after a close frame: nothing after it is interpreted (RFC 6455 §5.5.1).
    public private(set) var receivedClose = false

    private var buffer: [UInt8] = []
    private var readIndex = 0
    /// Stream offset of buffer[0], so errors can name the byte offset of the offending frame.
    private var bufferStreamOffset = 0
    private var messageOpcode: WebSocketOpcode?
    private var message: [UInt8] = []
    private var utf8 = WebSocketUTF8Validator()
    private var failure: TransportError?

    public init(role: WebSocketRole, maxMessageBytes: Int = 16 << 20) {
        self.role = role
        self.maxMessageBytes = max(0, maxMessageBytes)
    }

    /// Bytes received but not yet consumed by a complete frame.
    public var bufferedByteCount: Int { buffer.count - readIndex }

    public mutating func append(_ bytes: UnsafeRawBufferPointer) {
        guard !receivedClose, failure == nil else { return }
        buffer.append(contentsOf: bytes)
    }

    public mutating func append(_ bytes: [UInt8]) {
        bytes.withUnsafeBytes { append($0) }
    }

    /// The next complete event, or nil when more bytes are needed.
    public mutating func nextEvent() throws(TransportError) -> Event? {
        if let failure { throw failure }
        while !receivedClose {
            let frameStart = bufferStreamOffset + readIndex
            let parsed: (header: FrameHeader, headerLength: Int)?
            do {
                parsed = try parseHeader()
            } catch {
                throw fail(error.code, "\(error.message) (frame at stream offset \(frameStart))")
            }
            guard let (header, headerLength) = parsed else { return nil }
            // parseHeader bounded the length by the message limit (≤ Int.max), so this cannot overflow.
            let payloadLength = Int(header.length)
            guard bufferedByteCount - headerLength >= payloadLength else { return nil }
            let payloadStart = readIndex + headerLength
            readIndex = payloadStart + payloadLength
            defer { compactBuffer() }
            if let event = try consumePayload(header, start: payloadStart, count: payloadLength, frameStart: frameStart) {
                return event
            }
        }
        return nil
    }

    // MARK: - Frame header

    private struct FrameHeader {
        var fin: Bool
        var opcode: WebSocketOpcode
        var mask: UInt32?
        var length: UInt64
    }

    private struct HeaderViolation: Error {
        let code: WebSocketCloseCode
        let message: String
    }

    private func parseHeader() throws(HeaderViolation) -> (FrameHeader, Int)? {
        let available = bufferedByteCount
        guard available >= 2 else { return nil }
        let first = buffer[readIndex], second = buffer[readIndex + 1]
        if first & 0x70 != 0 {
            throw HeaderViolation(code: .protocolError, message: "reserved bits set but no extension was negotiated")
        }
        guard let opcode = WebSocketOpcode(rawValue: first & 0x0F) else {
            throw HeaderViolation(code: .protocolError, message: "reserved opcode 0x\(String(first & 0x0F, radix: 16))")
        }
        let fin = first & 0x80 != 0
        let masked = second & 0x80 != 0
        switch (role, masked) {
        case (.server, false): throw HeaderViolation(code: .protocolError, message: "client frame is not masked")
        case (.client, true): throw HeaderViolation(code: .protocolError, message: "server frame is masked")
        default: break
        }
        let shortLength = second & 0x7F
        let extendedLength = shortLength == 126 ? 2 : (shortLength == 127 ? 8 : 0)
        let headerLength = 2 + extendedLength + (masked ? 4 : 0)
        guard available >= headerLength else { return nil }
        var length = UInt64(shortLength)
        var cursor = readIndex + 2
        if extendedLength > 0 {
            length = 0
            for _ in 0..<extendedLength {
                length = (length << 8) | UInt64(buffer[cursor])
                cursor += 1
            }
            if extendedLength == 2, length < 126 {
                throw HeaderViolation(code: .protocolError, message: "16-bit length \(length) is not minimal")
            }
            if extendedLength == 8 {
                if length >> 63 != 0 {
                    throw HeaderViolation(code: .protocolError, message: "64-bit length has its most significant bit set")
                }
                if length <= 0xFFFF {
                    throw HeaderViolation(code: .protocolError, message: "64-bit length \(length) is not minimal")
                }
            }
        }
        var mask: UInt32?
        if masked {
            mask = UInt32(buffer[cursor]) << 24 | UInt32(buffer[cursor + 1]) << 16
                | UInt32(buffer[cursor + 2]) << 8 | UInt32(buffer[cursor + 3])
        }
        if opcode.isControl {
            guard fin else { throw HeaderViolation(code: .protocolError, message: "fragmented \(opcode) control frame") }
            guard length <= 125 else {
                throw HeaderViolation(code: .protocolError, message: "\(opcode) control frame of \(length) bytes (limit 125)")
            }
        } else {
            if opcode == .continuation, messageOpcode == nil {
                throw HeaderViolation(code: .protocolError, message: "continuation frame without a message to continue")
            }
            if opcode != .continuation, messageOpcode != nil {
                throw HeaderViolation(code: .protocolError, message: "new \(opcode) message while a fragmented message is unfinished")
            }
            let room = UInt64(maxMessageBytes - message.count)
            if length > room {
                let total = UInt64(message.count).addingReportingOverflow(length).partialValue
                throw HeaderViolation(
                    code: .messageTooBig, message: "message of at least \(total) bytes exceeds the limit of \(maxMessageBytes) bytes")
            }
        }
        return (FrameHeader(fin: fin, opcode: opcode, mask: mask, length: length), headerLength)
    }

    // MARK: - Payload

    private mutating func consumePayload(_ header: FrameHeader, start: Int, count: Int, frameStart: Int) throws(TransportError) -> Event? {
        if header.opcode.isControl {
            var payload = Array(buffer[start..<(start + count)])
            if let mask = header.mask {
                payload.withUnsafeMutableBytes { WebSocketMasking.apply(mask: mask, to: $0) }
            }
            switch header.opcode {
            case .ping: return .ping(payload)
            case .pong: return .pong(payload)
            default: return .close(try parseClose(payload, frameStart: frameStart))
            }
        }
        if header.opcode != .continuation { messageOpcode = header.opcode }
        let appendedFrom = message.count
        message.append(contentsOf: buffer[start..<(start + count)])
        let isText = messageOpcode == .text
        var validUTF8 = true
        message.withUnsafeMutableBytes { bytes in
            let fresh = UnsafeMutableRawBufferPointer(rebasing: bytes[appendedFrom...])
            if let mask = header.mask { WebSocketMasking.apply(mask: mask, to: fresh) }
            if isText { validUTF8 = utf8.validate(UnsafeRawBufferPointer(fresh)) }
        }
        if !validUTF8 {
            throw fail(.invalidPayload, "text message is not valid UTF-8 (frame at stream offset \(frameStart))")
        }
        guard header.fin else { return nil }
        if isText, !utf8.isComplete {
            throw fail(.invalidPayload, "text message ends inside a UTF-8 sequence (frame at stream offset \(frameStart))")
        }
        let complete = message
        message = []
        messageOpcode = nil
        utf8 = WebSocketUTF8Validator()
        return isText ? .text(String(decoding: complete, as: UTF8.self)) : .binary(complete)
    }

    private mutating func parseClose(_ payload: [UInt8], frameStart: Int) throws(TransportError) -> WebSocketCloseInfo {
        receivedClose = true
        if payload.isEmpty { return WebSocketCloseInfo(code: .noStatusReceived) }
        guard payload.count >= 2 else {
            throw fail(.protocolError, "close frame with a 1-byte payload (frame at stream offset \(frameStart))")
        }
        let code = WebSocketCloseCode(UInt16(payload[0]) << 8 | UInt16(payload[1]))
        guard code.isValidOnWire else {
            throw fail(.protocolError, "close code \(code) is not allowed on the wire (frame at stream offset \(frameStart))")
        }
        let reason = Array(payload[2...])
        guard WebSocketUTF8Validator.isValid(reason) else {
            throw fail(.invalidPayload, "close reason is not valid UTF-8 (frame at stream offset \(frameStart))")
        }
        return WebSocketCloseInfo(code: code, reason: String(decoding: reason, as: UTF8.self))
    }

    // MARK: - Bookkeeping

    private mutating func fail(_ code: WebSocketCloseCode, _ message: String) -> TransportError {
        let kind: TransportError.Kind = code == .messageTooBig ? .limitExceeded : .protocolViolation
        let error = TransportError(kind, "WebSocket \(code == .messageTooBig ? "limit" : "protocol") violation (close \(code)): \(message)")
        failureCloseCode = code
        failure = error
        buffer = []
        readIndex = 0
        return error
    }

    /// Drops consumed bytes: all of them when the buffer is drained, otherwise once they dominate the buffer.
    private mutating func compactBuffer() {
        if readIndex == buffer.count {
            bufferStreamOffset += readIndex
            buffer.removeAll(keepingCapacity: buffer.capacity <= 1 << 20)
            readIndex = 0
        } else if readIndex >= 1 << 16, readIndex * 2 >= buffer.count {
            bufferStreamOffset += readIndex
            buffer.removeSubrange(0..<readIndex)
            readIndex = 0
        }
    }
}
