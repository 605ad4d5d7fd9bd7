import OmniCodec
import OmniCrypto

/// The signing host's methods (reference §6 and §7): accounts, the user id, product entropy, signatures, transactions
/// and the VRF, each behind the checks in the reference's order, so every refusal is the typed error the reference
/// gives at that step:
///
/// - sign_raw, sign_payload, create_transaction: the account's product id must normalise (else `PermissionDenied`)
///   and be the bridge's product (`localhost*` products may sign for any id; else `PermissionDenied`); the product
///   needs the `ChainSubmit` remote permission (else `PermissionDenied`); a session must exist (else `Rejected`);
///   the person confirms this one request (else `Rejected`); then the signature. A payload that cannot be signed
///   answers `Unknown { reason }`, an unsupported transaction version `NotSupported { reason }`.
/// - the legacy-account variants: a session (else `Rejected`); the signer is the identity account or the product's
///   slot-0 account, as SS58 or hex (else `Unknown { "Account is not available in the active session" }`, or for
///   sign_payload and create_transaction `"Account can't be derived from product account id"`); then ChainSubmit,
///   the confirmation and the signature as above.
/// - get_account: a valid id (else `DomainNotValid`), a session (else `NotConnected`), for another product's
///   account the account-access decision (else `Rejected`).
/// - get_user_id: a session (else `NotConnected`), the identity-disclosure decision (else `PermissionDenied`), a
///   username (else `Unknown`).
/// - entropy_derive: a session (else `Unknown { "Not connected" }`), a key of 1…32 bytes.
/// - sign_vrf: a valid account (else `Unknown`), a transcript of at most 32 items and 8 KiB, a session (else
///   `NotConnected`), the confirmation (else `Rejected`).
///
/// Confirmations are asked per request and never remembered; account access and identity disclosure are
/// remembered per product, as the reference stores them.
struct TruAPISigningHost {
    let context: TruAPIBridgeContext

    static let accountUnavailable = "Account is not available in the active session"
    static let accountNotDerivable = "Account can't be derived from product account id"
    static let maximumVRFItems = 32
    static let maximumVRFBytes = 8 * 1024

    private var session: TruAPISession? { context.session }
    private var product: TruAPIProductID { context.productID }

    private static func unit(_ name: String) -> TruAPICallError { .domainV1(.unitVariant(name)) }

    /// The methods `respond` answers.
    static let methods: Set<String> = [
        "account_get_account", "account_get_user_id", "account_request_login", "entropy_derive", "signing_sign_raw",
        "signing_sign_payload", "signing_create_transaction", "signing_sign_raw_with_legacy_account",
        "signing_sign_payload_with_legacy_account", "signing_create_transaction_with_legacy_account", "account_sign_vrf",
    ]

    /// The answer to a signing-host method (one of `methods`), nil for any other method.
    func respond(to call: TruAPICall) async -> Result<SCALEValue, TruAPICallError>? {
        let request = call.request
        switch call.method.name {
        case "account_get_account": return await getAccount(request["product_account_id"] ?? .unit)
        case "account_get_user_id": return await getUserID()
        case "account_request_login": return .success(.unitVariant(session == nil ? "Rejected" : "AlreadyConnected"))
        case "entropy_derive": return deriveEntropy(request["context"]?.bytesValue ?? [])
        case "signing_sign_raw": return await signRaw(request)
        case "signing_sign_payload": return await signPayload(request)
        case "signing_create_transaction": return await createTransaction(request)
        case "signing_sign_raw_with_legacy_account": return await signRawWithLegacyAccount(request)
        case "signing_sign_payload_with_legacy_account": return await signPayloadWithLegacyAccount(request)
        case "signing_create_transaction_with_legacy_account": return await createTransactionWithLegacyAccount(request)
        case "account_sign_vrf": return await signVRF(request)
        default: return nil
        }
    }

    // MARK: - Accounts

