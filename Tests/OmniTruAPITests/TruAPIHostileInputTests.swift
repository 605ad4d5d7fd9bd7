import OmniCodec
import OmniTestSupport
import OmniTruAPI
import Testing

@Suite("TrUAPI hostile input", .vectors("truapi"), .timeLimit(.minutes(2)))
struct TruAPIHostileInputTests {
    /// Every hex frame of the vector files, as seeds for mutation.
    static func seedFrames() throws -> [[UInt8]] {
        var frames: [[UInt8]] = []
        for vector in try truapiVector("frames.json")["vectors"]?.arrayValue ?? [] {
            if let hex = vector["hex"]?.stringValue, !hex.isEmpty { frames.append(hexBytes(hex)) }
        }
        for vector in try truapiVector("exchanges.json")["vectors"]?.arrayValue ?? [] {
            for frame in [vector["request"]].compactMap({ $0 }) + (vector["expect"]?.arrayValue ?? []) {
                if let hex = frame["hex"]?.stringValue { frames.append(hexBytes(hex)) }
            }
        }
        return frames
    }

    @Test("seeded mutations of every vector frame decode or fail with an offset, never crash or hang")
    func mutations() throws {
        var random = SeededGenerator()
        let seed = random.seed
        let frames = try Self.seedFrames()
        var decoded = 0, refused = 0
        for round in 0..<6000 {
            var bytes = frames[round % frames.count]
            switch Int.random(in: 0..<5, using: &random) {
            case 0 where !bytes.isEmpty:   // flip a byte
                bytes[Int.random(in: 0..<bytes.count, using: &random)] = UInt8.random(in: 0...255, using: &random)
            case 1 where !bytes.isEmpty:   // truncate
                bytes = Array(bytes.prefix(Int.random(in: 0..<bytes.count, using: &random)))
            case 2:                        // append garbage
                bytes += random.bytes(Int.random(in: 1...16, using: &random))
            case 3 where bytes.count > 2:  // splice a huge compact length after the id
                let at = Int.random(in: 1..<bytes.count, using: &random)
                bytes.insert(contentsOf: [0xfe, 0xff, 0xff, 0xff], at: at)
            default:
                bytes = random.bytes(Int.random(in: 0...64, using: &random))
            }
            do {
                let message = try TruAPIMessage.decode(bytes, strict: Bool.random(using: &random))
                // What decodes re-encodes to a frame that decodes to the same message.
                let again = try TruAPIMessage.decode(try message.frame().bytes)
                #expect(again.payload == message.payload, "seed \(seed) round \(round): \(Hex.encode(bytes))")
                decoded += 1
            } catch {
                #expect(error.offset != nil, "seed \(seed) round \(round): \(error) for \(Hex.encode(bytes))")
                refused += 1
            }
        }
        #expect(decoded > 100 && refused > 100, "seed \(seed): \(decoded) decoded, \(refused) refused")
    }

    /// chat_custom_message_render items (product → host) nest CustomRendererNode trees: Box{modifiers: [],
    /// props: {content_alignment: None}, children: [child]}.
    static func nestedRender(depth: Int) -> [UInt8] {
        var node: [UInt8] = [0]                          // Nil
        for _ in 0..<depth { node = [2, 0, 0, 4] + node }  // Box, no modifiers, no alignment, one child
        return TruAPIFrame(requestID: "h:1", discriminant: 55, payload: [0] + node).bytes
    }

    @Test("a render tree nested past depth 64 is refused with a limit error; within the limit it decodes")
    func deepNesting() throws {
        do {
            _ = try TruAPIMessage.decode(Self.nestedRender(depth: 100))
            Issue.record("a 100-deep tree decoded")
        } catch {
            #expect(error.kind == .limitExceeded, "\(error)")
            #expect(error.offset != nil && error.path?.hasPrefix("$.payload.V1.Box.children[0]") == true, "\(error)")
        }
        // 1 level for the envelope, 2 per Box (the enum and its children vector).
        _ = try TruAPIMessage.decode(Self.nestedRender(depth: 30))
        // The dispatcher survives it: nothing is sent, the frame is reported.
        let connection = MemoryConnection(host: TruAPIDefaultHost())
        connection.dispatcher.receive(Self.nestedRender(depth: 5000))
        #expect(connection.allSent.isEmpty)
    }

    @Test("oversized frames and payloads are refused before decoding")
    func oversized() {
        let big = [UInt8](repeating: 0, count: TruAPIFrame.maximumBytes + 1)
        #expect(throws: CodecError.self) { try TruAPIFrame.decode(big) }
        // A local_storage_write whose value claims 1 GiB.
        let lie = TruAPIFrame(requestID: "p:1", discriminant: 14, payload: [0, 4, 0x61, 0x03, 0, 0, 0, 0x40]).bytes
        do {
            _ = try TruAPIMessage.decode(lie)
            Issue.record("a 1 GiB length decoded")
        } catch {
            #expect(error.offset == 8 && error.path == "$.payload.V1.value", "\(error)")
        }
    }
}
