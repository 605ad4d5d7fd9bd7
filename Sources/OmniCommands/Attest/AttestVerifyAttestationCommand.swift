import OmniAttest
import OmniCLI
import OmniCodec
import OmniCrypto

enum AttestVerifyAttestationCommand {
    static let attestation = Option<String>("attestation", valueName: "B64",
                                            help: "The attestation object (base64 CBOR), as the app sent it.", source: .content)
    static let clientDataHash = Option<String>("client-data-hash", valueName: "B64",
                                               help: "The exact clientDataHash the app passed to attestKey (base64).",
                                               source: .content)
    static let challenge = Option<String>("challenge", valueName: "B64",
                                          help: "The challenge the server issued (base64); clientDataHash follows --client-data.",
                                          source: .content)

    static let command = Command(
        "verify-attestation", abstract: "Appraise an attestation object (Apple's nine steps) and print the verdict.",
        discussion: """
            Checks, in Apple's order: x5c chains, leaf first, to the App Attestation root at --at; the leaf's nonce
            extension (exactly 30 24 A1 22 04 20 ‖ 32 bytes) equals SHA256(authData ‖ clientDataHash); SHA256 of the
            leaf's public key point is --key-id; authData's rpIdHash is SHA256(--app-id); the counter is 0; the aaguid
            fits --environment; the credential id (and COSE key) is the attested key. The iOS 27 extension map after
            the COSE key is accepted (ED flag or not) and shown. The receipt is checked against Apple Root CA - G3 and
            reported; it decides the verdict only with --require-receipt.

            clientDataHash: give it with --client-data-hash, or give --challenge with --client-data sha256 (the
            hash of the challenge, what apps following Apple's guide do) or raw (the challenge bytes themselves, how
            Apple's published samples were made).

            Batch lines carry attestation, key_id, app_id, client_data_hash or challenge (+ client_data),
            environment, at and root; missing fields come from the options.
            """,
        options: [attestation, AttestOptions.keyID, AttestOptions.appID, clientDataHash, challenge, AttestOptions.clientDataRule,
                  AttestOptions.environment, AttestOptions.root, AttestOptions.at, AttestOptions.requireReceipt, AttestOptions.batch],
        examples: [
            Example("omni attest verify-attestation --attestation @att.b64 --key-id zgSY9YSD+7TaDXssY6WlOPVS1K3Lmk+pFhlcSWE+ZV0= --app-id 1234567890.com.example.myapp --challenge ZXhhbXBsZV9zZXJ2ZXJfY2hhbGxlbmdl --client-data raw --at 2026-04-21T18:13:12Z",
                    "Appraises Apple's iOS 27 sample (made with the raw challenge) at a time its certificate was valid."),
            Example("omni attest verify-attestation --batch attestations.jsonl --app-id ABCDE12345.com.example.app --output json",
                    "One JSON verdict per input line."),
        ]
    ) { invocation in
        let rule = try invocation.value(AttestOptions.clientDataRule) ?? .sha256
        let policy = try invocation.value(AttestOptions.environment) ?? .production
        let requireReceipt = try invocation.flag(AttestOptions.requireReceipt)
        let defaultRoots = try AttestOptions.roots(try invocation.value(AttestOptions.root))
        let defaultTime = try AttestOptions.time(invocation)

        if let path = try invocation.value(AttestOptions.batch) {
            if invocation.isGiven(attestation) {
                throw CLIError.usage("--attestation and --batch cannot be combined", commandPath: invocation.commandPath)
            }
            let defaultAppID = try invocation.value(AttestOptions.appID)
            let defaultKeyID = try AttestOptions.base64(invocation, AttestOptions.keyID)
            let defaultHash = try AttestOptions.base64(invocation, clientDataHash)
            let defaultChallenge = try AttestOptions.base64(invocation, challenge)
            var rootsByPEM: [String: [Certificate]] = [:]
            return try AttestBatch.run(invocation, path: path) { line in
                let object = try line.require(try line.base64("attestation", "attestation_b64"), "attestation")
                let keyID = try line.require(try line.base64("key_id", "keyId") ?? defaultKeyID, "key_id")
                let appID = try AttestOptions.checkedAppID(try line.require(line.string("app_id") ?? defaultAppID, "app_id"))
                let lineRule = try line.string("client_data").map { text throws(AttestError) in
                    guard let rule = AttestationAppraiser.ClientDataRule(rawValue: text) else {
                        throw AttestError.invalidArgument("\"client_data\" must be sha256 or raw")
                    }
                    return rule
                } ?? rule
                let hash: [UInt8]
                if let given = try line.base64("client_data_hash", "client_data_hash_b64") {
                    hash = given
                } else if let lineChallenge = try line.base64("challenge", "challenge_b64") {
                    hash = lineRule.clientDataHash(challenge: lineChallenge)
                } else if let defaultHash {
                    hash = defaultHash
                } else {
                    hash = lineRule.clientDataHash(challenge: try line.require(defaultChallenge, "client_data_hash or challenge"))
                }
                let linePolicy = try line.string("environment").map { text throws(AttestError) in
                    guard let policy = EnvironmentPolicy(rawValue: text) else {
                        throw AttestError.invalidArgument("\"environment\" must be production, development or any")
                    }
                    return policy
                } ?? policy
                let time = try line.string("at", "verify_at").map { text throws(AttestError) in try AttestOptions.parseTime(text, "\"at\"") } ?? defaultTime
                var roots = defaultRoots
                if let pem = line.string("root", "root_pem") {
                    if let cached = rootsByPEM[pem] { roots = cached } else {
                        roots = try AttestOptions.roots(pem)
                        rootsByPEM[pem] = roots
                    }
                }
                let appraiser = AttestationAppraiser(roots: roots, environment: linePolicy, requireReceipt: requireReceipt)
                return appraiser.appraise(attestation: object, keyID: keyID, appID: appID, clientDataHash: hash, at: time).json
            }
        }

        guard let objectText = try invocation.value(attestation) else {
            throw CLIError.usage("missing required option --attestation B64 (or --batch FILE.jsonl)", commandPath: invocation.commandPath)
        }
        let object = try AttestBase64.argument(objectText, "--attestation")
        let keyID = try AttestOptions.base64(invocation, AttestOptions.keyID)
        let appIDText = try invocation.value(AttestOptions.appID)
        guard let keyID else { throw CLIError.usage("missing required option --key-id B64", commandPath: invocation.commandPath) }
        guard let appIDText else { throw CLIError.usage("missing required option --app-id TEAMID.BUNDLE", commandPath: invocation.commandPath) }
        let appID = try AttestOptions.checkedAppID(appIDText)
        try AttestOptions.requireOne(invocation, clientDataHash, challenge)
        let hash: [UInt8]
        if let given = try AttestOptions.base64(invocation, clientDataHash) {
            if invocation.isGiven(AttestOptions.clientDataRule) {
                throw CLIError.usage("--client-data applies to --challenge, not to --client-data-hash", commandPath: invocation.commandPath)
            }
            hash = given
        } else {
            hash = rule.clientDataHash(challenge: try AttestOptions.base64(invocation, challenge) ?? [])
        }
        let appraiser = AttestationAppraiser(roots: defaultRoots, environment: policy, requireReceipt: requireReceipt)
        let verdict = appraiser.appraise(attestation: object, keyID: keyID, appID: appID, clientDataHash: hash, at: defaultTime)
        if verdict.isValid { warnAboutReceipt(verdict.receipt, invocation) }
        return .verdict(verdict.json)
    }
}
