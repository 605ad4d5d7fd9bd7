/// What the server flow keeps between requests: single-use challenges and enrolled keys with their counters.
///
/// The promises every implementation must keep (the SQLite one does; a shared server database can later):
/// - `consumeChallenge` removes and returns a challenge atomically, so one challenge is consumed at most once even
///   when many processes race for it;
/// - `advanceCounter` moves a counter only forward, atomically (compare-and-set), so two concurrent verifications of
///   the same assertion cannot both succeed;
/// - whatever a call reported as done survives a crash of the process right after it.
public protocol AttestStore: AnyObject {
    func addChallenge(_ challenge: StoredChallenge) throws(AttestError)
    /// Removes the challenge and reports what it was: valid at `time`, expired, or unknown (never issued or used).
    func consumeChallenge(_ value: [UInt8], at time: Int64) throws(AttestError) -> ChallengeConsumption
    /// Records a newly attested key; false when a key with this id already exists (nothing changes then).
    func enroll(_ key: EnrolledKey) throws(AttestError) -> Bool
    func key(id: [UInt8]) throws(AttestError) -> EnrolledKey?
    /// Every enrolled key, oldest first.
    func keys() throws(AttestError) -> [EnrolledKey]
    /// Sets the key's counter to `counter` only if the key exists, is not revoked and its counter is lower; true
    /// when it did.
    func advanceCounter(keyID: [UInt8], to counter: UInt32, at time: Int64) throws(AttestError) -> Bool
    /// Marks the key revoked; false when it does not exist or already was.
    func revoke(keyID: [UInt8], at time: Int64) throws(AttestError) -> Bool
}

/// An issued challenge: its random bytes and its lifetime.
public struct StoredChallenge: Sendable, Equatable {
    public let value: [UInt8]
    public let createdAt: Int64
    public let expiresAt: Int64

    public init(value: [UInt8], createdAt: Int64, expiresAt: Int64) {
        self.value = value
        self.createdAt = createdAt
        self.expiresAt = expiresAt
    }
}

public enum ChallengeConsumption: Sendable, Equatable {
    case valid(StoredChallenge)
    case expired(StoredChallenge)
    case unknown
}

/// An attested key as the store keeps it.
public struct EnrolledKey: Sendable, Equatable {
    public let keyID: [UInt8]
    /// X9.62 uncompressed P-256 point.
    public let publicKey: [UInt8]
    public let appID: String
    public let environment: AttestEnvironment
    public var counter: UInt32
    public let enrolledAt: Int64
    public var lastUsedAt: Int64?
    public var revokedAt: Int64?
    /// The attestation's receipt, kept for a later refresh with Apple.
    public let receipt: [UInt8]?

    public init(keyID: [UInt8], publicKey: [UInt8], appID: String, environment: AttestEnvironment, counter: UInt32,
                enrolledAt: Int64, lastUsedAt: Int64? = nil, revokedAt: Int64? = nil, receipt: [UInt8]? = nil) {
        self.keyID = keyID
        self.publicKey = publicKey
        self.appID = appID
        self.environment = environment
        self.counter = counter
        self.enrolledAt = enrolledAt
        self.lastUsedAt = lastUsedAt
        self.revokedAt = revokedAt
        self.receipt = receipt
    }
}
