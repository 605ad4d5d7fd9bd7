import OmniCLI
import OmniCandid
import OmniCodec
import OmniIC

/// `omni ic identity list`.
enum ICIdentityListCommand {
    static let command = Command(
        "list", abstract: "List stored identities with their types and principals (the default is marked *).",
        examples: [Example("omni ic identity list --output json", "Names, types, principals, default and session expiries.")]
    ) { invocation in
        let store = ICIdentityStore.open(invocation)
        let defaultName = try store.defaultName()
        var items: [JSONValue] = []
        var rows: [[String]] = []
        for name in try store.names() {
            do {
                let identity = try store.load(name)
                var object = ICIdentityFacts.json(name: name, identity: identity, isDefault: name == defaultName)
                var typeText = identity.keyType.rawValue
                if let chain = ICIdentityShowCommand.chain(of: identity), let expiration = chain.expiration {
                    ICTimeFields.add("expiration", expiration, to: &object)
                    let expired = expiration < IngressExpiry.currentTime()
                    object.append("expired", .bool(expired))
                    typeText += expired ? " (expired)" : " (until \(ICTime.format(expiration).prefix(16))Z)"
                }
                items.append(.object(object))
                rows.append([name == defaultName ? "*" : " ", name, typeText, identity.principal.text])
            } catch let error as ICError {
                // One unreadable file must not hide the others.
                items.append(.object(["name": .string(name), "error": .string(error.description)]))
                rows.append([name == defaultName ? "*" : " ", name, "unreadable", error.message])
            }
        }
        let json: JSONValue = .object([
            "directory": .string(store.directory), "default": defaultName.map { .string($0) } ?? .null,
            "identities": .array(items),
        ])
        let text: String
        if rows.isEmpty {
            text = "no identities in \(store.directory); create one with 'omni ic identity new NAME' or import dfx's with 'omni ic identity import NAME --dfx NAME'"
        } else {
            let widths = (0..<3).map { column in rows.map { $0[column].count }.max() ?? 0 }
            text = rows.map { row in
                (0..<3).map { row[$0] + String(repeating: " ", count: widths[$0] - row[$0].count) }.joined(separator: " ") + "  " + row[3]
            }.joined(separator: "\n")
        }
        return .output(SimpleOutput(text: text, json: json))
    }
}
