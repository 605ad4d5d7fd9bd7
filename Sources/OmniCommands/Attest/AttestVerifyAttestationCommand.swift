import OmniAttest
import OmniCLI
import OmniCodec
import OmniCrypto
import Synchronization

enum AttestVerifyAttestationCommand {
    static let attestation = Option<Base64Bytes>("attestation", valueName: "B64",
                                                 help: "The attestation object (base64 CBOR), as the app sent it.",
                                                 source: .content)
    static let clientDataHash = Option<Base64Bytes>("client-data-hash", valueName: "B64",
                                                    help: "The exact clientDataHash the app passed to attestKey (base64).",
                                                    source: .content)
    static let challenge = Option<Base64Bytes>("challenge", valueName: "B64",
                                               help: "The challenge the server issued (base64); clientDataHash follows --challenge-hash.",
                                               source: .content)

    static let command = Command(
        "verify-attestation", abstract: "Appraise an attestation object (Apple's nine steps) and print the verdict.",
        discussion: """
            Checks, in Apple's order: x5c chains, leaf first, to the App Attestation root at --at; the leaf's nonce \
            extension (exactly 30 24 A1 22 04 20 ‖ 32 bytes) equals SHA256(authData ‖ clientDataHash); SHA256 of \
            the leaf's public key point is --key-id; authData's rpIdHash is SHA256(--app-id); the counter is 0; \
            the aaguid fits --environment; the credential id (and COSE key) is the attested key. The iOS 27 \
            extension map after the COSE key is accepted (ED flag or not) and shown. The receipt is checked against \
            Apple's pinned receipt chain (Apple Root CA - G3) and reported; it decides the verdict only with \
            --require-receipt.

            clientDataHash: give it with --client-data-hash, or give --challenge with --challenge-hash sha256 (the \
            hash of the challenge, what apps following Apple's guide do) or raw (the challenge bytes themselves, \
            how Apple's published samples were made).

            Batch lines carry attestation, key_id, and client_data_hash or challenge; missing ones come from the \
            options. Policy (app_id, environment, root, at, challenge_hash) is the command line's: a line setting \
            it differently is unusable unless --trust-line-policy is given. Verdicts stream: one object per line \
            with --output jsonl, one array with --output json (a single verdict too).
            """,
        options: [attestation, AttestOptions.keyID, AttestOptions.appID, clientDataHash, challenge, AttestOptions.challengeHash,
                  AttestOptions.environment, AttestOptions.root, AttestOptions.at, AttestOptions.requireReceipt,
                  AttestOptions.batch, AttestOptions.jobs, AttestOptions.trustLinePolicy],
        relations: [.exactlyOne(attestation, AttestOptions.batch), .conflicting(clientDataHash, challenge),
                    .conflicting(clientDataHash, AttestOptions.challengeHash),
                    .requires(AttestOptions.trustLinePolicy, AttestOptions.batch),
                    .requires(AttestOptions.jobs, AttestOptions.batch)],
        examples: [
            Example("omni attest verify-attestation --attestation @att.b64 --key-id zgSY9YSD+7TaDXssY6WlOPVS1K3Lmk+pFhlcSWE+ZV0= --app-id 1234567890.com.example.myapp --challenge ZXhhbXBsZV9zZXJ2ZXJfY2hhbGxlbmdl --challenge-hash raw --at 2026-04-21T18:13:12Z",
                    "Appraises Apple's iOS 27 sample (made with the raw challenge) at a time its certificate was valid."),
            Example("omni attest verify-attestation --batch attestations.jsonl --app-id ABCDE12345.com.example.app --output jsonl",
                    "One JSON verdict per input line; lines cannot change the app id, root, time or environment."),
        ],
        streaming: .when(AttestOptions.batch)
    ) { invocation in
        let policy = try LinePolicy(invocation)
        let requireReceipt = try invocation.value(AttestOptions.requireReceipt)
        let defaultKeyID = try invocation.value(AttestOptions.keyID)?.bytes
        let defaultHash = try invocation.value(clientDataHash)?.bytes
        let defaultChallenge = try invocation.value(challenge)?.bytes

        if let input = try invocation.value(AttestOptions.batch) {
            let rootsByPEM = Mutex<[String: [Certificate]]>([:])
            @Sendable func parseRoots(_ pem: String) throws(AttestError) -> [Certificate] {
                if let cached = rootsByPEM.withLock({ $0[pem] }) { return cached }
                let roots = try AttestOptions.certificates(fromPEM: pem, "\"root\"")
                rootsByPEM.withLock { $0[pem] = roots }
                return roots
            }
            // One cache for the whole batch: Apple's intermediate is verified against the root once, not per line.
            let chainCache = CertificateChainCache()
            // Attestations are independent of each other, so lines are appraised in parallel.
            let workers = try AttestOptions.workers(invocation)
            return try AttestBatch.run(invocation, input: input, workers: workers) { line in
                let object = try line.require(try line.base64("attestation", "attestation_b64"), "\"attestation\"")
                let keyID = try line.require(try line.base64("key_id", "keyId") ?? defaultKeyID, "\"key_id\"")
                let linePolicy = try policy.admitting(line, parseRoots: parseRoots)
                let appID = try line.require(linePolicy.appID, "\"app_id\"")
                let hash: [UInt8]
                if let given = try line.base64("client_data_hash", "client_data_hash_b64") {
                    hash = given
                } else if let lineChallenge = try line.base64("challenge", "challenge_b64") {
                    hash = linePolicy.challengeHash.clientDataHash(challenge: lineChallenge)
                } else if let defaultHash {
                    hash = defaultHash
                } else {
                    let challenge = try line.require(defaultChallenge, "\"client_data_hash\" or \"challenge\"")
                    hash = linePolicy.challengeHash.clientDataHash(challenge: challenge)
                }
                let appraiser = AttestationAppraiser(roots: linePolicy.effectiveRoots, environment: linePolicy.environment,
                                                     requireReceipt: requireReceipt, chainCache: chainCache)
                return appraiser.appraise(attestation: object, keyID: keyID, appID: appID, clientDataHash: hash,
                                          at: linePolicy.time).json
            }
        }

        guard let object = try invocation.value(attestation)?.bytes else {
            throw CLIError.usage("missing required option --attestation B64 (or --batch FILE)", commandPath: invocation.commandPath)
        }
        guard let keyID = defaultKeyID else {
            throw CLIError.usage("missing required option --key-id B64", commandPath: invocation.commandPath)
        }
        guard let appID = policy.appID else {
            throw CLIError.usage("missing required option --app-id TEAMID.BUNDLE (or set OMNI_ATTEST_APP_ID)",
                                 commandPath: invocation.commandPath)
        }
        let hash: [UInt8]
        if let defaultHash {
            hash = defaultHash
        } else if let defaultChallenge {
            hash = policy.challengeHash.clientDataHash(challenge: defaultChallenge)
        } else {
            throw CLIError.usage("give --client-data-hash B64 or --challenge B64", commandPath: invocation.commandPath)
        }
        let appraiser = AttestationAppraiser(roots: policy.effectiveRoots, environment: policy.environment,
                                             requireReceipt: requireReceipt)
        let verdict = appraiser.appraise(attestation: object, keyID: keyID, appID: appID, clientDataHash: hash, at: policy.time)
        if verdict.isValid { warnAboutReceipt(verdict.receipt, invocation) }
        return .verdict(verdict.json)
    }
}