    /// A product account id from the wire: the normalised product and the account index; nil when the id does
    /// not normalise to a product id or the index is malformed.
    func accountID(_ value: SCALEValue) -> (product: TruAPIProductID, index: SigningHost.AccountIndex)? {
        guard let text = value["dot_ns_identifier"]?.stringValue,
              let product = try? TruAPIProductID(text, suffixes: context.productSuffixes),
              let index = Self.accountIndex(value["derivation_index"]) else { return nil }
        return (product, index)
    }

    static func accountIndex(_ value: SCALEValue?) -> SigningHost.AccountIndex? {
        switch value {
        case .variant("Index", .integer(let index))?: UInt32(exactly: index).map { .index($0) }
        case .variant("Raw", .bytes(let bytes))?: (try? Sr25519.ChainCode(bytes)).map { .raw($0) }
        default: nil
        }
    }

    /// A product may sign only with its own accounts; `localhost*` products are development wildcards.
    private func mayUse(_ account: TruAPIProductID) -> Bool { product.isDevelopmentWildcard || account == product }

    private func getAccount(_ value: SCALEValue) async -> Result<SCALEValue, TruAPICallError> {
        guard let (owner, index) = accountID(value) else { return .failure(Self.unit("DomainNotValid")) }
        guard let session else { return .failure(Self.unit("NotConnected")) }
        if owner != product {
            let review = TruAPIReview(title: "use the account of \(owner.value)",
                                      details: ["account  \(owner.value), \(Self.describe(index))"],
                                      card: ["account access", "product \(product.value)", "account of \(owner.value)"])
            guard await context.permissions.resolve([.accountAccess(owner.value)], review: review) else {
                return .failure(Self.unit("Rejected"))
            }
        }
        let key = session.productAccount(productID: owner.value, index: index).publicKey
        return .success(.record(["account": .record(["public_key": .bytes(key.rawRepresentation)])]))
    }

    private func getUserID() async -> Result<SCALEValue, TruAPICallError> {
        guard let session else { return .failure(Self.unit("NotConnected")) }
        let review = TruAPIReview(title: "see your username", details: ["username  \(session.primaryUsername ?? "(none set)")"],
                                  card: ["identity disclosure", "product \(product.value)"])
        guard await context.permissions.resolve([.identityDisclosure], review: review) else {
            return .failure(Self.unit("PermissionDenied"))
        }
        guard let username = session.primaryUsername else { return .failure(.domainUnknown("No primary username for this session")) }
        return .success(.record(["primary_username": .string(username)]))
    }

    private func deriveEntropy(_ key: [UInt8]) -> Result<SCALEValue, TruAPICallError> {
        guard let session else { return .failure(.domainUnknown("Not connected")) }
        guard SigningHost.productEntropyKeyByteCounts.contains(key.count) else {
            return .failure(.domainUnknown("\"key\" must be between 1 and 32 bytes, got \(key.count)"))
        }
        do {
            return .success(.record(["entropy": .bytes(try session.productEntropy(productID: product.value, key: key))]))
        } catch {
            return .failure(.domainUnknown(error.message))
        }
    }

    // MARK: - The checks every product-account signature passes

    /// The product check, ChainSubmit, the session and the confirmation, in the reference's order; the session and
    /// the account's keypair when all pass.
    private func authorize(account value: SCALEValue?, confirmation: String, review: (TruAPIProductID, SigningHost.AccountIndex) -> TruAPIReview)
        async -> Result<(TruAPISession, Sr25519.Keypair), TruAPICallError>
    {
        guard let value, let (owner, index) = accountID(value), mayUse(owner) else { return .failure(Self.unit("PermissionDenied")) }
        guard await context.permissions.resolve([.remote("chain_submit")]) else { return .failure(Self.unit("PermissionDenied")) }
        guard let session else { return .failure(Self.unit("Rejected")) }
        guard await context.permissions.resolve([.confirmation(confirmation)], remember: false, review: review(owner, index)) else {
            return .failure(Self.unit("Rejected"))
        }
        return .success((session, session.productAccount(productID: owner.value, index: index)))
    }

