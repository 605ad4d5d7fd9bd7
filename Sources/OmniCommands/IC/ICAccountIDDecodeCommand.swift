import OmniCLI
import OmniCandid
import OmniCodec
import OmniIC

/// `omni ic account decode TEXT`: an ICRC-1 textual account (or an ICP account identifier) checked and explained.
enum ICAccountIDDecodeCommand {
    static let text = Argument<String>("TEXT", help: "An ICRC-1 account (OWNER or OWNER-CHECKSUM.SUBACCOUNT) or a 64-hex-digit ICP account identifier.",
                                       source: .content)

    static let command = Command(
        "decode", abstract: "Check an ICRC-1 account text (or an ICP account identifier's checksum) and show its parts.",
        discussion: """
            Only the canonical text is accepted: a wrong or missing checksum, leading zeros in the subaccount, \
            or a written-out default subaccount exit 3 with the reason. A 64-hex-digit ICP account identifier \
            is checked against its CRC-32; it cannot be decoded further (it is a hash).
            """,
        arguments: [text],
        examples: [Example("omni ic account decode k2t6j-2nvnp-4zjm3-25dtz-6xhaa-c7boj-5gayf-oj3xs-i43lp-teztq-6ae-dfxgiyy.102030405060708090a0b0c0d0e0f101112131415161718191a1b1c1d1e1f20",
                           "Owner, subaccount and account identifier.")]
    ) { invocation in
        let input = try invocation.value(text)
        if input.utf8.count == 64, input.utf8.allSatisfy({ $0.isHexDigitASCII }) {
            let identifier = try AccountIdentifier(hex: input)
            var report = ICReport(json: .object([
                "kind": "account_identifier", "account_identifier": .string(identifier.hex), "checksum_valid": true,
            ]))
            report.line("account identifier", identifier.hex)
            report.line("checksum", "valid (an ICP account identifier; the owner cannot be recovered from it)")
            return .output(report)
        }
        let account: ICRC1Account
        do throws(ICError) { account = try ICRC1Account(text: input) } catch {
            throw ICError(error.kind, "TEXT: \(error.message)")
        }
        var json = JSONObject([("kind", "icrc1_account")])
        for (key, value) in ICAccountIDCommand.facts(account) { json.append(key, value) }
        let subaccount = account.subaccount ?? .default
        if subaccount.bytes.prefix(24).allSatisfy({ $0 == 0 }) {
            let index = subaccount.bytes.suffix(8).reduce(UInt64(0)) { $0 << 8 | UInt64($1) }
            json.append("subaccount_index", .string(String(index)))
        }
        var report = ICReport(json: .object(json))
        report.line("account", account.text)
        report.line("owner", account.owner.text)
        report.line("subaccount", subaccount.isDefault ? "default (all zeros)" : subaccount.hex)
        report.line("account identifier", account.accountIdentifier.hex)
        return .output(report)
    }
}
