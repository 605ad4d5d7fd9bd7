import OmniAttest
import OmniCLI
import OmniCodec
import OmniCrypto

/// `omni attest`: Apple App Attest appraisal — attestations, assertions, receipts, and a store-backed server flow.
public enum AttestCommands {
    public static var group: Command {
        Command("attest", abstract: "Appraise Apple App Attest attestations, assertions and receipts like a careful server.",
                discussion: """
                    Every check Apple documents, in Apple's order; the first failing check decides and the verdict names
                    it with a reason code: ok, bad_format, malformed_cbor, malformed_auth_data, bad_chain, cert_expired,
                    cert_not_yet_valid, nonce_mismatch, key_id_mismatch, credential_id_mismatch, rp_id_mismatch,
                    aaguid_mismatch, counter_not_zero, bad_signature, counter_not_increasing. Receipts add bad_receipt
                    (only with --require-receipt); the store flow adds unknown_challenge, challenge_mismatch,
                    unknown_key, key_revoked and key_already_enrolled.

                    Exit 0 when the evidence is valid, 1 when it is refused (unparseable evidence is a refusal too),
                    3 only when an argument is unusable (bad base64, unreadable file, bad PEM), 7 when the --store
                    file cannot be opened or written. In batch mode: 0 when every line is valid, 1 when any is
                    refused, 3 when any line was unusable (it gets an error object; the run goes on). The Apple App
                    Attestation Root CA and Apple Root CA - G3 are built in (see Vendor/SOURCES.md).
                    """,
                subcommands: [AttestVerifyAttestationCommand.command, AttestVerifyAssertionCommand.command,
                              AttestReceiptCommand.command, AttestChallengeCommand.command, AttestEnrollCommand.command,
                              AttestVerifyCommand.command, AttestKeysCommands.group],
                section: "Apple")
    }
}

extension EnvironmentPolicy: ArgumentValue {}
extension AttestationAppraiser.ClientDataRule: ArgumentValue {}

/// Options and argument readers the attest commands share.
enum AttestOptions {
    static let appID = Option<String>("app-id", valueName: "TEAMID.BUNDLE",
                                      help: "The App ID: 10-character Team ID, a dot, the bundle ID.",
                                      environment: "OMNI_ATTEST_APP_ID", config: "attest.app_id", source: .content)
    static let keyID = Option<String>("key-id", valueName: "B64", help: "The key id the app sent (base64 of 32 bytes).",
                                      source: .content)
    static let environment = Option<EnvironmentPolicy>(
        "environment", help: "Which aaguid to accept: production ('appattest'), development ('appattestdevelop') or any.",
        default: .production, environment: "OMNI_ATTEST_ENVIRONMENT", config: "attest.environment")
    static let root = Option<String>("root", valueName: "PEM",
                                     help: "Trust this root instead of the built-in Apple App Attestation Root CA (tests).",
                                     source: .content)
    static let at = Option<String>("at", valueName: "TIME",
                                   help: "Verification time, RFC 3339 (2026-04-21T18:13:12Z) or Unix seconds; default now.",
                                   source: .content)
    static let requireReceipt = Flag("require-receipt",
                                     help: "Refuse (bad_receipt) when the receipt is missing or does not verify; otherwise it only warns.")
    static let store = Option<String>("store", valueName: "FILE", help: "The SQLite store of challenges and enrolled keys.",
                                      environment: "OMNI_ATTEST_STORE", config: "attest.store", source: .path)
    static let batch = Option<String>("batch", valueName: "FILE.jsonl",
                                      help: "Appraise one JSON object per line ('-' for stdin) and print one verdict per line.",
                                      source: .path)
    static let clientDataRule = Option<AttestationAppraiser.ClientDataRule>(
        "client-data", help: "How clientDataHash comes from the challenge: sha256 (Apple's guide) or raw (Apple's samples).",
        default: .sha256)

    static func base64(_ invocation: Invocation, _ option: Option<String>) throws -> [UInt8]? {
        guard let text = try invocation.value(option) else { return nil }
        return try AttestBase64.argument(text, option.spec.longFlag)
    }

    static func time(_ invocation: Invocation) throws -> Int64 {
        guard let text = try invocation.value(at) else { return AttestTime.now() }
        return try parseTime(text, "--at")
    }

    static func parseTime(_ text: String, _ name: String) throws(AttestError) -> Int64 {
        guard let time = AttestTime.parse(text) else {
            throw AttestError.invalidArgument("\(name) '\(text)' is not an RFC 3339 time (2026-04-21T18:13:12Z) or Unix seconds in the years 1 to 9999")
        }
        return time
    }

    static func checkedAppID(_ text: String) throws(AttestError) -> String {
        let appID = text.trimmingWhitespaceAndNewlines()
        guard let dot = appID.firstIndex(of: "."), dot != appID.startIndex, appID.index(after: dot) != appID.endIndex,
              !appID.contains(where: \.isWhitespace)
        else { throw AttestError.invalidArgument("app id '\(appID)' is not TEAMID.BUNDLE (e.g. ABCDE12345.com.example.app)") }
        return appID
    }

    /// The certificates of a `--root` PEM, or the built-in root when none is given.
    static func roots(_ pem: String?, builtIn: Certificate = AppleRoots.appAttestationRoot) throws(AttestError) -> [Certificate] {
        guard let pem else { return [builtIn] }
        do {
            return try Certificate.certificates(fromPEM: pem)
        } catch {
            throw AttestError.invalidArgument("--root: \(error.message)")
        }
    }

    static func openStore(_ invocation: Invocation) throws -> SQLiteAttestStore {
        guard let path = try invocation.value(store) else {
            throw CLIError.usage("missing required option --store FILE (or set OMNI_ATTEST_STORE)", commandPath: invocation.commandPath)
        }
        return try SQLiteAttestStore(path: path)
    }

    /// A JSON document option: literal JSON, `@FILE`, `-` (stdin), or a plain file path.
    static func document(_ invocation: Invocation, _ option: Option<String>) throws -> [UInt8]? {
        guard let raw = invocation.parsed.options[option.spec.name]?.last else { return nil }
        let trimmed = raw.trimmingWhitespaceAndNewlines()
        if raw == "-" || raw.hasPrefix("@") || trimmed.hasPrefix("{") { return try invocation.bytes(of: option) }
        return try FileInput.read(raw, label: option.spec.longFlag)
    }

    /// Exactly one of two options (usage error otherwise).
    static func requireOne(_ invocation: Invocation, _ first: some OptionDeclaration, _ second: some OptionDeclaration) throws {
        let given = [invocation.isGiven(first), invocation.isGiven(second)].filter { $0 }.count
        guard given == 1 else {
            throw CLIError.usage("give exactly one of \(first.spec.longFlag) and \(second.spec.longFlag)", commandPath: invocation.commandPath)
        }
    }
}