    private func signRaw(_ request: SCALEValue) async -> Result<SCALEValue, TruAPICallError> {
        let payload = Self.rawPayload(request["payload"])
        switch await authorize(account: request["account"], confirmation: "sign_raw", review: { owner, index in
            rawReview(payload, signer: describeAccount(owner, index))
        }) {
        case .failure(let error): return .failure(error)
        case .success(let (_, keypair)): return signRaw(payload, with: keypair)
        }
    }

    private func signRaw(_ payload: SigningHost.RawPayload?, with keypair: Sr25519.Keypair) -> Result<SCALEValue, TruAPICallError> {
        guard let payload else { return .failure(.domainUnknown("raw sign payload is neither Bytes nor Payload")) }
        do {
            return .success(.record(["signature": .bytes(try SigningHost.signRaw(payload, with: keypair)), "signed_transaction": .absent]))
        } catch {
            return .failure(.domainUnknown("raw sign payload is 0x-prefixed but not valid hex"))
        }
    }

    private func signPayload(_ request: SCALEValue) async -> Result<SCALEValue, TruAPICallError> {
        let data = request["payload"] ?? .unit
        switch await authorize(account: request["account"], confirmation: "sign_payload", review: { owner, index in
            payloadReview(data, signer: describeAccount(owner, index))
        }) {
        case .failure(let error): return .failure(error)
        case .success(let (_, keypair)): return signPayload(data, with: keypair)
        }
    }

    private func createTransaction(_ request: SCALEValue) async -> Result<SCALEValue, TruAPICallError> {
        switch await authorize(account: request["signer"], confirmation: "create_transaction", review: { owner, index in
            transactionReview(request, signer: describeAccount(owner, index))
        }) {
        case .failure(let error): return .failure(error)
        case .success(let (_, keypair)): return createTransaction(request, with: keypair)
        }
    }

    // MARK: - Legacy accounts

    private enum LegacySigner { case identity, product }

    /// Which account of the session a legacy `signer` (SS58 or 0x-hex) names: the identity account or the
    /// product's slot-0 account; nil for anything else.
    private func legacySigner(_ key: [UInt8]?, session: TruAPISession) -> (LegacySigner, Sr25519.Keypair)? {
        guard let key, key.count == 32 else { return nil }
        if key == session.identityPublicKey.rawRepresentation { return (.identity, session.identityAccount()) }
        let slotZero = session.productAccount(productID: product.value)
        if key == slotZero.publicKey.rawRepresentation { return (.product, slotZero) }
        return nil
    }

    /// A legacy signer string: 32 bytes of hex (0x optional) or an SS58 address of any prefix.
    static func legacySignerKey(_ text: String) -> [UInt8]? {
        let hex = text.hasPrefix("0x") || text.hasPrefix("0X") ? String(text.dropFirst(2)) : text
        if hex.utf8.count == 64, let bytes = try? Hex.decode(hex) { return bytes }
        guard let address = try? SS58.decode(text), address.payload.count == 32 else { return nil }
        return address.payload
    }

    private func legacyConfirmation(_ confirmation: String, review: TruAPIReview) async -> TruAPICallError? {
        guard await context.permissions.resolve([.remote("chain_submit")]) else { return Self.unit("PermissionDenied") }
        guard await context.permissions.resolve([.confirmation(confirmation)], remember: false, review: review) else {
            return Self.unit("Rejected")
        }
        return nil
    }

    private func signRawWithLegacyAccount(_ request: SCALEValue) async -> Result<SCALEValue, TruAPICallError> {
        guard let session else { return .failure(Self.unit("Rejected")) }
        let signer = request["signer"]?.stringValue ?? ""
        guard let (_, keypair) = legacySigner(Self.legacySignerKey(signer), session: session) else {
            return .failure(.domainUnknown(Self.accountUnavailable))
        }
        let payload = Self.rawPayload(request["payload"])
        if let refusal = await legacyConfirmation("sign_raw", review: rawReview(payload, signer: describeKey(keypair.publicKey))) {
            return .failure(refusal)
        }
        return signRaw(payload, with: keypair)
    }

