import Foundation
import Testing
import OmniAttest
import OmniCodec
import OmniCrypto
import OmniTestSupport

/// The batch's chain cache (`CertificateChainCache`) never changes a verdict: each line appraised through one shared
/// cache, in batch order, gets exactly the reason and message it gets alone — good lines first filling the cache,
/// then expired, not-yet-valid, wrong-intermediate and re-signed lines hitting it.
@Suite(.serialized, .offPool) struct ChainCacheTests {
    static let now = "2026-06-01T12:00:00Z"

    static func mint(_ mode: String, count: Int, seed: UInt64) throws -> [JSONValue] {
        let result = try Subprocess.python("attest_peer.py", [mode, "--seed", String(seed), "--count", String(count),
                                                              "--now", now])
        #expect(result.status == 0, "attest_peer.py failed (seed \(seed)): \(result.stderrText)")
        return try result.stdoutText.split(separator: "\n").map { try JSONValue.parse(String($0)) }
    }

    struct Appraisal: Equatable, CustomStringConvertible {
        let reason: String
        let message: String
        var description: String { "\(reason): \(message)" }
    }

    static func appraise(_ line: JSONValue, attestation: [UInt8]? = nil, at time: Int64? = nil,
                         cache: CertificateChainCache?) throws -> Appraisal {
        let root = try Certificate(pemRepresentation: try line.string("root_pem"))
        let environment = EnvironmentPolicy(rawValue: try line.string("environment")) ?? .any
        let appraiser = AttestationAppraiser(roots: [root], environment: environment, chainCache: cache)
        let verdict = appraiser.appraise(attestation: try attestation ?? line.base64("attestation_b64"),
                                         keyID: try line.base64("key_id"), appID: try line.string("app_id"),
                                         clientDataHash: try line.base64("client_data_hash_b64"),
                                         at: try time ?? line.time("verify_at"))
        return Appraisal(reason: verdict.reason.rawValue, message: verdict.message)
    }

    /// The attestation object with its x5c replaced.
    static func withX5C(_ attestation: [UInt8], _ x5c: [[UInt8]]) throws -> [UInt8] {
        let object = try CBOR.decode(attestation)
        guard let pairs = object.map else { throw TestSupportError("attestation is not a map") }
        let rebuilt = pairs.map { pair -> CBOR.Pair in
            guard pair.key.text == "attStmt", let statement = pair.value.map else { return pair }
            return (pair.key, .map(statement.map { $0.key.text == "x5c" ? ($0.key, .array(x5c.map { .bytes($0) })) : $0 }))
        }
        return try CBOR.map(rebuilt).encoded()
    }

    static func x5c(_ attestation: [UInt8]) throws -> [[UInt8]] {
        try CBOR.decode(attestation)["attStmt"]?["x5c"]?.array?.compactMap(\.bytes) ?? []
    }

    @Test func mixedBatchGetsTheVerdictsOfSingleVerification() throws {
        let seed = SeededGenerator.freshSeed() % 1_000_000_007
        // Valid lines first, so that the cache is filled before the broken ones arrive.
        let lines = try Self.mint("valid", count: 4, seed: seed)
            + Self.mint("cases", count: 96, seed: seed).filter { try $0.string("kind") == "attestation" }
        let cache = CertificateChainCache()
        var reasons: Set<String> = []
        for line in lines {
            let alone = try Self.appraise(line, cache: nil)
            let batched = try Self.appraise(line, cache: cache)
            let name = try line.string("case")
            #expect(batched == alone, "seed \(seed), \(name)")
            reasons.insert(batched.reason)
        }
        #expect(cache.count >= 1, "seed \(seed): the valid lines filled the cache")
        #expect(reasons.isSuperset(of: ["ok", "cert_expired", "bad_chain"]), "seed \(seed): only \(reasons.sorted())")
    }

    @Test func everyValidityBoundaryGetsTheVerdictOfSingleVerification() throws {
        let seed = SeededGenerator.freshSeed() % 1_000_000_007
        let lines = try Self.mint("valid", count: 3, seed: seed)
        let first = try lines[0].base64("attestation_b64")
        let chain = try Self.x5c(first)
        let leaf = try Certificate(derRepresentation: chain[0]), intermediate = try Certificate(derRepresentation: chain[1])
        let root = try Certificate(pemRepresentation: try lines[0].string("root_pem"))
        let boundaries = [leaf, intermediate, root].flatMap { [$0.notBefore - 1, $0.notBefore, $0.notAfter - 1, $0.notAfter] }
        let cache = CertificateChainCache()
        _ = try Self.appraise(lines[0], cache: cache)
        #expect(cache.count == 1, "seed \(seed): a valid line fills the cache")
        var reasons: Set<String> = []
        for line in lines {
            for time in boundaries {
                let alone = try Self.appraise(line, at: time, cache: nil)
                let batched = try Self.appraise(line, at: time, cache: cache)
                #expect(batched == alone, "seed \(seed), at \(time)")
                reasons.insert(batched.reason)
            }
        }
        #expect(reasons.isSuperset(of: ["ok", "cert_expired", "cert_not_yet_valid"]), "seed \(seed): only \(reasons.sorted())")
    }

    @Test func aLeafNotSignedByTheCachedIntermediateIsRefusedAsWithoutTheCache() throws {
        let seed = SeededGenerator.freshSeed() % 1_000_000_007
        // From one run of the minter: one root certificate, one genuine intermediate.
        let cases = try Self.mint("cases", count: 200, seed: seed)
        guard let valid = try cases.first(where: { try $0.string("case") == "valid_prod" }),
              let badChain = try cases.first(where: { try $0.string("case") == "bad_chain" }) else {
            Issue.record("seed \(seed): no valid_prod or bad_chain case minted")
            return
        }
        let cache = CertificateChainCache()
        let first = try Self.appraise(valid, cache: cache)
        #expect(first.reason == "ok", "seed \(seed): \(first)")
        // The impostor's leaf presented with the genuine (cached) intermediate: same issuer name, other key.
        let genuine = try Self.x5c(try valid.base64("attestation_b64"))
        let forged = try Self.withX5C(try badChain.base64("attestation_b64"),
                                      [try Self.x5c(try badChain.base64("attestation_b64"))[0], genuine[1]])
        let alone = try Self.appraise(badChain, attestation: forged, cache: nil)
        let batched = try Self.appraise(badChain, attestation: forged, cache: cache)
        #expect(alone.reason == "bad_chain", "seed \(seed): \(alone)")
        #expect(batched == alone, "seed \(seed)")
        // The leaf alone, without any intermediate, is not helped by the cache either.
        let bare = try Self.withX5C(try valid.base64("attestation_b64"), [genuine[0]])
        let bareBatched = try Self.appraise(valid, attestation: bare, cache: cache)
        let bareAlone = try Self.appraise(valid, attestation: bare, cache: nil)
        #expect(bareBatched == bareAlone)
    }
}
