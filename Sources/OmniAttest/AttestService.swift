import OmniCodec
import OmniCrypto

/// The store-backed server flow (what Root Herald offers apps): mint a single-use challenge, enroll a key from an
/// attestation made over it, verify later assertions against the enrolled key while its counter moves forward.
public struct AttestService {
    public let store: any AttestStore

    public init(store: any AttestStore) {
        self.store = store
    }

    static let jsonLimits = JSONLimits(maxDepth: 8, maxBytes: 1 << 20, maxStringBytes: 512 << 10, maxNumberDigits: 32)

    /// Mints `byteCount` random bytes valid for `lifetime` seconds from `time` and stores them. With `value`, records
    /// that challenge instead (one issued elsewhere; it must be 8 to 256 bytes and unpredictable to be worth anything).
    public func issueChallenge(lifetime: Int64, at time: Int64, byteCount: Int = 32,
                               value given: [UInt8]? = nil) throws(AttestError) -> StoredChallenge {
        guard lifetime > 0 else { throw AttestError.invalidArgument("a challenge lifetime must be positive") }
        let value: [UInt8]
        if let given {
            guard (8...256).contains(given.count) else {
                throw AttestError.invalidArgument("a recorded challenge has 8 to 256 bytes, not \(given.count)")
            }
            value = given
        } else {
            guard (16...64).contains(byteCount) else { throw AttestError.invalidArgument("a challenge has 16 to 64 bytes, not \(byteCount)") }
            value = SecureRandom.bytes(byteCount)
        }
        let (expiry, overflow) = time.addingReportingOverflow(lifetime)
        let challenge = StoredChallenge(value: value, createdAt: time, expiresAt: overflow ? .max : expiry)
        try store.addChallenge(challenge)
        return challenge
    }

    /// Enrolls the key of an enroll body `{"platform":"ios","iosKeyId","iosAttestationObject","nonce"}`: the nonce
    /// (base64url challenge) is consumed from the store, the attestation appraised over it, the key recorded.
    public func enroll(body: [UInt8], appID: String, challengeHash rule: AttestationAppraiser.ChallengeHash,
                       appraiser: AttestationAppraiser, at time: Int64) throws(AttestError) -> FlowVerdict {
        let fields: (keyID: [UInt8], attestation: [UInt8], challenge: [UInt8])
        do {
            fields = try Self.enrollFields(body)
        } catch {
            return FlowVerdict(kind: .enrollment, reason: error.reason, message: error.message)
        }
        switch try store.consumeChallenge(fields.challenge, at: time) {
        case .unknown:
            return FlowVerdict(kind: .enrollment, reason: .unknownChallenge, message: "the enroll nonce is not an issued challenge (never issued, or already used)", keyID: fields.keyID)
        case .expired(let challenge):
            return FlowVerdict(kind: .enrollment, reason: .unknownChallenge, message: "the enroll nonce expired at \(AttestTime.format(challenge.expiresAt))", keyID: fields.keyID)
        case .valid:
            break
        }
        let verdict = appraiser.appraise(attestation: fields.attestation, keyID: fields.keyID, appID: appID,
                                         clientDataHash: rule.clientDataHash(challenge: fields.challenge), at: time)
        guard verdict.isValid, let publicKey = verdict.publicKey, let environment = verdict.environment else {
            return FlowVerdict(kind: .enrollment, reason: verdict.reason, message: verdict.message, keyID: fields.keyID, attestation: verdict)
        }
        let key = EnrolledKey(keyID: fields.keyID, publicKey: publicKey.uncompressedRepresentation, appID: appID,
                              environment: environment, counter: 0, enrolledAt: time,
                              receipt: verdict.receipt?.bytes)
        guard try store.enroll(key) else {
            return FlowVerdict(kind: .enrollment, reason: .keyAlreadyEnrolled, message: "key \(AttestBase64.encode(fields.keyID)) is already enrolled",
                               keyID: fields.keyID, attestation: verdict, key: try store.key(id: fields.keyID))
        }
        return FlowVerdict(kind: .enrollment, reason: .ok, message: "enrolled: " + verdict.message, keyID: fields.keyID,
                           attestation: verdict, key: key)
    }

