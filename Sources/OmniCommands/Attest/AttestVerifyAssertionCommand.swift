import OmniAttest
import OmniCLI
import OmniCodec
import OmniCrypto

enum AttestVerifyAssertionCommand {
    static let assertion = Option<Base64Bytes>("assertion", valueName: "B64",
                                               help: "The assertion (base64 CBOR {signature, authenticatorData}).",
                                               source: .content)
    /// The client data itself, in every attest command (never a mode): its bytes are what SHA256 makes clientDataHash of.
    static let clientData = Option<String>("client-data", valueName: "DATA",
                                           help: "The client data the app hashed: base64, or its exact bytes with --client-data-format raw.",
                                           source: .content)
    static let clientDataFormat = DefaultedOption<ClientDataFormat>("client-data-format", valueName: "FORMAT", help: "How --client-data is given.",
                                                                    default: .base64)
    static let clientDataHash = Option<Base64Bytes>("client-data-hash", valueName: "B64", help: "SHA256 of the client data (base64).",
                                                    source: .content)
    static let publicKey = Option<InputFile>("public-key", valueName: "FILE",
                                             help: "The attested key: a file holding SPKI PEM, a JWK, or base64/hex of the X9.62 point.")
    static let counter = DefaultedOption<UInt64>("counter", valueName: "N",
                                                 help: "The counter stored from the key's previous assertion (0 before the first).",
                                                 default: 0)

    enum ClientDataFormat: String, CaseIterable, ArgumentValue {
        case base64
        case raw
    }

