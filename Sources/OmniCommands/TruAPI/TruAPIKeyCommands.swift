import OmniCLI
import OmniCodec
import OmniCrypto
import OmniTruAPI

/// `omni truapi key …`: the signing host's derivations offline, exactly as the bridge derives them (reference §7).
enum TruAPIKeyCommands {
    static var group: Command {
        Command("key", abstract: "Derive a signing host's accounts and entropy, sign and verify, offline.",
                discussion: """
                    The same derivations as 'omni truapi bridge' with a session: the root key from the BIP-39 entropy \
                    (substrate-bip39), product accounts //product//ID then the soft index junction, the identity \
                    account of uid.dot, the entropy_derive chain, and sign_raw's <Bytes>…</Bytes> wrapping with \
                    sr25519 signatures in the "substrate" context. The secret comes from --session, --entropy-file or \
                    --mnemonic-env; nothing secret is printed except the product entropy 'key entropy' is asked for.
                    """,
                subcommands: [productAccountCommand, identityCommand, entropyCommand, signRawCommand, verifyCommand, ss58Command])
    }

    static let productID = RequiredOption<String>("product-id", valueName: "ID", help: "The product: NAME.dot, NAME.paseo, NAME.test or localhost[:PORT].",
                                                  environment: "OMNI_TRUAPI_PRODUCT_ID")
    static let index = Option<Int>("index", valueName: "N", help: "The account index (DerivationIndex::Index).", absentMeans: "0")
    static let rawIndex = Option<String>("raw-index", valueName: "HEX", help: "A 32-byte raw account index (DerivationIndex::Raw), in hex.",
                                         source: .content)
    static let message = Option<String>("message", valueName: "TEXT",
                                        help: "The message as sign_raw's Payload: 0x followed by an even number of hex digits is bytes, else UTF-8 text; @FILE reads it.",
                                        source: .content)
    static let messageHex = Option<String>("message-hex", valueName: "HEX", help: "The message as sign_raw's Bytes, in hex.", source: .content)
    static let messageFile = Option<InputFile>("message-file", valueName: "FILE", help: "The message as sign_raw's Bytes: the file's bytes; - reads stdin.")
    static let secretSources = TruAPISecretOptions.sources
    // Not exactlyOne: OMNI_TRUAPI_SESSION may name the session (requiredSession says when none is given).
    static let secretRelation = Relation.conflicting(TruAPISecretOptions.session, TruAPISecretOptions.entropyFile, TruAPISecretOptions.mnemonicEnv)
    static let messageRelation = Relation.exactlyOne(message, messageHex, messageFile)
    static let ss58Prefix = TruAPISessionCommands.ss58Prefix

    static let productAccountCommand = Command(
        "product-account", abstract: "A product account's public key and address (what get_account answers).",
        options: [productID, index, rawIndex, ss58Prefix] + secretSources,
        relations: [secretRelation, .conflicting(index, rawIndex)],
        examples: [Example("omni truapi key product-account --session alice --product-id myapp.dot", "Account 0 of myapp.dot."),
                   Example("omni truapi key product-account --entropy-file seed.hex --product-id myapp.dot --index 3", "Account 3.")]
    ) { invocation in
        let session = try TruAPISecretOptions.requiredSession(invocation)
        let product = try productIdentifier(invocation)
        let accountIndex = try accountIndex(invocation)
        let key = session.productAccount(productID: product.value, index: accountIndex).publicKey
        var list = FieldList()
        list.add("product_id", .string(product.value), label: "product")
        list.add("index", indexJSON(accountIndex), text: describe(accountIndex))
        try addKey(&list, key.rawRepresentation, prefix: try TruAPISessionCommands.prefix(invocation))
        return .output(list)
    }

    static let identityCommand = Command(
        "identity", abstract: "The identity account (uid.dot, index 0) and the root key of a session.",
        options: [ss58Prefix] + secretSources, relations: [secretRelation]
    ) { invocation in
        let session = try TruAPISecretOptions.requiredSession(invocation)
        let prefix = try TruAPISessionCommands.prefix(invocation)
        var list = FieldList()
        try addKey(&list, session.identityPublicKey.rawRepresentation, prefix: prefix)
        let root = try TruAPISessionCommands.key(session.rootPublicKey.rawRepresentation, prefix: prefix)
        list.add("root_public_key", .string(root.hex), label: "root key")
        list.add("root_address", .string(root.address), label: "root address")
        return .output(list)
    }

    static let context = Option<String>("context", valueName: "HEX", help: "The key entropy_derive gets (1 to 32 bytes), in hex.", source: .content)
    static let contextText = Option<String>("context-text", valueName: "TEXT", help: "The key as UTF-8 text.", source: .content)

