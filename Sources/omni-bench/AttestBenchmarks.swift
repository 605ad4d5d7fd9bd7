import FoundationEssentials
import OmniAttest
import OmniCodec
import OmniCrypto

extension Benchmark {
    /// One full attestation appraisal (CBOR, authData, chain to the root, nonce, key id, rpId, counter, aaguid,
    /// credential id, receipt). Input: the first line of $OMNI_ATTEST_BENCH_INPUT (vector schema, as bench_attest.py
    /// writes it), else Apple's iOS 27 sample from the shared vectors ($OMNI_VECTORS or ../shared/vectors).
    static let attestVerifyAttestation = Benchmark(name: "attest-verify-attestation", defaultIterations: 500) {
        let line = try benchAttestationInput()
        func field(_ key: String) throws -> String {
            guard let value = line[key]?.stringValue else { throw AttestError.invalidArgument("bench input has no \(key)") }
            return value
        }
        let roots = try line["root_pem"]?.stringValue.map { try Certificate.certificates(fromPEM: $0) } ?? [AppleRoots.appAttestationRoot]
        let object = try AttestBase64.argument(try field("attestation_b64"), "attestation_b64")
        let keyID = try AttestBase64.argument(try field("key_id"), "key_id")
        let appID = try field("app_id")
        let hash = try line["client_data_hash_b64"]?.stringValue.map { try AttestBase64.argument($0, "client_data_hash_b64") }
            ?? SHA256.hash(try AttestBase64.argument(try field("challenge_b64"), "challenge_b64"))
        guard let time = RFC3339.parse(try field("verify_at"))?.seconds else { throw AttestError.invalidArgument("bad verify_at") }
        let appraiser = AttestationAppraiser(roots: roots, environment: .any)
        guard appraiser.appraise(attestation: object, keyID: keyID, appID: appID, clientDataHash: hash, at: time).isValid else {
            throw AttestError.invalidArgument("bench input does not verify")
        }
        return { _ = appraiser.appraise(attestation: object, keyID: keyID, appID: appID, clientDataHash: hash, at: time) }
    }

    /// One assertion appraisal (CBOR, authData, ES256 over SHA256(nonce), rpId, counter) with a fresh key.
    static let attestVerifyAssertion = Benchmark(name: "attest-verify-assertion", defaultIterations: 5000) {
        let key = try ECDSA.PrivateKey(curve: .p256)
        let appID = "ABCDE12345.com.example.bench"
        let authData = SHA256.hash(Array(appID.utf8)) + [0x40, 0, 0, 0, 1]
        let clientDataHash = SHA256.hash(Array("{\"challenge\":\"bench\"}".utf8))
        let signature = try key.signature(for: SHA256.hash(authData + clientDataHash))
        let assertion = try CBOR.map([("signature", .bytes(signature)), ("authenticatorData", .bytes(authData))]).encoded()
        let publicKey = key.publicKey
        guard AssertionAppraiser.appraise(assertion: assertion, clientDataHash: clientDataHash, appID: appID,
                                          publicKey: publicKey, previousCounter: 0).isValid else {
            throw AttestError.invalidArgument("bench assertion does not verify")
        }
        return { _ = AssertionAppraiser.appraise(assertion: assertion, clientDataHash: clientDataHash, appID: appID,
                                                 publicKey: publicKey, previousCounter: 0) }
    }

    private static func benchAttestationInput() throws -> JSONValue {
        let environment = ProcessInfo.processInfo.environment
        if let path = environment["OMNI_ATTEST_BENCH_INPUT"], let data = FileManager.default.contents(atPath: path) {
            let first = data.split(separator: 0x0A).first.map(Array.init) ?? []
            return try JSONValue.parse(first)
        }
        let vectors = environment["OMNI_VECTORS"].map { $0 + "/attest" } ?? "../shared/vectors/attest"
        let path = vectors + "/real/attestation/apple-doc-2026-ios27-prod.json"
        guard let data = FileManager.default.contents(atPath: path) else {
            throw AttestError.invalidArgument("no bench input: set OMNI_ATTEST_BENCH_INPUT or run where \(path) exists")
        }
        return try JSONValue.parse(Array(data))
    }
}
