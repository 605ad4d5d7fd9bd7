/// BIP-39 mnemonics (English wordlist) and the Substrate mini secret key derived from their entropy.
///
/// Substrate does not use BIP-39's seed (PBKDF2 over the phrase): substrate-bip39 runs PBKDF2-HMAC-SHA512 over
/// the *entropy* with salt "mnemonic" ‖ passphrase and 2048 iterations, and the first 32 bytes are the sr25519
/// mini secret key. The passphrase is taken as its UTF-8 bytes, without the NFKD normalisation of BIP-39 (as
/// substrate-bip39 does).
///
/// Errors never repeat the phrase or any word of it: a mnemonic is a secret, and a mistyped word is most of one.
public enum BIP39 {
    /// Entropy lengths BIP-39 allows (128…256 bits in steps of 32), and their phrase lengths (12…24 words).
    public static let entropyByteCounts: [Int] = [16, 20, 24, 28, 32]
    public static let wordCounts: [Int] = [12, 15, 18, 21, 24]
    /// A phrase longer than this many UTF-8 bytes is refused before it is looked at (24 words of at most 8 letters
    /// with single spaces are 215 bytes).
    public static let maximumPhraseByteCount = 1024
    static let pbkdf2Iterations = 2048

    /// The 2048 words, in wordlist order.
    public static let englishWordlist: [String] = englishWordlistText.split(separator: "\n").map(String.init)

    private static let wordIndex: [String: Int] = Dictionary(uniqueKeysWithValues: englishWordlist.enumerated().map { ($1, $0) })

    /// The phrase of `entropy` (16, 20, 24, 28 or 32 bytes): the entropy followed by the first length/4 bits of
    /// its SHA-256, cut into 11-bit word indices, words joined by single spaces.
    public static func mnemonic(fromEntropy entropy: some Collection<UInt8>) throws(CryptoError) -> String {
        var bytes = Array(entropy)
        defer { wipe(&bytes) }
        try checkEntropyLength(bytes.count)
        var digest = SHA256.hash(bytes)
        defer { wipe(&digest) }
        var bits = BitBuffer()
        defer { bits.wipe() }
        for byte in bytes { bits.append(UInt(byte), width: 8) }
        bits.append(UInt(digest[0]) >> (8 - bytes.count / 4), width: bytes.count / 4)
        var words: [String] = []
        for index in 0..<(bits.count / 11) { words.append(englishWordlist[Int(bits.read(at: index * 11, width: 11))]) }
        return words.joined(separator: " ")
    }

    /// The entropy of a phrase, validated: 12, 15, 18, 21 or 24 lower-case words of the English wordlist separated
    /// by whitespace, with a matching checksum. Errors say which word (by position) or the checksum is wrong.
    public static func entropy(fromMnemonic phrase: String) throws(CryptoError) -> [UInt8] {
        guard phrase.utf8.count <= maximumPhraseByteCount else {
            throw CryptoError(.invalidInput, "mnemonic is longer than \(maximumPhraseByteCount) bytes")
        }
        let words = phrase.split(whereSeparator: { $0.isWhitespace })
        guard wordCounts.contains(words.count) else {
            throw CryptoError(.invalidInput, "mnemonic has \(words.count) words; BIP-39 phrases have 12, 15, 18, 21 or 24")
        }
        var bits = BitBuffer()
        defer { bits.wipe() }
        for (position, word) in words.enumerated() {
            guard let index = wordIndex[String(word)] else {
                let hint = word.contains(where: { $0.isUppercase }) ? " (the words are lower-case)" : ""
                throw CryptoError(.invalidInput, "mnemonic word \(position + 1) of \(words.count) is not in the BIP-39 English wordlist\(hint)")
            }
            bits.append(UInt(index), width: 11)
        }
        let checksumWidth = words.count * 11 / 33
        let entropyCount = (bits.count - checksumWidth) / 8
        var entropy = (0..<entropyCount).map { UInt8(bits.read(at: $0 * 8, width: 8)) }
        var digest = SHA256.hash(entropy)
        defer { wipe(&digest) }
        guard bits.read(at: entropyCount * 8, width: checksumWidth) == UInt(digest[0]) >> (8 - checksumWidth) else {
            wipe(&entropy)
            throw CryptoError(.invalidInput, "mnemonic checksum does not match (a word is wrong or the words are out of order)")
        }
        return entropy
    }

    /// substrate-bip39 `mini_secret_from_entropy(entropy, passphrase)`: the sr25519 mini secret key.
    public static func miniSecretKey(fromEntropy entropy: some Collection<UInt8>, passphrase: String = "") throws(CryptoError) -> [UInt8] {
        var seed = try substrateSeed(fromEntropy: entropy, passphrase: passphrase)
        defer { wipe(&seed) }
        return Array(seed[0..<32])
    }

    /// The mini secret key of a phrase (validated as `entropy(fromMnemonic:)` does).
    public static func miniSecretKey(fromMnemonic phrase: String, passphrase: String = "") throws(CryptoError) -> [UInt8] {
        var entropy = try entropy(fromMnemonic: phrase)
        defer { wipe(&entropy) }
        return try miniSecretKey(fromEntropy: entropy, passphrase: passphrase)
    }

    /// substrate-bip39 `seed_from_entropy`: the 64-byte PBKDF2 output (its first half is the mini secret key).
    /// Entropy must be 16…32 bytes and a multiple of 4, as substrate-bip39 requires.
    public static func substrateSeed(fromEntropy entropy: some Collection<UInt8>, passphrase: String = "") throws(CryptoError) -> [UInt8] {
        try checkEntropyLength(entropy.count)
        var salt = Array("mnemonic".utf8) + Array(passphrase.utf8)
        defer { wipe(&salt) }
        return try PBKDF2<SHA512>.deriveKey(password: entropy, salt: salt, iterations: pbkdf2Iterations, outputByteCount: 64)
    }

    private static func checkEntropyLength(_ count: Int) throws(CryptoError) {
        guard entropyByteCounts.contains(count) else {
            throw CryptoError(.invalidInput, "BIP-39 entropy must be 16, 20, 24, 28 or 32 bytes, got \(count)")
        }
    }
}

/// Bits appended and read most-significant first, in a buffer that is wiped after use (it holds entropy).
private struct BitBuffer {
    private var bits: [UInt8] = []
    var count: Int { bits.count }

    mutating func append(_ value: UInt, width: Int) {
        for shift in stride(from: width - 1, through: 0, by: -1) { bits.append(UInt8((value >> UInt(shift)) & 1)) }
    }

    func read(at offset: Int, width: Int) -> UInt {
        var value: UInt = 0
        for index in offset..<(offset + width) { value = value << 1 | UInt(bits[index]) }
        return value
    }

    mutating func wipe() { OmniCrypto.wipe(&bits) }
}