    /// What the client hashed for an assertion.
    public enum ClientData: Sendable {
        /// The bytes the app passed through SHA256 (clientData); with a challenge they must carry it.
        case data([UInt8])
        /// SHA256(clientData), computed by the caller.
        case hash([UInt8])
    }

    /// How the client data must carry the challenge (Apple leaves the embedding to the app).
    public enum ChallengeBinding: Sendable, Equatable {
        /// Anywhere in the client data, raw or as base64, base64url or hex text: loose, but fits any app's format.
        case anywhere
        /// The client data is a JSON object whose field `name` is a string equal to the challenge, exactly, in one of
        /// its text forms: base64 (padded), base64url (unpadded) or lowercase hex.
        case jsonField(String)
    }

    /// Verifies evidence `{"iosAttestation":{"assertion","keyId"}}` against the enrolled key. With `challenge`, the
    /// challenge is consumed from the store and the client data must carry it as `binding` says; without client
    /// data, the client data is the challenge itself.
    public func verify(evidence: [UInt8], challenge: [UInt8]?, clientData: ClientData?, binding: ChallengeBinding = .anywhere,
                       appID: String?, at time: Int64) throws(AttestError) -> FlowVerdict {
        let fields: (keyID: [UInt8], assertion: [UInt8])
        do {
            fields = try Self.evidenceFields(evidence)
        } catch {
            return FlowVerdict(kind: .assertion, reason: error.reason, message: error.message)
        }
        var data = clientData
        if let challenge {
            // Checked before the challenge is used up: a call that cannot be judged must not spend it.
            if case .hash? = clientData {
                throw AttestError.invalidArgument("with a challenge, give the client data itself (not its hash) so the challenge in it can be checked")
            }
            switch try store.consumeChallenge(challenge, at: time) {
            case .unknown:
                return FlowVerdict(kind: .assertion, reason: .unknownChallenge, message: "the challenge was never issued or is already used", keyID: fields.keyID)
            case .expired(let stored):
                return FlowVerdict(kind: .assertion, reason: .unknownChallenge, message: "the challenge expired at \(AttestTime.format(stored.expiresAt))", keyID: fields.keyID)
            case .valid:
                break
            }
            if case .data(let bytes)? = clientData {
                if let problem = Self.bindingProblem(bytes, challenge, binding) {
                    return FlowVerdict(kind: .assertion, reason: .challengeMismatch, message: problem, keyID: fields.keyID)
                }
            } else {
                data = .data(challenge)
            }
        }
        guard let data else { throw AttestError.invalidArgument("give the client data, its hash, or a challenge") }
        let clientDataHash: [UInt8]
        switch data {
        case .data(let bytes): clientDataHash = SHA256.hash(bytes)
        case .hash(let hash): clientDataHash = hash
        }
        return try verifyAssertion(fields.assertion, keyID: fields.keyID, clientDataHash: clientDataHash, appID: appID, at: time)
    }

