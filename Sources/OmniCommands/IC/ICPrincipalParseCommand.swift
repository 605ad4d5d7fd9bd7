import OmniCLI
import OmniCandid
import OmniCodec
import OmniIC

/// `omni ic principal parse TEXT`: check a principal's text and show what it is.
enum ICPrincipalParseCommand {
    static let text = Argument<String>("TEXT", help: "The principal in text form, e.g. ryjl3-tyaaa-aaaaa-aaaba-cai (any letter case).",
                                       source: .content)

    static let command = Command(
        "parse", abstract: "Check a principal's text; print its class, bytes and canonical text.",
        discussion: """
            The text is checked as the interface specification defines it: base32 groups of five separated by \
            dashes, a CRC-32 checksum over the bytes, at most 29 bytes, canonical padding. Letter case does not \
            matter; the canonical text is lowercase. Invalid text exits 3 and the message names the rule it \
            breaks (rule: invalid_character, dash_position, too_short, too_long, checksum or not_canonical).
            Classes: management (aaaaa-aa), opaque (canister and subnet ids), self_authenticating (users and \
            nodes: SHA-224 of a public key, then 02), derived, anonymous (2vxsx-fae), reserved, unassigned.
            """,
        arguments: [text],
        examples: [
            Example("omni ic principal parse ryjl3-tyaaa-aaaaa-aaaba-cai", "The ICP ledger: an opaque canister id."),
            Example("omni ic principal parse 0aaaa-aa", "Exits 3: the checksum is wrong (rule: checksum)."),
        ]
    ) { invocation in
        let trimmed = try invocation.value(text)
        guard let principal = Principal(argument: trimmed) else {
            throw ICError(.malformed, "TEXT: \(Principal.problem(with: trimmed) ?? "not a principal")")
        }
        var json = ICPrincipalFacts.json(principal)
        json.append("input_is_canonical", .bool(trimmed == principal.text))
        var report = ICReport(json: .object(json))
        report.line("principal", principal.text)
        report.line("class", principal.principalClass.rawValue)
        report.line("bytes", principal.bytes.isEmpty ? "(none)" : Hex.encode(principal.bytes))
        report.line("length", "\(principal.bytes.count) byte\(principal.bytes.count == 1 ? "" : "s")")
        if trimmed != principal.text { report.line("note", "the canonical spelling is lowercase") }
        return .output(report)
    }
}
