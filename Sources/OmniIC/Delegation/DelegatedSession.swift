import OmniCandid
import OmniCodec
import OmniCrypto

/// A delegated session: a session key and a delegation chain that lets it sign for another principal. Sessions
/// omni creates use a fresh Ed25519 key; chains issued elsewhere (e.g. by Internet Identity) may end in any key
/// omni can sign with. The root key that signed the chain is not part of the session.
public struct DelegatedSession: Sendable, CustomStringConvertible, CustomDebugStringConvertible, CustomReflectable {
    public static let hour: UInt64 = 3600 * 1_000_000_000
    /// agent-js and Internet Identity default to 8 hours.
    public static let defaultLifetime: UInt64 = 8 * hour
    /// The longest lifetime omni creates (Internet Identity's maximum).
    public static let maxLifetime: UInt64 = 30 * 24 * hour

    public let chain: DelegationChain
    /// The key that signs requests (Ed25519, secp256k1 or P-256; never anonymous or itself a session).
    let sessionKey: ICIdentity

    /// A session from a session key and a chain that ends in that key (e.g. a chain issued by Internet
    /// Identity for a key the user generated).
    public init(sessionKey: ICIdentity, chain: DelegationChain) throws(ICError) {
        switch sessionKey.keyType {
        case .ed25519, .secp256k1, .p256: break
        case .anonymous, .delegated:
            throw ICError(.invalidArgument, "a session key must be an Ed25519, secp256k1 or P-256 key, not \(sessionKey.keyType)")
        }
        guard !chain.delegations.isEmpty else { throw ICError.malformed("a delegation chain needs at least one delegation") }
        guard chain.delegations.count <= DelegationChain.maxLength else {
            throw ICError.malformed("a delegation chain has at most \(DelegationChain.maxLength) delegations")
        }
        guard chain.sessionPublicKey == sessionKey.publicKeyDER else {
            throw ICError(.configuration, "the delegation chain does not end in this session key")
        }
        self.sessionKey = sessionKey
        self.chain = chain
    }

    /// Creates a session delegated by `root`: a new random Ed25519 key, and a delegation to it signed by `root`
    /// expiring `lifetime` after `now` (default 8 h, at most 30 days), restricted to `targets` when given.
    /// A session root extends its own chain (the new expiry cannot outlive it).
    public static func create(root: ICIdentity, lifetime: UInt64 = defaultLifetime, targets: [Principal]? = nil,
                              now: UInt64 = IngressExpiry.currentTime()) throws(ICError) -> DelegatedSession {
        guard lifetime > 0, lifetime <= maxLifetime else {
            throw ICError(.invalidArgument, "a session lifetime must be between 1 ns and 30 days, got \(Freshness.describe(lifetime))")
        }
        if let targets, targets.count > Delegation.maxTargets {
            throw ICError(.invalidArgument, "at most \(Delegation.maxTargets) targets, got \(targets.count)")
        }
        let (sum, overflow) = now.addingReportingOverflow(lifetime)
        var expiration = overflow ? UInt64.max : sum
        let sessionKey = ICIdentity(ed25519: Ed25519.PrivateKey())
        guard let sessionPublicKey = sessionKey.publicKeyDER else { throw ICError(.internalFailure, "a new key has no public key") }
        let chain: DelegationChain
        switch root.signer {
        case .anonymous:
            throw ICError(.invalidArgument, "the anonymous identity cannot delegate")
        case .ed25519, .ecdsa:
            let delegation = Delegation(publicKey: sessionPublicKey, expiration: expiration, targets: targets)
            guard let rootKey = root.publicKeyDER else { throw ICError(.invalidArgument, "the root identity has no key") }
            chain = DelegationChain(publicKey: rootKey, delegations: [try root.delegate(delegation)])
        case .delegated(let parent):
            guard parent.chain.delegations.count < DelegationChain.maxLength else {
                throw ICError(.invalidArgument, "the root session's chain is already \(DelegationChain.maxLength) delegations long")
            }
            try parent.checkUsable(at: now, target: .unchecked)
            expiration = min(expiration, parent.chain.expiration ?? expiration)
            let delegation = Delegation(publicKey: sessionPublicKey, expiration: expiration, targets: targets)
            chain = DelegationChain(publicKey: parent.chain.publicKey, delegations: parent.chain.delegations + [try root.delegate(delegation)])
        }
        return try DelegatedSession(sessionKey: sessionKey, chain: chain)
    }

