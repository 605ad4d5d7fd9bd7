import Foundation
import OmniCodec
import Testing
import OmniTestSupport
@testable import OmniBLS

/// Our verdict against blst's (through pyblst, Tests/Peers/bls_peer.py) on fresh random cases every run.
@Suite(.serialized, .offPool) struct DifferentialTests {
    static let casesPerKind = 10

    @Test("Verdicts equal blst's on fresh random valid and malformed cases (seed printed on failure)")
    func againstBlst() throws {
        let seed = UInt32.random(in: 1...UInt32.max)
        let result = try Subprocess.python("bls_peer.py", ["cases", "--seed", String(seed), "--per-kind", String(Self.casesPerKind)])
        try #require(result.status == 0, "bls_peer.py failed (seed \(seed)): \(result.stderrText)")
        var checked = 0, validCount = 0
        var kinds = Set<String>()
        var batch: [BLSBatchItem] = []
        for line in result.stdoutText.split(separator: "\n") {
            let object = try #require(try JSONSerialization.jsonObject(with: Data(line.utf8)) as? JSONObject)
            let kind = try string(object, "kind")
            let sig = bytes(hex: try string(object, "sig")), pk = bytes(hex: try string(object, "pk"))
            let msg = bytes(hex: try string(object, "msg"))
            let blst = try #require(object["valid"] as? Bool)
            let ours = VerifyTests.outcome(sig: sig, pk: pk, msg: msg)
            #expect(VerifyTests.isValid(ours) == blst, "seed \(seed), \(kind): blst \(blst), omni \(ours); sig \(Hex.encode(sig)) pk \(Hex.encode(pk)) msg \(Hex.encode(msg))")
            let viaKey = VerifyTests.outcomeWithDecodedKey(sig: sig, pk: pk, msg: msg)
            #expect(VerifyTests.isValid(viaKey) == blst, "seed \(seed), \(kind) through BLSPublicKey: \(viaKey)")
            if let key = try? BLSPublicKey(compressed: pk) { batch.append(BLSBatchItem(signature: sig, publicKey: key, message: msg)) }
            checked += 1
            validCount += blst ? 1 : 0
            kinds.insert(kind)
        }
        // Batch verification of every case whose key decodes must give the same verdicts.
        let batchVerdicts = BLS.verifyBatch(batch).map { (try? $0.get()) == .valid }
        let singleVerdicts = batch.map { (try? BLS.verify(signature: $0.signature, publicKey: $0.publicKey, message: $0.message)) == .valid }
        #expect(batchVerdicts == singleVerdicts, "seed \(seed): batch and single verdicts differ")
        let validOnly = batch.enumerated().filter { singleVerdicts[$0.offset] }.map(\.element)
        let validVerdicts = BLS.verifyBatch(validOnly)
        #expect(!validOnly.isEmpty && validVerdicts.count == validOnly.count, "seed \(seed)")
        #expect(validVerdicts.filter { (try? $0.get()) == .valid }.count == validOnly.count, "seed \(seed)")
        #expect(kinds.count == 26 && checked == 26 * Self.casesPerKind, "seed \(seed)")
        #expect(validCount >= 2 * Self.casesPerKind, "seed \(seed): too few valid cases")
        print("OmniBLSTests: differential vs blst, seed \(seed): \(checked) cases (\(validCount) valid, \(kinds.count) kinds), batch of \(batch.count)")
    }
}
