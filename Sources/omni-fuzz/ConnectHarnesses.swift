import OmniCodec
import OmniConnect

/// Iroha Connect: Norito frames as the relay and the peers read them off the WebSocket, NRT0-framed envelopes (AEAD
/// plaintexts), and connect URIs from QR codes. The first byte of each input picks the generation (even: A, odd: B).
let connectHarnesses: [Harness] = [connectFrame, connectEnvelope, connectURI]

private func generation(_ selector: UInt8) -> ConnectGeneration { selector % 2 == 0 ? .genA : .genB }
private func selector(_ generation: ConnectGeneration) -> UInt8 { generation == .genA ? 0 : 1 }

/// Hex strings under `keys` in the derived session vectors of both generations, and the upstream Android frame.
private func connectSeeds(_ sources: SeedSources, keys: Set<String>) -> [Seed] {
    var seeds: [Seed] = []
    for generation in ConnectGeneration.allCases {
        let file = generation == .genA ? "connect/derived/gen-a_session.json" : "connect/derived/gen-b_session.json"
        for (index, bytes) in VectorStrings.hex(sources.vectorJSON(file), keys: keys).enumerated() {
            seeds.append(Seed("\(generation)-\(index)", [selector(generation)] + bytes))
        }
    }
    if keys.contains("frame_hex"), let text = sources.vectorBytes("connect/upstream/gen-a/android_approve_frame.hex").flatMap(utf8Text),
       let bytes = try? Hex.decode(text.filter { $0.isHexDigit }) {
        seeds.append(Seed("android-approve", [0] + bytes))
    }
    return seeds
}

private let connectFrame = Harness(
    "connect-frame",
    "ConnectCodec.decodeFrame and annotateFrame (frame limit 64 000 bytes, Norito depth 16, 1024 items); Norito is canonical, so a frame re-encodes to exactly its bytes, and its JSON description reads back the same frame",
    seeds: { sources in
        // Built in: a ciphertext frame of each generation and direction.
        var seeds: [Seed] = []
        for generation in ConnectGeneration.allCases {
            let codec = ConnectCodec(generation: generation)
            for direction in ConnectDirection.allCases {
                let frame = ConnectFrame(sid: [UInt8](repeating: 5, count: 32), direction: direction, sequence: 7,
                                         kind: .ciphertext(ConnectCiphertext(direction: direction, aead: [UInt8](repeating: 0xa5, count: 48))))
                seeds.append(Seed("built-in-\(generation)-\(direction)", [selector(generation)] + codec.encode(frame)))
            }
        }
        return seeds + connectSeeds(sources, keys: ["frame_hex"])
    },
    parse: { bytes in var input = FuzzInput(bytes); return (try? ConnectCodec(generation: generation(input.byte())).decodeFrame(input.rest())) != nil }
) { bytes in
    var input = FuzzInput(bytes)
    let codec = ConnectCodec(generation: generation(input.byte()))
    let frameBytes = input.rest()
    let annotated = codec.annotateFrame(frameBytes)
    guard let frame = try? codec.decodeFrame(frameBytes) else {
        FuzzCheck.require(annotated.frame == nil && annotated.error != nil, "annotating accepted a frame decoding refuses")
        return
    }
    FuzzCheck.require(annotated.frame == frame, "annotating read another frame")
    FuzzCheck.require(codec.encode(frame) == frameBytes, "a frame does not re-encode to its bytes")
    guard let again = try? ConnectJSON.frame(from: ConnectJSON.frame(frame), generation: codec.generation, keys: nil) else {
        FuzzCheck.fail("a frame's JSON description does not read back")
    }
    FuzzCheck.require(again == frame, "a frame changed through its JSON description")
}

private let connectEnvelope = Harness(
    "connect-envelope",
    "ConnectCodec.decodeEnvelope (NRT0 header: magic, version, CRC-64, schema hash, length; then the payload); an envelope re-encodes to exactly its bytes and its payload's JSON reads back the same",
    seeds: { connectSeeds($0, keys: ["envelope_plaintext_hex"]) }
) { bytes in
    var input = FuzzInput(bytes)
    let codec = ConnectCodec(generation: generation(input.byte()))
    let envelopeBytes = input.rest()
    guard let envelope = try? codec.decodeEnvelope(envelopeBytes) else { return }
    FuzzCheck.require(codec.encodeEnvelope(envelope) == envelopeBytes, "an envelope does not re-encode to its bytes")
    guard let payload = try? ConnectJSON.payload(from: ConnectJSON.payload(envelope.payload), generation: codec.generation) else {
        FuzzCheck.fail("an envelope payload's JSON does not read back")
    }
    FuzzCheck.require(payload == envelope.payload, "an envelope payload changed through its JSON")
}

private let connectURI = Harness(
    "connect-uri",
    "ConnectURI(parsing:) (at most 4096 bytes, percent-decoding, gen-B sid bound to network, key and nonce); a URI's text parses back to the same URI",
    seeds: { sources in
        // One URI per generation and role, built the way the app side builds them (gen B's sid bound to its inputs).
        var seeds: [Seed] = []
        let appKey = [UInt8](repeating: 0x7b, count: 32), nonce = [UInt8](repeating: 2, count: 16)
        let token = ConnectText.base64URL([UInt8](repeating: 9, count: 32))
        for role in ConnectRole.allCases {
            let chain = ConnectConstraints.chain("testnet")
            let sidA = ConnectCrypto.sid(generation: .genA, constraints: chain, appPublicKey: appKey, nonce: nonce)
            seeds.append(Seed("gen-a-\(role)", [0] + Array(ConnectURI(generation: .genA, sid: sidA, role: role, token: "token-1",
                                                                        node: "https://torii.example:8080", constraints: chain).text.utf8)))
            if let network = try? ConnectNetworkID(bytes: [UInt8](repeating: 0xa5, count: 32)) {
                let constraints = ConnectConstraints.network(network)
                let sidB = ConnectCrypto.sid(generation: .genB, constraints: constraints, appPublicKey: appKey, nonce: nonce)
                seeds.append(Seed("gen-b-\(role)", [1] + Array(ConnectURI(generation: .genB, sid: sidB, role: role, token: token, node: "https://relay.example",
                                                                            constraints: constraints, appPublicKey: appKey, nonce: nonce,
                                                                            relayToken: token).text.utf8)))
            }
        }
        return seeds
    }
) { bytes in
    var input = FuzzInput(bytes)
    let generation = generation(input.byte())
    guard let text = utf8Text(input.rest()), let uri = try? ConnectURI(parsing: text, generation: generation) else { return }
    FuzzCheck.require((try? ConnectURI(parsing: uri.text, generation: generation)) == uri, "a connect URI's text parses back to another URI")
}
