import OmniCLI
import OmniCodec
import OmniIC
import OmniSystem

/// The store every identity command works on.
enum ICIdentityStore {
    static func open(_ invocation: Invocation) -> IdentityStore {
        IdentityStore(directories: Directories(environment: invocation.environment))
    }
}

/// Who signs, and whose principal a command means when none is named: the ONE selection every `omni ic` command uses
/// (sign, query, call, send, account-id, identity principal/show/whoami, …). In order: `--pem FILE` (commands that
/// sign), `--identity NAME`, `OMNI_IDENTITY`, the config key `ic.identity`, the default identity
/// ('omni ic identity use'), else anonymous.
enum ICIdentitySelection {
    /// A global option (valid on every command line, as dfx's); every command that uses an identity reads it here.
    static let identity = Option<String>(
        "identity", valueName: "NAME",
        help: "Sign as this stored identity ('anonymous' for none; see 'omni ic identity list').",
        absentMeans: "the one chosen with 'omni ic identity use', else anonymous",
        environment: "OMNI_IDENTITY", config: "ic.identity", completion: .dynamic("identities"))
    static let pem = Option<InputFile>(
        "pem", valueName: "FILE",
        help: "Sign with the private key in this PEM file (Ed25519, secp256k1 or P-256; dfx's identity.pem works as is; "
            + "readable by its owner only).",
        group: "Identity")

    /// The per-command part of the selection (`--identity` itself is global).
    static let options: [any OptionDeclaration] = [pem]
    /// Declared by every command that signs: a PEM file and a stored identity are two answers to one question.
    static let relations: [Relation] = [.conflicting(identity, pem)]

    /// Where a choice came from (`omni ic identity whoami`, JSON `source`).
    enum Origin: String {
        case pem
        case flag
        case environment = "env"
        case config
        case defaultIdentity = "default"
        case anonymous
    }

    struct Choice {
        let identity: ICIdentity
        /// The stored identity's name, `anonymous` when chosen by that name, nil for a PEM file or when nothing was chosen.
        let name: String?
        let origin: Origin
        /// The exact source in words: "--identity", "OMNI_IDENTITY", "ic.identity in FILE", "--pem FILE", ….
        let detail: String

        /// For notes: "identity alice (from OMNI_IDENTITY)".
        var description: String {
            switch origin {
            case .pem: "the key in \(detail)"
            case .anonymous: "anonymous (no identity chosen)"
            case .defaultIdentity: "identity \(name ?? "?") (the default)"
            default: (name == "anonymous" ? "anonymous" : "identity \(name ?? "?")") + " (from \(detail))"
            }
        }
    }

    /// Stored identity names, for completions (plus `anonymous`).
    static func names(_ invocation: Invocation) throws -> [String] {
        try ICIdentityStore.open(invocation).names() + ["anonymous"]
    }

    /// The selected identity, loaded (a key file is read here, before any network use).
    static func resolve(_ invocation: Invocation) throws -> Choice {
        if let file = try invocation.value(pem) {
            let bytes = try invocation.readSecret(file, label: "--pem", limit: 1 << 16)
            do {
                return Choice(identity: try ICIdentity(pem: try ICInput.text(bytes, label: "--pem")), name: nil, origin: .pem,
                              detail: "--pem \(file.displayName)")
            } catch let error as ICError {
                throw error.labelled("--pem", location: file.displayName)
            }
        }
        let store = ICIdentityStore.open(invocation)
        if let name = try invocation.value(identity) {
            let (origin, detail) = try chosenBy(invocation)
            let loaded: ICIdentity = name == "anonymous" ? .anonymous : try store.load(name)
            return Choice(identity: loaded, name: name, origin: origin, detail: detail)
        }
        if let name = try store.defaultName() {
            return Choice(identity: try store.load(name), name: name, origin: .defaultIdentity, detail: "the default identity")
        }
        return Choice(identity: .anonymous, name: nil, origin: .anonymous, detail: "no identity chosen")
    }

    /// Which source gave `--identity` its value (the framework's order: command line, environment, config file).
    private static func chosenBy(_ invocation: Invocation) throws -> (Origin, String) {
        if invocation.isGiven(identity) { return (.flag, "--identity") }
        if let variable = identity.spec.environment, !(invocation.environment[variable] ?? "").isEmpty {
            return (.environment, variable)
        }
        if let key = identity.spec.configKey, let entry = try invocation.configuration.value(for: key) {
            return (.config, "\(entry.key) in \(entry.file)")
        }
        return (.flag, "--identity")
    }

    /// The stored identity a command acts on: `NAME` when given, else the selection, which must then be a stored
    /// identity (`what` says what it is for: "delegate from").
    static func storedIdentity(_ invocation: Invocation, named name: String?, for what: String) throws -> (name: String, identity: ICIdentity) {
        if let name { return (name, try ICIdentityStore.open(invocation).load(name)) }
        let choice = try resolve(invocation)
        guard let chosen = choice.name, chosen != "anonymous" else {
            throw ICError(.configuration, "no identity to \(what): name one, pass --identity NAME, or set a default with "
                          + "'omni ic identity use NAME'")
        }
        return (chosen, choice.identity)
    }
}
