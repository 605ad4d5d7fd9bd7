import OmniAttest
import OmniCLI
import OmniCodec
import OmniCrypto

enum AttestVerifyAssertionCommand {
    static let assertion = Option<String>("assertion", valueName: "B64", help: "The assertion (base64 CBOR {signature, authenticatorData}).",
                                          source: .content)
    static let clientData = Option<String>("client-data", valueName: "DATA",
                                           help: "The client data the app hashed: base64, or raw bytes with --client-data-format raw.",
                                           source: .content)
    static let clientDataFormat = Option<ClientDataFormat>("client-data-format", help: "How --client-data is given.", default: .base64)
    static let clientDataHash = Option<String>("client-data-hash", valueName: "B64", help: "SHA256 of the client data (base64).",
                                               source: .content)
    static let publicKey = Option<String>("public-key", valueName: "KEY",
                                          help: "The attested key: SPKI PEM, JWK, or base64/hex of the X9.62 point.",
                                          source: .content)
    static let counter = Option<UInt64>("counter", valueName: "N",
                                        help: "The counter stored from the key's previous assertion (0 before the first).", default: 0)

    enum ClientDataFormat: String, CaseIterable, ArgumentValue {
        case base64
        case raw
    }

    static let command = Command(
        "verify-assertion", abstract: "Verify an assertion against an attested key and its stored counter.",
        discussion: """
            Checks, in Apple's order: the ES256 signature over nonce = SHA256(authenticatorData ‖ clientDataHash)
            (the digest signed is SHA256(nonce)), rpIdHash = SHA256(--app-id), and a counter greater than the stored
            one. Give the key directly (--public-key with --counter), or --store and --key-id to use an enrolled key:
            then the stored counter advances only if this assertion wins (two racing verifications of one
            assertion cannot both pass).

            Batch lines carry assertion, client_data (base64) or client_data_hash, app_id, and public_key with
            previous_counter, or key_id with --store.
            """,
        options: [assertion, clientData, clientDataFormat, clientDataHash, AttestOptions.appID, publicKey, counter,
                  AttestOptions.store, AttestOptions.keyID, AttestOptions.at, AttestOptions.batch],
        examples: [
            Example("omni attest verify-assertion --assertion @assertion.b64 --client-data @body.json --client-data-format raw --app-id ABCDE12345.com.example.app --public-key @key.pem --counter 4",
                    "Verifies one request signed by the app's attested key."),
            Example("omni attest verify-assertion --store attest.db --key-id AcP/pnpoNVPIJYZOvmIvWzDvmxkFoQCE4Uu7Nk6WiAA= --assertion @a.b64 --client-data-hash oWKXelNER2Bj4e72mbWqmouIx5H0yB8Kqv8paf5e4Ek=",
                    "Uses the enrolled key and advances its counter."),
        ]
    ) { invocation in
        let time = try AttestOptions.time(invocation)
        if invocation.isGiven(publicKey) && invocation.isGiven(AttestOptions.store) {
            throw CLIError.usage("--public-key and --store cannot be combined", commandPath: invocation.commandPath)
        }
        let storePath = try invocation.value(AttestOptions.store)
        let service = invocation.isGiven(publicKey) || storePath == nil ? nil : AttestService(store: try AttestOptions.openStore(invocation))
        if service != nil && invocation.isGiven(counter) {
            throw CLIError.usage("--counter goes with --public-key; with --store the enrolled key's counter is used", commandPath: invocation.commandPath)
        }
        let defaultKey = try invocation.value(publicKey).map { text throws(AttestError) in try AttestPublicKey.parse(text) }
        let defaultCounter = try storedCounter(try invocation.value(counter) ?? 0, "--counter")
        let defaultAppID = try invocation.value(AttestOptions.appID).map { text throws(AttestError) in try AttestOptions.checkedAppID(text) }
        let format = try invocation.value(clientDataFormat) ?? .base64

        if let path = try invocation.value(AttestOptions.batch) {
            if invocation.isGiven(assertion) {
                throw CLIError.usage("--assertion and --batch cannot be combined", commandPath: invocation.commandPath)
            }
            let defaultKeyID = try AttestOptions.base64(invocation, AttestOptions.keyID)
            return try AttestBatch.run(invocation, path: path) { line in
                let object = try line.require(try line.base64("assertion", "assertion_b64"), "assertion")
                let hash: [UInt8]
                if let given = try line.base64("client_data_hash", "assertion_client_data_hash_b64") {
                    hash = given
                } else {
                    hash = SHA256.hash(try line.require(try line.base64("client_data", "client_data_b64"), "client_data or client_data_hash"))
                }
                let appID = try line.string("app_id").map { text throws(AttestError) in try AttestOptions.checkedAppID(text) } ?? defaultAppID
                if let service {
                    let keyID = try line.require(try line.base64("key_id", "keyId") ?? defaultKeyID, "key_id")
                    return try service.verifyAssertion(object, keyID: keyID, clientDataHash: hash, appID: appID, at: time).json
                }
                let key = try line.require(try line.string("public_key", "public_key_pem", "public_key_b64")
                    .map { text throws(AttestError) in try AttestPublicKey.parse(text) } ?? defaultKey, "public_key")
                let previous = try line.integer("previous_counter").map { value throws(AttestError) in
                    guard value >= 0 else { throw AttestError.invalidArgument("\"previous_counter\" is negative") }
                    return try storedCounter(UInt64(value), "\"previous_counter\"")
                } ?? defaultCounter
                return AssertionAppraiser.appraise(assertion: object, clientDataHash: hash,
                                                   appID: try line.require(appID, "app_id"), publicKey: key, previousCounter: previous).json
            }
        }

        guard let assertionText = try invocation.value(assertion) else {
            throw CLIError.usage("missing required option --assertion B64 (or --batch FILE.jsonl)", commandPath: invocation.commandPath)
        }
        let object = try AttestBase64.argument(assertionText, "--assertion")
        try AttestOptions.requireOne(invocation, clientData, clientDataHash)
        let hash: [UInt8]
        if let given = try AttestOptions.base64(invocation, clientDataHash) {
            hash = given
        } else {
            hash = SHA256.hash(try clientDataBytes(invocation, format: format))
        }
        if let service {
            guard let keyID = try AttestOptions.base64(invocation, AttestOptions.keyID) else {
                throw CLIError.usage("--store needs --key-id B64", commandPath: invocation.commandPath)
            }
            return .verdict(try service.verifyAssertion(object, keyID: keyID, clientDataHash: hash, appID: defaultAppID, at: time).json)
        }
        guard let key = defaultKey else {
            throw CLIError.usage("give --public-key KEY (with --counter N) or --store FILE with --key-id B64", commandPath: invocation.commandPath)
        }
        guard let appID = defaultAppID else {
            throw CLIError.usage("missing required option --app-id TEAMID.BUNDLE", commandPath: invocation.commandPath)
        }
        return .verdict(AssertionAppraiser.appraise(assertion: object, clientDataHash: hash, appID: appID, publicKey: key,
                                                    previousCounter: defaultCounter).json)
    }

    /// The client data bytes of --client-data in its format.
    static func clientDataBytes(_ invocation: Invocation, format: ClientDataFormat) throws -> [UInt8] {
        guard let bytes = try invocation.bytes(of: clientData) else { return [] }
        switch format {
        case .raw: return bytes
        case .base64: return try AttestBase64.argument(String(decoding: bytes, as: UTF8.self), "--client-data")
        }
    }

    static func storedCounter(_ value: UInt64, _ name: String) throws(AttestError) -> UInt32 {
        guard let counter = UInt32(exactly: value) else {
            throw AttestError.invalidArgument("\(name) \(value) is above 4294967295 (App Attest counters are 32-bit)")
        }
        return counter
    }
}
