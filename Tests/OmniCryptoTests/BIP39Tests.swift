import Foundation
import OmniTestSupport
import Testing
import OmniCodec
@testable import OmniCrypto

/// BIP-39 English mnemonics and substrate-bip39 mini secret keys: the vendored wordlist's integrity, the BIP-39
/// reference vectors, and random phrases, entropies and passphrases against tiny-bip39 and substrate-bip39
/// (py-bip39-bindings), whose `bip39_to_mini_secret` is what Substrate wallets run.
@Suite("BIP-39 and substrate-bip39", .serialized, .offPool)
struct BIP39Tests {
    static let wordlistSHA256 = "2f5eed53a4727b4bf8880d8f3f199efc90e58503646d9ff8eff3a2ed3b24dbda"

    @Test func vendoredWordlistIsIntactAndEmbeddedExactly() throws {
        let file = try Data(contentsOf: Repository.root.appendingPathComponent("Vendor/bip39/english.txt"))
        #expect(SHA256.hash(Array(file)).hexString == Self.wordlistSHA256, "Vendor/bip39/english.txt changed")
        let sources = try String(contentsOf: Repository.root.appendingPathComponent("Vendor/SOURCES.md"), encoding: .utf8)
        #expect(sources.contains(Self.wordlistSHA256), "Vendor/SOURCES.md does not list the wordlist's SHA-256")
        #expect(Array(BIP39.englishWordlistText.utf8) == Array(file),
                "embedded wordlist differs from Vendor/bip39/english.txt; run python3 Tools/embed_bip39_wordlist.py")
        #expect(BIP39.englishWordlist.count == 2048)
        #expect(Set(BIP39.englishWordlist).count == 2048)
        #expect(BIP39.englishWordlist == BIP39.englishWordlist.sorted())
        #expect(BIP39.englishWordlist.first == "abandon" && BIP39.englishWordlist.last == "zoo")
    }

    /// The BIP-39 reference vectors (trezor/python-mnemonic `vectors.json`, the list BIP-39 links to).
    @Test(arguments: [
        ("00000000000000000000000000000000", "abandon abandon abandon abandon abandon abandon abandon abandon abandon abandon abandon about"),
        ("7f7f7f7f7f7f7f7f7f7f7f7f7f7f7f7f", "legal winner thank year wave sausage worth useful legal winner thank yellow"),
        ("80808080808080808080808080808080", "letter advice cage absurd amount doctor acoustic avoid letter advice cage above"),
        ("ffffffffffffffffffffffffffffffff", "zoo zoo zoo zoo zoo zoo zoo zoo zoo zoo zoo wrong"),
        ("9e885d952ad362caeb4efe34a8e91bd2", "ozone drill grab fiber curtain grace pudding thank cruise elder eight picnic"),
        ("0000000000000000000000000000000000000000000000000000000000000000",
         "abandon abandon abandon abandon abandon abandon abandon abandon abandon abandon abandon abandon abandon abandon abandon abandon abandon abandon abandon abandon abandon abandon abandon art"),
    ])
    func referenceVectors(_ entropy: String, _ phrase: String) throws {
        #expect(try BIP39.mnemonic(fromEntropy: hex(entropy)) == phrase)
        #expect(try BIP39.entropy(fromMnemonic: phrase) == hex(entropy))
        // Any whitespace separates words.
        #expect(try BIP39.entropy(fromMnemonic: "  " + phrase.replacingOccurrences(of: " ", with: " \n\t") + "\n") == hex(entropy))
    }

    /// Phrases the peer generates (every length), read by omni back to the same phrase, with the same mini secret
    /// key for random passphrases (empty, ASCII, non-ASCII); phrases omni writes from random entropy, validated by
    /// the peer with the same mini secret key.
    @Test func matchesPyBIP39OnRandomPhrasesAndPassphrases() throws {
        var random = SeededGenerator()
        let context: Comment = "seed \(random.seed)"
        let passphrases = ["", "Substrate", "pässwörd 🔐", String(random.bytes(12).hexString)]
        var generateRequests: [JSONValue] = []
        for count in BIP39.wordCounts { for _ in 0..<2 { generateRequests.append(["op": "bip39_generate", "words": .number(String(count))]) } }
        let phrases = try Sr25519Peer.run(generateRequests).map { try $0.string("phrase") }

        var ownEntropies: [[UInt8]] = []
        for count in BIP39.entropyByteCounts { for _ in 0..<2 { ownEntropies.append(random.bytes(count)) } }
        let ownPhrases = try ownEntropies.map { try BIP39.mnemonic(fromEntropy: $0) }

        var requests: [JSONValue] = []
        var expected: [[UInt8]] = []
        for phrase in phrases + ownPhrases {
            requests.append(["op": "bip39_validate", "phrase": .string(phrase)])
            expected.append([])
            for passphrase in passphrases {
                requests.append(["op": "bip39_mini_secret", "phrase": .string(phrase), "password": .string(passphrase)])
                expected.append(try BIP39.miniSecretKey(fromMnemonic: phrase, passphrase: passphrase))
            }
        }
        let responses = try Sr25519Peer.run(requests)
        for (index, response) in responses.enumerated() {
            if expected[index].isEmpty {
                #expect(try response.bool("valid"), "\(context): \(requests[index].serialized())")
            } else {
                #expect(try response.bytes("mini_secret") == expected[index], "\(context): \(requests[index].serialized())")
            }
        }
        for phrase in phrases {
            #expect(try BIP39.mnemonic(fromEntropy: BIP39.entropy(fromMnemonic: phrase)) == phrase, context)
        }
        for (entropy, phrase) in zip(ownEntropies, ownPhrases) {
            #expect(try BIP39.entropy(fromMnemonic: phrase) == entropy, context)
            // The mini secret key is a function of the entropy, not of the phrase's spelling.
            #expect(try BIP39.miniSecretKey(fromEntropy: entropy) == BIP39.miniSecretKey(fromMnemonic: phrase), context)
        }
    }

    /// The lower-case words of a message (letters only), to tell an echoed phrase word from a longer one.
    static func words(of text: String) -> [String] {
        text.lowercased().split { !$0.isLetter }.map(String.init)
    }

    /// A mistyped word, a swapped pair and a wrong word count are refused by both sides; omni's error says which
    /// word or that the checksum fails, and repeats no word of the phrase.
    @Test func invalidPhrasesAreRefusedWithoutEchoingThem() throws {
        var random = SeededGenerator()
        let context: Comment = "seed \(random.seed)"
        let entropy = random.bytes(16)
        let words = try BIP39.mnemonic(fromEntropy: entropy).split(separator: " ").map(String.init)
        var misspelt = words
        misspelt[4] = String(misspelt[4].dropLast()) + "q"
        let misspeltIsWord = BIP39.englishWordlist.contains(misspelt[4])
        var uppercase = words
        uppercase[0] = uppercase[0].uppercased()
        // Replacing the last word by its neighbour keeps every word valid but (almost always) breaks the checksum.
        var badChecksum = words
        let lastIndex = BIP39.englishWordlist.firstIndex(of: words[11])!
        badChecksum[11] = BIP39.englishWordlist[(lastIndex + 1) % 2048]
        let cases: [([String], String)] = [
            (misspelt, misspeltIsWord ? "checksum" : "mnemonic word 5 of 12 is not in the BIP-39 English wordlist"),
            (uppercase, "mnemonic word 1 of 12 is not in the BIP-39 English wordlist (the words are lower-case)"),
            (badChecksum, "mnemonic checksum does not match"),
            (Array(words.prefix(11)), "mnemonic has 11 words; BIP-39 phrases have 12, 15, 18, 21 or 24"),
            (words + ["abandon"], "mnemonic has 13 words"),
        ]
        let responses = try Sr25519Peer.run(cases.map { ["op": "bip39_validate", "phrase": .string($0.0.joined(separator: " "))] })
        for ((phrase, expected), response) in zip(cases, responses) {
            let error = caughtError { () throws(CryptoError) in _ = try BIP39.entropy(fromMnemonic: phrase.joined(separator: " ")) }
            // One in 16 neighbours keeps a 4-bit checksum valid: then both sides accept it, consistently.
            if expected.contains("checksum"), error == nil {
                #expect(try response.bool("valid"), context)
                continue
            }
            #expect(error?.kind == .invalidInput, context)
            #expect(error?.message.contains(expected) == true, "\(context): \(error?.message ?? "accepted")")
            // Whole words only, and not the message's own wording: "phrase" is a BIP-39 word, and "phrases" or
            // "word" in the fixed text are not an echo (seed 15980608704325247398 drew "phrase").
            let said = Set(Self.words(of: error?.message ?? ""))
            let template = Set(Self.words(of: expected))
            for word in Set(phrase.map { $0.lowercased() }) where word.count > 2 && !template.contains(word) {
                #expect(!said.contains(word), "\(context): error repeats '\(word)'")
            }
            #expect(try !response.bool("valid"), "\(context): py-bip39 accepted \(phrase.count) words")
        }
        let long = String(repeating: "abandon ", count: 200)
        #expect(caughtError { () throws(CryptoError) in _ = try BIP39.entropy(fromMnemonic: long) }?.message == "mnemonic is longer than 1024 bytes")
    }

    @Test(arguments: [0, 12, 15, 17, 33, 64])
    func entropyOfTheWrongLength(_ count: Int) {
        let entropy = [UInt8](repeating: 0, count: count)
        let expected = "BIP-39 entropy must be 16, 20, 24, 28 or 32 bytes, got \(count)"
        #expect(caughtError { () throws(CryptoError) in _ = try BIP39.mnemonic(fromEntropy: entropy) }?.message == expected)
        #expect(caughtError { () throws(CryptoError) in _ = try BIP39.miniSecretKey(fromEntropy: entropy) }?.message == expected)
    }
}
