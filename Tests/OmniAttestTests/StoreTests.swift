import Foundation
import Testing
import OmniAttest
import OmniCodec
import OmniCrypto
import OmniTestSupport

/// A fresh directory per test, removed afterwards.
final class TemporaryDirectory {
    let url: URL
    init() throws {
        url = FileManager.default.temporaryDirectory.appendingPathComponent("omni-attest-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: url, withIntermediateDirectories: true)
    }
    func path(_ name: String) -> String { url.appendingPathComponent(name).path }
    deinit { try? FileManager.default.removeItem(at: url) }
}

func sampleKey(_ seed: UInt8, counter: UInt32 = 0, at time: Int64 = 1_700_000_000) throws -> EnrolledKey {
    let key = try ECDSA.PrivateKey(rawRepresentation: [UInt8](repeating: seed, count: 32), curve: .p256).publicKey
    return EnrolledKey(keyID: AttestPublicKey.keyID(key), publicKey: key.uncompressedRepresentation, appID: "ABCDE12345.com.example.store",
                       environment: .production, counter: counter, enrolledAt: time, receipt: [1, 2, 3])
}

/// The store's promises, in process: single-use challenges, expiry, forward-only counters, duplicate enrollment,
/// revocation, durability across reopening, refusal of files that are not stores.
@Suite(.serialized, .offPool) struct StoreTests {
    @Test func aChallengeIsConsumedOnceAndExpires() throws {
        let directory = try TemporaryDirectory()
        let store = try SQLiteAttestStore(path: directory.path("store.db"))
        let service = AttestService(store: store)
        let challenge = try service.issueChallenge(lifetime: 60, at: 1000)
        #expect(challenge.value.count == 32 && challenge.expiresAt == 1060)
        #expect(try store.consumeChallenge(challenge.value, at: 1010) == .valid(challenge))
        #expect(try store.consumeChallenge(challenge.value, at: 1010) == .unknown)
        let late = try service.issueChallenge(lifetime: 60, at: 2000)
        #expect(try store.consumeChallenge(late.value, at: 2060) == .expired(late))
        #expect(try store.consumeChallenge(late.value, at: 2000) == .unknown)
        #expect(try store.consumeChallenge([1, 2, 3], at: 0) == .unknown)
        // Two random challenges differ; an expired one is purged when the next is minted.
        let first = try service.issueChallenge(lifetime: 1, at: 3000)
        let second = try service.issueChallenge(lifetime: 60, at: 3005)
        #expect(first.value != second.value)
        #expect(try store.consumeChallenge(first.value, at: 3000) == .unknown)
        #expect(throws: AttestError.self) { try service.issueChallenge(lifetime: 60, at: 0, byteCount: 8) }
    }

    @Test func countersOnlyMoveForward() throws {
        let directory = try TemporaryDirectory()
        let store = try SQLiteAttestStore(path: directory.path("store.db"))
        let key = try sampleKey(7)
        #expect(try store.enroll(key))
        #expect(try store.enroll(key) == false)
        #expect(try store.advanceCounter(keyID: key.keyID, to: 5, at: 10))
        #expect(try store.advanceCounter(keyID: key.keyID, to: 5, at: 11) == false)
        #expect(try store.advanceCounter(keyID: key.keyID, to: 4, at: 12) == false)
        #expect(try store.advanceCounter(keyID: key.keyID, to: UInt32.max, at: 13))
        #expect(try store.key(id: key.keyID)?.counter == UInt32.max)
        #expect(try store.key(id: key.keyID)?.lastUsedAt == 13)
        #expect(try store.advanceCounter(keyID: [0], to: 9, at: 14) == false)
        #expect(try store.revoke(keyID: key.keyID, at: 20))
        #expect(try store.revoke(keyID: key.keyID, at: 21) == false)
        #expect(try store.key(id: key.keyID)?.revokedAt == 20)
        let other = try sampleKey(8)
        #expect(try store.enroll(other))
        #expect(try store.advanceCounter(keyID: key.keyID, to: 1, at: 22) == false)  // revoked keys never advance
        #expect(try store.keys().map(\.keyID).count == 2)
    }

    @Test func committedDataSurvivesReopening() throws {
        let directory = try TemporaryDirectory()
        let path = directory.path("store.db")
        let key = try sampleKey(9)
        var challenge: StoredChallenge?
        do {
            let store = try SQLiteAttestStore(path: path)
            #expect(try store.enroll(key))
            #expect(try store.advanceCounter(keyID: key.keyID, to: 3, at: 5))
            challenge = try AttestService(store: store).issueChallenge(lifetime: 100, at: 0)
        }
        let reopened = try SQLiteAttestStore(path: path)
        var expected = key
        expected.counter = 3
        expected.lastUsedAt = 5
        #expect(try reopened.key(id: key.keyID) == expected)
        let stored = try #require(challenge)
        #expect(try reopened.consumeChallenge(stored.value, at: 1) == .valid(stored))
    }

    /// A row that no longer reads back as a key is a store error, not an unknown key (which would read as a refusal).
    @Test func aDamagedKeyRowIsAStoreError() throws {
        let directory = try TemporaryDirectory()
        let path = directory.path("store.db")
        let key = try sampleKey(5)
        #expect(try SQLiteAttestStore(path: path).enroll(key))
        let damage = try Subprocess.run("/usr/bin/env", ["python3", "-c", """
            import sqlite3, sys
            db = sqlite3.connect(sys.argv[1]); db.execute("UPDATE keys SET environment = 'moon'"); db.commit()
            """, path])
        #expect(damage.status == 0, "\(damage.stderrText)")
        let store = try SQLiteAttestStore(path: path)
        let error = try #require(throws: AttestError.self) { try store.key(id: key.keyID) }
        #expect(error.kind == .store && error.message.contains("damaged"))
        #expect(throws: AttestError.self) { try store.keys() }
    }

    /// The store holds enrolled keys and live challenges: the database and its -wal and -shm files are the owner's
    /// alone (SQLite by itself creates them 0644).
    @Test func storeFilesAreCreatedOwnerOnly() throws {
        let directory = try TemporaryDirectory()
        let path = directory.path("private.db")
        let store = try SQLiteAttestStore(path: path)
        #expect(try store.enroll(try sampleKey(3)))
        _ = try AttestService(store: store).issueChallenge(lifetime: 60, at: 0)
        for file in [path, path + "-wal", path + "-shm"] {
            let attributes = try FileManager.default.attributesOfItem(atPath: file)
            let mode = (attributes[.posixPermissions] as? NSNumber)?.intValue ?? -1
            #expect(mode == 0o600, "\(file) has mode \(String(mode, radix: 8))")
        }
        // A path in a directory that does not exist is a store error naming it, not a crash.
        let error = try #require(throws: AttestError.self) { try SQLiteAttestStore(path: directory.path("nowhere/store.db")) }
        #expect(error.kind == .store && error.message.contains("nowhere/store.db"))
    }

    @Test func filesThatAreNotStoresAreRefused() throws {
        let directory = try TemporaryDirectory()
        let path = directory.path("not-a-store")
        try Data("this is not a database, just text that is long enough to look like one".utf8).write(to: URL(fileURLWithPath: path))
        #expect(throws: AttestError.self) { try SQLiteAttestStore(path: path) }
        #expect(throws: AttestError.self) { try SQLiteAttestStore(path: directory.path("missing-dir/store.db")) }
    }
}
