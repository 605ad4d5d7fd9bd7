import FoundationEssentials
import OmniCLI
import OmniCandid
import OmniCodec
import OmniIC
import OmniSystem

/// `omni ic identity delegate [NAME] (--to-session FILE | --save NAME)`: a delegated session.
enum ICIdentityDelegateCommand {
    static let name = Argument<String>("NAME", help: "The identity that delegates (the root); default: the default identity.",
                                       optional: true)
    static let toSession = Option<String>("to-session", valueName: "FILE",
                                          help: "Write the session (session key and delegation chain) to FILE, mode 0600.",
                                          source: .path)
    static let save = Option<String>("save", valueName: "NAME", help: "Store the session as identity NAME (usable with --identity NAME).")
    static let lifetime = Option<Duration>("lifetime", valueName: "DURATION", help: "How long the session may sign (at most 30 days).", default: .seconds(8 * 3600),
                                           defaultDescription: "8h")
    static let target = Option<String>("target", valueName: "CANISTER", help: "Restrict the session to this canister.",
                                       repeating: true)
    static let force = Flag("force", help: "Overwrite FILE or the stored identity NAME if it exists.")

    static let command = Command(
        "delegate", abstract: "Create a delegated session: a fresh key allowed to sign for an identity for a while.",
        discussion: """
            A new random Ed25519 session key is made and the root identity signs a delegation to it (interface \
            specification § Authentication) that expires after --lifetime and, with --target, covers only those \
            canisters. Requests signed with the session come from the root identity's principal. The session \
            holds no copy of the root key: hand it to a less trusted machine or process, and it stops working \
            when it expires. A session root extends its own chain (the new session cannot outlive it).
            """,
        options: [toSession, save, lifetime, target, force], arguments: [name.spec],
        examples: [
            Example("omni ic identity delegate alice --to-session ci.session.json --lifetime 1h --target ryjl3-tyaaa-aaaaa-aaaba-cai",
                    "A one-hour session that may call only the ICP ledger."),
            Example("omni ic identity delegate --save alice-8h", "An 8-hour session of the default identity, stored as alice-8h."),
        ]
    ) { invocation in
        let path = invocation.commandPath
        let file = try invocation.value(toSession)
        let saveName = try invocation.value(save)
        guard file != nil || saveName != nil else {
            throw CLIError.usage("say where the session goes: --to-session FILE and/or --save NAME", commandPath: path)
        }
        let overwrite = try invocation.flag(force)
        let store = ICIdentityStore.open(invocation)
        if let saveName {
            try IdentityStore.validate(name: saveName)
            if !overwrite && store.contains(saveName) {
                throw ICError(.configuration, "an identity named \"\(saveName)\" already exists; add --force to replace it")
            }
        }
        if let file, !overwrite, FileManager.default.fileExists(atPath: file) {
            throw CLIError.usage("\(file) exists; add --force to overwrite it", commandPath: path)
        }
        guard let rootName = try invocation.argument(name) ?? (try store.defaultName()) else {
            throw ICError(.configuration, "no default identity; name the identity that delegates")
        }
        let root = try store.load(rootName)
        let targets = try invocation.values(target).map { try ICInput.principal($0, label: "--target") }
        let duration = try invocation.value(lifetime) ?? .seconds(8 * 3600)
        let session = try DelegatedSession.create(root: root, lifetime: ICInput.nanoseconds(duration),
                                                  targets: targets.isEmpty ? nil : targets)
        if let file {
            var bytes = Array(try session.sessionFileJSON().serialized(pretty: true).utf8) + [0x0a]
            defer { for index in bytes.indices { bytes[index] = 0 } }
            try AtomicFile.write(bytes, to: file, mode: 0o600, createDirectories: true)
        }
        if let saveName { try store.save(ICIdentity(session: session), as: saveName, overwrite: overwrite) }

        var json = JSONObject()
        json.append("root", .string(rootName))
        json.append("principal", .string(session.principal.text))
        json.append("session_public_key", .string(Hex.encode(session.chain.sessionPublicKey)))
        ICTimeFields.add("expiration", session.expiration, to: &json)
        json.append("targets", targets.isEmpty ? .null : .array(targets.map { .string($0.text) }))
        json.append("file", file.map { .string($0) } ?? .null)
        json.append("saved_as", saveName.map { .string($0) } ?? .null)
        json.append("delegation_chain", session.chain.json)
        var report = ICReport(json: .object(json))
        report.line("principal", session.principal.text + " (as \(rootName))")
        report.line("expires", ICTime.format(session.expiration))
        report.line("targets", targets.isEmpty ? "any canister" : targets.map(\.text).joined(separator: ", "))
        if let file { report.line("session file", file) }
        if let saveName { report.line("stored as", saveName + " (use --identity \(saveName))") }
        return .output(report)
    }
}
