import OmniCLI
import OmniCandid
import OmniCodec
import OmniIC

/// `omni ic principal anonymous` and `omni ic principal management`: the two principals with fixed texts.
enum ICPrincipalWellKnownCommand {
    static let anonymous = Command(
        "anonymous", abstract: "The anonymous principal 2vxsx-fae (the sender of unsigned requests).",
        examples: [Example("omni ic principal anonymous", "Prints 2vxsx-fae.")]
    ) { _ in
        .output(SimpleOutput(text: Principal.anonymous.text, json: .object(ICPrincipalFacts.json(.anonymous))))
    }

    static let management = Command(
        "management", abstract: "The management canister aaaaa-aa (the empty principal).",
        examples: [Example("omni ic principal management", "Prints aaaaa-aa.")]
    ) { _ in
        .output(SimpleOutput(text: Principal.managementCanister.text, json: .object(ICPrincipalFacts.json(.managementCanister))))
    }
}
