import OmniTestSupport
import Foundation
import OmniTransport
import Testing

@Suite("WebSocket frame codec")
struct WebSocketFrameCodecTests {
    /// Decodes `bytes` fed in pieces of `step` bytes; returns the events and the error, if any.
    private func decode(
        _ bytes: [UInt8], role: WebSocketRole = .server, maxMessageBytes: Int = 1 << 20, step: Int = Int.max
    ) -> (events: [WebSocketFrameDecoder.Event], error: TransportError?, closeCode: WebSocketCloseCode?) {
        var decoder = WebSocketFrameDecoder(role: role, maxMessageBytes: maxMessageBytes)
        var events: [WebSocketFrameDecoder.Event] = []
        var offset = 0
        repeat {
            let end = bytes.count - offset > step ? offset + step : bytes.count
            decoder.append(Array(bytes[offset..<end]))
            offset = end
            do {
                while let event = try decoder.nextEvent() { events.append(event) }
            } catch {
                return (events, error, decoder.failureCloseCode)
            }
        } while offset < bytes.count
        return (events, nil, nil)
    }

    private func clientFrame(_ opcode: WebSocketOpcode, _ payload: [UInt8], fin: Bool = true) -> [UInt8] {
        WebSocketFrameEncoder.frame(opcode: opcode, fin: fin, payload: payload, mask: UInt32.random(in: 0...UInt32.max))
    }

    @Test(arguments: [0, 1, 125, 126, 127, 65535, 65536, 200_000])
    func roundTripsEveryLengthEncoding(size: Int) {
        let seed = SeededGenerator.freshSeed()
        var random = SeededGenerator(seed: seed)
        let payload = random.bytes(size)
        let masked = clientFrame(.binary, payload)
        let expectedHeader = 2 + (size < 126 ? 0 : size <= 65535 ? 2 : 8)
        #expect(masked.count == expectedHeader + 4 + size)
        for step in [1, 7, Int.max] where step != 1 || size <= 65536 {
            let result = decode(masked, step: step)
            #expect(result.error == nil && result.events == [.binary(payload)], "size \(size) step \(step) seed \(seed)")
        }
        let unmasked = WebSocketFrameEncoder.frame(opcode: .binary, payload: payload)
        #expect(decode(unmasked, role: .client).events == [.binary(payload)], "seed \(seed)")
    }

    @Test func maskingMatchesBytewiseReferenceAtEveryOffset() {
        let seed = SeededGenerator.freshSeed()
        var random = SeededGenerator(seed: seed)
        for _ in 0..<200 {
            let data = random.bytes(Int.random(in: 0...70, using: &random))
            let mask = UInt32.random(in: 0...UInt32.max, using: &random)
            let offset = Int.random(in: 0...9, using: &random)
            let key = [UInt8(mask >> 24), UInt8(truncatingIfNeeded: mask >> 16), UInt8(truncatingIfNeeded: mask >> 8), UInt8(truncatingIfNeeded: mask)]
            let expected = data.enumerated().map { $0.element ^ key[($0.offset + offset) % 4] }
            var fast = data
            fast.withUnsafeMutableBytes { WebSocketMasking.apply(mask: mask, to: $0, offset: offset) }
            #expect(fast == expected, "seed \(seed)")
        }
    }

    @Test func reassemblesFragmentsWithInterleavedControlFrames() {
        let text = Array("κόσμε – ✓".utf8)
        var stream = clientFrame(.text, Array(text[0..<3]), fin: false)
        stream += clientFrame(.ping, [1, 2])
        stream += clientFrame(.continuation, Array(text[3..<9]), fin: false)
        stream += clientFrame(.continuation, [], fin: false)
        stream += clientFrame(.continuation, Array(text[9...]))
        stream += clientFrame(.close, WebSocketFrameEncoder.closePayload(code: WebSocketCloseCode(4001), reason: "ttl"))
        stream += clientFrame(.text, Array("ignored after close".utf8))
        let result = decode(stream, step: 3)
        #expect(result.error == nil)
        #expect(result.events == [.ping([1, 2]), .text("κόσμε – ✓"), .close(WebSocketCloseInfo(code: WebSocketCloseCode(4001), reason: "ttl"))])
    }

    @Test func emptyCloseMeansNoStatus() {
        #expect(decode(clientFrame(.close, [])).events == [.close(WebSocketCloseInfo(code: .noStatusReceived))])
    }

