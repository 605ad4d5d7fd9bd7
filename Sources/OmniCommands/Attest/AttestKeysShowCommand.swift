import OmniAttest
import OmniCLI
import OmniCodec

enum AttestKeysShowCommand {
    static let command = Command(
        "show", abstract: "Show one enrolled key (exit 1 when it is not enrolled).",
        options: [AttestOptions.store], arguments: [AttestKeysCommands.keyID],
        examples: [Example("omni attest keys show --store attest.db AcP/pnpoNVPIJYZOvmIvWzDvmxkFoQCE4Uu7Nk6WiAA=",
                           "Public key (X9.62, PEM, JWK), environment, counter, times.")]
    ) { invocation in
        let keyID = try invocation.value(AttestKeysCommands.keyID).bytes
        guard let key = try AttestOptions.openStore(invocation).key(id: keyID) else {
            return .output(SimpleOutput(text: "no key \(AttestBase64.encode(keyID)) is enrolled",
                                        json: .object(["found": false, "key_id": .string(AttestBase64.encode(keyID))])),
                           exitCode: .failure)
        }
        return .output(KeyOutput(key: key))
    }
}
