import OmniCLI
import OmniCodec
import OmniCrypto
import OmniTruAPI

/// `omni truapi session new|list|show|remove`: the stored signing sessions `omni truapi bridge --session NAME`
/// signs with, each an isolated identity with its own product state.
enum TruAPISessionCommands {
    static var group: Command {
        Command("session", abstract: "Store signing sessions (BIP-39 entropy) for 'omni truapi bridge --session NAME'.",
                discussion: """
                    A session is the raw BIP-39 entropy a TrUAPI signing host derives every account from (reference §7: \
                    the root key, product accounts //product//ID/INDEX, the identity account of uid.dot, product entropy). \
                    Each is stored in $XDG_STATE_HOME/omni/truapi/sessions/NAME/secret.json (mode 0600, in 0700 \
                    directories) with the usernames get_user_id answers; the bridge keeps each product's storage and \
                    permission decisions under the session, so what one identity granted never applies to another. \
                    Nothing here prints a secret unless --show-mnemonic asks for the phrase.
                    """,
                subcommands: [newCommand, listCommand, showCommand, removeCommand])
    }

    static let name = Argument<String>("NAME", help: "The session's name: lowercase letters, digits, '.', '_' and '-'.",
                                       completion: .dynamic("truapi-sessions"))
    static let words = DefaultedOption<Int>("words", valueName: "N", help: "Words of a generated phrase: 12, 15, 18, 21 or 24.", default: 24)
    static let showMnemonic = Flag("show-mnemonic", help: "Also print the BIP-39 phrase of the session (a secret: anyone with it holds the accounts).")
    static let ss58Prefix = DefaultedOption<Int>("ss58-prefix", valueName: "N", help: "The SS58 network prefix of the addresses shown.", default: 42)
    static let yes = Flag("yes", short: "y", help: "Remove without asking.")

    static let newCommand = Command(
        "new", abstract: "Create a session from a secret you give, or from fresh random entropy.",
        discussion: """
            With --entropy-file or --mnemonic-env the session holds that secret; without either, fresh entropy from \
            the system's random generator (--words sets its length). An existing session is never replaced.
            """,
        options: [TruAPISecretOptions.entropyFile, TruAPISecretOptions.mnemonicEnv, words, TruAPISecretOptions.liteUsername,
                  TruAPISecretOptions.fullUsername, showMnemonic, ss58Prefix],
        arguments: [name],
        relations: [.conflicting(TruAPISecretOptions.entropyFile, TruAPISecretOptions.mnemonicEnv, words)],
        examples: [
            Example("omni truapi session new alice --lite-username alice", "A fresh identity, stored as alice."),
            Example("MNEMONIC='…' omni truapi session new bob --mnemonic-env MNEMONIC", "An identity from an existing phrase."),
        ]
    ) { invocation in
        let sessionName = try invocation.value(name)
        if let problem = TruAPISessionStore.problem(withName: sessionName) {
            throw CLIError.usage("session name '\(sessionName)': \(problem)", commandPath: invocation.commandPath)
        }
        var entropy: [UInt8]
        if let given = try TruAPISecretOptions.entropy(invocation) {
            entropy = given
        } else {
            let count = try invocation.value(words)
            guard let index = BIP39.wordCounts.firstIndex(of: count) else {
                throw CLIError.usage("--words must be 12, 15, 18, 21 or 24", commandPath: invocation.commandPath)
            }
            entropy = SecureRandom.bytes(BIP39.entropyByteCounts[index])
        }
        defer { wipe(&entropy) }
        let store = TruAPISecretOptions.store(invocation)
        try store.create(sessionName, entropy: entropy, liteUsername: try invocation.value(TruAPISecretOptions.liteUsername),
                                       fullUsername: try invocation.value(TruAPISecretOptions.fullUsername))
        let phrase = try invocation.value(showMnemonic) ? try BIP39.mnemonic(fromEntropy: entropy) : nil
        return .output(try SessionReport(summary: try store.summary(sessionName), directory: store.sessionDirectory(sessionName),
                                         prefix: prefix(invocation), mnemonic: phrase))
    }

    static let listCommand = Command(
        "list", abstract: "List the stored sessions with their root and identity accounts.", options: [ss58Prefix]
    ) { invocation in
        let store = TruAPISecretOptions.store(invocation)
        return .output(SessionList(summaries: try store.list(), prefix: try prefix(invocation), directory: store.directory))
    }

    static let showCommand = Command(
        "show", abstract: "Show a session's public facts: root key, identity account, usernames.",
        options: [showMnemonic, ss58Prefix], arguments: [name]
    ) { invocation in
        let store = TruAPISecretOptions.store(invocation)
        let sessionName = try invocation.value(name)
        let phrase = try invocation.value(showMnemonic) ? try store.load(sessionName).mnemonic() : nil
        return .output(try SessionReport(summary: try store.summary(sessionName), directory: store.sessionDirectory(sessionName),
                                         prefix: prefix(invocation), mnemonic: phrase))
    }

