import OmniAttest
import OmniCLI
import OmniCodec

enum AttestKeysListCommand {
    static let command = Command(
        "list", abstract: "List enrolled keys, oldest first.",
        options: [AttestOptions.store],
        examples: [Example("omni attest keys list --store attest.db --output json", "{\"keys\":[{\"key_id\":…,\"counter\":…},…]}")]
    ) { invocation in
        .output(KeyListOutput(keys: try AttestOptions.openStore(invocation).keys()))
    }
}

struct KeyListOutput: Renderable {
    let keys: [EnrolledKey]

    var json: JSONValue { .object(["keys": .array(keys.map(\.json))]) }

    func text(style: TextStyle) -> String {
        guard !keys.isEmpty else { return style.dim("no keys enrolled") }
        var table = Table(columns: ["key_id", "status", "environment", "counter", "app_id", "enrolled_at", "last_used_at"])
        for key in keys {
            table.append([AttestBase64.encode(key.keyID), key.revokedAt == nil ? "active" : "revoked", key.environment.rawValue,
                          String(key.counter), key.appID, AttestTime.format(key.enrolledAt),
                          key.lastUsedAt.map(AttestTime.format) ?? "-"])
        }
        return table.text(style: style)
    }
}

/// One key in full.
struct KeyOutput: Renderable {
    let key: EnrolledKey
    var note: String?

    var json: JSONValue { key.json }

    func text(style: TextStyle) -> String {
        var list = FieldList()
        for (name, value) in key.json.objectValue ?? JSONObject() {
            if name == "public_key" {
                list.add("public_key", value["x962"] ?? .null, label: "public key")
            } else {
                list.add(name, value)
            }
        }
        return (note.map { $0 + "\n" } ?? "") + list.text(style: style)
    }
}