    private func signPayloadWithLegacyAccount(_ request: SCALEValue) async -> Result<SCALEValue, TruAPICallError> {
        guard let session else { return .failure(Self.unit("Rejected")) }
        guard let (kind, keypair) = legacySigner(Self.legacySignerKey(request["signer"]?.stringValue ?? ""), session: session),
              kind == .product else {
            return .failure(.domainUnknown(Self.accountNotDerivable))
        }
        let data = request["payload"] ?? .unit
        if let refusal = await legacyConfirmation("sign_payload", review: payloadReview(data, signer: describeKey(keypair.publicKey))) {
            return .failure(refusal)
        }
        return signPayload(data, with: keypair)
    }

    private func createTransactionWithLegacyAccount(_ request: SCALEValue) async -> Result<SCALEValue, TruAPICallError> {
        guard let session else { return .failure(Self.unit("Rejected")) }
        guard let (_, keypair) = legacySigner(request["signer"]?.bytesValue, session: session) else {
            return .failure(.domainUnknown(Self.accountNotDerivable))
        }
        if let refusal = await legacyConfirmation("create_transaction",
                                                  review: transactionReview(request, signer: describeKey(keypair.publicKey))) {
            return .failure(refusal)
        }
        return createTransaction(request, with: keypair)
    }

    // MARK: - Payloads and transactions

    static func rawPayload(_ value: SCALEValue?) -> SigningHost.RawPayload? {
        switch value {
        case .variant("Bytes", let fields)?: fields["bytes"]?.bytesValue.map { .bytes($0) }
        case .variant("Payload", let fields)?: fields["payload"]?.stringValue.map { .text($0) }
        default: nil
        }
    }

    /// The v4 payload of a `HostSignPayloadData`, or the reason it cannot be signed.
    static func payloadV4(_ data: SCALEValue) -> Result<SigningHost.PayloadV4, TruAPICallError> {
        let version = data["version"]?.integerValue ?? 0
        guard version == 4 else {
            return .failure(.domainUnknown("signing host: unsupported extrinsic payload version \(version); only version 4 is supported"))
        }
        func bytes(_ field: String) -> [UInt8] { data[field]?.bytesValue ?? [] }
        func optionalBytes(_ field: String) -> [UInt8]? { data[field]?.optionValue.flatMap { $0?.bytesValue } }
        let extensions = (data["signed_extensions"]?.sequenceValue ?? []).compactMap(\.stringValue)
        var mode: UInt8?
        if let requested = data["mode"]?.optionValue.flatMap({ $0?.integerValue }) {
            if let small = UInt8(exactly: requested) {
                mode = small
            } else if extensions.contains("CheckMetadataHash") {
                return .failure(.domainUnknown("CheckMetadataHash mode \(requested) does not fit in a u8"))
            }
        }
        return .success(SigningHost.PayloadV4(
            method: bytes("method"), era: bytes("era"), nonce: bytes("nonce"), tip: bytes("tip"), specVersion: bytes("spec_version"),
            transactionVersion: bytes("transaction_version"), genesisHash: bytes("genesis_hash"), blockHash: bytes("block_hash"),
            assetID: optionalBytes("asset_id"), metadataHash: optionalBytes("metadata_hash"), mode: mode, signedExtensions: extensions))
    }

    /// sign_payload v4: the MultiSignature over the (hashed when long) preimage and, when asked for, the signed
    /// extrinsic v4 carrying that very signature.
    private func signPayload(_ data: SCALEValue, with keypair: Sr25519.Keypair) -> Result<SCALEValue, TruAPICallError> {
        let payload: SigningHost.PayloadV4
        switch Self.payloadV4(data) {
        case .failure(let error): return .failure(error)
        case .success(let decoded): payload = decoded
        }
        do {
            let (extra, additional) = try payload.encodedExtensions()
            let signature = keypair.signature(for: SigningHost.signedBytes(ofPreimage: payload.method + extra + additional))
            var transaction: SCALEValue = .absent
            if data["with_signed_transaction"]?.optionValue.flatMap({ $0?.boolValue }) == true {
                transaction = .some(.bytes(try SigningHost.signedExtrinsicV4(signer: keypair.publicKey, signature: signature, extra: extra,
                                                                              call: payload.method)))
            }
            return .success(.record(["signature": .bytes(SigningHost.multiSignature(sr25519: signature)), "signed_transaction": transaction]))
        } catch {
            return .failure(.domainUnknown(error.message))
        }
    }

