import OmniAttest
import OmniCLI
import OmniCodec

enum AttestChallengeCommand {
    static let lifetime = Option<Duration>("ttl", valueName: "DURATION", help: "How long the challenge stays usable.",
                                           default: .seconds(300), defaultDescription: "5m")
    static let byteCount = Option<Int>("bytes", valueName: "N", help: "Random bytes per challenge (16 to 64).", default: 32)
    static let value = Option<String>("value", valueName: "B64",
                                      help: "Record this challenge (issued elsewhere) instead of minting a random one.",
                                      source: .content)
    static let count = Option<Int>("count", valueName: "N", help: "Mint N challenges, one per line (each committed before it is printed).",
                                   default: 1)

    static let command = Command(
        "challenge", abstract: "Mint a single-use, expiring challenge and record it in the store.",
        discussion: """
            Prints the challenge as base64url (what the enroll body's "nonce" carries), base64 and hex, with its
            expiry. The app attests (or asserts) over it; 'omni attest enroll' or 'omni attest verify' consumes it
            exactly once. Expired challenges are purged as new ones are minted.
            """,
        options: [AttestOptions.store, lifetime, byteCount, count, value, AttestOptions.at],
        examples: [Example("omni attest challenge --store attest.db --output json", "{\"challenge\":\"…\",\"expires_at\":\"…\",…}")]
    ) { invocation in
        let store = try AttestOptions.openStore(invocation)
        let service = AttestService(store: store)
        let ttl = try invocation.value(lifetime) ?? .seconds(300)
        let seconds = Int64(ttl.secondsValue.rounded(.up))
        let bytes = try invocation.value(byteCount) ?? 32
        let total = try invocation.value(count) ?? 1
        guard total >= 1 else { throw CLIError.usage("--count must be at least 1", commandPath: invocation.commandPath) }
        let time = try AttestOptions.time(invocation)
        let given = try AttestOptions.base64(invocation, value)
        if given != nil && total != 1 {
            throw CLIError.usage("--value records one challenge; it cannot be combined with --count", commandPath: invocation.commandPath)
        }
        if total == 1 {
            return .output(ChallengeOutput(try service.issueChallenge(lifetime: seconds, at: time, byteCount: bytes, value: given)))
        }
        for _ in 0..<total {
            if invocation.interrupts.isInterrupted { return CommandResult(exitCode: .interrupted) }
            invocation.emit(ChallengeOutput(try service.issueChallenge(lifetime: seconds, at: time, byteCount: bytes)))
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
