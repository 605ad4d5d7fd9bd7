import OmniCLI
import OmniCandid
import OmniCodec
import OmniIC

/// `omni ic account encode PRINCIPAL [--subaccount …]`: the ICRC-1 textual account.
enum ICAccountIDEncodeCommand {
    static let owner = OptionalArgument<Principal>(
        "PRINCIPAL", help: "The account's owner; default: the selected identity's principal (see 'omni ic identity whoami').")

    static let command = Command(
        "encode", abstract: "The ICRC-1 text of an account: OWNER, or OWNER-CHECKSUM.SUBACCOUNT.",
        discussion: """
            The default subaccount is left out (the text is the owner alone). Otherwise the text is the owner, a \
            dash, a base32 CRC-32 of owner and subaccount, a dot, and the subaccount in hex without leading \
            zeros (ICRC-1 TextualEncoding). The ICP account identifier of the same account is in the JSON output.
            """,
        options: ICAccountIDCommand.subaccountOptions, arguments: [owner], relations: ICAccountIDCommand.subaccountRelations,
        examples: [Example("omni ic account encode k2t6j-2nvnp-4zjm3-25dtz-6xhaa-c7boj-5gayf-oj3xs-i43lp-teztq-6ae --subaccount 0x0102",
                           "Prints the account's ICRC-1 text.")]
    ) { invocation in
        let account = ICRC1Account(owner: try ICAccountIDCommand.owner(invocation, owner),
                                   subaccount: try ICAccountIDCommand.subaccount(invocation))
        return .output(SimpleOutput(text: account.text, json: .object(ICAccountIDCommand.facts(account))))
    }
}
