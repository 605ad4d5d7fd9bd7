import OmniCLI
import OmniCandid
import OmniCodec
import OmniIC

/// `omni ic identity remove NAME [--yes]`.
enum ICIdentityRemoveCommand {
    static let name = Argument<String>("NAME", help: "The identity to delete.", completion: .dynamic("identities"))
    static let yes = Flag("yes", short: "y", help: "Delete without asking (required when stdin is not a terminal).")

    static let command = Command(
        "remove", abstract: "Delete an identity and its key file (asks first; --yes to skip the question).",
        discussion: """
            The key cannot be recovered afterwards unless it was exported. On a terminal the command asks for \
            confirmation; elsewhere (scripts, pipes) it refuses without --yes (exit 2). Removing the default \
            identity leaves no default: requests become anonymous until 'omni ic identity use'. The output says \
            which identity is the default afterwards, or that none is.
            """,
        options: [yes], arguments: [name],
        examples: [Example("omni ic identity remove old-key --yes", "Delete without a prompt.")]
    ) { invocation in
        let identityName = try invocation.value(name)
        let store = ICIdentityStore.open(invocation)
        try IdentityStore.validate(name: identityName)
        guard store.contains(identityName) else {
            throw ICError(.configuration, "no identity named \"\(identityName)\" in \(store.directory)")
        }
        // Reading it first shows which principal is about to go; an unreadable file may still be removed.
        let principal = (try? store.load(identityName))?.principal
        if !(try invocation.value(yes)) {
            let question = "Delete identity \"\(identityName)\"" + (principal.map { " (\($0.text))" } ?? "")
                + " and its private key? This cannot be undone."
            guard try invocation.confirm(question, override: yes) else {
                return .output(SimpleOutput(text: "not deleted", json: .object(["name": .string(identityName), "removed": false])),
                               exitCode: .failure)
            }
        }
        let wasDefault = try store.defaultName() == identityName
        try store.remove(identityName)
        let defaultNow = try store.defaultName()
        var json = JSONObject([("name", .string(identityName)), ("removed", true)])
        json.append("principal", principal.map { .string($0.text) } ?? .null)
        json.append("was_default", .bool(wasDefault))
        json.append("default", defaultNow.map { .string($0) } ?? .null)
        var report = ICReport(json: .object(json))
        report.line("removed", identityName)
        if let defaultNow {
            report.line("default", defaultNow)
        } else {
            report.line("default", "none: requests are anonymous until 'omni ic identity use NAME'")
        }
        return .output(report)
    }
}
