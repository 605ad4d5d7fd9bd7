import OmniCLI
import OmniCandid
import OmniCodec
import OmniIC

/// `omni ic identity principal [NAME]` (whoami).
enum ICIdentityPrincipalCommand {
    static let name = Argument<String>("NAME", help: "The identity; default: the default identity.", optional: true)

    static let command = Command(
        "principal", abstract: "Print the principal an identity signs as (the default identity's when no NAME is given).",
        discussion: "Without a default identity, requests are anonymous: this prints 2vxsx-fae and says so on stderr.",
        arguments: [name.spec],
        examples: [Example("omni ic identity principal", "Who am I?")]
    ) { invocation in
        let store = ICIdentityStore.open(invocation)
        let chosen = try invocation.argument(name) ?? (try store.defaultName())
        let identity: ICIdentity
        if let chosen {
            identity = try store.load(chosen)
        } else {
            invocation.note("no default identity: requests are anonymous (create one with 'omni ic identity new NAME --use')")
            identity = .anonymous
        }
        let json = ICIdentityFacts.json(name: chosen, identity: identity, isDefault: try chosen != nil && chosen == store.defaultName())
        return .output(SimpleOutput(text: identity.principal.text, json: .object(json)))
    }
}
