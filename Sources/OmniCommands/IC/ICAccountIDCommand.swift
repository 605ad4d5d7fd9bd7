import OmniCLI
import OmniCandid
import OmniCodec
import OmniIC

/// `omni ic account-id [PRINCIPAL] [--subaccount …]`: the ICP ledger account identifier.
enum ICAccountIDCommand {
    static let owner = OptionalArgument<Principal>(
        "PRINCIPAL", help: "The account's owner; default: the selected identity's principal (see 'omni ic identity whoami').")
    static let subaccount = Option<Subaccount>(
        "subaccount", valueName: "INDEX|HEX",
        help: "The subaccount: a number (big-endian in the last 8 bytes), 64 hex digits, or 0x and fewer hex digits.",
        absentMeans: "the owner's default subaccount (all zeros)")
    static let subaccountPrincipal = Option<Principal>(
        "subaccount-principal", valueName: "PRINCIPAL",
        help: "Use the subaccount that names this principal (its length, its bytes, zero padding; as ic-js does).")

    static let subaccountOptions: [any OptionDeclaration] = [subaccount, subaccountPrincipal]
    static let subaccountRelations: [Relation] = [.conflicting(subaccount, subaccountPrincipal)]

    /// PRINCIPAL, or the principal of the identity the one selection gives (--identity, OMNI_IDENTITY, ic.identity,
    /// the default identity). Without any, there is no owner to take: anonymous has no account worth computing.
    static func owner(_ invocation: Invocation, _ argument: OptionalArgument<Principal>) throws -> Principal {
        if let principal = try invocation.value(argument) { return principal }
        let choice = try ICIdentitySelection.resolve(invocation)
        guard choice.origin != .anonymous else {
            throw ICError(.configuration, "no PRINCIPAL given and no identity chosen to take it from (--identity NAME, "
                          + "OMNI_IDENTITY, the config key ic.identity, or 'omni ic identity use NAME')")
        }
        invocation.note("the account of \(choice.description): \(choice.identity.principal.text)")
        return choice.identity.principal
    }

    /// The subaccount the options give, nil when neither is given.
    static func subaccount(_ invocation: Invocation) throws -> Subaccount? {
        if let given = try invocation.value(subaccount) { return given }
        return try invocation.value(subaccountPrincipal).map(Subaccount.init(principal:))
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
        options: subaccountOptions, arguments: [owner], relations: subaccountRelations,
        examples: [
            Example("omni ic account-id", "Your identity's account on the ICP ledger."),
            Example("omni ic account-id --identity cold", "The account of another stored identity."),
            Example("omni ic account-id ryjl3-tyaaa-aaaaa-aaaba-cai --subaccount 1", "Subaccount number 1 of a canister."),
        ]
    ) { invocation in
        let account = ICRC1Account(owner: try owner(invocation, owner), subaccount: try subaccount(invocation))
        return .output(SimpleOutput(text: account.accountIdentifier.hex, json: .object(facts(account))))
    }
}
