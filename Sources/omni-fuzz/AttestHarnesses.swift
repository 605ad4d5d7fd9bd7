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
        vectors(sources, "attestation").map { name, json in
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
        vectors(sources, "assertion").map { name, json in
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
        vectors(sources, "receipt").map { name, json in
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
