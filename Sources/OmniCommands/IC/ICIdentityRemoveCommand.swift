import OmniCLI
import OmniCandid
import OmniCodec
import OmniIC

/// `omni ic identity remove NAME [--yes]`.
enum ICIdentityRemoveCommand {
    static let name = Argument<String>("NAME", help: "The identity to delete.")
    static let yes = Flag("yes", short: "y", help: "Delete without asking (required when stdin is not a terminal).")

    static let command = Command(
        "remove", abstract: "Delete an identity and its key file (asks first; --yes to skip the question).",
        discussion: """
            The key cannot be recovered afterwards unless it was exported. On a terminal the command asks for \
            confirmation; elsewhere (scripts, pipes) it refuses without --yes (exit 2). Removing the default \
            identity leaves no default: requests become anonymous until 'omni ic identity use'.
            """,
        options: [yes], arguments: [name.spec],
        examples: [Example("omni ic identity remove old-key --yes", "Delete without a prompt.")]
    ) { invocation in
        let identityName = try invocation.argument(name) ?? ""
        let store = ICIdentityStore.open(invocation)
        try IdentityStore.validate(name: identityName)
        guard store.contains(identityName) else {
            throw ICError(.configuration, "no identity named \"\(identityName)\" in \(store.directory)")
        }
        // Reading it first shows which principal is about to go; an unreadable file may still be removed.
        let principal = (try? store.load(identityName))?.principal
        if !(try invocation.flag(yes)) {
            guard invocation.streams.stdinIsTerminal else {
                throw CLIError.usage("refusing to delete identity \"\(identityName)\" without confirmation; add --yes",
                                     commandPath: invocation.commandPath)
            }
            invocation.streams.err("Delete identity \"\(identityName)\"" + (principal.map { " (\($0.text))" } ?? "")
                                   + " and its private key? This cannot be undone. [y/N] ")
            let answer = (readLine() ?? "").trimmingWhitespace().lowercased()
            guard answer == "y" || answer == "yes" else {
                return .output(SimpleOutput(text: "not deleted", json: .object(["name": .string(identityName), "removed": false])),
                               exitCode: .failure)
            }
        }
        let wasDefault = try store.defaultName() == identityName
        try store.remove(identityName)
        if wasDefault { invocation.note("\"\(identityName)\" was the default identity; there is no default now") }
        var json = JSONObject([("name", .string(identityName)), ("removed", true)])
        json.append("principal", principal.map { .string($0.text) } ?? .null)
        json.append("was_default", .bool(wasDefault))
        return .output(SimpleOutput(text: "removed \(identityName)", json: .object(json)))
    }
}