    static let command = Command(
        "verify-assertion", abstract: "Verify an assertion against an attested key and its stored counter.",
        discussion: """
            Checks, in Apple's order: the ES256 signature over nonce = SHA256(authenticatorData ‖ clientDataHash) \
            (the digest signed is SHA256(nonce)), rpIdHash = SHA256(--app-id), and a counter greater than the \
            stored one. Give the key directly (--public-key with --counter), or --store and --key-id to use an \
            enrolled key: then the stored counter advances only if this assertion wins (two racing verifications \
            of one assertion cannot both pass).

            Batch lines carry assertion, client_data (base64) or client_data_hash, and public_key with \
            previous_counter, or key_id with --store. Without --store a line's key and counter are taken as the \
            operator's records; use --store when lines come from clients. A line's app_id must be the command \
            line's unless --trust-line-policy is given. Verdicts stream: one object per line with --output jsonl, \
            one array with --output json (a single verdict too).
            """,
        options: [assertion, clientData, clientDataFormat, clientDataHash, AttestOptions.appID, publicKey, counter,
                  AttestOptions.store, AttestOptions.keyID, AttestOptions.at, AttestOptions.batch, AttestOptions.trustLinePolicy],
        relations: [.exactlyOne(assertion, AttestOptions.batch), .conflicting(clientData, clientDataHash),
                    .requires(clientDataFormat, clientData), .conflicting(publicKey, AttestOptions.store),
                    .requires(counter, publicKey), .requires(AttestOptions.trustLinePolicy, AttestOptions.batch)],
        examples: [
            Example("omni attest verify-assertion --assertion @assertion.b64 --client-data @body.json --client-data-format raw --app-id ABCDE12345.com.example.app --public-key key.pem --counter 4",
                    "Verifies one request signed by the app's attested key."),
            Example("omni attest verify-assertion --store attest.db --key-id AcP/pnpoNVPIJYZOvmIvWzDvmxkFoQCE4Uu7Nk6WiAA= --assertion @a.b64 --client-data-hash oWKXelNER2Bj4e72mbWqmouIx5H0yB8Kqv8paf5e4Ek=",
                    "Uses the enrolled key and advances its counter."),
        ],
        streaming: .when(AttestOptions.batch)
    ) { invocation in
        let time = try AttestOptions.time(invocation)
        let defaultKey = try invocation.value(publicKey).map { file in
            try AttestPublicKey.parse(try invocation.readText(file, label: "--public-key"))
        }
        let storeGiven = try invocation.value(AttestOptions.store) != nil
        let service = defaultKey == nil && storeGiven ? AttestService(store: try AttestOptions.openStore(invocation)) : nil
        let defaultCounter = try storedCounter(try invocation.value(counter), "--counter")
        let defaultAppID = try invocation.value(AttestOptions.appID)?.text
        let trusted = try invocation.value(AttestOptions.trustLinePolicy)

        if let input = try invocation.value(AttestOptions.batch) {
            let defaultKeyID = try invocation.value(AttestOptions.keyID)?.bytes
            return try AttestBatch.run(invocation, input: input) { line in
                let object = try line.require(try line.base64("assertion", "assertion_b64"), "\"assertion\"")
                let hash: [UInt8]
                if let given = try line.base64("client_data_hash", "assertion_client_data_hash_b64") {
                    hash = given
                } else {
                    hash = SHA256.hash(try line.require(try line.base64("client_data", "client_data_b64"),
                                                        "\"client_data\" or \"client_data_hash\""))
                }
                var appID = defaultAppID
                if let (name, text) = try line.string("app_id") {
                    let value = try AttestOptions.checkedAppID(text)
                    guard trusted || value == defaultAppID else {
                        throw AttestError.invalidArgument("line sets \"\(name)\" to '\(value)', but the command line's policy is \(defaultAppID.map { "'\($0)'" } ?? "none (give --app-id)"); policy comes from the operator (pass --trust-line-policy only for trusted lines)")
                    }
                    appID = value
                }
                if let service {
                    let keyID = try line.require(try line.base64("key_id", "keyId") ?? defaultKeyID, "\"key_id\"")
                    return try service.verifyAssertion(object, keyID: keyID, clientDataHash: hash, appID: appID, at: time).json
                }
                let key = try line.require(try line.string("public_key", "public_key_pem", "public_key_b64")
                    .map { field throws(AttestError) in try AttestPublicKey.parse(field.value) } ?? defaultKey, "\"public_key\"")
                let previous = try line.integer("previous_counter").map { value throws(AttestError) in
                    guard value >= 0 else { throw AttestError.invalidArgument("\"previous_counter\" is negative") }
                    return try storedCounter(UInt64(value), "\"previous_counter\"")
                } ?? defaultCounter
                return AssertionAppraiser.appraise(assertion: object, clientDataHash: hash,
                                                   appID: try line.require(appID, "\"app_id\""), publicKey: key,
                                                   previousCounter: previous).json
            }
        }

        guard let object = try invocation.value(assertion)?.bytes else {
            throw CLIError.usage("missing required option --assertion B64 (or --batch FILE)", commandPath: invocation.commandPath)
        }
        let hash: [UInt8]
        if let given = try invocation.value(clientDataHash)?.bytes {
            hash = given
        } else if let data = try clientDataBytes(invocation) {
            hash = SHA256.hash(data)
        } else {
            throw CLIError.usage("give --client-data DATA or --client-data-hash B64", commandPath: invocation.commandPath)
        }
        if let service {
            guard let keyID = try invocation.value(AttestOptions.keyID)?.bytes else {
                throw CLIError.usage("--store needs --key-id B64", commandPath: invocation.commandPath)
            }
            return .verdict(try service.verifyAssertion(object, keyID: keyID, clientDataHash: hash, appID: defaultAppID, at: time).json)
        }
        guard let key = defaultKey else {
            throw CLIError.usage("give --public-key FILE (with --counter N) or --store FILE with --key-id B64", commandPath: invocation.commandPath)
        }
        guard let appID = defaultAppID else {
            throw CLIError.usage("missing required option --app-id TEAMID.BUNDLE (or set OMNI_ATTEST_APP_ID)",
                                 commandPath: invocation.commandPath)
        }
        return .verdict(AssertionAppraiser.appraise(assertion: object, clientDataHash: hash, appID: appID, publicKey: key,
                                                    previousCounter: defaultCounter).json)
    }

    /// The bytes of --client-data in its --client-data-format; nil when not given.
    static func clientDataBytes(_ invocation: Invocation) throws -> [UInt8]? {
        switch try invocation.value(clientDataFormat) {
        case .raw:
            return try invocation.bytes(of: clientData)
        case .base64:
            guard let text = try invocation.text(of: clientData) else { return nil }
            return try AttestBase64.argument(text, "--client-data")
        }
    }

    static func storedCounter(_ value: UInt64, _ name: String) throws(AttestError) -> UInt32 {
        guard let counter = UInt32(exactly: value) else {
            throw AttestError.invalidArgument("\(name) \(value) is above 4294967295 (App Attest counters are 32-bit)")
        }
        return counter
    }
}
