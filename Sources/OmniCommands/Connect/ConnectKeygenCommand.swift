import FoundationEssentials
import OmniCLI
import OmniCodec
import OmniConnect
import OmniCrypto
import OmniSystem

extension ConnectTokenTransport: ArgumentValue {}

enum ConnectKeygenCommand {
    static let ed25519 = Flag("ed25519", help: "Make an Ed25519 account key (for a wallet) instead of an X25519 session key.")
    static let out = Option<String>("out", short: "o", valueName: "FILE", help: "Write the private key here (PKCS#8 PEM, mode 0600).",
                                    source: .path)
    static let force = Flag("force", help: "Overwrite FILE if it exists.")

    static let command = Command(
        "keygen", abstract: "Make an X25519 session key or an Ed25519 account key.",
        discussion: """
        Without --out only the public half is printed (the private key appears only with --show-secrets). Ed25519 \
        keys also print their I105 account id (sora sentinel), which the headless wallet approves with.
        """,
        options: [ed25519, out, force, ConnectCommands.showSecrets],
        examples: [Example("omni connect keygen --ed25519 --out account.pem", "An account key for 'omni connect wallet'."),
                   Example("omni connect keygen --out app.pem --output json", "An X25519 key for 'omni connect app --app-key'.")]
    ) { invocation in
        let show = try invocation.flag(ConnectCommands.showSecrets)
        let path = try invocation.value(out)
        if let path, !(try invocation.flag(force)), FileManager.default.fileExists(atPath: path) {
            throw CLIError.usage("\(path) exists; pass --force to overwrite it", commandPath: invocation.commandPath)
        }
        var list = FieldList()
        let pem: String
        if try invocation.flag(ed25519) {
            let key = Ed25519.PrivateKey()
            pem = key.pemRepresentation
            list.add("algorithm", "ed25519")
            list.add("public_key", .string(ConnectText.hex(key.publicKey.rawRepresentation)))
            list.add("account_id", .string(try IrohaAccountID(ed25519PublicKey: key.publicKey.rawRepresentation).literal))
        } else {
            let key = X25519.PrivateKey()
            pem = ConnectKeyFile.pem(key)
            list.add("algorithm", "x25519")
            list.add("public_key", .string(ConnectText.hex(key.publicKey.rawRepresentation)))
            list.add("public_key_base64url", .string(ConnectText.base64URL(key.publicKey.rawRepresentation)))
        }
        if let path {
            try AtomicFile.write(pem, to: path, mode: 0o600, createDirectories: true)
            list.add("file", .string(path))
        }
        if show || path == nil { list.add("private_key", ConnectCommands.secretText(pem, show: show), text: show ? "\n" + pem : ConnectCommands.redacted) }
        return .output(list)
    }
}
