import FoundationEssentials
import OmniCandid
import OmniCodec
import OmniIC

extension Benchmark {
    /// What `omni ic certificate verify` does for one certificate, in-process: decode the mainnet root key, decode
    /// the certificate, verify the delegation (BLS under the root key), the certificate (BLS under the subnet key),
    /// the canister range (sharded layout) and `/time` (against the certificate's own time). The certificate is
    /// agent-rs's `ivg37_time` (a delegated mainnet v3 read_state), read from the shared vectors
    /// (`$OMNI_VECTORS/ic/certificates.json`), never copied into the repository.
    static let icCertificateVerify = Benchmark(name: "ic-certificate-verify", defaultIterations: 100) {
        let (bytes, canister, time) = try ICBenchmarkVectors.certificate(id: "agent-rs/ivg37_time")
        let verifyOnce = { () throws -> VerifiedCertificate in
            try ICCertificate(decoding: bytes).verify(scope: .canister(canister), rootKey: try ICRootKey(der: ICRootKey.mainnetDER),
                                                      freshness: .at(time))
        }
        _ = try verifyOnce()
        return { _ = try? verifyOnce() }
    }
}

enum ICBenchmarkVectors {
    struct Missing: Error, CustomStringConvertible {
        let description: String
    }

    /// `$OMNI_VECTORS`, else `../shared/vectors` beside the repository that holds this binary (the first parent
    /// directory with a Package.swift).
    static var directory: String {
        if let custom = ProcessInfo.processInfo.environment["OMNI_VECTORS"], !custom.isEmpty { return custom }
        var folder = URL(fileURLWithPath: CommandLine.arguments[0]).resolvingSymlinksInPath().deletingLastPathComponent()
        while folder.path != "/" && !FileManager.default.fileExists(atPath: folder.appendingPathComponent("Package.swift").path) {
            folder = folder.deletingLastPathComponent()
        }
        return folder.deletingLastPathComponent().appendingPathComponent("shared/vectors").path
    }

    /// A certificate's bytes, its effective canister id and its certified time.
    static func certificate(id: String) throws -> ([UInt8], Principal, UInt64) {
        let path = directory + "/ic/certificates.json"
        guard let data = FileManager.default.contents(atPath: path) else { throw Missing(description: "missing vector file \(path)") }
        let json = try JSONValue.parse([UInt8](data))
        guard let entry = json["certificates"]?.arrayValue?.first(where: { $0["id"]?.stringValue == id }),
              let hex = entry["certificate_cbor_hex"]?.stringValue, let canister = entry["effective_canister_id"]?.stringValue,
              let time = entry["derived"]?["time_ns"]?.numberText.flatMap({ UInt64($0) })
        else { throw Missing(description: "no certificate \(id) in \(path)") }
        return (try Hex.decode(hex), try Principal(icText: canister), time)
    }
}
