import OmniCLI
import OmniCodec
import OmniCrypto
import OmniSystem
import OmniTruAPI

/// The signing secret of `omni truapi bridge`, `session new` and `key …`: a stored session by name, or raw BIP-39
/// entropy from a file, or a phrase from an environment variable. A secret is never an argument word (argv is
/// visible to every user of the machine): only a file name or a variable name is.
enum TruAPISecretOptions {
    static let session = Option<String>("session", valueName: "NAME", help: "A stored signing session (see 'omni truapi session list').",
                                        environment: "OMNI_TRUAPI_SESSION", completion: .dynamic("truapi-sessions"), group: "Session")
    static let entropyFile = Option<InputFile>("entropy-file", valueName: "FILE",
                                               help: "Raw BIP-39 entropy (16 to 32 bytes, as hex text or the bytes), readable only by you; - reads stdin.",
                                               completion: .file, group: "Session")
    static let mnemonicEnv = Option<String>("mnemonic-env", valueName: "VAR",
                                            help: "Take a BIP-39 phrase from this environment variable (the variable's name, not the phrase).",
                                            group: "Session")
    static let liteUsername = Option<String>("lite-username", valueName: "NAME", help: "The lite username get_user_id answers.",
                                             group: "Session")
    static let fullUsername = Option<String>("full-username", valueName: "NAME",
                                             help: "The full username get_user_id answers (preferred over the lite one).", group: "Session")

    /// The sources of a secret given on this command line.
    static var sources: [any OptionDeclaration] { [session, entropyFile, mnemonicEnv] }

    /// Where sessions are stored: `$XDG_STATE_HOME/omni/truapi/sessions`.
    static func store(_ invocation: Invocation) -> TruAPISessionStore {
        TruAPISessionStore(directory: Directories(environment: invocation.environment).state + "/truapi/sessions")
    }

    /// The entropy of --entropy-file or --mnemonic-env, nil when neither is given. The caller wipes it.
    static func entropy(_ invocation: Invocation) throws -> [UInt8]? {
        if let file = try invocation.value(entropyFile) {
            var contents = try invocation.readSecret(file, label: "--entropy-file", limit: 4096)
            defer { wipe(&contents) }
            do { return try TruAPISession.entropy(fromFile: contents) } catch {
                throw TruAPIError(.configuration, "--entropy-file \(file.displayName): \(error.message)")
            }
        }
        if let variable = try invocation.value(mnemonicEnv) {
            guard let phrase = invocation.environment[variable], !phrase.isEmpty else {
                throw CLIError(.configuration, "--mnemonic-env \(variable): the environment variable \(variable) is not set or empty")
            }
            return try TruAPISession.entropy(fromMnemonic: phrase, source: "--mnemonic-env \(variable)")
        }
        return nil
    }

    /// The session of --session (stored), or of --entropy-file / --mnemonic-env (this run only), or nil. With
    /// both --session and a secret, a session that does not exist yet is created from the secret; one that exists
    /// must hold that very secret.
    static func session(_ invocation: Invocation, usernames: Bool = false) throws -> TruAPISession? {
        var entropy = try entropy(invocation)
        defer { if entropy != nil { wipe(&entropy!) } }
        let lite = usernames ? try invocation.value(liteUsername) : nil
        let full = usernames ? try invocation.value(fullUsername) : nil
        guard let name = try invocation.value(session) else {
            return try entropy.map { try TruAPISession(entropy: $0, liteUsername: lite, fullUsername: full) }
        }
        let store = store(invocation)
        if let problem = TruAPISessionStore.problem(withName: name) {
            throw CLIError.usage("--session '\(name)': \(problem)", commandPath: invocation.commandPath)
        }
        if store.exists(name) {
            let stored = try store.load(name)
            if let entropy, !stored.hasEntropy(entropy) {
                throw TruAPIError(.configuration, "--session \(name) exists with another secret; drop the secret option, or use another session name")
            }
            guard lite != nil || full != nil else { return stored }
            // Usernames given now apply to this run.
            return try stored.withUsernames(lite: lite ?? stored.liteUsername, full: full ?? stored.fullUsername)
        }
        guard let entropy else {
            throw TruAPIError(.configuration,
                              "no session \(name) in \(store.directory); create it with 'omni truapi session new \(name)', or give its secret with --entropy-file or --mnemonic-env")
        }
        let created = try store.create(name, entropy: entropy, liteUsername: lite, fullUsername: full)
        invocation.note("stored the new session \(name) in \(store.sessionDirectory(name))")
        return created
    }

    /// Like `session`, but one of the sources must be given.
    static func requiredSession(_ invocation: Invocation) throws -> TruAPISession {
        guard let found = try session(invocation) else {
            throw CLIError.usage("give the signing secret: --session NAME, --entropy-file FILE or --mnemonic-env VAR",
                                 commandPath: invocation.commandPath)
        }
        return found
    }

    /// Session names for shell completion.
    static func names(_ invocation: Invocation) throws -> [String] {
        try store(invocation).list().map(\.name)
    }
}
