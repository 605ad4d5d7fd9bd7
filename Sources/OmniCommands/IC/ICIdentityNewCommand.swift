import OmniCLI
import OmniCandid
import OmniCodec
import OmniIC

/// `omni ic identity new NAME [--type …] [--use]`.
enum ICIdentityNewCommand {
    enum KeyType: String, CaseIterable, ArgumentValue {
        case ed25519, secp256k1, p256

        var icType: ICIdentity.KeyType {
            switch self {
            case .ed25519: .ed25519
            case .secp256k1: .secp256k1
            case .p256: .p256
            }
        }
    }

    static let name = Argument<String>("NAME", help: "A name for the identity (A–Z a–z 0–9 . _ -, up to 64 characters).")
    static let type = DefaultedOption<KeyType>("type", valueName: "TYPE", help: "The key type.", default: .ed25519)
    static let use = Flag("use", help: "Make it the default identity.")

    static let command = Command(
        "new", abstract: "Create an identity with a fresh random key and print its principal.",
        discussion: """
            The key is written as <name>.pem (mode 0600) in the PEM format dfx writes, so dfx and other tools can \
            use the file as is. An existing identity is never overwritten.
            """,
        options: [type, use], arguments: [name],
        examples: [
            Example("omni ic identity new alice --use", "An Ed25519 identity, made the default."),
            Example("omni ic identity new hw --type secp256k1", "A secp256k1 identity (the curve of Bitcoin and Ethereum keys)."),
        ]
    ) { invocation in
        let identityName = try invocation.value(name)
        let store = ICIdentityStore.open(invocation)
        try IdentityStore.validate(name: identityName)
        if store.contains(identityName) {
            throw ICError(.configuration, "an identity named \"\(identityName)\" already exists; choose another name or remove it first")
        }
        let identity = try ICIdentity.generate(try invocation.value(type).icType)
        try store.save(identity, as: identityName)
        if try invocation.value(use) { try store.setDefault(identityName) }
        return .output(ICIdentityFacts.report(name: identityName, identity: identity, store: store,
                                              isDefault: try store.defaultName() == identityName))
    }
}
