import FoundationEssentials
import OmniCLI
import OmniCodec
import OmniConnect
import OmniCrypto

enum ConnectKeygenCommand {
    static let ed25519 = Flag("ed25519", help: "Make an Ed25519 account key (for a wallet) instead of an X25519 session key.")
    static let outFile = Option<OutputFile>("out-file", valueName: "FILE",
                                            help: "Write the private key here (PKCS#8 PEM, mode 0600); - prints only the PEM on stdout.")
    static let force = Flag("force", help: "Overwrite FILE if it exists.")

    static let command = Command(
        "keygen", abstract: "Make an X25519 session key or an Ed25519 account key.",
        discussion: """
        Without --out-file only the public half is printed (the private key appears only with --show-secrets). With \
        --out-file - stdout carries the PEM alone and the public half goes to stderr. Ed25519 keys also print their \
        I105 account id (sora sentinel), which the headless wallet approves with.
        """,
        options: [ed25519, outFile, force, ConnectCommands.showSecrets],
        relations: [.requires(force, outFile)],
        examples: [Example("omni connect keygen --ed25519 --out-file account.pem", "An account key for 'omni connect wallet'."),
                   Example("omni connect keygen --out-file app.pem --output json", "An X25519 key for 'omni connect app --app-key-file'.")]
    ) { invocation in
        let show = try invocation.value(ConnectCommands.showSecrets)
        let file = try invocation.value(outFile)
        if case .path(let path) = file, !(try invocation.value(force)), FileManager.default.fileExists(atPath: path) {
            throw CLIError.usage("\(path) exists; pass --force to overwrite it", commandPath: invocation.commandPath)
        }
        var list = FieldList()
        let pem: String
        if try invocation.value(ed25519) {
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
        switch file {
        case .standardOutput:
            try invocation.write(pem, to: .standardOutput, label: "--out-file")
            invocation.note(list.text(style: invocation.stderrStyle))
            return .success
        case .path(let path):
            try invocation.write(pem, to: .path(path), label: "--out-file", mode: 0o600)
            list.add("file", .string(path))
            if show { list.add("private_key", ConnectCommands.secretText(pem, show: true), text: "\n" + pem) }
        case nil:
            list.add("private_key", ConnectCommands.secretText(pem, show: show), text: show ? "\n" + pem : ConnectCommands.redacted)
        }
        return .output(list)
    }
}
