import OmniCodec

/// The crypto of a TrUAPI signing host (a local session: `../shared/reference/truapi.md` §7), as the reference
/// derives it from the session's raw BIP-39 entropy. Pure functions of bytes; product-id normalisation (trim, NFC,
/// lower-case), permissions and the wire types belong to the TrUAPI target, which calls these with normalised ids.
public enum SigningHost {
    /// The reserved product whose default account is the session's identity account (§7.5).
    public static let identityProductID = "uid.dot"

    // MARK: - Accounts (§7.1–§7.5)

    /// §7.1: the root keypair of a session: the substrate-bip39 mini secret key of `entropy` (16…32 bytes, a
    /// multiple of 4; no passphrase), expanded in Ed25519 mode.
    public static func rootKeypair(entropy: some Collection<UInt8>) throws(CryptoError) -> Sr25519.Keypair {
        var miniSecret = try BIP39.miniSecretKey(fromEntropy: entropy)
        defer { wipe(&miniSecret) }
        return try Sr25519.Keypair(miniSecretKey: miniSecret)
    }

    /// The soft junction that picks one account of a product (§7.4).
    public enum AccountIndex: Hashable, Sendable {
        /// `u32 LE i ‖ BLAKE2b-256("product-account-index")[0..28]`.
        case index(UInt32)
        /// The 32 bytes as they are.
        case raw(Sr25519.ChainCode)

        public var chainCode: Sr25519.ChainCode {
            switch self {
            case .index(let index):
                let littleEndian = withUnsafeBytes(of: index.littleEndian) { Array($0) }
                return Sr25519.ChainCode(trusted: littleEndian + SigningHost.indexTail)
            case .raw(let chainCode):
                return chainCode
            }
        }
    }

    static let indexTail = Array(BLAKE2b.hash256(Array("product-account-index".utf8)).prefix(28))

    /// `//product//<productID>` below the root: the subtree whose public key is enough to derive every account
    /// of the product. `productID` must already be normalised.
    public static func productSubtree(root: Sr25519.Keypair, productID: String) -> Sr25519.Keypair {
        root.derived([.hard("product"), .hard(productID)])
    }

    /// §7.4: a product account, `//product//<productID>` then one soft junction with the index's chain code.
    public static func productAccount(root: Sr25519.Keypair, productID: String, index: AccountIndex = .index(0)) -> Sr25519.Keypair {
        productSubtree(root: root, productID: productID).softDerived(chainCode: index.chainCode).keypair
    }

    /// The public key of a product account from the subtree's public key alone (the same key `productAccount`
    /// derives with the secret).
    public static func productAccountPublicKey(subtree: Sr25519.PublicKey, index: AccountIndex = .index(0)) -> Sr25519.PublicKey {
        subtree.softDerived(chainCode: index.chainCode).publicKey
    }

    /// §7.5: the identity account, the default account (index 0) of `uid.dot`.
    public static func identityAccount(root: Sr25519.Keypair) -> Sr25519.Keypair {
        productAccount(root: root, productID: identityProductID)
    }

    // MARK: - Entropy (§7.7) and ring-VRF entropy

    /// Keys of `productEntropy` are 1…32 bytes.
    public static let productEntropyKeyByteCounts = 1...32

    /// §7.7 `entropy_derive`: BLAKE2b-256 chained over the session entropy, the product id and the caller's key.
    public static func productEntropy(
        entropy: some Collection<UInt8>, productID: String, key: some Collection<UInt8>
    ) throws(CryptoError) -> [UInt8] {
        guard productEntropyKeyByteCounts.contains(key.count) else {
            throw CryptoError(.invalidInput, "entropy key must be 1…32 bytes, got \(key.count)")
        }
        var source = try BLAKE2b.hash(entropy, outputByteCount: 32, key: Array("product-entropy-derivation".utf8))
        defer { wipe(&source) }
        let product = BLAKE2b.hash256(Array(productID.utf8))
        var perProduct = try BLAKE2b.hash(source, outputByteCount: 32, key: product)
        defer { wipe(&perProduct) }
        return try BLAKE2b.hash(perProduct, outputByteCount: 32, key: key)
    }

    /// The ring-VRF root of the session: BLAKE2b-256 of the root entropy keyed with "ring-vrf".
    public static func ringVRFRoot(rootEntropy: some Collection<UInt8>) -> [UInt8] {
        // A 32-byte output and an 8-byte key are always valid parameters.
        (try? BLAKE2b.hash(rootEntropy, outputByteCount: 32, key: Array("ring-vrf".utf8))) ?? []
    }