    /// create_transaction: an extrinsic v4 built here for `tx_ext_version` 0; V5 needs chain metadata, which this
    /// host does not fetch.
    private func createTransaction(_ request: SCALEValue, with keypair: Sr25519.Keypair) -> Result<SCALEValue, TruAPICallError> {
        let version = request["tx_ext_version"]?.integerValue ?? 0
        guard version == 0 else {
            let reason = version == 5
                ? "signing host: tx_ext_version 5 (Extrinsic V5) needs chain metadata, which this host does not fetch; use 0 for V4"
                : "signing host: unsupported tx_ext_version \(version); expected 0 for V4 or 5 for V5"
            return .failure(.domainV1(.variant("NotSupported", .record(["reason": .string(reason)]))))
        }
        let call = request["call_data"]?.bytesValue ?? []
        var extra: [UInt8] = [], additional: [UInt8] = []
        for item in request["extensions"]?.sequenceValue ?? [] {
            extra += item["extra"]?.bytesValue ?? []
            additional += item["additional_signed"]?.bytesValue ?? []
        }
        let signature = keypair.signature(for: SigningHost.signedBytes(ofPreimage: call + extra + additional))
        do {
            let transaction = try SigningHost.signedExtrinsicV4(signer: keypair.publicKey, signature: signature, extra: extra, call: call)
            return .success(.record(["transaction": .bytes(transaction)]))
        } catch {
            return .failure(.domainUnknown(error.message))
        }
    }

    // MARK: - VRF

    private func signVRF(_ request: SCALEValue) async -> Result<SCALEValue, TruAPICallError> {
        guard let account = request["account"], let (owner, index) = accountID(account) else {
            return .failure(.domainUnknown("Invalid product account"))
        }
        let label = request["transcript_label"]?.bytesValue ?? []
        let items = (request["items"]?.sequenceValue ?? []).map { ($0["label"]?.bytesValue ?? [], $0["value"]?.bytesValue ?? []) }
        guard items.count <= Self.maximumVRFItems else {
            return .failure(.domainUnknown("VRF transcript has \(items.count) items, at most \(Self.maximumVRFItems) are allowed"))
        }
        guard items.reduce(label.count, { $0 + $1.0.count + $1.1.count }) <= Self.maximumVRFBytes else {
            return .failure(.domainUnknown("VRF transcript exceeds the \(Self.maximumVRFBytes)-byte limit"))
        }
        guard let session else { return .failure(Self.unit("NotConnected")) }
        var details = ["account  \(describeAccount(owner, index))", "label    \(Self.show(label))"]
        details += items.map { "item     \(Self.show($0.0)) = \(Self.show($0.1))" }
        let review = TruAPIReview(title: "make a VRF signature", details: details,
                                  card: ["sign_vrf", "product \(product.value)", "account \(describeAccount(owner, index))",
                                         "transcript \(items.count) items (contents redacted)"])
        guard await context.permissions.resolve([.confirmation("sign_vrf")], remember: false, review: review) else {
            return .failure(Self.unit("Rejected"))
        }
        var transcript = MerlinTranscript(label: label)
        for (itemLabel, value) in items { transcript.appendMessage(label: itemLabel, value) }
        let signature = session.productAccount(productID: owner.value, index: index).vrfSign(transcript: transcript)
        return .success(.record(["pre_output": .bytes(signature.preOutput), "proof": .bytes(signature.proof)]))
    }

    // MARK: - What the person is shown

    static func describe(_ index: SigningHost.AccountIndex) -> String {
        switch index {
        case .index(let number): "index \(number)"
        case .raw(let chainCode): "raw index 0x\(Hex.encode(chainCode.bytes))"
        }
    }