    /// Verifies one assertion against the enrolled key `keyID` and advances its counter (compare-and-set).
    public func verifyAssertion(_ assertion: [UInt8], keyID: [UInt8], clientDataHash: [UInt8], appID: String?,
                                at time: Int64) throws(AttestError) -> FlowVerdict {
        guard let key = try store.key(id: keyID) else {
            return FlowVerdict(kind: .assertion, reason: .unknownKey, message: "no key \(AttestBase64.encode(keyID)) is enrolled", keyID: keyID)
        }
        if let revoked = key.revokedAt {
            return FlowVerdict(kind: .assertion, reason: .keyRevoked, message: "key \(AttestBase64.encode(keyID)) was revoked at \(AttestTime.format(revoked))", keyID: keyID, key: key)
        }
        if let appID, appID != key.appID {
            return FlowVerdict(kind: .assertion, reason: .rpIDMismatch, message: "key \(AttestBase64.encode(keyID)) is enrolled for '\(key.appID)', not '\(appID)'", keyID: keyID, key: key)
        }
        guard let publicKey = try? ECDSA.PublicKey(pointRepresentation: key.publicKey, curve: .p256) else {
            throw AttestError(.store, "stored public key of \(AttestBase64.encode(keyID)) is not a P-256 point")
        }
        let verdict = AssertionAppraiser.appraise(assertion: assertion, clientDataHash: clientDataHash, appID: key.appID,
                                                  publicKey: publicKey, previousCounter: key.counter)
        guard verdict.isValid, let counter = verdict.counter else {
            return FlowVerdict(kind: .assertion, reason: verdict.reason, message: verdict.message, keyID: keyID, assertion: verdict, key: key)
        }
        guard try store.advanceCounter(keyID: keyID, to: counter, at: time) else {
            let current = try store.key(id: keyID)
            let refused = verdict.refused(.counterNotIncreasing, "the stored counter moved to \(current.map { String($0.counter) } ?? "?") while this assertion (counter \(counter)) was verified: it was already used")
            return FlowVerdict(kind: .assertion, reason: refused.reason, message: refused.message, keyID: keyID, assertion: refused, key: current)
        }
        var updated = key
        updated.counter = counter
        updated.lastUsedAt = time
        return FlowVerdict(kind: .assertion, reason: .ok, message: verdict.message, keyID: keyID, assertion: verdict, key: updated)
    }

    // MARK: Request bodies

    static func enrollFields(_ body: [UInt8]) throws(Refusal) -> (keyID: [UInt8], attestation: [UInt8], challenge: [UInt8]) {
        let json = try object(body, "enroll body")
        guard json["platform"]?.stringValue == "ios" else {
            throw Refusal(.badFormat, "enroll body platform is \(json["platform"].map { $0.serialized() } ?? "missing"); only \"ios\" is supported")
        }
        return (try base64(json, "iosKeyId"), try base64(json, "iosAttestationObject"), try base64(json, "nonce"))
    }

    static func evidenceFields(_ evidence: [UInt8]) throws(Refusal) -> (keyID: [UInt8], assertion: [UInt8]) {
        let json = try object(evidence, "evidence")
        guard let inner = json["iosAttestation"], inner.objectValue != nil else {
            throw Refusal(.badFormat, "evidence has no \"iosAttestation\" object")
        }
        return (try base64(inner, "keyId"), try base64(inner, "assertion"))
    }

    private static func object(_ bytes: [UInt8], _ what: String) throws(Refusal) -> JSONValue {
        let json: JSONValue
        do {
            json = try JSONValue.parse(bytes, limits: jsonLimits)
        } catch {
            throw Refusal(.badFormat, "\(what) is not JSON: \(error)")
        }
        guard json.objectValue != nil else { throw Refusal(.badFormat, "\(what) is not a JSON object") }
        return json
    }

    private static func base64(_ json: JSONValue, _ key: String) throws(Refusal) -> [UInt8] {
        guard let text = json[key]?.stringValue else { throw Refusal(.badFormat, "\"\(key)\" is missing or not a string") }
        guard let bytes = AttestBase64.decode(text), !bytes.isEmpty else { throw Refusal(.badFormat, "\"\(key)\" is not base64") }
        return bytes
    }

