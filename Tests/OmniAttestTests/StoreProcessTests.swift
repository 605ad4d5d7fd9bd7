import Foundation
import Testing
import OmniAttest
import OmniCodec
import OmniCrypto
import OmniTestSupport

/// The built omni binary (next to this test bundle after `swift build --build-tests`).
enum OmniExecutable {
    static let path: String = {
        let bundleDirectory = URL(fileURLWithPath: CommandLine.arguments[0]).deletingLastPathComponent()
        let candidates = [bundleDirectory.appendingPathComponent("omni").path,
                          Repository.root.appendingPathComponent(".build/debug/omni").path]
        return candidates.first { FileManager.default.isExecutableFile(atPath: $0) } ?? candidates[1]
    }()

    static let environment = ["PATH": "/usr/bin:/bin", "HOME": FileManager.default.temporaryDirectory.path, "LANG": "C.UTF-8"]
}

/// The store's promises across processes: one assertion raced from 8 omni processes passes exactly once, and an
/// omni process killed (SIGKILL) in the middle of writing loses nothing it had committed.
@Suite struct StoreProcessTests {
    @Test(.vectors("attest")) func theSameAssertionRacedFromEightProcessesPassesOnce() throws {
        let vector = try AttestVectors.json("real/assertion/bas-d-2021-dev-assertion.json")
        let directory = try TemporaryDirectory()
        let path = directory.path("race.db")
        let key = try AttestPublicKey.parse(try vector.string("public_key_b64"))
        do {
            let store = try SQLiteAttestStore(path: path)
            #expect(try store.enroll(EnrolledKey(keyID: AttestPublicKey.keyID(key), publicKey: key.uncompressedRepresentation,
                                                 appID: try vector.string("app_id"), environment: .development, counter: 0,
                                                 enrolledAt: 0)))
        }
        let arguments = ["attest", "verify-assertion", "--store", path, "--key-id", try vector.string("key_id"),
                         "--assertion", try vector.string("assertion_b64"),
                         "--client-data-hash", try vector.string("assertion_client_data_hash_b64"), "--output", "jsonl"]
        let processes = (0..<8).map { _ -> (Process, Pipe) in
            let process = Process()
            process.executableURL = URL(fileURLWithPath: OmniExecutable.path)
            process.arguments = arguments
            process.environment = OmniExecutable.environment
            let pipe = Pipe()
            process.standardOutput = pipe
            process.standardError = FileHandle.nullDevice
            return (process, pipe)
        }
        // Start all eight before waiting for any.
        for (process, _) in processes { try process.run() }
        var reasons: [String] = []
        var statuses: [Int32] = []
        for (process, pipe) in processes {
            let output = pipe.fileHandleForReading.readDataToEndOfFile()
            process.waitUntilExit()
            statuses.append(process.terminationStatus)
            reasons.append((try? JSONValue.parse(Array(output)))?["reason"]?.stringValue ?? "unparseable: \(String(decoding: output, as: UTF8.self))")
        }
        #expect(statuses.filter { $0 == 0 }.count == 1, "statuses \(statuses), reasons \(reasons)")
        #expect(statuses.filter { $0 == 1 }.count == 7, "statuses \(statuses)")
        #expect(reasons.filter { $0 == "ok" }.count == 1, "\(reasons)")
        #expect(reasons.filter { $0 == "counter_not_increasing" }.count == 7, "\(reasons)")
        #expect(try SQLiteAttestStore(path: path).key(id: AttestPublicKey.keyID(key))?.counter == 3)
    }

    @Test func aProcessKilledMidWriteLosesNothingCommitted() throws {
        let directory = try TemporaryDirectory()
        let path = directory.path("kill.db")
        let key = try sampleKey(42, counter: 17)
        do {
            #expect(try SQLiteAttestStore(path: path).enroll(key))
        }
        // Each challenge is committed before its line is printed; kill the writer while it is still minting.
        let process = Process()
        process.executableURL = URL(fileURLWithPath: OmniExecutable.path)
        process.arguments = ["attest", "challenge", "--store", path, "--count", "1000000", "--ttl", "1h", "--output", "jsonl"]
        process.environment = OmniExecutable.environment
        let pipe = Pipe()
        process.standardOutput = pipe
        process.standardError = FileHandle.nullDevice
        try process.run()
        var buffer: [UInt8] = []
        let handle = pipe.fileHandleForReading
        while buffer.filter({ $0 == 0x0A }).count < 150 {
            let chunk = handle.availableData
            if chunk.isEmpty { break }
            buffer += chunk
        }
        kill(process.processIdentifier, SIGKILL)
        process.waitUntilExit()
        buffer += handle.readDataToEndOfFile()
        #expect(process.terminationReason == .uncaughtSignal, "omni finished before it was killed")
        let printed = buffer.split(separator: 0x0A).compactMap { line -> [UInt8]? in
            guard let json = try? JSONValue.parse(Array(line)), let text = json["challenge"]?.stringValue else { return nil }
            return AttestBase64.decode(text)
        }
        #expect(printed.count >= 150)

        // The store opens; every challenge omni printed is there exactly once; the key written before is intact.
        let store = try SQLiteAttestStore(path: path)
        for value in printed {
            guard case .valid = try store.consumeChallenge(value, at: AttestTime.now()) else {
                Issue.record("challenge \(AttestBase64.encode(value)) was printed but is not in the store")
                continue
            }
        }
        #expect(try store.key(id: key.keyID) == key)
        #expect(try store.advanceCounter(keyID: key.keyID, to: 18, at: 1))
        let service = AttestService(store: store)
        let fresh = try service.issueChallenge(lifetime: 60, at: AttestTime.now())
        #expect(try store.consumeChallenge(fresh.value, at: AttestTime.now()) == .valid(fresh))
    }
}