    /// Each violation and the close code it must produce.
    static let violations: [(String, [UInt8], WebSocketRole, UInt16)] = {
        let mask: [UInt8] = [1, 2, 3, 4]
        func raw(_ first: UInt8, _ lengthBytes: [UInt8], payloadCount: Int = 0, masked: Bool = true) -> [UInt8] {
            var bytes = [first]
            bytes.append((masked ? 0x80 : 0) | lengthBytes[0])
            bytes += lengthBytes.dropFirst()
            if masked { bytes += mask }
            return bytes + [UInt8](repeating: 0, count: payloadCount)
        }
        return [
            ("rsv1", raw(0xC1, [0]), .server, 1002),
            ("rsv3", raw(0x91, [0]), .server, 1002),
            ("opcode 3", raw(0x83, [0]), .server, 1002),
            ("opcode B", raw(0x8B, [0]), .server, 1002),
            ("unmasked client frame", raw(0x81, [0], masked: false), .server, 1002),
            ("masked server frame", raw(0x81, [0]), .client, 1002),
            ("16-bit length 125", raw(0x82, [126, 0, 125], payloadCount: 125), .server, 1002),
            ("64-bit length 65535", raw(0x82, [127, 0, 0, 0, 0, 0, 0, 0xFF, 0xFF]), .server, 1002),
            ("64-bit length high bit", raw(0x82, [127, 0x80, 0, 0, 0, 0, 0, 0, 1]), .server, 1002),
            ("ping of 126 bytes", raw(0x89, [126, 0, 126], payloadCount: 126), .server, 1002),
            ("fragmented ping", raw(0x09, [0]), .server, 1002),
            ("continuation first", raw(0x80, [0]), .server, 1002),
            ("text inside fragmented text", raw(0x01, [0]) + raw(0x81, [0]), .server, 1002),
            ("close with 1 byte", raw(0x88, [1], payloadCount: 1), .server, 1002),
            ("invalid UTF-8", WebSocketFrameEncoder.frame(opcode: .text, payload: [0xC0, 0xAF], mask: 0x01020304), .server, 1007),
            ("surrogate", WebSocketFrameEncoder.frame(opcode: .text, payload: [0xED, 0xA0, 0x80], mask: 7), .server, 1007),
            ("truncated code point at end", WebSocketFrameEncoder.frame(opcode: .text, payload: [0x61, 0xE2, 0x82], mask: 7), .server, 1007),
            ("invalid UTF-8 split across fragments",
             WebSocketFrameEncoder.frame(opcode: .text, fin: false, payload: [0xF4], mask: 7)
                + WebSocketFrameEncoder.frame(opcode: .continuation, payload: [0x90, 0x80, 0x80], mask: 7), .server, 1007),
            ("bad close reason", WebSocketFrameEncoder.frame(opcode: .close, payload: [0x03, 0xE8, 0xFF], mask: 7), .server, 1007),
        ] + [0, 999, 1004, 1005, 1006, 1015, 1016, 2999, 5000, 65535].map { code in
            ("close code \(code)", WebSocketFrameEncoder.frame(opcode: .close, payload: [UInt8(code >> 8), UInt8(code & 0xFF)], mask: 9),
             WebSocketRole.server, UInt16(1002))
        }
    }()

    @Test(arguments: violations)
    func rejectsViolationWithCloseCode(name: String, bytes: [UInt8], role: WebSocketRole, code: UInt16) {
        for step in [1, Int.max] {
            let result = decode(bytes, role: role, step: step)
            #expect(result.error?.kind == .protocolViolation, "\(name)")
            #expect(result.closeCode?.rawValue == code, "\(name)")
        }
    }

    @Test func acceptsEveryValidCloseCode() {
        for code: UInt16 in [1000, 1001, 1002, 1003, 1007, 1008, 1009, 1010, 1011, 1012, 1013, 1014, 3000, 4001, 4999] {
            let frame = WebSocketFrameEncoder.frame(opcode: .close, payload: [UInt8(code >> 8), UInt8(code & 0xFF)], mask: 5)
            #expect(decode(frame).events == [.close(WebSocketCloseInfo(code: WebSocketCloseCode(code)))], "\(code)")
        }
    }

    @Test func enforcesMessageLimitFromTheHeaderAndAcrossFragments() {
        // Only the header arrives: the limit must trip before the payload is buffered.
        let header: [UInt8] = [0x82, 0xFF, 0, 0, 0, 0, 0x7F, 0xFF, 0xFF, 0xFF, 1, 2, 3, 4]
        let single = decode(header, maxMessageBytes: 1000)
        #expect(single.error?.kind == .limitExceeded)
        #expect(single.closeCode == .messageTooBig)
        let fragments = clientFrame(.binary, [UInt8](repeating: 1, count: 600), fin: false)
            + clientFrame(.continuation, [UInt8](repeating: 1, count: 600))
        let split = decode(fragments, maxMessageBytes: 1000)
        #expect(split.closeCode == .messageTooBig)
        #expect(decode(clientFrame(.binary, [UInt8](repeating: 1, count: 1000)), maxMessageBytes: 1000).events.count == 1)
        // A decoder that failed keeps failing.
        var decoder = WebSocketFrameDecoder(role: .server, maxMessageBytes: 10)
        decoder.append(header)
        #expect(throws: TransportError.self) { try decoder.nextEvent() }
        decoder.append(clientFrame(.text, [0x61]))
        #expect(throws: TransportError.self) { try decoder.nextEvent() }
    }

    @Test func utf8ValidatorAgreesWithTheStandardLibrary() {
        let seed = SeededGenerator.freshSeed()
        var random = SeededGenerator(seed: seed)
        var invalidSeen = 0
        for _ in 0..<5000 {
            var bytes = random.bytes(Int.random(in: 0...12, using: &random))
            // Bias towards interesting lead and continuation bytes.
            for index in bytes.indices where Bool.random(using: &random) {
                bytes[index] = [0xC2, 0xDF, 0xE0, 0xED, 0xEF, 0xF0, 0xF4, 0xF5, 0x80, 0x8F, 0x90, 0x9F, 0xA0, 0xBF, 0x41]
                    .randomElement(using: &random)!
            }
            let expected = String(validating: bytes, as: UTF8.self) != nil
            if !expected { invalidSeen += 1 }
            #expect(WebSocketUTF8Validator.isValid(bytes) == expected, "\(bytes) seed \(seed)")
            // Split anywhere: incremental validation must agree.
            let cut = Int.random(in: 0...bytes.count, using: &random)
            var validator = WebSocketUTF8Validator()
            let incremental = Array(bytes[..<cut]).withUnsafeBytes { validator.validate($0) }
                && Array(bytes[cut...]).withUnsafeBytes { validator.validate($0) } && validator.isComplete
            #expect(incremental == expected, "\(bytes) cut \(cut) seed \(seed)")
        }
        #expect(invalidSeen > 100)
        #expect(WebSocketUTF8Validator.isValid(Array("plain ASCII over eight bytes, then ü and 𝄞".utf8)))
    }
}