    static let entropyCommand = Command(
        "entropy", abstract: "The entropy a product gets from entropy_derive with a key.",
        discussion: "The output is secret material of that product: anyone with it can do what the product does with it.",
        options: [productID, context, contextText] + secretSources,
        relations: [secretRelation, .exactlyOne(context, contextText)],
        examples: [Example("omni truapi key entropy --session alice --product-id myapp.dot --context-text my-key", "The entropy myapp.dot derives.")]
    ) { invocation in
        let session = try TruAPISecretOptions.requiredSession(invocation)
        let product = try productIdentifier(invocation)
        let key: [UInt8] = if let text = try invocation.value(contextText) { Array(text.utf8) } else {
            try Hex.decode(try invocation.value(context) ?? "", allowPrefix: true)
        }
        guard SigningHost.productEntropyKeyByteCounts.contains(key.count) else {
            throw CLIError.usage("the entropy key must be 1 to 32 bytes, got \(key.count)", commandPath: invocation.commandPath)
        }
        var list = FieldList()
        list.add("product_id", .string(product.value), label: "product")
        list.add("context", .string("0x" + Hex.encode(key)))
        list.add("entropy", .string("0x" + Hex.encode(try session.productEntropy(productID: product.value, key: key))))
        return .output(list)
    }

    static let signRawCommand = Command(
        "sign-raw", abstract: "Sign a message as sign_raw does: wrapped in <Bytes>…</Bytes>, sr25519, context \"substrate\".",
        discussion: "Signatures are randomised: two runs give different signatures of the same message, and both verify.",
        options: [productID, index, rawIndex, message, messageHex, messageFile, ss58Prefix] + secretSources,
        relations: [secretRelation, messageRelation, .conflicting(index, rawIndex)],
        examples: [Example("omni truapi key sign-raw --session alice --product-id myapp.dot --message hello", "Sign <Bytes>hello</Bytes>.")]
    ) { invocation in
        let session = try TruAPISecretOptions.requiredSession(invocation)
        let product = try productIdentifier(invocation)
        let accountIndex = try accountIndex(invocation)
        let payload = try rawPayload(invocation)
        let signed = SigningHost.wrappedRawMessage(try SigningHost.rawPayloadBytes(payload))
        let keypair = session.productAccount(productID: product.value, index: accountIndex)
        let signature = try SigningHost.signRaw(payload, with: keypair)
        var list = FieldList()
        list.add("product_id", .string(product.value), label: "product")
        list.add("index", indexJSON(accountIndex), text: describe(accountIndex))
        try addKey(&list, keypair.publicKey.rawRepresentation, prefix: try TruAPISessionCommands.prefix(invocation))
        list.add("signed_message", .string("0x" + Hex.encode(signed)), label: "signed message")
        list.add("signature", .string("0x" + Hex.encode(signature)))
        return .output(list)
    }

    static let publicKey = RequiredOption<String>("public-key", valueName: "KEY", help: "The signer: 32 bytes of hex or an SS58 address.")
    static let signature = RequiredOption<String>("signature", valueName: "HEX", help: "The 64-byte sr25519 signature (a 65-byte MultiSignature 01… too).",
                                                  source: .content)
    static let noWrap = Flag("no-wrap", help: "Verify the message as it is, without sign_raw's <Bytes>…</Bytes> wrapping.")
    static let contextName = DefaultedOption<String>("signing-context", valueName: "TEXT", help: "The schnorrkel signing context.",
                                                     default: "substrate")

    static let verifyCommand = Command(
        "verify", abstract: "Check an sr25519 signature of a message (exit 0 valid, 1 invalid).",
        options: [publicKey, signature, message, messageHex, messageFile, noWrap, contextName],
        relations: [messageRelation],
        examples: [Example("omni truapi key verify --public-key 5Chz… --signature 0x… --message hello", "Check a sign_raw signature of hello.")]
    ) { invocation in
        guard let key = TruAPISigningHostKeys.publicKey(try invocation.value(publicKey)) else {
            throw CLIError(.input, "--public-key: expected 32 bytes of hex or an SS58 address of a 32-byte key")
        }
        var signatureBytes = try Hex.decode(try invocation.value(signature), allowPrefix: true)
        if signatureBytes.count == 65, signatureBytes[0] == 0x01 { signatureBytes.removeFirst() }
        let payload = try rawPayload(invocation)
        let bytes = try SigningHost.rawPayloadBytes(payload)
        let verified = try invocation.value(noWrap) ? bytes : SigningHost.wrappedRawMessage(bytes)
        let valid = try Sr25519.PublicKey(rawRepresentation: key).isValidSignature(signatureBytes, for: verified,
                                                                                    context: Array(try invocation.value(contextName).utf8))
        var list = FieldList()
        list.add("valid", .bool(valid), text: valid ? "valid" : "INVALID")
        list.add("public_key", .string("0x" + Hex.encode(key)), label: "public key")
        list.add("verified_message", .string("0x" + Hex.encode(verified)), label: "verified message")
        return .output(list, exitCode: valid ? .ok : .failure)
    }

