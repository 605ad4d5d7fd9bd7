import OmniCLI
import OmniCandid
import OmniCodec
import OmniIC

/// `omni ic identity principal [NAME]`.
enum ICIdentityPrincipalCommand {
    static let name = OptionalArgument<String>(
        "NAME", help: "The identity; default: the selected one (see 'omni ic identity whoami').", completion: .dynamic("identities"))

    static let command = Command(
        "principal", abstract: "Print the principal an identity signs as (the selected identity's when no NAME is given).",
        discussion: "When no identity is chosen, requests are anonymous: this prints 2vxsx-fae and says so on stderr.",
        arguments: [name],
        examples: [
            Example("omni ic identity principal", "Who am I?"),
            Example("omni ic identity principal alice", "The principal of a stored identity."),
        ]
    ) { invocation in
        let store = ICIdentityStore.open(invocation)
        let chosen: (name: String?, identity: ICIdentity)
        if let given = try invocation.value(name) {
            chosen = (given, try store.load(given))
        } else {
            let choice = try ICIdentitySelection.resolve(invocation)
            if choice.origin == .anonymous {
                invocation.note("no identity chosen: requests are anonymous (create one with 'omni ic identity new NAME --use')")
            }
            chosen = (choice.name, choice.identity)
        }
        let isDefault = try chosen.name != nil && chosen.name == store.defaultName()
        let json = ICIdentityFacts.json(name: chosen.name, identity: chosen.identity, isDefault: isDefault)
        return .output(SimpleOutput(text: chosen.identity.principal.text, json: .object(json)))
    }
}
