import OmniAttest
import OmniCLI
import OmniCodec
import OmniCrypto

/// `omni attest`: Apple App Attest appraisal — attestations, assertions, receipts, and a store-backed server flow.
public enum AttestCommands {
    public static var group: Command {
        Command("attest", abstract: "Appraise Apple App Attest attestations, assertions and receipts like a careful server.",
                discussion: """
                    Every check Apple documents, in Apple's order; the first failing check decides and the verdict \
                    names it with a reason code: ok, bad_format, malformed_cbor, malformed_auth_data, bad_chain, \
                    cert_expired, cert_not_yet_valid, nonce_mismatch, key_id_mismatch, credential_id_mismatch, \
                    rp_id_mismatch, aaguid_mismatch, counter_not_zero, bad_signature, counter_not_increasing. Receipts \
                    add bad_receipt (only with --require-receipt); the store flow adds unknown_challenge, \
                    challenge_mismatch, unknown_key, key_revoked and key_already_enrolled.

                    Exit 0 when the evidence is valid, 1 when it is refused (unparseable evidence is a refusal too), \
                    3 only when an argument is unusable (bad base64, unreadable file, bad PEM, a malformed --at), 7 \
                    when the --store file cannot be opened or written. The Apple App Attestation Root CA, Apple Root \
                    CA - G3 and the receipt pins are built in (see Vendor/SOURCES.md).

                    Batches (--batch FILE, JSON lines in): one verdict per line, in order, streamed; exit 0 when every \
                    line is valid, 1 when any is refused, 3 when any line was unusable (it gets an error object and \
                    the run goes on). Policy comes from the command line, never from the lines: a line that sets \
                    app_id, environment, root, at or challenge_hash to something else than the command line says is \
                    unusable, unless --trust-line-policy declares the lines trusted (test vectors, say).
                    """,
                section: "Apple"
        ) {
            [AttestVerifyAttestationCommand.command, AttestVerifyAssertionCommand.command, AttestReceiptCommand.command,
             AttestChallengeCommand.command, AttestEnrollCommand.command, AttestVerifyCommand.command, AttestKeysCommands.group]
        }
    }
}

extension EnvironmentPolicy: ArgumentValue {}
extension AttestationAppraiser.ChallengeHash: ArgumentValue {}

/// Bytes given as base64 (standard or URL-safe, padding optional, line breaks allowed): data, so a value that does not
/// decode is malformed input (exit 3).
struct Base64Bytes: ArgumentValue, Sendable {
    let bytes: [UInt8]

    init?(argument: String) {
        guard let bytes = AttestBase64.decode(argument), !bytes.isEmpty else { return nil }
        self.bytes = bytes
    }

    static var expectation: String { "base64 (standard or URL-safe) of at least one byte" }
    static var isData: Bool { true }
    var argumentText: String { AttestBase64.encode(bytes) }
}

/// An App ID: the 10-character Team ID, a dot, the bundle ID.
struct AppID: ArgumentValue, Sendable {
    let text: String

    init?(argument: String) {
        guard let text = try? AttestOptions.checkedAppID(argument) else { return nil }
        self.text = text
    }

    static var expectation: String { "TEAMID.BUNDLE (e.g. ABCDE12345.com.example.app)" }
    static var isData: Bool { true }
    var argumentText: String { text }
}