    static let value = Argument<String>("VALUE", help: "An SS58 address, or a 32- or 33-byte public key in hex.")
    static let ss58Override = Option<Int>("ss58-prefix", valueName: "N", help: "The prefix of the address shown.",
                                          absentMeans: "the address's own, or 42 for a key")

    static let ss58Command = Command(
        "ss58", abstract: "Convert between a public key and its SS58 address (any network prefix).",
        discussion: "An address is checked (base58, checksum, prefix) and shown again under --ss58-prefix when one is given.",
        options: [ss58Override],
        arguments: [value],
        examples: [Example("omni truapi key ss58 0x1c1ae478b564572f806ffa6352b4273d612beb01610b19f4e5bf444521cd5b5c", "The generic-Substrate address."),
                   Example("omni truapi key ss58 5ChZBnBw9eDQUMBhnXUKrGMdK5MTfGrca3T1xZZtBQhW8eis --ss58-prefix 0", "The same account on Polkadot.")]
    ) { invocation in
        let text = try invocation.value(value).trimmingWhitespaceAndNewlines()
        let requested = try invocation.value(ss58Override)
        let payload: [UInt8]
        var prefix: UInt16 = SS58.genericSubstratePrefix
        if let bytes = try? Hex.decode(text, allowPrefix: true), text.hasPrefix("0x") || bytes.count == 32 || bytes.count == 33 {
            payload = bytes
        } else {
            let address = try SS58.decode(text)
            payload = address.payload
            prefix = address.prefix
        }
        if let requested {
            guard let chosen = UInt16(exactly: requested) else {
                throw CLIError.usage("--ss58-prefix must be 0 to 16383", commandPath: invocation.commandPath)
            }
            prefix = chosen
        }
        var list = FieldList()
        list.add("public_key", .string("0x" + Hex.encode(payload)), label: "public key")
        list.add("address", .string(try SS58.encode(payload, prefix: prefix)))
        list.add("ss58_prefix", .int(prefix), label: "ss58 prefix")
        return .output(list)
    }

    // MARK: - Shared

    static func productIdentifier(_ invocation: Invocation) throws -> TruAPIProductID {
        try TruAPIProductID(try invocation.value(productID))
    }

    static func accountIndex(_ invocation: Invocation) throws -> SigningHost.AccountIndex {
        if let raw = try invocation.value(rawIndex) {
            return .raw(try Sr25519.ChainCode(try Hex.decode(raw, allowPrefix: true)))
        }
        let number = try invocation.value(index) ?? 0
        guard let small = UInt32(exactly: number) else {
            throw CLIError.usage("--index must be 0 to 4294967295", commandPath: invocation.commandPath)
        }
        return .index(small)
    }

    static func indexJSON(_ index: SigningHost.AccountIndex) -> JSONValue {
        switch index {
        case .index(let number): .object(["Index": .int(number)])
        case .raw(let chainCode): .object(["Raw": .string("0x" + Hex.encode(chainCode.bytes))])
        }
    }

    static func describe(_ index: SigningHost.AccountIndex) -> String {
        switch index {
        case .index(let number): "\(number)"
        case .raw(let chainCode): "raw 0x" + Hex.encode(chainCode.bytes)
        }
    }

    static func addKey(_ list: inout FieldList, _ key: [UInt8], prefix: UInt16) throws {
        let (hex, address) = try TruAPISessionCommands.key(key, prefix: prefix)
        list.add("public_key", .string(hex), label: "public key")
        list.add("address", .string(address))
        list.add("ss58_prefix", .int(prefix), label: "ss58 prefix")
    }

    /// The message of --message (sign_raw's Payload), --message-hex or --message-file (its Bytes).
    static func rawPayload(_ invocation: Invocation) throws -> SigningHost.RawPayload {
        if let text = try invocation.value(message) { return .text(text) }
        if let hex = try invocation.value(messageHex) { return .bytes(try Hex.decode(hex.trimmingWhitespaceAndNewlines(), allowPrefix: true)) }
        if let file = try invocation.value(messageFile) { return .bytes(try invocation.read(file, label: "--message-file")) }
        throw CLIError.usage("give the message with --message, --message-hex or --message-file", commandPath: invocation.commandPath)
    }
}

/// Public keys as commands write them.
enum TruAPISigningHostKeys {
    /// 32 bytes of hex (0x optional) or an SS58 address of a 32-byte key.
    static func publicKey(_ text: String) -> [UInt8]? {
        let trimmed = text.trimmingWhitespaceAndNewlines()
        if let bytes = try? Hex.decode(trimmed, allowPrefix: true), bytes.count == 32 { return bytes }
        guard let address = try? SS58.decode(trimmed), address.payload.count == 32 else { return nil }
        return address.payload
    }
}
