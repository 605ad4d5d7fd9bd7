import OmniAttest
import OmniCodec
import OmniCrypto

/// App Attest: attestation objects (CBOR, X.509 chain to Apple's root, authenticator data, nonce), assertions and
/// receipts (CMS SignedData). Inputs are framed so the fuzzer also varies what the verifier is told (key id, app id,
/// client data hash, time); seeds frame the real vectors with their own parameters, so every check is reachable.
let attestHarnesses: [Harness] = [attestAttestation, attestAssertion, attestReceipt]

private func vectorTime(_ json: JSONValue, _ key: String = "verify_at") -> Int64 {
    json[key]?.stringValue.flatMap { RFC3339.parse($0)?.seconds } ?? 0
}

private func vectorBase64(_ json: JSONValue, _ key: String) -> [UInt8] {
    json[key]?.stringValue.flatMap { try? Base64.decode($0) } ?? []
}

/// Authenticator data of the App Attest shape: RP id hash, flags, counter, AAGUID, credential id and a COSE key.
private func builtInAuthenticatorData(attested: Bool) -> [UInt8] {
    var bytes = [UInt8](repeating: 0x11, count: 32) + [attested ? 0x40 : 0x00, 0, 0, 0, attested ? 0 : 1]
    guard attested else { return bytes }
    bytes += Array("appattestdevelop".utf8) + [0, 32] + [UInt8](repeating: 0x22, count: 32)
    let point = (try? ECDSA.PrivateKey(rawRepresentation: [UInt8](repeating: 0, count: 31) + [5], curve: .p256))?.publicKey.uncompressedRepresentation ?? []
    let cose = CBOR.map([(1, 2), (3, -7), (-1, 1), (-2, .bytes(Array(point.dropFirst().prefix(32)))), (-3, .bytes(Array(point.suffix(32))))])
    return bytes + ((try? cose.encoded()) ?? [])
}

private func vectors(_ sources: SeedSources, _ kind: String) -> [(name: String, json: JSONValue)] {
    sources.vectorFiles("attest/real/\(kind)", suffix: ".json").compactMap { file in
        (try? JSONValue.parse(file.bytes)).map { (file.name, $0) }
    }
}

/// `[time: u64 BE seconds][key id: short][app id: short][client data hash: short][attestation…]`
private let attestAttestation = Harness(
    "attest-attestation",
    "AttestationAppraiser.appraise (any environment, Apple's attestation root, receipts against Apple's pins) on `[time u64][key id][app id][client data hash][object]`; every verdict has an appraisal code and serializes, a valid one names the key its key id hashes",
    seeds: { sources in
        // Built in: the object's shape with a certificate that is not Apple's (the chain check refuses it).
        let object = CBOR.map([("fmt", "apple-appattest"),
                               ("attStmt", .map([("x5c", .array([.bytes(DERWriter.sequence([0x05, 0x00]))])), ("receipt", .bytes([0x30, 0x00]))])),
                               ("authData", .bytes(builtInAuthenticatorData(attested: true)))])
        var builtIn = FuzzInput.Builder()
        builtIn.bigEndianUInt64(1_700_000_000)
        builtIn.short([UInt8](repeating: 1, count: 32))
        builtIn.short(Array("TEAM123456.com.example.app".utf8))
        builtIn.short([UInt8](repeating: 2, count: 32))
        builtIn.raw((try? object.encoded()) ?? [])
        return [Seed("built-in", builtIn.bytes)] + vectors(sources, "attestation").map { name, json in
            var frame = FuzzInput.Builder()
            frame.bigEndianUInt64(UInt64(max(0, vectorTime(json))))
            frame.short(vectorBase64(json, "key_id"))
            frame.short(Array((json["app_id"]?.stringValue ?? "").utf8))
            frame.short(vectorBase64(json, "client_data_hash_b64"))
            frame.raw(vectorBase64(json, "attestation_b64"))
            return Seed(name, frame.bytes)
        }
    }
) { bytes in
    var input = FuzzInput(bytes)
    let time = Int64(bitPattern: input.bigEndianUInt64())
    let keyID = input.short()
    let appID = String(decoding: input.short(), as: UTF8.self)
    let clientDataHash = input.short()
    let verdict = AttestationAppraiser(environment: .any).appraise(attestation: input.rest(), keyID: keyID, appID: appID,
                                                                   clientDataHash: clientDataHash, at: time)
    FuzzCheck.require(AttestReason.appraisalCodes.contains(verdict.reason), "attestation verdict \(verdict.reason) is not an appraisal code")
    FuzzCheck.require(verdict.isValid || !verdict.message.isEmpty, "a refused attestation has no message")
    _ = verdict.json.serialized()
    if verdict.isValid {
        guard let key = verdict.publicKey else { FuzzCheck.fail("a valid attestation has no public key") }
        FuzzCheck.require(AttestPublicKey.keyID(key) == keyID, "a valid attestation's key does not hash to the key id")
    }
}