    public var principal: Principal { chain.principal }

    /// When the session stops working (the earliest expiration in the chain).
    public var expiration: UInt64 { chain.expiration ?? 0 }

    public func isExpired(at time: UInt64) -> Bool { expiration < time }

    /// Refuses an expired session, or a request whose delegation target is outside the chain's targets, before
    /// anything is sent.
    func checkUsable(at time: UInt64, target: DelegationTarget) throws(ICError) {
        if isExpired(at: time) {
            throw ICError(.configuration, "the delegated session expired at \(ICTime.format(expiration)); create a new one",
                          reason: .expired)
        }
        try chain.checkTargets(target)
    }

    // MARK: Session files

    /// The session as stored on disk: `{"kind": "delegated-session", "session_key": "<PEM>",
    /// "delegation_chain": <agent-js chain JSON>}`. **Contains the session's secret key.**
    public func sessionFileJSON() throws(ICError) -> JSONValue {
        .object([
            "kind": .string(DelegatedSession.fileKind),
            "session_key": .string(try sessionKey.exportPrivateKeyPEM()),
            "delegation_chain": chain.json,
        ])
    }

    /// Reads a session file written by `sessionFileJSON()`.
    public init(sessionFile json: JSONValue) throws(ICError) {
        guard json["kind"]?.stringValue == DelegatedSession.fileKind else {
            throw ICError.malformed("not a delegated session file (kind is not \"\(DelegatedSession.fileKind)\")")
        }
        guard let pem = json["session_key"]?.stringValue, let chainJSON = json["delegation_chain"] else {
            throw ICError.malformed("session file: session_key or delegation_chain missing")
        }
        let sessionKey = try ICIdentity(pem: pem), chain = try DelegationChain(json: chainJSON)
        guard chain.delegations.isEmpty || chain.sessionPublicKey == sessionKey.publicKeyDER else {
            // In a file this is its content at fault, not the caller's choice of key.
            throw ICError.malformed("session file: the delegation chain does not end in its session key", location: "delegation_chain")
        }
        try self.init(sessionKey: sessionKey, chain: chain)
    }

    /// Reads a session file and checks its chain before anything trusts it (`omni ic identity import --session`):
    /// `init(sessionFile:)`, then `verify(at:rootKey:)`. Reading alone only checks the form.
    public init(verifiedSessionFile json: JSONValue, at time: UInt64 = IngressExpiry.currentTime(),
                rootKey: ICRootKey = .mainnet) throws(ICError) {
        try self.init(sessionFile: json)
        try verify(at: time, rootKey: rootKey)
    }

    /// Checks the chain as the IC will when requests arrive: every delegation signed by the key before it (the
    /// first by the root identity's key; canister signatures under `rootKey`), no key twice, at most 20 links, none
    /// expired at `time`. The session key is already known to be the chain's last key. Fails with reason
    /// `delegation_chain` or `expired`, naming the delegation.
    public func verify(at time: UInt64 = IngressExpiry.currentTime(), rootKey: ICRootKey = .mainnet) throws(ICError) {
        do {
            try chain.verify(at: time, canister: nil, rootKey: rootKey)
        } catch {
            throw ICError(error.kind, "the session's delegation chain does not verify: \(error.message)", reason: error.reason,
                          location: error.location)
        }
    }

    static let fileKind = "delegated-session"

    public var description: String {
        "DelegatedSession(principal: \(principal), session key: \(sessionKey.keyType) \(sessionKey.principal), "
            + "\(chain.delegations.count) delegation(s), expires: \(ICTime.format(expiration)))"
    }

    public var debugDescription: String { description }
    public var customMirror: Mirror { Mirror(self, children: ["principal": principal, "chain": chain]) }
}
