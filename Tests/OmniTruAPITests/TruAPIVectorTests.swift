import Foundation
import OmniCodec
import OmniTestSupport
import OmniTruAPI
import Testing

@Suite("TrUAPI vectors byte for byte", .vectors("truapi"))
struct TruAPIVectorTests {
    /// Frames whose payload is a valid 0.9 value of the method's type (the others are envelope-only vectors).
    static let typedFrames: Set<String> = [
        "handshake_request_codec1", "account_get_request_current_shape", "subscription_phase_stop_19",
        "subscription_phase_interrupt_20",
    ]

    @Test("(c) frames.json: every envelope decodes and re-encodes; every broken one fails with an offset")
    func frames() throws {
        let vectors = try #require(try truapiVector("frames.json")["vectors"]?.arrayValue)
        #expect(vectors.count >= 19)
        for vector in vectors {
            let name = vector["name"]?.stringValue ?? "?"
            let bytes = hexBytes(vector["hex"]?.stringValue ?? "")
            if vector["decode"]?.stringValue?.hasPrefix("ok") == true {
                let frame = try TruAPIFrame.decode(bytes)
                #expect(frame.requestID == vector["request_id"]?.stringValue, "\(name)")
                #expect(Int64(frame.discriminant) == vector["discriminant"]?.int64Value, "\(name)")
                #expect(frame.payload == hexBytes(vector["payload_hex"]?.stringValue ?? ""), "\(name)")
                #expect(frame.bytes == bytes, "\(name) re-encodes")
                if Self.typedFrames.contains(name) {
                    let message = try TruAPIMessage.decode(bytes, strict: true)
                    #expect(try message.frame().bytes == bytes, "\(name) re-encodes from its typed value")
                    // And through JSON, as `omni truapi frame decode | encode` would.
                    let json = try TruAPIJSON.json(message, payloadBytes: frame.payload)
                    #expect(try TruAPIJSON.frame(from: json).bytes == bytes, "\(name) through JSON: \(json.serialized())")
                }
            } else {
                do {
                    _ = try TruAPIFrame.decode(bytes)
                    Issue.record("\(name) decoded but must fail")
                } catch {
                    #expect(error.offset != nil, "\(name): \(error)")
                }
            }
        }
    }

    @Test("(c) golden-account-get.bin is an envelope-only vector: the envelope reads, the 0.9 payload does not")
    func goldenAccountGet() throws {
        let bytes = [UInt8](try Vectors.data("truapi/golden-account-get.bin"))
        #expect(Hex.encode(bytes) == "0c703a3116000c666f6f00000000")
        let frame = try TruAPIFrame.decode(bytes)
        #expect(frame.requestID == "p:1" && frame.discriminant == 22 && frame.wireEntry?.method.name == "account_get_account")
        #expect(frame.bytes == bytes)
        do {
            _ = try TruAPIMessage.decode(bytes)
            Issue.record("the pre-0.6 payload decoded as a 0.9 HostAccountGetRequest")
        } catch {
            // `00 00 00 00` after "foo" reads as DerivationIndex::Index (tag 00) and a u32 one byte short.
            #expect(error.offset == 11, "\(error)")
            #expect(error.path == "$.payload.V1.product_account_id.derivation_index.Index", "\(error)")
        }
    }

    @Test("(c) payloads.json: each value encodes to its bytes and decodes to its JSON")
    func payloads() throws {
        let vectors = try #require(try truapiVector("payloads.json")["vectors"]?.arrayValue)
        let codec = TruAPITypes.codec
        var checked = 0
        for vector in vectors {
            let name = vector["name"]?.stringValue ?? "?"
            let typeText = vector["type"]?.stringValue ?? ""
            let bytes = hexBytes(vector["hex"]?.stringValue ?? "")
            let typeName = String(typeText.prefix { $0 != " " })
            let type: SCALEType
            if typeText.contains("(v01, unversioned)") {
                type = .named("v01::" + typeName)
            } else if TruAPITypes.registry[typeName] != nil {
                type = .named(typeName)
            } else {
                // The `encode_versioned_*` helpers: a response or interrupt shape around plain integers.
                type = try Self.helperShape(name)
            }
            let value = try codec.decode(type, from: bytes)
            #expect(try codec.encode(value, as: type) == bytes, "\(name) re-encodes")
            if let expected = vector["value"] {
                let json = try codec.json(value, as: type)
                #expect(json == expected, "\(name): \(json.serialized())")
                #expect(try codec.encode(codec.value(fromJSON: expected, as: type), as: type) == bytes, "\(name) from JSON")
            }
            checked += 1
        }
        #expect(checked == vectors.count)
    }

    static func helperShape(_ name: String) throws -> SCALEType {
        switch name {
        case "encode_versioned_unit_ok":
            return try #require(TruAPIMessage.payloadType(method: method("local_storage_write"), kind: .response))
        case "encode_versioned_ok_u32_7", "encode_versioned_err_u32_9":
            return .versioned([SCALEVariant(0, "V1", .tuple([.result(ok: .u32, error: .u32)]))])
        case "encode_versioned_interrupt_v2_u32_9":
            return .versioned([SCALEVariant(0, "V1", .tuple([.u32])), SCALEVariant(1, "V2", .tuple([.u32]))])
        default:
            throw TestSupportError("payload vector \(name) names no type this test knows")
        }
    }

    @Test("(c) exchanges.json: every request and answer frame decodes at its types and re-encodes")
    func exchangeFrames() throws {
        let vectors = try #require(try truapiVector("exchanges.json")["vectors"]?.arrayValue)
        var frames = 0
        for vector in vectors {
            let name = vector["name"]?.stringValue ?? "?"
            var all = [try #require(vector["request"])]
            all += vector["expect"]?.arrayValue ?? []
            for frameVector in all {
                guard let hex = frameVector["hex"]?.stringValue else { continue }   // described by prefix only
                let bytes = hexBytes(hex)
                if name.hasPrefix("malformed_"), frameVector == all[0] {
                    // The request is broken on purpose: the envelope reads, the payload does not.
                    #expect(throws: CodecError.self, "\(name)") { try TruAPIMessage.decode(bytes, strict: true) }
                    #expect(try TruAPIFrame.decode(bytes).bytes == bytes)
                    continue
                }
                let message = try TruAPIMessage.decode(bytes, strict: true)
                #expect(message.requestID == frameVector["request_id"]?.stringValue, "\(name)")
                #expect(Int64(message.discriminant) == frameVector["discriminant"]?.int64Value, "\(name)")
                #expect(try message.frame().bytes == bytes, "\(name) re-encodes")
                let json = try TruAPIJSON.json(message, payloadBytes: Array(bytes[TruAPIFrame.decode(bytes).payloadOffset...]))
                #expect(try TruAPIJSON.frame(from: json).bytes == bytes, "\(name) through JSON \(json.serialized())")
                frames += 1
            }
        }
        #expect(frames >= 28)
    }
}
