import OmniAttest
import OmniCLI
import OmniCodec

enum AttestEnrollCommand {
    static let body = RequiredOption<String>("body", valueName: "JSON",
                                             help: "The enroll body {platform, iosKeyId, iosAttestationObject, nonce} (JSON).",
                                             source: .content)

    static let command = Command(
        "enroll", abstract: "Enroll a key from an attestation made over a challenge from the store.",
        discussion: """
            Takes the enroll body an iOS app sends ({"platform":"ios","iosKeyId":…,"iosAttestationObject":…, \
            "nonce":…}), consumes its nonce from the store (a challenge minted by 'omni attest challenge'; \
            unknown, used or expired → unknown_challenge), appraises the attestation over it with every check of \
            'verify-attestation', and records the key: public key, environment, counter 0, app id, receipt. \
            --challenge-hash says how the app turned the challenge into clientDataHash.
            """,
        options: [AttestOptions.store, body, AttestOptions.requiredAppID, AttestOptions.challengeHash, AttestOptions.environment,
                  AttestOptions.root, AttestOptions.at, AttestOptions.requireReceipt],
        examples: [Example("omni attest enroll --store attest.db --body @enroll.json --app-id ABCDE12345.com.example.app",
                           "Verifies the attestation and stores the key; exit 1 with a reason when refused.")]
    ) { invocation in
        let bodyBytes = Array(try invocation.value(body).utf8)
        let appID = try invocation.value(AttestOptions.requiredAppID).text
        let appraiser = AttestationAppraiser(roots: try AttestOptions.customRoots(invocation) ?? [AppleRoots.appAttestationRoot],
                                             environment: try invocation.value(AttestOptions.environment),
                                             requireReceipt: try invocation.value(AttestOptions.requireReceipt))
        let service = AttestService(store: try AttestOptions.openStore(invocation))
        let verdict = try service.enroll(body: bodyBytes, appID: appID, challengeHash: try invocation.value(AttestOptions.challengeHash),
                                         appraiser: appraiser, at: try AttestOptions.time(invocation))
        if verdict.isValid { warnAboutReceipt(verdict.attestation?.receipt, invocation) }
        return .verdict(verdict.json)
    }
}
