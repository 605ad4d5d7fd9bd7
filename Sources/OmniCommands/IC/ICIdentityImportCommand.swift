import OmniCLI
import OmniCandid
import OmniCodec
import OmniIC

/// `omni ic identity import NAME (--pem FILE | --dfx NAME | --session FILE)`.
enum ICIdentityImportCommand {
    static let name = Argument<String>("NAME", help: "The name to store the identity under.")
    static let pem = Option<InputFile>("pem", valueName: "FILE",
                                       help: "A private key PEM (Ed25519 PKCS#8, secp256k1 or P-256 SEC1/PKCS#8; - for stdin).")
    static let dfx = Option<String>("dfx", valueName: "DFX_NAME",
                                    help: "A dfx identity: reads $DFX_CONFIG_ROOT or ~/.config/dfx/identity/DFX_NAME/identity.pem as is.")
    static let session = Option<InputFile>("session", valueName: "FILE",
                                           help: "A delegated session file (as 'omni ic identity delegate --out-file' writes); its chain is verified first.")
    static let rootKey = DefaultedOption<ICRootKey>(
        "root-key", valueName: "mainnet|HEX|@FILE",
        help: "With --session: the root of trust canister signatures in the chain verify under (a local replica's key as hex "
            + "of the DER or the raw point, or @FILE).",
        default: .mainnet, source: .content)
    static let force = Flag("force", help: "Replace an existing identity of the same name.")
    static let use = Flag("use", help: "Make it the default identity.")

    static let command = Command(
        "import", abstract: "Store a key from a PEM file, a dfx identity, or a delegated session file.",
        discussion: """
            The key is checked (a supported curve, a consistent public key) and stored again in dfx's format \
            with mode 0600; the source file is not changed. Key and session files must be readable by their \
            owner only (chmod 600), as ssh requires of private keys. A session file's delegation chain is \
            verified before it is stored: signatures (canister signatures under --root-key), no key twice, at \
            most 20 links, none expired; a chain that fails exits 1 with the reason (delegation_chain or expired). \
            Encrypted dfx identities and keys held in the system keyring or an HSM cannot be read: run 'dfx \
            identity export NAME' and import that PEM.
            """,
        options: [pem, dfx, session, rootKey, force, use], arguments: [name],
        relations: [.exactlyOne(pem, dfx, session), .requires(rootKey, session)],
        examples: [
            Example("omni ic identity import default --dfx default", "Use dfx's default identity from omni."),
            Example("omni ic identity import cold --pem cold.pem", "A key from a PEM file."),
            Example("omni ic identity import ci --session ci.session.json", "A delegated session, verified first."),
        ]
    ) { invocation in
        let identityName = try invocation.value(name)
        let store = ICIdentityStore.open(invocation)
        try IdentityStore.validate(name: identityName)
        let overwrite = try invocation.value(force)
        if !overwrite && store.contains(identityName) {
            throw ICError(.configuration, "an identity named \"\(identityName)\" already exists; add --force to replace it")
        }
        let identity: ICIdentity
        let source: String
        if let file = try invocation.value(pem) {
            let text = try ICInput.text(try invocation.readSecret(file, label: "--pem", limit: 1 << 16), label: "--pem")
            do throws(ICError) { identity = try ICIdentity(pem: text) } catch {
                throw ICError(error.kind, "--pem \(file.displayName): \(error.message)")
            }
            source = file.displayName
        } else if let dfxName = try invocation.value(dfx) {
            try IdentityStore.validate(name: dfxName)
            let directory = IdentityStore.dfxIdentityDirectory(environment: invocation.environment) + "/" + dfxName
            identity = try IdentityStore.loadDfxIdentity(directory: directory)
            source = directory + "/identity.pem"
        } else if let file = try invocation.value(session) {
            identity = ICIdentity(session: try verifiedSession(invocation, file: file))
            source = file.displayName
        } else {
            throw CLIError.usage("give one of --pem, --dfx or --session", commandPath: invocation.commandPath)
        }
        try store.save(identity, as: identityName, overwrite: overwrite)
        if try invocation.value(use) { try store.setDefault(identityName) }
        var report = ICIdentityFacts.report(name: identityName, identity: identity, store: store,
                                            isDefault: try store.defaultName() == identityName)
        if case .object(var object) = report.json {
            object.append("source", .string(source))
            report.json = .object(object)
        }
        report.line("imported from", source)
        return .output(report)
    }

    /// A session file from outside, never trusted as is: its chain must verify now (signatures, no cycles, expiry) under
    /// the root key. A malformed file exits 3, a chain that does not verify 1.
    static func verifiedSession(_ invocation: Invocation, file: InputFile) throws -> DelegatedSession {
        let label = "--session \(file.displayName)"
        let bytes = try invocation.readSecret(file, label: "--session")
        let json: JSONValue
        do throws(CodecError) { json = try JSONValue.parse(bytes, limits: JSONLimits(maxDepth: 16, maxBytes: 1 << 20)) } catch {
            throw error.labelled(label)
        }
        let key = try ICInput.rootKey(try invocation.bytes(of: rootKey)) ?? invocation.value(rootKey)
        do throws(ICError) {
            return try DelegatedSession(verifiedSessionFile: json, at: IngressExpiry.currentTime(), rootKey: key)
        } catch {
            throw error.labelled(label)
        }
    }
}
