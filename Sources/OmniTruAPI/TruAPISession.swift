import OmniCodec
import OmniCrypto

/// A local signing session (reference §7, `activateLocalSession`): the raw BIP-39 entropy every account, signature
/// and product entropy is derived from, and the usernames `get_user_id` answers with.
///
/// The entropy lives in memory that is zeroed when the session goes away and is copied out only for the moment a
/// derivation needs it (into arrays that are wiped); nothing here prints it: `description` shows the name and the
/// root public key. The root keypair is derived again for every signature (PBKDF2 over the entropy, as the
/// reference does), so no expanded secret key outlives the call that used it.
public final class TruAPISession: Sendable, CustomStringConvertible {
    /// The stored session's name (`--session NAME`), nil for one given only for this run.
    public let name: String?
    public let liteUsername: String?
    public let fullUsername: String?
    /// The root key's public half (§7.1), which names the session in lists and logs.
    public let rootPublicKey: Sr25519.PublicKey
    /// The identity account (§7.5): the default account of `uid.dot`.
    public let identityPublicKey: Sr25519.PublicKey
    private let entropy: SecretBytes

    /// Usernames are shown and answered as they are; at most this many UTF-8 bytes.
    public static let maximumUsernameBytes = 256

    public init(entropy bytes: some Collection<UInt8>, name: String? = nil, liteUsername: String? = nil,
                fullUsername: String? = nil) throws(TruAPIError) {
        guard BIP39.entropyByteCounts.contains(bytes.count) else {
            throw TruAPIError(.configuration, "session entropy must be 16, 20, 24, 28 or 32 bytes (raw BIP-39 entropy), got \(bytes.count)")
        }
        for (label, username) in [("lite username", liteUsername), ("full username", fullUsername)] {
            guard let username else { continue }
            guard !username.isEmpty, username.utf8.count <= Self.maximumUsernameBytes,
                  !username.unicodeScalars.contains(where: { $0.value < 0x20 || $0.value == 0x7F }) else {
                throw TruAPIError(.configuration, "the \(label) must be 1 to \(Self.maximumUsernameBytes) bytes without control characters")
            }
        }
        let secret = SecretBytes(bytes)
        let root: Sr25519.Keypair
        do { root = try secret.withBytes { (copy) throws(CryptoError) in try SigningHost.rootKeypair(entropy: copy) } } catch {
            throw TruAPIError(.configuration, "session entropy: \(error.message)")
        }
        entropy = secret
        self.name = name
        self.liteUsername = liteUsername
        self.fullUsername = fullUsername
        rootPublicKey = root.publicKey
        identityPublicKey = SigningHost.identityAccount(root: root).publicKey
    }

    /// This session with other usernames (for one run: `--lite-username` on the bridge).
    public func withUsernames(lite: String?, full: String?) throws(TruAPIError) -> TruAPISession {
        var copy = entropy.bytes
        defer { wipe(&copy) }
        return try TruAPISession(entropy: copy, name: name, liteUsername: lite, fullUsername: full)
    }

    /// The username `get_user_id` answers: the full one when set, else the lite one.
    public var primaryUsername: String? { fullUsername ?? liteUsername }

    /// The root keypair, derived now from the entropy.
    public func rootKeypair() -> Sr25519.Keypair {
        // The entropy was validated by init: the derivation cannot fail.
        entropy.withBytes { copy in (try? SigningHost.rootKeypair(entropy: copy))! }
    }

    /// A product account (§7.4); `productID` must be normalised.
    public func productAccount(productID: String, index: SigningHost.AccountIndex = .index(0)) -> Sr25519.Keypair {
        SigningHost.productAccount(root: rootKeypair(), productID: productID, index: index)
    }

    public func identityAccount() -> Sr25519.Keypair { SigningHost.identityAccount(root: rootKeypair()) }

    /// `entropy_derive` (§7.7) for `productID` and the product's key (1…32 bytes).
    public func productEntropy(productID: String, key: [UInt8]) throws(CryptoError) -> [UInt8] {
        try entropy.withBytes { (copy) throws(CryptoError) in try SigningHost.productEntropy(entropy: copy, productID: productID, key: key) }
    }

    /// Whether `other` is this session's entropy (constant time).
    public func hasEntropy(_ other: some Collection<UInt8>) -> Bool { entropy.equals(other) }

    /// The session's BIP-39 phrase. This exports the secret: only for a person who asked for it by name
    /// (`--show-mnemonic`).
    public func mnemonic() throws(TruAPIError) -> String {
        do { return try entropy.withBytes { (copy) throws(CryptoError) in try BIP39.mnemonic(fromEntropy: copy) } } catch {
            throw TruAPIError(.configuration, "session entropy: \(error.message)")
        }
    }

    /// The entropy itself, for the session store only (it writes it to the 0600 secret file).
    func exportEntropy() -> [UInt8] { entropy.bytes }

    public var description: String {
        "TruAPISession(\(name ?? "unnamed"), root \(Hex.encode(rootPublicKey.rawRepresentation)), entropy <redacted>)"
    }

    // MARK: - Reading secrets

    /// The entropy in an `--entropy-file`: hex text (an optional 0x, surrounding whitespace ignored) when the whole
    /// file reads so, else the raw bytes. Errors say what was wrong, never what the file holds.
    public static func entropy(fromFile contents: [UInt8]) throws(TruAPIError) -> [UInt8] {
        var trimmed = ArraySlice(contents)
        while let last = trimmed.last, last == 0x0A || last == 0x0D || last == 0x20 || last == 0x09 { trimmed.removeLast() }
        while let first = trimmed.first, first == 0x20 || first == 0x09 || first == 0x0A || first == 0x0D { trimmed.removeFirst() }
        if trimmed.starts(with: [0x30, 0x78]) || trimmed.starts(with: [0x30, 0x58]) { trimmed.removeFirst(2) }
        let isHexDigit: (UInt8) -> Bool = { (0x30...0x39).contains($0) || (0x61...0x66).contains($0) || (0x41...0x46).contains($0) }
        if !trimmed.isEmpty, trimmed.allSatisfy(isHexDigit) {
            guard trimmed.count % 2 == 0, BIP39.entropyByteCounts.contains(trimmed.count / 2) else {
                throw TruAPIError(.configuration,
                                  "the entropy file holds \(trimmed.count) hex digits; BIP-39 entropy is 32, 40, 48, 56 or 64 (16 to 32 bytes)")
            }
            // Every digit was checked, so decoding cannot fail (nor quote the file in an error).
            return (try? Hex.decode(utf8: Array(trimmed))) ?? []
        }
        guard BIP39.entropyByteCounts.contains(contents.count) else {
            throw TruAPIError(.configuration,
                              "the entropy file holds \(contents.count) bytes that are not hex text; raw BIP-39 entropy is 16, 20, 24, 28 or 32 bytes")
        }
        return contents
    }

    /// The entropy of a BIP-39 phrase (`--mnemonic-env`); errors name the word position, never a word.
    public static func entropy(fromMnemonic phrase: String, source: String) throws(TruAPIError) -> [UInt8] {
        do { return try BIP39.entropy(fromMnemonic: phrase.trimmingWhitespaceAndNewlines()) } catch {
            throw TruAPIError(.configuration, "\(source): \(error.message)")
        }
    }
}
