import OmniTestSupport
import Foundation
@testable import OmniTransport
import Testing

/// Hostile input must produce errors, never crashes or traps.
@Suite("WebSocket and HTTP parsers on random input")
struct WebSocketRobustnessTests {
    @Test func frameDecoderSurvivesRandomStreams() {
        let seed = SeededGenerator.freshSeed()
        var random = SeededGenerator(seed: seed)
        var events = 0, failures = 0
        for round in 0..<2000 {
            var decoder = WebSocketFrameDecoder(role: round % 2 == 0 ? .server : .client, maxMessageBytes: 4096)
            // Start from a plausible header half of the time so parsing gets past the first checks.
            var bytes = random.bytes(Int.random(in: 0...300, using: &random))
            if Bool.random(using: &random), bytes.count >= 2 {
                bytes[0] = [0x81, 0x82, 0x01, 0x80, 0x88, 0x89, 0x8A].randomElement(using: &random)!
                bytes[1] = (round % 2 == 0 ? 0x80 : 0) | UInt8.random(in: 0...127, using: &random)
            }
            var offset = 0
            while offset < bytes.count {
                let end = min(bytes.count, offset + Int.random(in: 1...64, using: &random))
                decoder.append(Array(bytes[offset..<end]))
                offset = end
                do {
                    while try decoder.nextEvent() != nil { events += 1 }
                } catch {
                    #expect(decoder.failureCloseCode != nil, "seed \(seed)")
                    failures += 1
                    break
                }
            }
        }
        #expect(events + failures > 0, "seed \(seed)")
    }

    @Test func headParserSurvivesRandomHeads() {
        let seed = SeededGenerator.freshSeed()
        var random = SeededGenerator(seed: seed)
        let alphabet = Array("GET / HTTP/1.1\r\n:Host: a\t ,\u{0}\u{7f}é".utf8)
        var parsed = 0
        for _ in 0..<3000 {
            var bytes = (0..<Int.random(in: 0...80, using: &random)).map { _ in alphabet.randomElement(using: &random)! }
            if Bool.random(using: &random) { bytes = Array("GET /x HTTP/1.1\r\n".utf8) + bytes }
            bytes += Array("\r\n\r\n".utf8)
            guard let end = HTTP1Head.findEnd(in: bytes, start: 0, scanFrom: 0) else { continue }
            if (try? HTTP1Head.parse(bytes[..<end], isRequest: Bool.random(using: &random), maxHeaderCount: 5)) != nil { parsed += 1 }
        }
        #expect(parsed > 0, "seed \(seed)")
    }
}
