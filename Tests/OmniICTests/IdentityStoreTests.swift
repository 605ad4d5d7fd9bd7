import Foundation
import OmniCandid
import OmniCodec
import OmniCrypto
import OmniSystem
import OmniTestSupport
import Testing
@testable import OmniIC

/// The identity store: layout, permissions, atomic saves, defaults, dfx import, secrets kept out of text.
@Suite struct IdentityStoreTests {
    /// A fresh directory under the system temporary directory, removed afterwards.
    static func withTemporaryDirectory(_ body: (String) throws -> Void) throws {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("omni-ic-\(UUID().uuidString)").path
        defer { try? FileManager.default.removeItem(atPath: directory) }
        try body(directory)
    }

    static func mode(_ path: String) throws -> Int {
        let attributes = try FileManager.default.attributesOfItem(atPath: path)
        return try #require(attributes[.posixPermissions] as? Int)
    }

    @Test func saveLoadListDefault() throws {
        try IdentityStoreTests.withTemporaryDirectory { base in
            let store = IdentityStore(directories: Directories(environment: ["XDG_CONFIG_HOME": base, "HOME": "/nonexistent"]))
            #expect(store.directory == base + "/omni/identities")
            #expect(try store.names().isEmpty && store.loadDefault() == nil)
            let alice = try ICIdentity.generate(.ed25519)
            let bob = try ICIdentity.generate(.secp256k1)
            let carol = try ICIdentity.generate(.p256)
            try store.save(alice, as: "alice")
            try store.save(bob, as: "bob")
            try store.save(carol, as: "carol")
            let session = ICIdentity(session: try DelegatedSession.create(root: alice, now: IngressExpiry.currentTime()))
            try store.save(session, as: "alice-session")
            #expect(try IdentityStoreTests.mode(store.directory) == 0o700)
            for name in ["alice", "bob", "carol"] { #expect(try IdentityStoreTests.mode(store.keyPath(name)) == 0o600) }
            #expect(try IdentityStoreTests.mode(store.sessionPath("alice-session")) == 0o600)
            #expect(try store.names() == ["alice", "alice-session", "bob", "carol"])
            #expect(try store.load("alice").principal == alice.principal)
            #expect(try store.load("bob").keyType == .secp256k1 && store.load("bob").principal == bob.principal)
            #expect(try store.load("carol").keyType == .p256 && store.load("carol").principal == carol.principal)
            let loadedSession = try store.load("alice-session")
            #expect(loadedSession.keyType == .delegated && loadedSession.principal == alice.principal)
            try store.setDefault("bob")
            #expect(try store.defaultName() == "bob" && store.loadDefault()?.principal == bob.principal)
            let entries = try store.list()
            #expect(entries.map(\.name) == ["alice", "alice-session", "bob", "carol"])
            #expect(entries.first { $0.isDefault }?.name == "bob")
            #expect(entries.first { $0.name == "alice-session" }?.expiration != nil)
            // Refusals: duplicate names, bad names, unknown names, the anonymous identity.
            expectICError(.configuration, "duplicate") { try store.save(alice, as: "bob") }
            for bad in ["", ".hidden", "-flag", "a/b", "ünï", String(repeating: "x", count: 65)] {
                expectICError(.invalidArgument, bad) { try store.save(alice, as: bad) }
            }
            expectICError(.configuration, "unknown") { _ = try store.load("dave") }
            expectICError(.configuration, "unknown default") { try store.setDefault("dave") }
            expectICError(.invalidArgument, "anonymous") { try store.save(.anonymous, as: "anon") }
            // Overwrite replaces, and a session can replace a key of the same name (the key file goes).
            try store.save(carol, as: "alice", overwrite: true)
            #expect(try store.load("alice").principal == carol.principal)
            try store.save(session, as: "alice", overwrite: true)
            #expect(try store.load("alice").keyType == .delegated && !FileManager.default.fileExists(atPath: store.keyPath("alice")))
            try store.remove("bob")
            #expect(try store.defaultName() == nil && !store.contains("bob"))
        }
    }

    @Test func aFailedSaveKeepsThePreviousFile() throws {
        try IdentityStoreTests.withTemporaryDirectory { directory in
            var store = IdentityStore(directory: directory)
            let first = try ICIdentity.generate()
            try store.save(first, as: "main")
            let before = try #require(FileManager.default.contents(atPath: store.keyPath("main")))
            // The writer fails, as on a full disk (AtomicFile's own tests cover what it leaves on disk).
            store.writeFile = { _, path throws(ICError) in throw ICError(.storage, "disk full", location: path) }
            expectICError(.storage, "write failure") { try store.save(try ICIdentity.generate(), as: "main", overwrite: true) }
            #expect(FileManager.default.contents(atPath: store.keyPath("main")) == before)
            #expect(try IdentityStore(directory: directory).load("main").principal == first.principal)
            // A session replacing a key: the key stays when the session cannot be written.
            let session = ICIdentity(session: try DelegatedSession.create(root: first, now: IngressExpiry.currentTime()))
            expectICError(.storage, "session write failure") { try store.save(session, as: "main", overwrite: true) }
            #expect(FileManager.default.contents(atPath: store.keyPath("main")) == before)
        }
    }

    @Test func looseDirectoryPermissionsAreTightened() throws {
        try IdentityStoreTests.withTemporaryDirectory { directory in
            try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true,
                                                    attributes: [.posixPermissions: 0o755])
            let store = IdentityStore(directory: directory)
            try store.save(try ICIdentity.generate(), as: "k")
            #expect(try IdentityStoreTests.mode(directory) == 0o700)
        }
    }

