import OmniAttest
import OmniCLI
import OmniCodec
import OmniCrypto

enum AttestVerifyCommand {
    static let evidence = RequiredOption<String>("evidence", valueName: "JSON",
                                                 help: "The evidence {\"iosAttestation\":{\"assertion\",\"keyId\"}} (JSON).",
                                                 source: .content)
    static let challenge = Option<Base64Bytes>("challenge", valueName: "B64",
                                               help: "The challenge from 'omni attest challenge' (consumed once; the client data must carry it).",
                                               source: .content)
    static let challengeField = Option<String>(
        "challenge-field", valueName: "NAME",
        help: "The client data must be a JSON object whose string field NAME is exactly the challenge (base64, base64url or hex).",
        absentMeans: "the challenge may appear anywhere in the client data, raw or as base64, base64url or hex text")

    static let command = Command(
        "verify", abstract: "Verify evidence from an enrolled key and advance its counter.",
        discussion: """
            Takes evidence {"iosAttestation":{"assertion":…,"keyId":…}}, finds the enrolled key, and verifies the \
            assertion like 'verify-assertion --store'. With --challenge the challenge is consumed from the store \
            (once) and the client data must carry it: by default anywhere in it (raw, base64, base64url or hex, a \
            loose check that fits any app's format); with --challenge-field NAME the client data must be a JSON \
            object whose field NAME is the challenge, exactly. Without --client-data the client data is the \
            challenge itself. The counter advances only when this verification wins: the same evidence verified \
            twice, even concurrently, passes once.
            """,
        options: [AttestOptions.store, evidence, challenge, challengeField, AttestVerifyAssertionCommand.clientData,
                  AttestVerifyAssertionCommand.clientDataFormat, AttestVerifyAssertionCommand.clientDataHash,
                  AttestOptions.appID, AttestOptions.at],
        relations: [.conflicting(AttestVerifyAssertionCommand.clientData, AttestVerifyAssertionCommand.clientDataHash),
                    .requires(AttestVerifyAssertionCommand.clientDataFormat, AttestVerifyAssertionCommand.clientData),
                    .conflicting(challenge, AttestVerifyAssertionCommand.clientDataHash),
                    .requires(challengeField, challenge, AttestVerifyAssertionCommand.clientData)],
        examples: [Example("omni attest verify --store attest.db --evidence @evidence.json --challenge ZXhhbXBsZV9jaGFsbGVuZ2U --client-data @request.json --client-data-format raw --challenge-field challenge",
                           "Exit 0 and the advanced counter, or exit 1 with the reason.")]
    ) { invocation in
        let evidenceBytes = Array(try invocation.value(evidence).utf8)
        let challengeBytes = try invocation.value(challenge)?.bytes
        var clientData: AttestService.ClientData?
        if let bytes = try AttestVerifyAssertionCommand.clientDataBytes(invocation) {
            clientData = .data(bytes)
        } else if let hash = try invocation.value(AttestVerifyAssertionCommand.clientDataHash)?.bytes {
            clientData = .hash(hash)
        }
        if clientData == nil && challengeBytes == nil {
            throw CLIError.usage("give --challenge, --client-data or --client-data-hash", commandPath: invocation.commandPath)
        }
        let binding: AttestService.ChallengeBinding = try invocation.value(challengeField).map { .jsonField($0) } ?? .anywhere
        let appID = try invocation.value(AttestOptions.appID)?.text
        let service = AttestService(store: try AttestOptions.openStore(invocation))
        return .verdict(try service.verify(evidence: evidenceBytes, challenge: challengeBytes, clientData: clientData,
                                           binding: binding, appID: appID, at: try AttestOptions.time(invocation)).json)
    }
}
