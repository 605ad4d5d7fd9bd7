import OmniCLI
import OmniCodec
import OmniConnect

enum ConnectSIDCommand {
    static let appPK = RequiredOption<ConnectPublicKeyValue>("app-pk", valueName: "KEY",
                                                             help: "The app's X25519 public key (64 hex digits or base64url).")
    static let nonce = RequiredOption<ConnectNonceValue>("nonce", valueName: "NONCE", help: "The 16-byte nonce (32 hex digits or base64url).")
    static let legacy = Flag("legacy-js", help: "gen-a only: also print the truncated BLAKE2b-512 sid the old JS/Python SDKs computed.")

    static let command = Command(
        "sid", abstract: "Compute a session id from the network (or chain) id, app key and nonce.",
        discussion: """
        sid = BLAKE2b-256("iroha-connect|sid|" ‖ network_id ‖ app_pk ‖ nonce) for gen-b; gen-a hashes the chain id's \
        UTF-8 instead of the network id. Printed as base64url without padding (the form URIs and Torii use) and hex.
        """,
        options: [ConnectCommands.networkID, ConnectCommands.chainID, appPK, nonce, ConnectCommands.generationOption, legacy],
        examples: [Example("omni connect sid --network-id 4141414141414141414141414141414141414141414141414141414141414141 --app-pk AQEBAQEBAQEBAQEBAQEBAQEBAQEBAQEBAQEBAQEBAQE --nonce AgICAgICAgICAgICAgICAg", "The upstream vector's sid (NYWJG9y5…).")]
    ) { invocation in
        let generation = try invocation.value(ConnectCommands.generationOption)
        let constraints = try ConnectCommands.constraints(invocation, generation: generation)
        let key = try invocation.value(appPK).bytes
        let nonceBytes = try invocation.value(nonce).bytes
        let sid = ConnectCrypto.sid(generation: generation, constraints: constraints, appPublicKey: key, nonce: nonceBytes)
        var list = FieldList()
        list.add("sid", .string(ConnectText.base64URL(sid)))
        list.add("sid_hex", .string(ConnectText.hex(sid)))
        list.add("generation", .string(generation.rawValue))
        if try invocation.value(legacy) {
            guard generation == .genA else {
                throw CLIError.usage("--legacy-js applies to --generation gen-a", commandPath: invocation.commandPath)
            }
            let truncated = ConnectCrypto.legacyTruncatedSID(constraints: constraints, appPublicKey: key, nonce: nonceBytes)
            list.add("legacy_js_sid", .string(ConnectText.base64URL(truncated)), label: "legacy JS sid")
        }
        return .output(list)
    }
}
