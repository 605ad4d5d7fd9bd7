import OmniAttest
import OmniCLI
import OmniCodec
import OmniCrypto

/// `--batch FILE`: the attest verdicts of JSON lines, through the framework's one batch loop (`BatchRunner`: streamed,
/// flat memory, one result per line, exit 3/1/0).
///
/// Each line names its values with the option names in snake_case (`attestation`, `key_id`, `client_data_hash`, …);
/// the field names of omni's App Attest vectors (`attestation_b64`, `verify_at`, `root_pem`, …) are accepted too.
/// Evidence fields a line leaves out come from the command line. Policy fields are the operator's (`LinePolicy`).
enum AttestBatch {
    /// One usable line, with the alias rules applied. Problems with its values are `AttestError.invalidArgument`,
    /// which the run reports as the line being unusable.
    struct Line {
        let object: JSONObject

        /// The first present field among `names` with its string value; a present field that is not a string is a
        /// problem, not absence.
        func string(_ names: String...) throws(AttestError) -> (name: String, value: String)? {
            for name in names {
                guard let value = object[name] else { continue }
                guard let text = value.stringValue else { throw AttestError.invalidArgument("\"\(name)\" is not a string") }
                return (name, text)
            }
            return nil
        }

        func base64(_ names: String...) throws(AttestError) -> [UInt8]? {
            for name in names {
                guard let value = object[name] else { continue }
                guard let text = value.stringValue else { throw AttestError.invalidArgument("\"\(name)\" is not a string") }
                return try AttestBase64.argument(text, "\"\(name)\"")
            }
            return nil
        }

        func integer(_ names: String...) throws(AttestError) -> Int64? {
            for name in names {
                guard let value = object[name] else { continue }
                if let number = value.int64Value ?? value.stringValue.flatMap({ Int64($0) }) { return number }
                throw AttestError.invalidArgument("\"\(name)\" is not an integer")
            }
            return nil
        }

        func require<T>(_ value: T?, _ what: String) throws(AttestError) -> T {
            guard let value else { throw AttestError.invalidArgument("line has no \(what) and the command line gives none") }
            return value
        }
    }

    /// Runs `appraise` over every line of `input`, one after another (for appraisals that depend on earlier lines,
    /// such as counters in a store); a line it cannot judge (AttestError.invalidArgument) is unusable.
    static func run(_ invocation: Invocation, input: InputFile, appraise: (Line) throws -> JSONValue) throws -> CommandResult {
        let style = invocation.stdoutStyle
        return try BatchRunner.run(invocation, input: input, label: "--batch") { lines in
            try lines.map { try outcome(of: $0, style: style, appraise: appraise) }
        }
    }

    /// `run` for independent appraisals: `workers` lines at once, verdicts still in input order.
    static func run(_ invocation: Invocation, input: InputFile, workers: Int,
                    appraise: @escaping @Sendable (Line) throws -> JSONValue) throws -> CommandResult {
        let style = invocation.stdoutStyle
        return try BatchRunner.run(invocation, input: input, label: "--batch", workers: workers) { raw in
            try outcome(of: raw, style: style, appraise: appraise)
        }
    }

    private static func outcome(of raw: BatchRunner.Line, style: TextStyle,
                                appraise: (Line) throws -> JSONValue) throws -> BatchRunner.Outcome {
        do {
            let json = try appraise(Line(object: raw.object))
            let id = raw.identification.filter { $0.0 == "id" }
            let text = VerdictOutput(json: json, prefix: id).text(style: style)
            let fields = (json.objectValue ?? JSONObject()).map { ($0.key, $0.value) }
            return .verdict(fields: fields, valid: json["valid"]?.boolValue == true, text: text)
        } catch let error as AttestError where error.kind == .invalidArgument {
            return .unusable(error.message)
        }
    }
}

/// The policy of an appraisal: what the operator decides, never the evidence. A batch line may carry these fields
/// (the vectors do), but a line is client input: unless the operator passes --trust-line-policy, a line whose policy
/// differs from the command line's is unusable — otherwise evidence could bring its own trust root, pick its
/// verification time or its environment, or speak for another app.
struct LinePolicy {
    var appID: String?
    var environment: EnvironmentPolicy
    /// Nil: the built-in Apple App Attestation Root CA.
    var roots: [Certificate]?
    var time: Int64
    var challengeHash: AttestationAppraiser.ChallengeHash
    /// Whether lines may set the fields above.
    let trusted: Bool

    /// The operator's policy from the command line (and environment, config).
    init(_ invocation: Invocation) throws {
        appID = try invocation.value(AttestOptions.appID)?.text
        environment = try invocation.value(AttestOptions.environment)
        roots = try AttestOptions.customRoots(invocation)
        time = try AttestOptions.time(invocation)
        challengeHash = try invocation.value(AttestOptions.challengeHash)
        trusted = try invocation.value(AttestOptions.trustLinePolicy)
    }

    var effectiveRoots: [Certificate] { roots ?? [AppleRoots.appAttestationRoot] }

    /// This policy with `line`'s policy fields admitted: each must equal the operator's unless lines are trusted.
    /// `parseRoots` caches parsed PEM across lines.
    func admitting(_ line: AttestBatch.Line, parseRoots: (String) throws(AttestError) -> [Certificate]) throws(AttestError) -> LinePolicy {
        var policy = self
        if let (name, text) = try line.string("app_id") {
            let value = try AttestOptions.checkedAppID(text)
            try admit(name, value == appID, shown: "'\(value)'", operatorValue: appID.map { "'\($0)'" } ?? "none (give --app-id)")
            policy.appID = value
        }
        if let (name, text) = try line.string("environment") {
            guard let value = EnvironmentPolicy(rawValue: text) else {
                throw AttestError.invalidArgument("\"\(name)\" must be production, development or any")
            }
            try admit(name, value == environment, shown: value.rawValue, operatorValue: environment.rawValue)
            policy.environment = value
        }
        if let (name, pem) = try line.string("root", "root_pem") {
            let value = try parseRoots(pem)
            try admit(name, value == effectiveRoots, shown: "a root of its own (\(value.first?.subject ?? "?"))",
                      operatorValue: roots == nil ? "the built-in Apple App Attestation Root CA" : "the --root file")
            policy.roots = value
        }
        if let (name, text) = try line.string("at", "verify_at") {
            guard let value = Instant(argument: text) else {
                throw AttestError.invalidArgument("\"\(name)\": \(Instant.problem(with: text) ?? Instant.expectation)")
            }
            try admit(name, value.seconds == time, shown: value.rfc3339, operatorValue: AttestTime.format(time))
            policy.time = value.seconds
        }
        if let (name, text) = try line.string("challenge_hash") {
            guard let value = AttestationAppraiser.ChallengeHash(rawValue: text) else {
                throw AttestError.invalidArgument("\"\(name)\" must be sha256 or raw")
            }
            try admit(name, value == challengeHash, shown: value.rawValue, operatorValue: challengeHash.rawValue)
            policy.challengeHash = value
        }
        return policy
    }

    private func admit(_ name: String, _ agrees: Bool, shown: String, operatorValue: String) throws(AttestError) {
        guard trusted || agrees else {
            throw AttestError.invalidArgument("line sets \"\(name)\" to \(shown), but the command line's policy is \(operatorValue); policy comes from the operator (pass --trust-line-policy only for trusted lines)")
        }
    }
}