    private func describeAccount(_ owner: TruAPIProductID, _ index: SigningHost.AccountIndex) -> String {
        let key = session.map { describeKey($0.productAccount(productID: owner.value, index: index).publicKey) } ?? "no session"
        return "\(key) (\(owner.value), \(Self.describe(index)))"
    }

    private func describeKey(_ key: Sr25519.PublicKey) -> String {
        (try? SS58.encode(key.rawRepresentation)) ?? "0x" + Hex.encode(key.rawRepresentation)
    }

    /// Text when the bytes are printable UTF-8, else hex; long values are cut (the size stays visible).
    static func show(_ bytes: [UInt8], limit: Int = 512) -> String {
        if let text = try? UTF8Validation.string(bytes), !text.unicodeScalars.contains(where: { $0.value < 0x20 || (0x7F...0x9F).contains($0.value) }) {
            let shown = text.unicodeScalars.count > limit ? String(String.UnicodeScalarView(text.unicodeScalars.prefix(limit))) + "…" : text
            return "\"\(shown)\" (\(bytes.count) bytes)"
        }
        let hex = Hex.encode(bytes.prefix(limit / 2))
        return "0x\(hex)\(bytes.count > limit / 2 ? "…" : "") (\(bytes.count) bytes)"
    }

    private func rawReview(_ payload: SigningHost.RawPayload?, signer: String) -> TruAPIReview {
        let message: [UInt8] = payload.flatMap { try? SigningHost.rawPayloadBytes($0) } ?? []
        let shown: String = switch payload {
        case .bytes(let bytes)?: Self.show(bytes)
        case .text(let text)?: (try? SigningHost.rawPayloadBytes(.text(text))).map { Self.show($0) } ?? "not valid hex after 0x"
        case nil: "not readable"
        }
        return TruAPIReview(title: "sign a message", details: ["account  \(signer)", "message  \(shown)",
                                                                "signed   wrapped in <Bytes>…</Bytes> unless it already is"],
                            card: ["sign_raw", "product \(product.value)", "account \(signer)", "message \(message.count) bytes (contents redacted)"])
    }

    private func payloadReview(_ data: SCALEValue, signer: String) -> TruAPIReview {
        func field(_ name: String) -> String { Self.show(data[name]?.bytesValue ?? []) }
        let extensions = (data["signed_extensions"]?.sequenceValue ?? []).compactMap(\.stringValue)
        let method = data["method"]?.bytesValue ?? []
        let details = [
            "account      \(signer)", "genesis      \(field("genesis_hash"))", "block        \(field("block_hash")) number \(field("block_number"))",
            "call         \(Self.show(method))", "era          \(field("era"))", "nonce        \(field("nonce"))", "tip          \(field("tip"))",
            "spec         \(field("spec_version")) tx \(field("transaction_version"))", "version      \(data["version"]?.integerValue ?? 0)",
            "extensions   \(extensions.joined(separator: ", "))",
            "submit       " + (data["with_signed_transaction"]?.optionValue.flatMap { $0?.boolValue } == true ? "return the signed extrinsic too" : "signature only"),
        ]
        return TruAPIReview(title: "sign a transaction payload", details: details,
                            card: ["sign_payload", "product \(product.value)", "account \(signer)", "call \(method.count) bytes (contents redacted)"])
    }

    private func transactionReview(_ request: SCALEValue, signer: String) -> TruAPIReview {
        let call = request["call_data"]?.bytesValue ?? []
        let extensions = (request["extensions"]?.sequenceValue ?? []).map { item in
            "\(item["id"]?.stringValue ?? "?") extra \(Self.show(item["extra"]?.bytesValue ?? [], limit: 64))"
        }
        let details = ["account      \(signer)", "genesis      \(Self.show(request["genesis_hash"]?.bytesValue ?? []))", "call         \(Self.show(call))",
                       "version      tx_ext_version \(request["tx_ext_version"]?.integerValue ?? 0)"] + extensions.map { "extension    " + $0 }
        return TruAPIReview(title: "build and sign a transaction", details: details,
                            card: ["create_transaction", "product \(product.value)", "account \(signer)",
                                   "call \(call.count) bytes (contents redacted)"])
    }
}
