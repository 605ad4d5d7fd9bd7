import OmniCLI
import OmniCandid
import OmniCodec
import OmniIC

/// `omni ic identity export NAME --show-private-key`.
enum ICIdentityExportCommand {
    static let name = Argument<String>("NAME", help: "The identity to export.", completion: .dynamic("identities"))
    static let showPrivateKey = Flag("show-private-key", help: "Required: print the private key (or the session file with its session key).")

    static let command = Command(
        "export", abstract: "Print an identity's private key as PEM (only with --show-private-key).",
        discussion: """
            Anyone holding the printed key can act as the identity's principal. Without --show-private-key the \
            command refuses (exit 2). A key prints as the PEM dfx writes, so 'dfx identity import' takes it; a \
            delegated session prints its session file (session key and delegation chain).
            """,
        options: [showPrivateKey], arguments: [name],
        examples: [Example("omni ic identity export alice --show-private-key > alice.pem", "Back up a key (keep the file private).")]
    ) { invocation in
        let identityName = try invocation.value(name)
        guard try invocation.value(showPrivateKey) else {
            throw CLIError.usage("export prints the private key of \"\(identityName)\"; add --show-private-key if that is what you want",
                                 commandPath: invocation.commandPath)
        }
        let store = ICIdentityStore.open(invocation)
        let identity = try store.load(identityName)
        var json = ICIdentityFacts.json(name: identityName, identity: identity, isDefault: try store.defaultName() == identityName)
        let text: String
        if let session = identity.delegatedSession {
            let sessionFile = try session.sessionFileJSON()
            json.append("session_file", sessionFile)
            text = sessionFile.serialized(pretty: true)
        } else {
            let pem = try identity.exportPrivateKeyPEM()
            json.append("private_key_pem", .string(pem))
            text = pem.hasSuffix("\n") ? String(pem.dropLast()) : pem
        }
        invocation.note("this is the private key of \(identity.principal.text): keep it secret")
        return .output(SimpleOutput(text: text, json: .object(json)))
    }
}
