import OmniAttest
import OmniCLI
import OmniCodec

enum AttestChallengeCommand {
    static let lifetime = DefaultedOption<Duration>("ttl", valueName: "DURATION", help: "How long the challenge stays usable.",
                                                    default: .seconds(300))
    static let byteCount = DefaultedOption<Int>("bytes", valueName: "N", help: "Random bytes per challenge (16 to 64).", default: 32)
    static let value = Option<Base64Bytes>("value", valueName: "B64",
                                           help: "Record this challenge (issued elsewhere) instead of minting a random one.",
                                           source: .content)
    static let count = DefaultedOption<Int>("count", valueName: "N",
                                            help: "Mint N challenges, one item each (each committed before it is printed).",
                                            default: 1)

    static let issuedAt = Option<Instant>("at", valueName: "INSTANT",
                                          help: "When the challenge is issued (its lifetime starts): RFC 3339 or Unix seconds.",
                                          absentMeans: "now")

    static let command = Command(
        "challenge", abstract: "Mint a single-use, expiring challenge and record it in the store.",
        discussion: """
            Prints the challenge as base64url (what the enroll body's "nonce" carries), base64 and hex, with its \
            expiry. The app attests (or asserts) over it; 'omni attest enroll' or 'omni attest verify' consumes \
            it exactly once. Expired challenges are purged as new ones are minted. With --count, challenges stream: one object \
            per line with --output jsonl, one array with --output json.
            """,
        options: [AttestOptions.store, lifetime, byteCount, count, value, issuedAt],
        relations: [.conflicting(value, count), .conflicting(value, byteCount)],
        examples: [Example("omni attest challenge --store attest.db --output jsonl", "{\"challenge\":\"…\",\"expires_at\":\"…\",…}")],
        streaming: .when(count)
    ) { invocation in
        let total = try invocation.value(count)
        guard total >= 1 else { throw CLIError.usage("--count must be at least 1", commandPath: invocation.commandPath) }
        let seconds = Int64(try invocation.value(lifetime).secondsValue.rounded(.up))
        let bytes = try invocation.value(byteCount)
        let time = try AttestOptions.time(invocation, issuedAt)
        let given = try invocation.value(value)?.bytes
        let service = AttestService(store: try AttestOptions.openStore(invocation))
        for _ in 0..<total {
            if invocation.interrupts.isInterrupted { break }
            invocation.emitItem(ChallengeOutput(try service.issueChallenge(lifetime: seconds, at: time, byteCount: bytes, value: given)))
        }
        return .success
    }
}

struct ChallengeOutput: Renderable {
    let challenge: StoredChallenge

    init(_ challenge: StoredChallenge) { self.challenge = challenge }

    var json: JSONValue {
        .object(["challenge": .string(AttestBase64.encodeURL(challenge.value)),
                 "challenge_base64": .string(AttestBase64.encode(challenge.value)),
                 "challenge_hex": .string(Hex.encode(challenge.value)),
                 "created_at": .string(AttestTime.format(challenge.createdAt)),
                 "expires_at": .string(AttestTime.format(challenge.expiresAt))])
    }

    func text(style: TextStyle) -> String {
        AttestBase64.encodeURL(challenge.value) + "  " + style.dim("expires \(AttestTime.format(challenge.expiresAt))")
    }
}