    /// The person ring-VRF entropy: BLAKE2b-256(ring root, key = chain code of `peopl.dot`), then BLAKE2b-256 of
    /// that keyed with `index`'s chain code. Index 0 is the full person, index 1 the lite person.
    public static func personRingVRFEntropy(ringRoot: some Collection<UInt8>, index: UInt32) -> [UInt8] {
        let domain = (try? BLAKE2b.hash(ringRoot, outputByteCount: 32, key: Sr25519.ChainCode(junction: "peopl.dot").bytes)) ?? []
        return (try? BLAKE2b.hash(domain, outputByteCount: 32, key: AccountIndex.index(index).chainCode.bytes)) ?? []
    }

    /// A preimage's key: BLAKE2b-256 of its value.
    public static func preimageKey(_ value: some Collection<UInt8>) -> [UInt8] {
        BLAKE2b.hash256(value)
    }

    // MARK: - sign_raw (§7.8)

    /// The payload of `sign_raw`.
    public enum RawPayload: Hashable, Sendable {
        /// `Bytes`: signed as they are.
        case bytes([UInt8])
        /// `Payload(str)`: hex-decoded when it starts with `0x` and has even length, else its UTF-8.
        case text(String)
    }

    /// The bytes a raw payload stands for; `0x` text of even length that is not hex is an error.
    public static func rawPayloadBytes(_ payload: RawPayload) throws(CryptoError) -> [UInt8] {
        switch payload {
        case .bytes(let bytes):
            return bytes
        case .text(let text):
            let utf8 = Array(text.utf8)
            guard utf8.starts(with: Array("0x".utf8)), utf8.count % 2 == 0 else { return utf8 }
            var bytes: [UInt8] = []
            bytes.reserveCapacity((utf8.count - 2) / 2)
            var index = 2
            while index < utf8.count {
                guard let high = hexValue(utf8[index]), let low = hexValue(utf8[index + 1]) else {
                    throw CryptoError(.invalidInput, "sign_raw payload starts with 0x but character \(index + 1) is not a hex digit")
                }
                bytes.append(high << 4 | low)
                index += 2
            }
            return bytes
        }
    }

    /// The message `sign_raw` signs: `<Bytes>` ‖ message ‖ `</Bytes>`, unless the message is already wrapped so.
    public static func wrappedRawMessage(_ message: [UInt8]) -> [UInt8] {
        let open = Array("<Bytes>".utf8), close = Array("</Bytes>".utf8)
        if message.count >= open.count + close.count, message.starts(with: open), message.suffix(close.count).elementsEqual(close) {
            return message
        }
        return open + message + close
    }

    /// `sign_raw`: the 64-byte sr25519 signature (context "substrate") of the wrapped payload.
    public static func signRaw(_ payload: RawPayload, with keypair: Sr25519.Keypair) throws(CryptoError) -> [UInt8] {
        keypair.signature(for: wrappedRawMessage(try rawPayloadBytes(payload)))
    }

    // MARK: - sign_payload v4 and extrinsics (§7.9, §7.10)

    /// The fields of a `sign_payload` request that the v4 preimage uses, each as the SCALE bytes the request
    /// carries (the wire type's hex strings, decoded), and the signed extensions it lists.
    public struct PayloadV4: Hashable, Sendable {
        public var method: [UInt8]
        public var era: [UInt8]
        public var nonce: [UInt8]
        public var tip: [UInt8]
        public var specVersion: [UInt8]
        public var transactionVersion: [UInt8]
        public var genesisHash: [UInt8]
        public var blockHash: [UInt8]
        /// `ChargeAssetTxPayment`'s asset id bytes as given; absent is written `00`.
        public var assetID: [UInt8]?
        /// `CheckMetadataHash`'s 32-byte hash; absent is written `00`, present `01` ‖ hash.
        public var metadataHash: [UInt8]?
        /// `CheckMetadataHash`'s mode byte; absent is 0.
        public var mode: UInt8?
        public var signedExtensions: [String]