/// `[previous counter: u32 BE][public key: 65-byte X9.62 point][app id: short][client data hash: short][assertion…]`
private let attestAssertion = Harness(
    "attest-assertion",
    "AssertionAppraiser.appraise on `[previous counter u32][P-256 point][app id][client data hash][assertion]`; every verdict has an appraisal code and serializes, a valid one has a counter above the previous one",
    seeds: { sources in
        let key = try? ECDSA.PrivateKey(rawRepresentation: [UInt8](repeating: 0, count: 31) + [5], curve: .p256)
        let authData = builtInAuthenticatorData(attested: false)
        let clientDataHash = [UInt8](repeating: 3, count: 32)
        // Built in: an assertion this key really signed (its RP id hash is not the app's, so it is refused there).
        let signature = (try? key?.signature(for: authData + clientDataHash)) ?? nil
        let assertion = CBOR.map([("signature", .bytes(signature ?? [])), ("authenticatorData", .bytes(authData))])
        var builtIn = FuzzInput.Builder()
        builtIn.raw([0, 0, 0, 0])
        builtIn.raw(key?.publicKey.uncompressedRepresentation ?? [])
        builtIn.short(Array("TEAM123456.com.example.app".utf8))
        builtIn.short(clientDataHash)
        builtIn.raw((try? assertion.encoded()) ?? [])
        return [Seed("built-in", builtIn.bytes)] + vectors(sources, "assertion").map { name, json in
            var frame = FuzzInput.Builder()
            frame.raw([0, 0, 0, UInt8(json["previous_counter"]?.stringValue.flatMap { UInt8($0) } ?? 0)])
            frame.raw(vectorBase64(json, "public_key_b64"))
            frame.short(Array((json["app_id"]?.stringValue ?? "").utf8))
            frame.short(vectorBase64(json, "assertion_client_data_hash_b64"))
            frame.raw(vectorBase64(json, "assertion_b64"))
            return Seed(name, frame.bytes)
        }
    }
) { bytes in
    var input = FuzzInput(bytes)
    let previous = input.take(4).reduce(UInt32(0)) { $0 << 8 | UInt32($1) }
    guard let key = try? ECDSA.PublicKey(pointRepresentation: input.take(65), curve: .p256) else { return }
    let appID = String(decoding: input.short(), as: UTF8.self)
    let clientDataHash = input.short()
    let verdict = AssertionAppraiser.appraise(assertion: input.rest(), clientDataHash: clientDataHash, appID: appID, publicKey: key,
                                              previousCounter: previous)
    FuzzCheck.require(AttestReason.appraisalCodes.contains(verdict.reason), "assertion verdict \(verdict.reason) is not an appraisal code")
    FuzzCheck.require(verdict.isValid || !verdict.message.isEmpty, "a refused assertion has no message")
    _ = verdict.json.serialized()
    if verdict.isValid { FuzzCheck.require((verdict.counter ?? 0) > previous, "a valid assertion does not advance the counter") }
}

/// `[time: u64 BE seconds][app id: short][expected key id: short][receipt…]`
private let attestReceipt = Harness(
    "attest-receipt",
    "ReceiptAppraiser.appraise (CMS SignedData, signer chain to Apple Root CA G3 with the pinned intermediate, payload fields) on `[time u64][app id][key id][receipt]`; a valid receipt has a verified signature and chain",
    seeds: { sources in
        // Built in: a ContentInfo that is not SignedData (OpenSSL reads it, the appraiser refuses it).
        let contentInfo = DERWriter.sequence([0x06, 0x09, 0x2a, 0x86, 0x48, 0x86, 0xf7, 0x0d, 0x01, 0x07, 0x01],
                                             DERWriter.element(tag: 0xa0, DERWriter.element(tag: 0x04, [1, 2, 3])))
        var builtIn = FuzzInput.Builder()
        builtIn.bigEndianUInt64(1_700_000_000)
        builtIn.short([])
        builtIn.short([])
        builtIn.raw(contentInfo)
        return [Seed("built-in", builtIn.bytes)] + vectors(sources, "receipt").map { name, json in
            var frame = FuzzInput.Builder()
            frame.bigEndianUInt64(UInt64(max(0, vectorTime(json, "received_at"))))
            frame.short(Array((json["app_id"]?.stringValue ?? "").utf8))
            frame.short(vectorBase64(json, "key_id"))
            frame.raw(vectorBase64(json, "receipt_b64"))
            return Seed(name, frame.bytes)
        }
    }
) { bytes in
    var input = FuzzInput(bytes)
    let time = Int64(bitPattern: input.bigEndianUInt64())
    let appID = input.short()
    let keyID = input.short()
    let appraisal = ReceiptAppraiser.appraise(input.rest(), trust: .apple, at: time, appID: appID.isEmpty ? nil : String(decoding: appID, as: UTF8.self),
                                              expectedKeyID: keyID.isEmpty ? nil : keyID)
    if appraisal.isValid {
        FuzzCheck.require(appraisal.signatureValid && appraisal.chainValid && appraisal.receipt != nil, "a valid receipt has an unverified signature or chain")
    }
    _ = appraisal.receipt?.fields.count
}
