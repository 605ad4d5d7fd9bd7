import OmniAttest
import OmniCLI
import OmniCodec

enum AttestEnrollCommand {
    static let body = Option<String>("body", valueName: "JSON",
                                     help: "The enroll body {platform, iosKeyId, iosAttestationObject, nonce}: JSON, @FILE, - or a file path.",
                                     source: .content)

    static let command = Command(
        "enroll", abstract: "Enroll a key from an attestation made over a challenge from the store.",
        discussion: """
            Takes the enroll body an iOS app sends ({"platform":"ios","iosKeyId":…,"iosAttestationObject":…,
            "nonce":…}), consumes its nonce from the store (a challenge minted by 'omni attest challenge'; unknown,
            used or expired → unknown_challenge), appraises the attestation over it with every check of
            'verify-attestation', and records the key: public key, environment, counter 0, app id, receipt.
            --client-data says how the app turned the challenge into clientDataHash.
            """,
        options: [AttestOptions.store, body, AttestOptions.appID, AttestOptions.clientDataRule, AttestOptions.environment,
                  AttestOptions.root, AttestOptions.at, AttestOptions.requireReceipt],
        examples: [Example("omni attest enroll --store attest.db --body @enroll.json --app-id ABCDE12345.com.example.app",
                           "Verifies the attestation and stores the key; exit 1 with a reason when refused.")]
    ) { invocation in
        guard let bodyBytes = try AttestOptions.document(invocation, body) else {
            throw CLIError.usage("missing required option --body JSON", commandPath: invocation.commandPath)
        }
        guard let appIDText = try invocation.value(AttestOptions.appID) else {
            throw CLIError.usage("missing required option --app-id TEAMID.BUNDLE", commandPath: invocation.commandPath)
        }
        let appID = try AttestOptions.checkedAppID(appIDText)
        let appraiser = AttestationAppraiser(roots: try AttestOptions.roots(try invocation.value(AttestOptions.root)),
                                             environment: try invocation.value(AttestOptions.environment) ?? .production,
                                             requireReceipt: try invocation.flag(AttestOptions.requireReceipt))
        let service = AttestService(store: try AttestOptions.openStore(invocation))
        let verdict = try service.enroll(body: bodyBytes, appID: appID, clientData: try invocation.value(AttestOptions.clientDataRule) ?? .sha256,
                                         appraiser: appraiser, at: try AttestOptions.time(invocation))
        if verdict.isValid { warnAboutReceipt(verdict.attestation?.receipt, invocation) }
        return .verdict(verdict.json)
    }
}
