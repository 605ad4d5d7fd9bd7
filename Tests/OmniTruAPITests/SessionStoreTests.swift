import Foundation
import OmniCodec
import OmniCrypto
import OmniTestSupport
@testable import OmniTruAPI
import Testing

/// Sessions and their store: the secret's forms (entropy files, phrases), errors that never repeat a secret, the
/// store's files and modes, and sessions isolated from each other.
@Suite("TrUAPI sessions and the session store")
struct SessionStoreTests {
    @Test("entropy files: hex with or without 0x and a newline, or the raw bytes; other sizes refused without quoting the file")
    func entropyFiles() throws {
        var random = SeededGenerator()
        let entropy = random.bytes(32)
        let hex = Hex.encode(entropy)
        for text in [hex, "0x" + hex, hex.uppercased() + "\n", "  \(hex)\r\n"] {
            #expect(try TruAPISession.entropy(fromFile: Array(text.utf8)) == entropy, "seed \(random.seed)")
        }
        // Raw bytes that are not all hex digits.
        var raw = random.bytes(16)
        raw[0] = 0xff
        #expect(try TruAPISession.entropy(fromFile: raw) == raw)
        for bad in [Array(hex.prefix(30).utf8), Array((hex + "ab").utf8), [UInt8](repeating: 0xfe, count: 17), Array("not entropy at all, words".utf8)] {
            let error = caughtError { () throws(TruAPIError) in _ = try TruAPISession.entropy(fromFile: bad) }
            #expect(error?.kind == .configuration)
            #expect(error.map { !$0.message.contains(String(decoding: bad.prefix(8), as: UTF8.self)) } == true, "\(error?.message ?? "")")
        }
    }

    @Test("a phrase gives its BIP-39 entropy; a wrong word is named by its position, never by itself")
    func mnemonics() throws {
        var random = SeededGenerator()
        let seed = random.seed
        let entropy = random.bytes(16)
        let phrase = try BIP39.mnemonic(fromEntropy: entropy)
        #expect(try TruAPISession.entropy(fromMnemonic: "  " + phrase + "\n", source: "--mnemonic-env M") == entropy, "seed \(seed)")
        var words = phrase.split(separator: " ").map(String.init)
        words[3] = "notaword"
        let error = caughtError { () throws(TruAPIError) in _ = try TruAPISession.entropy(fromMnemonic: words.joined(separator: " "), source: "--mnemonic-env M") }
        let expected = "--mnemonic-env M: mnemonic word 4 of 12 is not in the BIP-39 English wordlist"
        #expect(error?.message == expected, "seed \(seed)")
        // Whole words, and not the message's own wording: "word" is a BIP-39 word (seed 274 drew it at position 10).
        func wordsOf(_ text: String) -> Set<String> { Set(text.lowercased().split { !$0.isLetter }.map(String.init)) }
        let said = wordsOf(error?.message ?? ""), template = wordsOf(expected)
        for word in words where word != "notaword" && !template.contains(word) {
            #expect(!said.contains(word), "seed \(seed): the error repeats '\(word)'")
        }
        #expect(caughtError { () throws(TruAPIError) in _ = try TruAPISession(entropy: [UInt8](repeating: 1, count: 15)) }?.kind == .configuration)
        #expect(!String(describing: try TruAPISession(entropy: entropy)).contains(Hex.encode(entropy)), "a session never prints its entropy")
    }

    @Test("the store: a 0600 secret in 0700 directories, listed and loaded; never replaced; exposed or edited files refused; removed")
    func store() throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let store = TruAPISessionStore(directory: directory.file("sessions"))
        var random = SeededGenerator()
        let entropy = random.bytes(24)
        let created = try store.create("alice", entropy: entropy, liteUsername: "alice")
        let attributes = try FileManager.default.attributesOfItem(atPath: store.secretPath("alice"))
        #expect(attributes[.posixPermissions] as? Int == 0o600)
        #expect(try FileManager.default.attributesOfItem(atPath: store.sessionDirectory("alice"))[.posixPermissions] as? Int == 0o700)
        #expect(try FileManager.default.attributesOfItem(atPath: store.directory)[.posixPermissions] as? Int == 0o700)
        let loaded = try store.load("alice")
        #expect(loaded.hasEntropy(entropy) && loaded.rootPublicKey == created.rootPublicKey && loaded.liteUsername == "alice")
        #expect(try store.list().map(\.name) == ["alice"])
        #expect(try store.summary("alice").identityPublicKey == created.identityPublicKey.rawRepresentation)
        #expect(caughtError { () throws(TruAPIError) in try store.create("alice", entropy: random.bytes(16)) }?.message.contains("exists already") == true)
        for name in ["", "Alice", "../x", ".hidden", String(repeating: "a", count: 65)] {
            #expect(TruAPISessionStore.problem(withName: name) != nil, "\(name)")
            #expect(caughtError { () throws(TruAPIError) in try store.create(name, entropy: entropy) } != nil)
        }

        try FileManager.default.setAttributes([.posixPermissions: 0o644], ofItemAtPath: store.secretPath("alice"))
        let exposed = caughtError { () throws(TruAPIError) in _ = try store.load("alice") }
        #expect(exposed?.message.contains("chmod 600") == true, "\(exposed?.message ?? "")")
        try FileManager.default.setAttributes([.posixPermissions: 0o600], ofItemAtPath: store.secretPath("alice"))
        var json = try JSONValue.parse(String(contentsOfFile: store.secretPath("alice"), encoding: .utf8)).objectValue!
        json["root_public_key"] = .string("0x" + String(repeating: "00", count: 32))
        try Data((JSONValue.object(json).serialized()).utf8).write(to: URL(fileURLWithPath: store.secretPath("alice")))
        let edited = caughtError { () throws(TruAPIError) in _ = try store.load("alice") }
        #expect(edited?.message.contains("$.root_public_key") == true)
        #expect(edited.map { !$0.message.contains(Hex.encode(entropy)) } == true)

        try store.remove("alice")
        #expect(!FileManager.default.fileExists(atPath: store.sessionDirectory("alice")))
        #expect(caughtError { () throws(TruAPIError) in _ = try store.load("alice") }?.message.contains("omni truapi session new alice") == true)
        #expect(try store.list().isEmpty)
    }

    @Test("sessions are isolated: each keeps its own product state, and their accounts differ")
    func isolation() throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let store = TruAPISessionStore(directory: directory.file("sessions"))
        var random = SeededGenerator()
        let product = try TruAPIProductID("myapp.dot")
        let one = try store.create("one", entropy: random.bytes(32))
        let two = try store.create("two", entropy: random.bytes(32))
        #expect(store.stateDirectory("one", product: product) != store.stateDirectory("two", product: product))
        #expect(one.productAccount(productID: "myapp.dot").publicKey != two.productAccount(productID: "myapp.dot").publicKey)
        let state = try TruAPIBridgeState.open(directory: store.stateDirectory("one", product: product))
        #expect(state.setDecision(true, for: .identityDisclosure) == .done)
        let other = try TruAPIBridgeState.open(directory: store.stateDirectory("two", product: product))
        #expect(other.decision(for: .identityDisclosure) == nil, "a decision under one session does not exist under another")
        #expect(try store.list().map(\.name) == ["one", "two"])
    }
}