        public init(method: [UInt8], era: [UInt8], nonce: [UInt8], tip: [UInt8], specVersion: [UInt8],
                    transactionVersion: [UInt8], genesisHash: [UInt8], blockHash: [UInt8], assetID: [UInt8]? = nil,
                    metadataHash: [UInt8]? = nil, mode: UInt8? = nil, signedExtensions: [String]) {
            self.method = method
            self.era = era
            self.nonce = nonce
            self.tip = tip
            self.specVersion = specVersion
            self.transactionVersion = transactionVersion
            self.genesisHash = genesisHash
            self.blockHash = blockHash
            self.assetID = assetID
            self.metadataHash = metadataHash
            self.mode = mode
            self.signedExtensions = signedExtensions
        }

        /// Each listed extension's `extra` and `additional_signed`, concatenated in list order. An extension id
        /// outside the reference's table is an error naming it.
        public func encodedExtensions() throws(CryptoError) -> (extra: [UInt8], additionalSigned: [UInt8]) {
            var extra: [UInt8] = [], additional: [UInt8] = []
            for (position, identifier) in signedExtensions.enumerated() {
                switch identifier {
                case "CheckNonZeroSender", "CheckWeight":
                    break
                case "CheckSpecVersion":
                    additional += specVersion
                case "CheckTxVersion":
                    additional += transactionVersion
                case "CheckGenesis":
                    additional += genesisHash
                case "CheckMortality":
                    extra += era
                    additional += blockHash
                case "CheckNonce":
                    extra += nonce
                case "ChargeTransactionPayment":
                    extra += tip
                case "ChargeAssetTxPayment":
                    extra += tip + (assetID ?? [0x00])
                case "CheckMetadataHash":
                    extra.append(mode ?? 0)
                    if let metadataHash {
                        guard metadataHash.count == 32 else {
                            throw CryptoError(.invalidInput, "metadata hash must be 32 bytes, got \(metadataHash.count)")
                        }
                        additional += [0x01] + metadataHash
                    } else {
                        additional.append(0x00)
                    }
                default:
                    throw CryptoError(.invalidInput, "signed extension \(position + 1) '\(identifier)' is not supported")
                }
            }
            return (extra, additional)
        }

        /// The v4 signing preimage: method ‖ extras ‖ additional-signed.
        public func preimage() throws(CryptoError) -> [UInt8] {
            let (extra, additional) = try encodedExtensions()
            return method + extra + additional
        }
    }

    /// Preimages longer than this are signed through their BLAKE2b-256.
    public static let maximumDirectlySignedByteCount = 256

    /// What is actually signed for a preimage: itself, or its BLAKE2b-256 when it is longer than 256 bytes.
    public static func signedBytes(ofPreimage preimage: [UInt8]) -> [UInt8] {
        preimage.count > maximumDirectlySignedByteCount ? BLAKE2b.hash256(preimage) : preimage
    }

    /// SCALE `MultiSignature::Sr25519`: `01` ‖ the 64-byte signature.
    public static func multiSignature(sr25519 signature: [UInt8]) -> [UInt8] {
        [0x01] + signature
    }

    /// `sign_payload` v4: the MultiSignature over the payload's (possibly hashed) preimage.
    public static func signPayloadV4(_ payload: PayloadV4, with keypair: Sr25519.Keypair) throws(CryptoError) -> [UInt8] {
        multiSignature(sr25519: keypair.signature(for: signedBytes(ofPreimage: try payload.preimage())))
    }

    /// A signed extrinsic v4: compact length ‖ `84` ‖ `00` signer ‖ `01` signature ‖ extras ‖ call.
    public static func signedExtrinsicV4(
        signer: Sr25519.PublicKey, signature: [UInt8], extra: [UInt8], call: [UInt8]
    ) throws(CryptoError) -> [UInt8] {
        guard signature.count == Sr25519.signatureByteCount else {
            throw CryptoError(.invalidInput, "sr25519 signature must be 64 bytes, got \(signature.count)")
        }
        var extrinsic = SCALEWriter(capacity: 104 + extra.count + call.count)
        extrinsic.bytes([0x84, 0x00] + signer.rawRepresentation + [0x01] + signature + extra + call)
        return extrinsic.bytes
    }

    private static func hexValue(_ character: UInt8) -> UInt8? {
        switch character {
        case UInt8(ascii: "0")...UInt8(ascii: "9"): character - UInt8(ascii: "0")
        case UInt8(ascii: "a")...UInt8(ascii: "f"): character - UInt8(ascii: "a") + 10
        case UInt8(ascii: "A")...UInt8(ascii: "F"): character - UInt8(ascii: "A") + 10
        default: nil
        }
    }
}
