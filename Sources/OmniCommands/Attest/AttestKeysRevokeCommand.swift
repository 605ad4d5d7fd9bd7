import OmniAttest
import OmniCLI
import OmniCodec

enum AttestKeysRevokeCommand {
    static let revokedAt = Option<Instant>("at", valueName: "INSTANT", help: "The revocation time recorded: RFC 3339 or Unix seconds.",
                                           absentMeans: "now")

    static let command = Command(
        "revoke", abstract: "Revoke an enrolled key: its assertions are refused (key_revoked) from now on.",
        options: [AttestOptions.store, revokedAt], arguments: [AttestKeysCommands.keyID],
        examples: [Example("omni attest keys revoke --store attest.db AcP/pnpoNVPIJYZOvmIvWzDvmxkFoQCE4Uu7Nk6WiAA=",
                           "Exit 0 once revoked (also when it already was), 1 when no such key is enrolled.")]
    ) { invocation in
        let keyID = try invocation.value(AttestKeysCommands.keyID).bytes
        let store = try AttestOptions.openStore(invocation)
        let revokedNow = try store.revoke(keyID: keyID, at: try AttestOptions.time(invocation, revokedAt))
        guard let key = try store.key(id: keyID) else {
            return .output(SimpleOutput(text: "no key \(AttestBase64.encode(keyID)) is enrolled",
                                        json: .object(["found": false, "key_id": .string(AttestBase64.encode(keyID))])),
                           exitCode: .failure)
        }
        return .output(KeyOutput(key: key, note: revokedNow ? "revoked" : "already revoked"))
    }
}
