import Foundation
import OmniAttest
import OmniCodec
import OmniCrypto
import OmniTestSupport

/// Reads the App Attest vectors (../shared/vectors/attest) with OmniCodec's JSON model.
enum AttestVectors {
    static func json(_ path: String) throws -> JSONValue {
        try JSONValue.parse(Array(try Vectors.data("attest/" + path)))
    }

    /// Every vector listed in index.json of one kind, loaded.
    static func vectors(kind: String) throws -> [JSONValue] {
        let index = try json("index.json")
        let entries = index["vectors"]?.arrayValue ?? []
        return try entries.filter { $0["kind"]?.stringValue == kind }.map { entry in
            guard let file = entry["file"]?.stringValue else { throw TestSupportError("index entry without file") }
            return try json(file)
        }
    }

    static func syntheticLines() throws -> [JSONValue] {
        let text = try Vectors.text("attest/synthetic/attest_gen_seed1_2026-01-01.jsonl")
        return try text.split(separator: "\n").map { try JSONValue.parse(String($0)) }
    }

    static func pem(_ file: String) throws -> String { try Vectors.text("attest/" + file) }
}

extension JSONValue {
    func string(_ key: String) throws -> String {
        guard let value = self[key]?.stringValue else { throw TestSupportError("vector field \(key) missing") }
        return value
    }

    func base64(_ key: String) throws -> [UInt8] {
        guard let bytes = AttestBase64.decode(try string(key)) else { throw TestSupportError("vector field \(key) is not base64") }
        return bytes
    }

    func time(_ key: String) throws -> Int64 {
        guard let time = RFC3339.parse(try string(key))?.seconds else { throw TestSupportError("vector field \(key) is not a time") }
        return time
    }

    /// The vector with a case's `override` applied.
    func applying(_ override: JSONValue?) -> JSONValue {
        guard var object = objectValue, let changes = override?.objectValue else { return self }
        for (key, value) in changes { object[key] = value }
        return .object(object)
    }
}

/// One attestation vector (or case) appraised the way `omni attest verify-attestation` does.
func appraiseAttestationVector(_ vector: JSONValue, defaultRoot: Certificate) throws -> AttestationVerdict {
    let root = try vector["root_pem"]?.stringValue.map { try Certificate(pemRepresentation: $0) } ?? defaultRoot
    let environment = EnvironmentPolicy(rawValue: try vector.string("environment")) ?? .any
    let appraiser = AttestationAppraiser(roots: [root], environment: environment)
    return appraiser.appraise(attestation: try vector.base64("attestation_b64"), keyID: try vector.base64("key_id"),
                              appID: try vector.string("app_id"), clientDataHash: try vector.base64("client_data_hash_b64"),
                              at: try vector.time("verify_at"))
}

/// One assertion vector (or case) appraised against its public key and previous counter.
func appraiseAssertionVector(_ vector: JSONValue) throws -> AssertionVerdict {
    let key = try AttestPublicKey.parse(try vector.string("public_key_b64"))
    guard let previous = vector["previous_counter"]?.int64Value, let counter = UInt32(exactly: previous) else {
        throw TestSupportError("previous_counter missing")
    }
    return AssertionAppraiser.appraise(assertion: try vector.base64("assertion_b64"),
                                       clientDataHash: SHA256.hash(try vector.base64("client_data_b64")),
                                       appID: try vector.string("app_id"), publicKey: key, previousCounter: counter)
}
