import OmniCLI
import OmniCodec
import OmniConnect
import OmniCrypto

enum ConnectDeriveKeysCommand {
    static let secretKey = Option<String>("sk", valueName: "@FILE", help: "Our X25519 private key (PEM or hex) as @FILE or -.",
                                          environment: "OMNI_CONNECT_SK", source: .content)
    static let peerPK = Option<String>("peer-pk", valueName: "KEY", help: "The peer's X25519 public key (hex or base64url).")
    static let sid = Option<String>("sid", valueName: "SID", help: "The session id (base64url or hex).")

    static let command = Command(
        "derive-keys", abstract: "Debug: print the key schedule (DH, session key, salt, k_app, k_wallet).",
        discussion: """
        raw = X25519(sk, peer_pk); session = HKDF-SHA256(salt "iroha:x25519:hkdf:v1", raw, "iroha:x25519:session-key"); \
        salt = BLAKE2b-256("iroha-connect|salt|" ‖ sid); k_app and k_wallet = HKDF-SHA256(salt, session, \
        "iroha-connect|k_app" / "iroha-connect|k_wallet"). Everything but the salt is secret and redacted unless \
        --show-secrets; the JSON output with secrets is what 'omni connect frame decode --key' reads.
        """,
        options: [secretKey, peerPK, sid, ConnectCommands.showSecrets],
        examples: [Example("omni connect derive-keys --sk @app.pem --peer-pk 38ab…67 --sid lOl6…TNI --show-secrets --output json > keys.json",
                           "Keys for decrypting a captured session with 'frame decode --key @keys.json'.")]
    ) { invocation in
        guard let keyText = try ConnectCommands.secret(invocation, secretKey) else {
            throw CLIError.usage("missing --sk @FILE (or OMNI_CONNECT_SK)", commandPath: invocation.commandPath)
        }
        let privateKey = try ConnectKeyFile.x25519PrivateKey(from: keyText)
        let peer = try ConnectText.parseBytes(try invocation.require(peerPK), byteCount: 32, what: "--peer-pk")
        let sidBytes = try ConnectText.parseBytes(try invocation.require(sid), byteCount: 32, what: "--sid")
        let schedule = try ConnectCrypto.keySchedule(privateKey: privateKey, peerPublicKey: peer, sid: sidBytes)
        let show = try invocation.flag(ConnectCommands.showSecrets)
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
