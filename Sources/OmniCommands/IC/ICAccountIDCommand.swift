import OmniCLI
import OmniCandid
import OmniCodec
import OmniIC

/// `omni ic account-id PRINCIPAL [--subaccount …]`: the ICP ledger account identifier.
enum ICAccountIDCommand {
    static let owner = Argument<String>("PRINCIPAL", help: "The account's owner; default: the default identity's principal.",
                                        optional: true)

    /// PRINCIPAL, or the default identity's principal when it is omitted.
    static func owner(_ invocation: Invocation, _ argument: Argument<String>) throws -> Principal {
        if let text = try invocation.argument(argument) { return try ICInput.principal(text, label: "PRINCIPAL") }
        let store = ICIdentityStore.open(invocation)
        guard let name = try store.defaultName() else {
            throw ICError(.configuration, "no PRINCIPAL given and no default identity to take it from")
        }
        let principal = try store.load(name).principal
        invocation.note("the account of identity \(name) (\(principal.text))")
        return principal
    }
    static let subaccount = Option<String>(
        "subaccount", valueName: "INDEX|HEX",
        help: "The subaccount: a number (big-endian in the last 8 bytes), 64 hex digits, or 0x and fewer hex digits; "
            + "default: the owner's default subaccount (all zeros).")
    static let subaccountPrincipal = Option<String>(
        "subaccount-principal", valueName: "PRINCIPAL",
        help: "Use the subaccount that names this principal (its length, its bytes, zero padding; as ic-js does).")

    static let subaccountOptions: [any OptionDeclaration] = [subaccount, subaccountPrincipal]

    /// The subaccount the options give, nil when neither is given.
    static func subaccount(_ invocation: Invocation) throws -> Subaccount? {
        if invocation.isGiven(subaccount) && invocation.isGiven(subaccountPrincipal) {
            throw CLIError.usage("--subaccount and --subaccount-principal cannot be combined", commandPath: invocation.commandPath)
        }
        if let text = try invocation.value(subaccount) { return try ICInput.subaccount(text, label: "--subaccount") }
        if let text = try invocation.value(subaccountPrincipal) {
            return Subaccount(principal: try ICInput.principal(text, label: "--subaccount-principal"))
        }
        return nil
    }

    /// The facts of an (owner, subaccount) pair, in both account forms.
    static func facts(_ account: ICRC1Account) -> JSONObject {
        var object = JSONObject()
        object.append("account_identifier", .string(account.accountIdentifier.hex))
        object.append("icrc1_account", .string(account.text))
        object.append("owner", .string(account.owner.text))
        let subaccount = account.subaccount ?? .default
        object.append("subaccount", .string(subaccount.hex))
        object.append("default_subaccount", .bool(subaccount.isDefault))
        return object
    }

    static let command = Command(
        "account-id", abstract: "The ICP ledger account identifier (64 hex digits) of a principal and subaccount.",
        discussion: """
            account identifier = CRC-32 ‖ SHA-224(0x0A "account-id" ‖ owner ‖ subaccount), as the ICP ledger, dfx \
            and wallets compute it. ICRC-1 ledgers name accounts by text instead: see 'omni ic account encode'.
            """,
        options: subaccountOptions, arguments: [owner.spec],
        examples: [
            Example("omni ic account-id", "Your default identity's account on the ICP ledger."),
            Example("omni ic account-id ryjl3-tyaaa-aaaaa-aaaba-cai --subaccount 1", "Subaccount number 1 of a canister."),
        ]
    ) { invocation in
        let account = ICRC1Account(owner: try owner(invocation, owner), subaccount: try subaccount(invocation))
        return .output(SimpleOutput(text: account.accountIdentifier.hex, json: .object(facts(account))))
    }
}
