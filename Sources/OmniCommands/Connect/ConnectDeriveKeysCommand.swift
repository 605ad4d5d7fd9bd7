import OmniCLI
import OmniCodec
import OmniConnect
import OmniCrypto

enum ConnectDeriveKeysCommand {
    static let secretKey = RequiredOption<InputFile>(
        "secret-key-file", valueName: "FILE", help: "Our X25519 private key (PEM or hex), readable only by you; - reads stdin.",
        environment: "OMNI_CONNECT_SECRET_KEY_FILE")
    static let peerPK = RequiredOption<ConnectPublicKeyValue>("peer-pk", valueName: "KEY", help: "The peer's X25519 public key (hex or base64url).")
    static let sid = RequiredOption<ConnectSIDValue>("sid", valueName: "SID", help: "The session id (base64url or hex).")

    static let command = Command(
        "derive-keys", abstract: "Debug: print the key schedule (DH, session key, salt, k_app, k_wallet).",
        discussion: """
        raw = X25519(sk, peer_pk); session = HKDF-SHA256(salt "iroha:x25519:hkdf:v1", raw, "iroha:x25519:session-key"); \
        salt = BLAKE2b-256("iroha-connect|salt|" ‖ sid); k_app and k_wallet = HKDF-SHA256(salt, session, \
        "iroha-connect|k_app" / "iroha-connect|k_wallet"). The private key is read from a file (never from the \
        command line). Everything but the salt is secret and redacted unless --show-secrets; the JSON output with \
        secrets is what 'omni connect frame decode --key-file' reads.
        """,
        options: [secretKey, peerPK, sid, ConnectCommands.showSecrets],
        examples: [Example("omni connect derive-keys --secret-key-file app.pem --peer-pk 3413e948ff11381c5c24917257d0e3e551910b2149063f9428e199c35209b979 --sid NYWJG9y5e88ugmF2QZQP7dTCwL6UbSG2A8YNvPpX9LI --show-secrets --output json > keys.json",
                           "Keys for decrypting a captured session with 'frame decode --key-file keys.json'.")]
    ) { invocation in
        let keyText = try ConnectCommands.secretText(invocation, try invocation.value(secretKey), label: "--secret-key-file")
        let privateKey = try ConnectKeyFile.x25519PrivateKey(from: keyText)
        let peer = try invocation.value(peerPK).bytes
        let sidBytes = try invocation.value(sid).bytes
        let schedule = try ConnectCrypto.keySchedule(privateKey: privateKey, peerPublicKey: peer, sid: sidBytes)
        let show = try invocation.value(ConnectCommands.showSecrets)
        var list = FieldList()
        list.add("public_key", .string(ConnectText.hex(privateKey.publicKey.rawRepresentation)))
        list.add("sid", .string(ConnectText.base64URL(sidBytes)))
        list.add("shared_secret", ConnectCommands.secretText(ConnectText.hex(schedule.rawSharedSecret), show: show))
        list.add("session_key", ConnectCommands.secretText(ConnectText.hex(schedule.sessionKey), show: show))
        list.add("salt", .string(ConnectText.hex(schedule.salt)))
        list.add("k_app", ConnectCommands.secretText(ConnectText.hex(schedule.keys.appToWallet), show: show))
        list.add("k_wallet", ConnectCommands.secretText(ConnectText.hex(schedule.keys.walletToApp), show: show))
        return .output(list)
    }
}
