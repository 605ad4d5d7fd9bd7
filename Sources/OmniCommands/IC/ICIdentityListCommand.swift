import OmniCLI
import OmniCandid
import OmniCodec
import OmniIC

/// `omni ic identity list`.
enum ICIdentityListCommand {
    static let command = Command(
        "list", abstract: "List stored identities: default mark, name, type, session expiry and principal.",
        discussion: """
            Text output is a table: aligned with a header on a terminal, one tab-separated line per identity when \
            piped (columns default, name, type, expires, status, principal; '-' where a field does not apply), \
            so 'cut -f2' gives the names. status is ok, expired (a session past its expiry) or unreadable (its \
            file could not be read; the reason goes to stderr).
            """,
        examples: [
            Example("omni ic identity list --output json", "Names, types, principals, default and session expiries."),
            Example("omni ic identity list | cut -f2", "Only the names."),
        ]
    ) { invocation in
        let store = ICIdentityStore.open(invocation)
        let defaultName = try store.defaultName()
        let now = IngressExpiry.currentTime()
        var items: [JSONValue] = []
        var table = Table(columns: ["default", "name", "type", "expires", "status", "principal"])
        for name in try store.names() {
            let mark = name == defaultName ? "*" : "-"
            do {
                let identity = try store.load(name)
                var object = ICIdentityFacts.json(name: name, identity: identity, isDefault: name == defaultName)
                var expires = "-", status = "ok"
                if let chain = ICIdentityFacts.chain(of: identity), let expiration = chain.expiration {
                    ICTimeFields.add("expiration", expiration, to: &object)
                    let expired = expiration < now
                    object.append("expired", .bool(expired))
                    expires = ICTime.format(expiration)
                    if expired { status = "expired" }
                }
                items.append(.object(object))
                table.append([mark, name, identity.keyType.rawValue, expires, status, identity.principal.text])
            } catch let error as ICError {
                // One unreadable file must not hide the others.
                items.append(.object(["name": .string(name), "error": .string(error.description)]))
                table.append([mark, name, "-", "-", "unreadable", "-"])
                invocation.warn("warning: identity \(name): \(error.description)")
            }
        }
        if items.isEmpty {
            invocation.note("no identities in \(store.directory); create one with 'omni ic identity new NAME' or import dfx's "
                            + "with 'omni ic identity import NAME --dfx NAME'")
        }
        let json: JSONValue = .object([
            "directory": .string(store.directory), "default": defaultName.map { .string($0) } ?? .null,
            "identities": .array(items),
        ])
        return .output(IdentityListOutput(table: table, json: json))
    }

    struct IdentityListOutput: Renderable {
        let table: Table
        let json: JSONValue

        func text(style: TextStyle) -> String { table.rows.isEmpty ? "" : table.text(style: style) }
    }
}
