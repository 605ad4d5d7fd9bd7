import OmniCLI

/// `omni attest keys`: the operators' view of the store.
enum AttestKeysCommands {
    static var group: Command {
        Command("keys", abstract: "List, show and revoke enrolled App Attest keys.",
                subcommands: [AttestKeysListCommand.command, AttestKeysShowCommand.command, AttestKeysRevokeCommand.command])
    }

    static let keyID = Argument<Base64Bytes>("KEY_ID", help: "The key id (base64, as the app sends it).", source: .content)
}