    /// Why `data` does not carry `challenge` the way `binding` asks; nil when it does.
    static func bindingProblem(_ data: [UInt8], _ challenge: [UInt8], _ binding: ChallengeBinding) -> String? {
        switch binding {
        case .anywhere:
            return carries(data, challenge) ? nil : "the client data does not contain the challenge (raw, base64, base64url or hex)"
        case .jsonField(let name):
            guard let json = try? JSONValue.parse(data, limits: jsonLimits), let object = json.objectValue else {
                return "the client data is not a JSON object, so it has no field \"\(name)\" to hold the challenge"
            }
            guard let value = object[name]?.stringValue else {
                return "the client data has no string field \"\(name)\""
            }
            let forms = [Base64.encode(challenge), AttestBase64.encodeURL(challenge), Hex.encode(challenge)]
            guard forms.contains(value) else {
                return "the client data's \"\(name)\" is not the challenge (exactly, as base64, base64url or hex)"
            }
            return nil
        }
    }

    /// Whether `data` contains `challenge` raw or in one of its usual text encodings.
    static func carries(_ data: [UInt8], _ challenge: [UInt8]) -> Bool {
        let forms: [[UInt8]] = [challenge, Array(Base64.encode(challenge).utf8), Array(Base64.encode(challenge, padded: false).utf8),
                                Array(AttestBase64.encodeURL(challenge).utf8), Array(Base64.encode(challenge, alphabet: .urlSafe).utf8),
                                Array(Hex.encode(challenge).utf8)]
        return forms.contains { form in
            guard !form.isEmpty, form.count <= data.count else { return false }
            return (0...(data.count - form.count)).contains { start in data[start..<(start + form.count)].elementsEqual(form) }
        }
    }
}

/// The outcome of a store-backed enrollment or verification.
public struct FlowVerdict: Sendable {
    public enum Kind: String, Sendable { case enrollment, assertion }

    public let kind: Kind
    public let reason: AttestReason
    public let message: String
    public let keyID: [UInt8]?
    public let attestation: AttestationVerdict?
    public let assertion: AssertionVerdict?
    /// The key as stored after the operation (nil when there is none).
    public let key: EnrolledKey?

    init(kind: Kind, reason: AttestReason, message: String, keyID: [UInt8]? = nil, attestation: AttestationVerdict? = nil,
         assertion: AssertionVerdict? = nil, key: EnrolledKey? = nil) {
        self.kind = kind
        self.reason = reason
        self.message = message
        self.keyID = keyID
        self.attestation = attestation
        self.assertion = assertion
        self.key = key
    }

    public var isValid: Bool { reason == .ok }

    public var json: JSONValue {
        var object = attestation?.json.objectValue ?? assertion?.json.objectValue ?? JSONObject()
        object["type"] = .string(kind.rawValue)
        object["valid"] = .bool(isValid)
        object["reason"] = .string(reason.rawValue)
        object["message"] = .string(message)
        if let keyID {
            object["key_id"] = .string(AttestBase64.encode(keyID))
            object["key_id_hex"] = .string(Hex.encode(keyID))
        }
        object["stored_key"] = key?.json ?? .null
        return .object(object)
    }
}

extension EnrolledKey {
    public var json: JSONValue {
        var object = JSONObject()
        object["key_id"] = .string(AttestBase64.encode(keyID))
        object["key_id_hex"] = .string(Hex.encode(keyID))
        object["status"] = .string(revokedAt == nil ? "active" : "revoked")
        object["app_id"] = .string(appID)
        object["environment"] = .string(environment.rawValue)
        object["counter"] = .int(counter)
        object["enrolled_at"] = .string(AttestTime.format(enrolledAt))
        object["last_used_at"] = lastUsedAt.map { .string(AttestTime.format($0)) } ?? .null
        object["revoked_at"] = revokedAt.map { .string(AttestTime.format($0)) } ?? .null
        if let key = try? ECDSA.PublicKey(pointRepresentation: publicKey, curve: .p256) {
            object["public_key"] = AttestPublicKey.json(key)
        } else {
            object["public_key"] = .null
        }
        object["receipt_byte_count"] = receipt.map { .int($0.count) } ?? .null
        return .object(object)
    }
}
