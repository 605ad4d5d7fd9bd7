import Dispatch

/// One in-process benchmark: `prepare` runs once untimed and returns the operation to time.
struct Benchmark {
    let name: String
    let defaultIterations: Int
    let prepare: () throws -> () -> Void

    /// Times `iterations` runs after a short warm-up and returns the JSON result line.
    func run(iterations: Int) -> String {
        let operation: () -> Void
        do { operation = try prepare() } catch {
            return "{\"name\":\"\(name)\",\"error\":\"\(error)\"}"
        }
        for _ in 0..<max(1, iterations / 10) { operation() }
        var samples: [Double] = []
        for _ in 0..<iterations {
            let start = DispatchTime.now().uptimeNanoseconds
            operation()
            samples.append(Double(DispatchTime.now().uptimeNanoseconds - start) / 1e9)
        }
        samples.sort()
        let median = samples[samples.count / 2]
        return "{\"name\":\"\(name)\",\"iterations\":\(iterations),\"seconds_per_op\":\(median)}"
    }
}

/// Every benchmark; each area adds its own in its own file as `extension Benchmark { static let … }`.
let allBenchmarks: [Benchmark] = [
    .jsonParse,
    .icCertificateVerify,
    .cborDecode, .cborEncode, .cborDecodeCertificate,
    .blsVerify, .blsVerifyDecodedKey, .blsHashToG1, .blsDecodePublicKey, .blsDecodeSignature, .blsVerifyBatch16,
    .attestVerifyAttestation, .attestVerifyAssertion,
    .candidDecode, .candidEncode,
    .candidDecodeBlob, .candidEncodeBlob, .candidDecodeNat32s, .candidEncodeNat32s, .candidDecodeRecords, .candidEncodeRecords,
    .sr25519KeypairFromMiniSecret, .sr25519Sign, .sr25519Verify, .sr25519DeriveHard, .sr25519DeriveSoft, .sr25519DeriveSoftPublic,
    .sr25519VRFSign, .sr25519VRFVerify,
    .schemaPatternCatastrophic, .schemaPatternBudget, .schemaValidationBudget,
]
