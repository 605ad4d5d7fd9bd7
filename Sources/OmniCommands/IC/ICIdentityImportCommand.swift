import OmniCLI
import OmniCandid
import OmniCodec
import OmniIC

/// `omni ic identity import NAME (--pem FILE | --dfx NAME | --session FILE)`.
enum ICIdentityImportCommand {
    static let name = Argument<String>("NAME", help: "The name to store the identity under.")
    static let pem = Option<String>("pem", valueName: "FILE",
                                    help: "A private key PEM (Ed25519 PKCS#8, secp256k1 or P-256 SEC1/PKCS#8; - for stdin).",
                                    source: .path)
    static let dfx = Option<String>("dfx", valueName: "DFX_NAME",
                                    help: "A dfx identity: reads $DFX_CONFIG_ROOT or ~/.config/dfx/identity/DFX_NAME/identity.pem as is.")
    static let session = Option<String>("session", valueName: "FILE",
                                        help: "A delegated session file written by 'omni ic identity delegate --to-session'.",
                                        source: .path)
    static let force = Flag("force", help: "Replace an existing identity of the same name.")
    static let use = Flag("use", help: "Make it the default identity.")

    static let command = Command(
        "import", abstract: "Store a key from a PEM file, a dfx identity, or a delegated session file.",
        discussion: """
            The key is checked (a supported curve, a consistent public key) and stored again in dfx's format \
            with mode 0600; the source file is not changed. Encrypted dfx identities and keys held in the \
            system keyring or an HSM cannot be read: run 'dfx identity export NAME' and import that PEM.
            """,
        options: [pem, dfx, session, force, use], arguments: [name.spec],
        examples: [
            Example("omni ic identity import default --dfx default", "Use dfx's default identity from omni."),
            Example("omni ic identity import cold --pem cold.pem", "A key from a PEM file."),
        ]
    ) { invocation in
        let identityName = try invocation.argument(name) ?? ""
        let given = [pem, dfx, session].filter { invocation.isGiven($0) }
        guard given.count == 1 else {
            throw CLIError.usage("give exactly one of --pem FILE, --dfx NAME or --session FILE", commandPath: invocation.commandPath)
        }
        let store = ICIdentityStore.open(invocation)
        try IdentityStore.validate(name: identityName)
        let overwrite = try invocation.flag(force)
        if !overwrite && store.contains(identityName) {
            throw ICError(.configuration, "an identity named \"\(identityName)\" already exists; add --force to replace it")
        }
        let identity: ICIdentity
        let source: String
        if let path = try invocation.value(pem) {
            let text = String(decoding: try ICInput.file(path, label: "--pem", invocation: invocation, maxBytes: 1 << 16), as: UTF8.self)
            do throws(ICError) { identity = try ICIdentity(pem: text) } catch {
                throw ICError(error.kind, "--pem \(path): \(error.message)")
            }
            source = path
        } else if let dfxName = try invocation.value(dfx) {
            let directory = IdentityStore.dfxIdentityDirectory(environment: invocation.environment) + "/" + dfxName
            try IdentityStore.validate(name: dfxName)
            identity = try IdentityStore.loadDfxIdentity(directory: directory)
            source = directory + "/identity.pem"
        } else {
            let path = try invocation.require(session)
            let text = String(decoding: try ICInput.file(path, label: "--session", invocation: invocation), as: UTF8.self)
            let json: JSONValue
            do throws(CodecError) { json = try JSONValue.parse(text, limits: JSONLimits(maxDepth: 16, maxBytes: 1 << 20)) } catch {
                throw error.labelled("--session \(path)")
            }
            identity = ICIdentity(session: try DelegatedSession(sessionFile: json))
            source = path
        }
        try store.save(identity, as: identityName, overwrite: overwrite)
        if try invocation.flag(use) { try store.setDefault(identityName) }
        var report = ICIdentityFacts.report(name: identityName, identity: identity, store: store,
                                            isDefault: try store.defaultName() == identityName)
        if case .object(var object) = report.json {
            object.append("source", .string(source))
            report.json = .object(object)
        }
        report.line("imported from", source)
        return .output(report)
    }
}