    static let removeCommand = Command(
        "remove", abstract: "Delete a session: its secret and the product state kept under it.",
        discussion: "Asks first on a terminal; without one, --yes is required. The accounts are gone unless the phrase was kept elsewhere.",
        options: [yes], arguments: [name]
    ) { invocation in
        let store = TruAPISecretOptions.store(invocation)
        let sessionName = try invocation.value(name)
        let summary = try store.summary(sessionName)
        if try !invocation.value(yes) {
            let root = (try? SS58.encode(summary.rootPublicKey)) ?? Hex.encode(summary.rootPublicKey)
            guard try invocation.confirm("Delete session \(sessionName) (root \(root)) and its product state?", override: yes) else {
                throw CLIError(.interrupted, "not removed")
            }
        }
        try store.remove(sessionName)
        var list = FieldList()
        list.add("removed", .string(sessionName))
        list.add("directory", .string(store.sessionDirectory(sessionName)))
        return .output(list)
    }

    static func prefix(_ invocation: Invocation) throws -> UInt16 {
        let value = try invocation.value(ss58Prefix)
        guard let prefix = UInt16(exactly: value), prefix <= SS58.maximumPrefix, !SS58.reservedPrefixes.contains(prefix) else {
            throw CLIError.usage("--ss58-prefix must be 0 to 16383 and not 46 or 47", commandPath: invocation.commandPath)
        }
        return prefix
    }

    /// `0x…` and the SS58 address of a public key.
    static func key(_ bytes: [UInt8], prefix: UInt16) throws -> (hex: String, address: String) {
        ("0x" + Hex.encode(bytes), try SS58.encode(bytes, prefix: prefix))
    }
}

/// One session's public facts (and its phrase when asked for).
struct SessionReport: Renderable {
    var fields = FieldList()

    init(summary: TruAPISessionSummary, directory: String, prefix: UInt16, mnemonic: String?) throws {
        let root = try TruAPISessionCommands.key(summary.rootPublicKey, prefix: prefix)
        let identity = try TruAPISessionCommands.key(summary.identityPublicKey, prefix: prefix)
        fields.add("name", .string(summary.name))
        fields.add("root_public_key", .string(root.hex), label: "root key")
        fields.add("root_address", .string(root.address), label: "root address")
        fields.add("identity_public_key", .string(identity.hex), label: "identity key")
        fields.add("identity_address", .string(identity.address), label: "identity address", text: identity.address + " (uid.dot, index 0)")
        fields.add("lite_username", summary.liteUsername.map(JSONValue.string) ?? .null, label: "lite username", text: summary.liteUsername ?? "-")
        fields.add("full_username", summary.fullUsername.map(JSONValue.string) ?? .null, label: "full username", text: summary.fullUsername ?? "-")
        fields.add("created_at", .string(summary.createdAt), label: "created")
        fields.add("ss58_prefix", .int(prefix), label: "ss58 prefix")
        fields.add("directory", .string(directory))
        if let mnemonic { fields.add("mnemonic", .string(mnemonic)) }
    }

    var json: JSONValue { fields.json }
    func text(style: TextStyle) -> String { fields.text(style: style) }
}

struct SessionList: Renderable {
    let summaries: [TruAPISessionSummary]
    let prefix: UInt16
    let directory: String

    private func address(_ key: [UInt8]) -> String { (try? SS58.encode(key, prefix: prefix)) ?? "0x" + Hex.encode(key) }

    var json: JSONValue {
        .object(["directory": .string(directory), "sessions": .array(summaries.map { summary in
            .object(["name": .string(summary.name), "root_public_key": .string("0x" + Hex.encode(summary.rootPublicKey)),
                     "root_address": .string(address(summary.rootPublicKey)),
                     "identity_public_key": .string("0x" + Hex.encode(summary.identityPublicKey)),
                     "identity_address": .string(address(summary.identityPublicKey)),
                     "lite_username": summary.liteUsername.map(JSONValue.string) ?? .null,
                     "full_username": summary.fullUsername.map(JSONValue.string) ?? .null,
                     "created_at": .string(summary.createdAt)])
        })])
    }

    func text(style: TextStyle) -> String {
        guard !summaries.isEmpty else { return style.dim("no sessions in \(directory) (create one with 'omni truapi session new NAME')") }
        var table = Table(columns: ["name", "identity address", "username", "created"])
        for summary in summaries {
            table.append([summary.name, address(summary.identityPublicKey), summary.fullUsername ?? summary.liteUsername ?? "-", summary.createdAt])
        }
        return table.text(style: style)
    }
}
