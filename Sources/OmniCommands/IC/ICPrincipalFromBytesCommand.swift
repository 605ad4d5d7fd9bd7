import OmniCLI
import OmniCandid
import OmniCodec
import OmniIC

/// `omni ic principal from-bytes HEX`.
enum ICPrincipalFromBytesCommand {
    static let bytes = Argument<HexBytes>("HEX", help: "The principal's bytes as hex (0 to 29 bytes; empty is aaaaa-aa).",
                                          source: .content)

    static let command = Command(
        "from-bytes", abstract: "The text of a principal given as bytes.",
        arguments: [bytes],
        examples: [Example("omni ic principal from-bytes 00000000000000020101", "Prints ryjl3-tyaaa-aaaaa-aaaba-cai.")]
    ) { invocation in
        let principal = try Principal.fromBytes(try invocation.value(bytes).bytes)
        return .output(SimpleOutput(text: principal.text, json: .object(ICPrincipalFacts.json(principal))))
    }
}