    @Test("keys.json PEMs in a dfx identity directory import as is; export gives dfx's format back", .vectors("ic"))
    func dfxImportAndExport() throws {
        let keys = try icVector("keys.json")
        let secp = try #require(keys["secp256k1_pem_to_der_public_key"])
        try IdentityStoreTests.withTemporaryDirectory { base in
            let dfx = IdentityStore.dfxIdentityDirectory(environment: ["HOME": base])
            #expect(dfx == base + "/.config/dfx/identity")
            #expect(IdentityStore.dfxIdentityDirectory(environment: ["DFX_CONFIG_ROOT": "/r", "HOME": base]) == "/r/.config/dfx/identity")
            // dfx's Ed25519 form: PKCS#8 v2 with the public key in an explicit [1] (what ring writes).
            let ed25519 = Ed25519.PrivateKey()
            let v2 = IdentityStoreTests.pkcs8Version2(ed25519)
            let identities: [(String, String, [UInt8])] = [
                ("default", "-----BEGIN PRIVATE KEY-----\n\(Base64.encode(v2))\n-----END PRIVATE KEY-----\n", ed25519.publicKey.derRepresentation),
                ("k1", try secp.string("pem_sec1"), try hex(try secp.string("der_public_key_hex"))),
            ]
            let store = IdentityStore(directory: base + "/omni/identities")
            for (name, pem, der) in identities {
                try FileManager.default.createDirectory(atPath: dfx + "/" + name, withIntermediateDirectories: true)
                try Data(pem.utf8).write(to: URL(fileURLWithPath: dfx + "/" + name + "/identity.pem"))
                let identity = try IdentityStore.loadDfxIdentity(directory: dfx + "/" + name)
                #expect(identity.publicKeyDER == der, "\(name)")
                try store.save(identity, as: "dfx-" + name)
                let exported = try store.exportPrivateKeyPEM("dfx-" + name)
                #expect(try ICIdentity(pem: exported).publicKeyDER == der)
                if identity.keyType == .secp256k1 { #expect(exported.hasPrefix("-----BEGIN EC PARAMETERS-----\nBgUrgQQACg==\n")) }
                // Nothing that prints the identity shows key material.
                for text in [String(describing: identity), String(reflecting: identity), "\(try store.list())"] {
                    #expect(!text.contains("PRIVATE") && !text.contains(String(exported.split(separator: "\n")[1].prefix(24))))
                }
            }
            let imported = try store.importDfxIdentity("k1", as: "work", environment: ["HOME": base])
            #expect(try store.load("work").principal == imported.principal && imported.keyType == .secp256k1)
            expectICError(.configuration, "import over an existing name") { try store.importDfxIdentity("k1", as: "work", environment: ["HOME": base]) }
            try FileManager.default.createDirectory(atPath: dfx + "/locked", withIntermediateDirectories: true)
            try Data("x".utf8).write(to: URL(fileURLWithPath: dfx + "/locked/identity.pem.encrypted"))
            expectICError(.unsupported, "encrypted") { _ = try IdentityStore.loadDfxIdentity(directory: dfx + "/locked") }
            try FileManager.default.createDirectory(atPath: dfx + "/keyring", withIntermediateDirectories: true)
            try Data("{}".utf8).write(to: URL(fileURLWithPath: dfx + "/keyring/identity.json"))
            expectICError(.unsupported, "keyring") { _ = try IdentityStore.loadDfxIdentity(directory: dfx + "/keyring") }
            expectICError(.configuration, "missing") { _ = try IdentityStore.loadDfxIdentity(directory: dfx + "/nobody") }
        }
    }

    @Test func pemVariants() throws {
        expectICError(.malformed, "no block") { _ = try ICIdentity(pem: "hello") }
        expectICError(.unsupported, "encrypted") { _ = try ICIdentity(pem: "-----BEGIN ENCRYPTED PRIVATE KEY-----\nAA==\n-----END ENCRYPTED PRIVATE KEY-----\n") }
        let p384 = try ECDSA.PrivateKey(curve: .p384)
        expectICError(.unsupported, "P-384") { _ = try ICIdentity(pem: p384.pemRepresentation) }
        // A PKCS#8 P-256 key (what `openssl genpkey` writes).
        let p256 = try ECDSA.PrivateKey(curve: .p256)
        #expect(try ICIdentity(pem: p256.pemRepresentation).keyType == .p256)
        expectICError(.malformed, "bad base64") { _ = try ICIdentity(pem: "-----BEGIN PRIVATE KEY-----\n!!!\n-----END PRIVATE KEY-----\n") }
        expectICError(.invalidArgument, "anonymous export") { _ = try ICIdentity.anonymous.exportPrivateKeyPEM() }
    }

    /// RFC 5958 OneAsymmetricKey version 1 (v2) with the public key wrapped in an explicit [1], as ring writes it.
    static func pkcs8Version2(_ key: Ed25519.PrivateKey) -> [UInt8] {
        let algorithm: [UInt8] = [0x30, 0x05, 0x06, 0x03, 0x2b, 0x65, 0x70]
        let privateKey = DERWriter.element(tag: 0x04, DERWriter.element(tag: 0x04, key.seed))
        let publicKey = DERWriter.element(tag: 0xa1, DERWriter.element(tag: 0x03, [0x00] + key.publicKey.rawRepresentation))
        return DERWriter.element(tag: 0x30, [0x02, 0x01, 0x01] + algorithm + privateKey + publicKey)
    }
}
