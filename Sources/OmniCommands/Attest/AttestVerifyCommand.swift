import OmniAttest
import OmniCLI
import OmniCodec
import OmniCrypto

enum AttestVerifyCommand {
    static let evidence = Option<String>("evidence", valueName: "FILE",
                                         help: "The evidence {\"iosAttestation\":{\"assertion\",\"keyId\"}}: a file path, @FILE, - or literal JSON.",
                                         source: .content)
    static let challenge = Option<String>("challenge", valueName: "B64",
                                          help: "The challenge from 'omni attest challenge' (consumed; must appear in the client data).",
                                          source: .content)

    static let command = Command(
        "verify", abstract: "Verify evidence from an enrolled key and advance its counter.",
        discussion: """
            Takes evidence {"iosAttestation":{"assertion":…,"keyId":…}}, finds the enrolled key, and verifies the
            assertion like 'verify-assertion --store'. With --challenge the challenge is consumed from the store
            (once) and must appear in the client data (raw, base64, base64url or hex); without --client-data the
            client data is the challenge itself. The counter advances only when this verification wins: the same
            evidence verified twice, even concurrently, passes once.
            """,
        options: [AttestOptions.store, evidence, challenge, AttestVerifyAssertionCommand.clientData,
                  AttestVerifyAssertionCommand.clientDataFormat, AttestVerifyAssertionCommand.clientDataHash,
                  AttestOptions.appID, AttestOptions.at],
        examples: [Example("omni attest verify --store attest.db --evidence evidence.json --challenge \"$CHALLENGE\" --client-data @request.json --client-data-format raw",
                           "Exit 0 and the advanced counter, or exit 1 with the reason.")]
    ) { invocation in
        guard let evidenceBytes = try AttestOptions.document(invocation, evidence) else {
            throw CLIError.usage("missing required option --evidence FILE", commandPath: invocation.commandPath)
        }
        if invocation.isGiven(AttestVerifyAssertionCommand.clientData) && invocation.isGiven(AttestVerifyAssertionCommand.clientDataHash) {
            throw CLIError.usage("give --client-data or --client-data-hash, not both", commandPath: invocation.commandPath)
        }
        let challengeBytes = try AttestOptions.base64(invocation, challenge)
        var clientData: AttestService.ClientData?
        if invocation.isGiven(AttestVerifyAssertionCommand.clientData) {
            let format = try invocation.value(AttestVerifyAssertionCommand.clientDataFormat) ?? .base64
            clientData = .data(try AttestVerifyAssertionCommand.clientDataBytes(invocation, format: format))
        } else if let hash = try AttestOptions.base64(invocation, AttestVerifyAssertionCommand.clientDataHash) {
            clientData = .hash(hash)
        }
        if clientData == nil && challengeBytes == nil {
            throw CLIError.usage("give --challenge, --client-data or --client-data-hash", commandPath: invocation.commandPath)
        }
        let appID = try invocation.value(AttestOptions.appID).map { text throws(AttestError) in try AttestOptions.checkedAppID(text) }
        let service = AttestService(store: try AttestOptions.openStore(invocation))
        return .verdict(try service.verify(evidence: evidenceBytes, challenge: challengeBytes, clientData: clientData,
                                           appID: appID, at: try AttestOptions.time(invocation)).json)
    }
}
