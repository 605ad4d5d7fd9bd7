import OmniCLI
import OmniCandid
import OmniCodec
import OmniIC

/// `omni ic identity use NAME`.
enum ICIdentityUseCommand {
    static let name = Argument<String>("NAME", help: "The identity to sign with by default.", completion: .dynamic("identities"))

    static let command = Command(
        "use", abstract: "Make an identity the default for signing.",
        discussion: """
            The default applies when nothing else chooses: --identity, $OMNI_IDENTITY and the config key ic.identity \
            come first (see 'omni ic identity whoami').
            """,
        arguments: [name],
        examples: [Example("omni ic identity use alice", "Later commands sign as alice unless told otherwise.")]
    ) { invocation in
        let identityName = try invocation.value(name)
        let store = ICIdentityStore.open(invocation)
        let identity = try store.load(identityName)
        try store.setDefault(identityName)
        var report = ICReport(json: .object(ICIdentityFacts.json(name: identityName, identity: identity, isDefault: true)))
        report.line("default", identityName)
        report.line("principal", identity.principal.text)
        return .output(report)
    }
}
