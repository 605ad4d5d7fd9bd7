import OmniCLI
import OmniCandid
import OmniCodec
import OmniIC
import OmniSystem

/// `omni ic identity delegate [NAME] (--out-file FILE | --save NAME)`: a delegated session; `delegate NAME --from-seed
/// FILE`: a session of the key in FILE, stored as NAME.
enum ICIdentityDelegateCommand {
    static let name = OptionalArgument<String>(
        "NAME", help: "The identity that delegates (the root); default: the selected one (see 'omni ic identity whoami'). "
            + "With --from-seed the root is the seed, and NAME is where the session is stored (as --save NAME).",
        completion: .dynamic("identities"))
    static let fromSeed = Option<InputFile>(
        "from-seed", valueName: "FILE",
        help: "Delegate from this Ed25519 secret instead of a stored identity: the 32-byte seed, 64 hex digits, or a PKCS#8 "
            + "key (PEM or DER); readable by its owner only; - for stdin. It is used once and never stored.",
        group: "Root")
    static let outFile = Option<OutputFile>("out-file", valueName: "FILE",
                                            help: "Write the session (session key and delegation chain) to FILE, mode 0600.")
    static let save = Option<String>("save", valueName: "NAME", help: "Store the session as identity NAME (usable with --identity NAME).")
    static let lifetime = DefaultedOption<Duration>("lifetime", valueName: "DURATION", help: "How long the session may sign (at most 30 days).",
                                                    default: .seconds(8 * 3600))
    static let target = RepeatedOption<PrincipalList>("target", valueName: "CANISTER",
                                                      help: "Restrict the session to these canisters; commas separate several.")
    static let force = Flag("force", help: "Overwrite FILE or the stored identity NAME if it exists.")

    static let command = Command(
        "delegate", abstract: "Create a delegated session: a fresh key allowed to sign for an identity for a while.",
        discussion: """
            A new random Ed25519 session key is made and the root identity signs a delegation to it (interface \
            specification § Authentication) that expires after --lifetime and, with --target, covers only those \
            canisters. Requests signed with the session come from the root identity's principal. The session \
            holds no copy of the root key: hand it to a less trusted machine or process, and it stops working \
            when it expires. A session root extends its own chain (the new session cannot outlive it). Give \
            --out-file, --save, or both. \
            With --from-seed FILE the root is an Ed25519 secret kept outside omni (a raw 32-byte seed, its hex, or \
            a PKCS#8 key in PEM or DER, mode 0600): each run makes a fresh session key and signs one delegation \
            with the secret, which is then wiped from memory; only the session is stored (as NAME, or --save \
            NAME), never the secret.
            """,
        options: [fromSeed, outFile, save, lifetime, target, force], arguments: [name],
        relations: [.conflicting(fromSeed, ICIdentitySelection.identity)],
        examples: [
            Example("omni ic identity delegate alice --out-file ci.session.json --lifetime 1h --target ryjl3-tyaaa-aaaaa-aaaba-cai",
                    "A one-hour session that may call only the ICP ledger."),
            Example("omni ic identity delegate --save alice-8h", "An 8-hour session of the selected identity, stored as alice-8h."),
            Example("omni ic identity delegate ci --from-seed ~/.secrets/root.seed --lifetime 1h --force",
                    "A fresh one-hour session of a seed kept outside omni, replacing the stored session ci."),
        ]
    ) { invocation in
        let path = invocation.commandPath
        let file = try invocation.value(outFile)
        let seedFile = try invocation.value(fromSeed)
        let given = try invocation.value(name)
        var saveName = try invocation.value(save)
        if seedFile != nil, let given {
            // The seed is the root, so NAME can only name the session.
            if let saveName, saveName != given {
                throw CLIError.usage("with --from-seed, NAME is where the session is stored; give NAME or --save \(saveName), not both",
                                     commandPath: path)
            }
            saveName = given
        }
        guard file != nil || saveName != nil else {
            throw CLIError.usage("say where the session goes: --out-file FILE and/or --save NAME", commandPath: path)
        }
        let overwrite = try invocation.value(force)
        let store = ICIdentityStore.open(invocation)
        if let saveName {
            try IdentityStore.validate(name: saveName)
            if !overwrite && store.contains(saveName) {
                throw ICError(.configuration, "an identity named \"\(saveName)\" already exists; add --force to replace it")
            }
        }
        if case .path(let target)? = file, !overwrite, LocalFile.exists(FileInput.expandingTilde(target)) {
            throw CLIError.usage("\(target) exists; add --force to overwrite it", commandPath: path)
        }
        let root: (name: String, identity: ICIdentity)
        if let seedFile {
            var secret = try invocation.readSecret(seedFile, label: "--from-seed", limit: 1 << 14)
            defer { for index in secret.indices { secret[index] = 0 } }
            do throws(ICError) {
                root = ("seed " + seedFile.displayName, try ICIdentity(ed25519Secret: secret))
            } catch {
                throw error.labelled("--from-seed", location: seedFile.displayName)
            }
        } else {
            root = try ICIdentitySelection.storedIdentity(invocation, named: given, for: "delegate from")
        }
        let targets = try invocation.value(target).flatMap(\.principals)
        let session = try DelegatedSession.create(root: root.identity, lifetime: try invocation.value(lifetime).nanosecondsValue,
                                                  targets: targets.isEmpty ? nil : targets)
        if let file {
            var bytes = Array(try session.sessionFileJSON().serialized(pretty: true).utf8) + [0x0a]
            defer { for index in bytes.indices { bytes[index] = 0 } }
            try invocation.write(bytes, to: file, label: "--out-file", mode: 0o600)
        }
        if let saveName { try store.save(ICIdentity(session: session), as: saveName, overwrite: overwrite) }

        var json = JSONObject()
        json.append("root", .string(root.name))
        json.append("from_seed", .bool(seedFile != nil))
        json.append("principal", .string(session.principal.text))
        json.append("session_public_key", .string(Hex.encode(session.chain.sessionPublicKey)))
        ICTimeFields.add("expiration", session.expiration, to: &json)
        json.append("targets", targets.isEmpty ? .null : .array(targets.map { .string($0.text) }))
        json.append("file", file.map { .string($0.displayName) } ?? .null)
        json.append("saved_as", saveName.map { .string($0) } ?? .null)
        json.append("delegation_chain", session.chain.json)
        var report = ICReport(json: .object(json))
        report.line("principal", session.principal.text + " (as \(root.name))")
        report.line("expires", ICTime.format(session.expiration))
        report.line("targets", targets.isEmpty ? "any canister" : targets.map(\.text).joined(separator: ", "))
        if let file { report.line("session file", file.displayName) }
        if let saveName { report.line("stored as", saveName + " (use --identity \(saveName))") }
        guard file != .standardOutput else {
            // stdout holds the session file: the summary is for people, on stderr.
            invocation.note(report.text(style: invocation.stderrStyle))
            return .success
        }
        return .output(report)
    }
}
