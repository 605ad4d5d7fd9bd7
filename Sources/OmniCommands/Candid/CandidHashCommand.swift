import OmniCLI
import OmniCandid
import OmniCodec

/// `omni candid hash`: the field-id hash of names.
enum CandidHashCommand {
    static let names = VariadicArgument<String>("NAME", help: "Field or variant case names.")

    static let command = Command(
        "hash", abstract: "Print the Candid field id of a name (the hash records and variants use on the wire).",
        discussion: """
            The id is sum(utf8[i] * 223^(n-1-i)) mod 2^32 over the name's UTF-8 bytes. Useful to read messages \
            decoded without types, whose fields show as numbers. With several names, prints 'ID NAME' per line.
            """,
        arguments: [names],
        examples: [
            Example("omni candid hash foo", "Prints 5097222."),
            Example("omni candid hash owner subaccount --output json", "Both ids as JSON."),
        ]
    ) { invocation in
        let words = try invocation.value(names)
        guard !words.isEmpty else { throw CLIError.usage("missing argument <name>", commandPath: invocation.commandPath) }
        return .output(Hashes(entries: words.map { ($0, Candid.hash($0)) }))
    }

    struct Hashes: Renderable {
        let entries: [(name: String, id: UInt32)]

        func text(style: TextStyle) -> String {
            if entries.count == 1 { return String(entries[0].id) }
            return entries.map { "\($0.id) \($0.name)" }.joined(separator: "\n")
        }

        /// Always an array, one object per name, so scripts see one shape.
        var json: JSONValue {
            .array(entries.map { .object(["name": .string($0.name), "id": .int($0.id)]) })
        }
    }
}