/// Options and argument readers the attest commands share.
enum AttestOptions {
    static let appIDHelp = "The App ID: 10-character Team ID, a dot, the bundle ID."
    static let appID = Option<AppID>("app-id", valueName: "TEAMID.BUNDLE", help: appIDHelp,
                                     environment: "OMNI_ATTEST_APP_ID", config: "attest.app_id")
    /// The same option where a command cannot run without it.
    static let requiredAppID = RequiredOption<AppID>("app-id", valueName: "TEAMID.BUNDLE", help: appIDHelp,
                                                     environment: "OMNI_ATTEST_APP_ID", config: "attest.app_id")
    static let keyID = Option<Base64Bytes>("key-id", valueName: "B64", help: "The key id the app sent (base64 of 32 bytes).",
                                           source: .content)
    static let environment = DefaultedOption<EnvironmentPolicy>(
        "environment", valueName: "POLICY", help: "Which aaguid to accept: production ('appattest'), development ('appattestdevelop') or any.",
        default: .production, environment: "OMNI_ATTEST_ENVIRONMENT", config: "attest.environment")
    static let root = Option<InputFile>("root", valueName: "PEM_FILE",
                                        help: "Trust the root certificate(s) in this PEM file instead (tests).",
                                        absentMeans: "the built-in Apple App Attestation Root CA")
    static let at = Option<Instant>("at", valueName: "INSTANT",
                                    help: "Verification time: RFC 3339 (2026-04-21T18:13:12Z) or Unix seconds.",
                                    absentMeans: "now")
    static let requireReceipt = Flag("require-receipt",
                                     help: "Refuse (bad_receipt) when the receipt is missing or does not verify; otherwise it only warns.")
    static let store = Option<InputFile>("store", valueName: "FILE",
                                         help: "The SQLite store of challenges and enrolled keys (created 0600 when missing).",
                                         environment: "OMNI_ATTEST_STORE", config: "attest.store")
    static let batch = Option<InputFile>("batch", valueName: "FILE",
                                         help: "Appraise the JSON lines of FILE ('-' for stdin): one verdict per line, in order.")
    static let jobs = Option<Int>("jobs", valueName: "N",
                                  help: "Appraise up to N batch lines at once; verdicts keep input order and still stream.",
                                  absentMeans: "one per processor", environment: "OMNI_ATTEST_JOBS", config: "attest.jobs")

    /// `--jobs`, checked; the batch runner's default when absent.
    static func workers(_ invocation: Invocation) throws -> Int {
        guard let jobs = try invocation.value(Self.jobs) else { return BatchRunner.defaultWorkers }
        guard (1...256).contains(jobs) else {
            throw CLIError.usage("--jobs must be from 1 to 256", commandPath: invocation.commandPath)
        }
        return jobs
    }

    static let trustLinePolicy = Flag(
        "trust-line-policy",
        help: "Let batch lines set app_id, environment, root, at and challenge_hash (only for trusted lines such as test vectors).")
    static let challengeHash = DefaultedOption<AttestationAppraiser.ChallengeHash>(
        "challenge-hash", valueName: "RULE",
        help: "How the app made clientDataHash from the challenge: sha256 (Apple's guide) or raw (Apple's published samples).",
        default: .sha256)

    /// The time an `--at` option gives (the verification time unless a command declares its own), else now.
    static func time(_ invocation: Invocation, _ option: Option<Instant> = at) throws -> Int64 {
        try invocation.value(option)?.seconds ?? AttestTime.now()
    }

    static func checkedAppID(_ text: String) throws(AttestError) -> String {
        let appID = text.trimmingWhitespaceAndNewlines()
        guard let dot = appID.firstIndex(of: "."), dot != appID.startIndex, appID.index(after: dot) != appID.endIndex,
              !appID.contains(where: \.isWhitespace)
        else { throw AttestError.invalidArgument("app id '\(appID)' is not TEAMID.BUNDLE (e.g. ABCDE12345.com.example.app)") }
        return appID
    }

    /// The certificates of a PEM text (a `--root` file or a batch line's root).
    static func certificates(fromPEM pem: String, _ what: String) throws(AttestError) -> [Certificate] {
        do {
            return try Certificate.certificates(fromPEM: pem)
        } catch {
            throw AttestError.invalidArgument("\(what): \(error.message)")
        }
    }

    /// The roots in the PEM file `option` names; nil when it is not given (the built-in root applies).
    static func customRoots(_ invocation: Invocation, _ option: Option<InputFile> = root) throws -> [Certificate]? {
        guard let file = try invocation.value(option) else { return nil }
        return try certificates(fromPEM: try invocation.readText(file, label: option.spec.longFlag), option.spec.longFlag)
    }

    /// Opens the `--store` file. Its rules: a path (never '-', the store is a file SQLite writes in place), `~` is not
    /// expanded (the path may come from OMNI_ATTEST_STORE or the config file, where no shell expands it), the
    /// directory must exist, and a new file is created 0600.
    static func openStore(_ invocation: Invocation) throws -> SQLiteAttestStore {
        guard let file = try invocation.value(store) else {
            throw CLIError.usage("missing required option --store FILE (or set OMNI_ATTEST_STORE)", commandPath: invocation.commandPath)
        }
        guard case .path(let path) = file else {
            throw CLIError.usage("--store names the store's file; it cannot be '-'", commandPath: invocation.commandPath)
        }
        if path == "~" || path.hasPrefix("~/") {
            throw AttestError(.store, "--store \(path): '~' is not expanded here; give the full path")
        }
        return try SQLiteAttestStore(path: path)
    }
}
