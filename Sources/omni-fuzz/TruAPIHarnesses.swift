import OmniCodec
import OmniTruAPI

/// TrUAPI and SCALE: the frame envelope, messages with their payloads at the wire table's types, and the SCALE
/// interpreter over every registered type (depth 64, 8 MiB), as the bridge reads products' frames.
let truapiHarnesses: [Harness] = [scale, truapiFrame, truapiMessage]

private let codec = TruAPITypes.codec
private let typeNames = TruAPITypes.registry.names

/// `[type index: u16 BE, modulo the registry's size][value…]`
private let scale = Harness(
    "scale",
    "SCALECodec.decode of `[type index u16][value]` at every TrUAPI type; SCALE is canonical, so a value re-encodes to exactly its bytes, and its JSON mapping reads back the same value",
    seeds: { sources in
        var seeds: [Seed] = []
        // Payload vectors name their type ("HostChatRegisterBotRequest (versioned)").
        if case .array(let vectors)? = sources.vectorJSON("truapi/payloads.json")?["vectors"] {
            for vector in vectors {
                guard let name = vector["type"]?.stringValue?.split(separator: " ").first.map(String.init),
                      let index = typeNames.firstIndex(where: { $0 == name || $0 == "v01::" + name }),
                      let bytes = vector["hex"]?.stringValue.flatMap({ try? Hex.decode($0, allowPrefix: true) }) else { continue }
                seeds.append(Seed("vector-\(name)", [UInt8(index >> 8), UInt8(index & 0xff)] + bytes))
            }
        }
        // The smallest value of every type: all-zero bytes of its minimum size decode for most of them.
        for (index, name) in typeNames.enumerated() {
            let zeros = [UInt8](repeating: 0, count: codec.minimumSize(.named(name)))
            if (try? codec.decode(.named(name), from: zeros)) != nil { seeds.append(Seed("zero-\(name)", [UInt8(index >> 8), UInt8(index & 0xff)] + zeros)) }
        }
        return seeds
    },
    parse: { bytes in var input = FuzzInput(bytes); let selector = Int(input.byte()) << 8 | Int(input.byte()); return (try? codec.decode(.named(typeNames[selector % typeNames.count]), from: input.rest())) != nil }
) { bytes in
    var input = FuzzInput(bytes)
    let selector = Int(input.byte()) << 8 | Int(input.byte())
    let type = SCALEType.named(typeNames[selector % typeNames.count])
    let valueBytes = input.rest()
    guard let value = try? codec.decode(type, from: valueBytes) else { return }
    guard let encoded = try? codec.encode(value, as: type) else { FuzzCheck.fail("a decoded \(type) value does not encode") }
    FuzzCheck.require(encoded == valueBytes, "a \(type) value does not re-encode to its bytes")
    guard let json = try? codec.json(value, as: type) else { FuzzCheck.fail("a decoded \(type) value has no JSON form") }
    guard let again = try? codec.value(fromJSON: json, as: type) else { FuzzCheck.fail("the JSON form of a \(type) value does not read back: \(json.serialized().prefix(300))") }
    FuzzCheck.require(again == value, "a \(type) value changed through its JSON form")
}

/// Frames from the shared vectors (the wire envelope and the exchanges' requests and answers).
private func frameSeeds(_ sources: SeedSources) -> [Seed] {
    var seeds: [Seed] = []
    for file in ["truapi/frames.json", "truapi/exchanges.json"] {
        for (index, bytes) in VectorStrings.hex(sources.vectorJSON(file), keys: ["hex"]).enumerated() {
            seeds.append(Seed("\(file.dropFirst(7).dropLast(5))-\(index)", bytes))
        }
    }
    if let golden = sources.vectorBytes("truapi/golden-account-get.bin") { seeds.append(Seed("golden-account-get", golden)) }
    seeds.append(Seed("handshake", TruAPIFrame(requestID: "p:1", discriminant: 0, payload: [0, 1]).bytes))
    return seeds
}

private let truapiFrame = Harness(
    "truapi-frame",
    "TruAPIFrame.decode (request id str, discriminant, payload; 8 MiB limit); a frame re-encodes to exactly its bytes",
    seeds: frameSeeds,
    parse: { bytes in (try? TruAPIFrame.decode(bytes)) != nil }
) { bytes in
    guard let frame = try? TruAPIFrame.decode(bytes) else { return }
    FuzzCheck.require(frame.bytes == bytes, "a frame does not re-encode to its bytes")
    FuzzCheck.require(frame.payloadOffset + frame.payload.count == bytes.count, "a frame's payload offset is wrong")
    _ = frame.wireEntry
}

private let truapiMessage = Harness(
    "truapi-message",
    "TruAPIMessage.decode, lenient (as the dispatcher reads requests) and strict (as the CLI does), payloads at the wire table's types; a strict message re-encodes to exactly its frame and its JSON description reads back the same",
    seeds: frameSeeds,
    parse: { bytes in (try? TruAPIMessage.decode(bytes)) != nil }
) { bytes in
    let lenient = try? TruAPIMessage.decode(bytes)
    guard let message = try? TruAPIMessage.decode(bytes, strict: true) else { return }
    FuzzCheck.require(lenient == message, "strict and lenient decoding read different messages")
    guard let frame = try? message.frame() else { FuzzCheck.fail("a decoded message does not encode") }
    FuzzCheck.require(frame.bytes == bytes, "a message does not re-encode to its frame")
    guard let json = try? TruAPIJSON.json(message, payloadBytes: frame.payload),
          let (again, raw) = try? TruAPIJSON.message(from: json) else { FuzzCheck.fail("a message's JSON description does not read back") }
    if let raw {
        // A null payload beside payload_hex reads back as those bytes (a start without arguments prints null for
        // both its empty and its `00` form): the bytes must be the frame's, and decode to the same payload.
        FuzzCheck.require(raw == frame.payload, "a message's payload_hex reads back other bytes")
        let payload = try? TruAPIMessage.decodePayload(raw, method: again.method, kind: again.kind, strict: true).payload
        FuzzCheck.require(TruAPIMessage(requestID: again.requestID, method: again.method, kind: again.kind, payload: payload) == message,
                          "a message changed through its JSON description")
    } else {
        FuzzCheck.require(again == message, "a message changed through its JSON description")
    }
}
