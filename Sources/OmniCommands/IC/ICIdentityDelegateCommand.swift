import OmniCLI
import OmniCandid
import OmniCodec
import OmniIC
import OmniSystem

/// `omni ic identity delegate [NAME] (--out-file FILE | --save NAME)`: a delegated session.
enum ICIdentityDelegateCommand {
    static let name = OptionalArgument<String>(
        "NAME", help: "The identity that delegates (the root); default: the selected one (see 'omni ic identity whoami').",
        completion: .dynamic("identities"))
    static let outFile = Option<OutputFile>("out-file", valueName: "FILE",
                                            help: "Write the session (session key and delegation chain) to FILE, mode 0600.")
    static let save = Option<String>("save", valueName: "NAME", help: "Store the session as identity NAME (usable with --identity NAME).")
    static let lifetime = DefaultedOption<Duration>("lifetime", valueName: "DURATION", help: "How long the session may sign (at most 30 days).",
                                                    default: .seconds(8 * 3600))
    static let target = RepeatedOption<Principal>("target", valueName: "CANISTER", help: "Restrict the session to this canister.")
    static let force = Flag("force", help: "Overwrite FILE or the stored identity NAME if it exists.")

    static let command = Command(
        "delegate", abstract: "Create a delegated session: a fresh key allowed to sign for an identity for a while.",
        discussion: """
            A new random Ed25519 session key is made and the root identity signs a delegation to it (interface \
            specification § Authentication) that expires after --lifetime and, with --target, covers only those \
            canisters. Requests signed with the session come from the root identity's principal. The session \
            holds no copy of the root key: hand it to a less trusted machine or process, and it stops working \
            when it expires. A session root extends its own chain (the new session cannot outlive it). Give \
            --out-file, --save, or both.
            """,
        options: [outFile, save, lifetime, target, force], arguments: [name],
        examples: [
            Example("omni ic identity delegate alice --out-file ci.session.json --lifetime 1h --target ryjl3-tyaaa-aaaaa-aaaba-cai",
                    "A one-hour session that may call only the ICP ledger."),
            Example("omni ic identity delegate --save alice-8h", "An 8-hour session of the selected identity, stored as alice-8h."),
        ]
    ) { invocation in
        let path = invocation.commandPath
        let file = try invocation.value(outFile)
        let saveName = try invocation.value(save)
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
        let root = try ICIdentitySelection.storedIdentity(invocation, named: try invocation.value(name), for: "delegate from")
        let targets = try invocation.value(target)
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
