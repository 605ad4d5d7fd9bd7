import OmniCLI
import OmniCandid
import OmniCodec
import OmniIC

/// `omni ic identity whoami`: which identity the one selection gives, and why.
enum ICIdentityWhoamiCommand {
    static let command = Command(
        "whoami", abstract: "Show the identity commands would use now: name, principal, type, and where the choice came from.",
        discussion: """
            The choice, in order: --pem FILE, --identity NAME, $OMNI_IDENTITY, the config key ic.identity, the \
            default identity ('omni ic identity use'), else anonymous. source says which: pem, flag, env, config, \
            default or anonymous.
            """,
        options: ICIdentitySelection.options,
        relations: ICIdentitySelection.relations,
        examples: [
            Example("omni ic identity whoami", "Name, principal, type and source of the identity in use."),
            Example("OMNI_IDENTITY=ci omni ic identity whoami -o json", "source is env."),
        ]
    ) { invocation in
        let choice = try ICIdentitySelection.resolve(invocation)
        let store = ICIdentityStore.open(invocation)
        let isDefault = try choice.name != nil && choice.name == store.defaultName()
        var json = ICIdentityFacts.json(name: choice.name, identity: choice.identity, isDefault: isDefault)
        json.append("source", .string(choice.origin.rawValue))
        json.append("source_detail", .string(choice.detail))
        var report = ICReport(json: .object(json))
        report.line("name", choice.name ?? (choice.origin == .pem ? "-" : "anonymous"))
        report.line("principal", choice.identity.principal.text)
        report.line("type", choice.identity.keyType.rawValue)
        report.line("source", choice.origin.rawValue + " (\(choice.detail))")
        return .output(report)
    }
}
