import OmniCandid
import OmniCodec
import OmniCrypto

/// What Internet Identity answered, as the login page forwards it (the `authorize-client-success` or
/// `authorize-client-failure` message, bytes as hex): `{"kind": "authorize-client-success", "delegations":
/// [{"delegation": {"pubkey", "expiration" (hex), "targets"? ([hex])}, "signature"}], "userPublicKey", "authnMethod"?}`
/// — the delegations in agent-js's chain JSON form — or `{"kind": "authorize-client-failure", "text"}`.
public enum IILoginAnswer: Sendable, Equatable {
    case success(chain: DelegationChain, authenticationMethod: String?)
    case failure(text: String)

    /// The longest failure text or authentication method kept (they are shown, not interpreted).
    static let maximumTextLength = 500

    /// Reads the answer; malformed (exit 3) with the field path when it is not one of the two forms.
    public init(json: JSONValue) throws(ICError) {
        guard json.objectValue != nil else { throw ICError.malformed("the answer is not a JSON object", location: "answer") }
        switch json["kind"]?.stringValue {
        case "authorize-client-success":
            guard let userKeyText = json["userPublicKey"]?.stringValue else {
                throw ICError.malformed("userPublicKey is missing or not a hex string", location: "answer.userPublicKey")
            }
            let userKey: [UInt8]
            do { userKey = try Hex.decode(userKeyText, allowPrefix: true) } catch {
                throw ICError.malformed("userPublicKey is not hex: \(error.summary)", location: "answer.userPublicKey")
            }
            guard let delegations = json["delegations"], delegations.arrayValue != nil else {
                throw ICError.malformed("delegations is missing or not an array", location: "answer.delegations")
            }
            let chain: DelegationChain
            do {
                chain = try DelegationChain(json: .object(["publicKey": .string(Hex.encode(userKey)), "delegations": delegations]))
            } catch {
                throw error.labelled("Internet Identity's answer", location: error.location ?? "answer.delegations")
            }
            var method: String?
            if let given = json["authnMethod"], !given.isNull {
                guard let text = given.stringValue else {
                    throw ICError.malformed("authnMethod is not a string", location: "answer.authnMethod")
                }
                method = String(text.prefix(32))
            }
            self = .success(chain: chain, authenticationMethod: method)
        case "authorize-client-failure":
            let text = json["text"]?.stringValue ?? ""
            self = .failure(text: String(text.prefix(IILoginAnswer.maximumTextLength)))
        case let other?:
            throw ICError.malformed("kind \"\(Principal.quotedSample(other))\" is neither authorize-client-success nor authorize-client-failure",
                                    location: "answer.kind")
        case nil:
            throw ICError.malformed("kind is missing or not a string", location: "answer.kind")
        }
    }
}

extension IILoginAnswer {
    /// The key kinds an Internet Identity answer may use to sign: Ed25519, ECDSA P-256 (with the exact
    /// id-ecPublicKey/prime256v1 SPKI and 64-byte IEEE P1363 r ‖ s signatures, as `SenderPublicKey` reads them),
    /// and canister signatures (the user's key Internet Identity issues). Anything else is refused even where the IC
    /// would accept it (secp256k1): no identity provider answers with it.
    static func checkSigningKey(_ der: [UInt8], signs index: Int) throws(ICError) {
        let what = index == 0 ? "the user public key (which signs delegation 0)" : "the key of delegation \(index - 1) (which signs delegation \(index))"
        let key: SenderPublicKey
        do { key = try SenderPublicKey(der: der) } catch {
            throw ICError.verification(.delegationChain, "\(what) is not an Ed25519, P-256 (id-ecPublicKey, prime256v1, "
                                       + "uncompressed point) or canister signature key: \(error.message)")
        }
        switch key {
        case .ed25519, .canisterSignature: return
        case .ecdsa(let ecdsa) where ecdsa.curve == .p256: return
        case .ecdsa:
            throw ICError.verification(.delegationChain, "\(what) is an \(key.algorithmName) key; Internet Identity answers are "
                                       + "signed with Ed25519, ECDSA P-256 or canister signatures")
        }
    }

    /// Checks the whole chain of a successful answer before anything is stored and returns the session it grants:
    /// - 1 to 20 delegations, each key that signs one of the allowed kinds (`checkSigningKey`);
    /// - every signature valid under the key before it, no key twice, none expired at `time`, canister signatures
    ///   certified under `rootKey` (`DelegationChain.verify`, the one delegation check);
    /// - the last delegation to this login's session key;
    /// - the session's targets exactly those requested (none when none were requested);
    /// - the earliest expiry no later than `timeToLive` after `time` (plus `expiryAllowance`).
    /// Failures are `.verificationFailed` with reason `delegation_chain`, `expired` or `target`.
    public static func verifiedSession(chain: DelegationChain, sessionKey: ICIdentity, request: IILoginRequest, at time: UInt64,
                                       rootKey: ICRootKey) throws(ICError) -> DelegatedSession {
        guard !chain.delegations.isEmpty else {
            throw ICError.verification(.delegationChain, "the answer has no delegations: it does not delegate to the session key")
        }
        guard chain.delegations.count <= DelegationChain.maxLength else {
            throw ICError.verification(.delegationChain, "the answer has \(chain.delegations.count) delegations, at most \(DelegationChain.maxLength) are allowed")
        }
        guard sessionKey.publicKeyDER == request.sessionPublicKey else {
            throw ICError(.internalFailure, "the login's session key is not the one it asked for")
        }
        var signers = [chain.publicKey] + chain.delegations.map(\.delegation.publicKey)
        signers.removeLast()
        for (index, der) in signers.enumerated() { try checkSigningKey(der, signs: index) }
        guard chain.sessionPublicKey == request.sessionPublicKey else {
            throw ICError.verification(.delegationChain, "the last delegation is to another key (\(Hex.encode(chain.sessionPublicKey.suffix(8)))…), "
                                       + "not to this login's session key")
        }
        try chain.verify(at: time, canister: nil, rootKey: rootKey)
        try checkTargets(chain.effectiveTargets, requested: request.targets)
        let latest = saturatingSum(time, request.timeToLive)
        if let expiration = chain.expiration, expiration > saturatingSum(latest, IILoginRequest.expiryAllowance) {
            throw ICError.verification(.delegationChain, "the session would live until \(ICTime.format(expiration)), longer than the "
                                       + "\(Freshness.describe(request.timeToLive)) asked for (until \(ICTime.format(latest)))")
        }
        return try DelegatedSession(sessionKey: sessionKey, chain: chain)
    }

    private static func saturatingSum(_ a: UInt64, _ b: UInt64) -> UInt64 {
        let (sum, overflow) = a.addingReportingOverflow(b)
        return overflow ? .max : sum
    }

    /// Targets exactly as requested: an unscoped request wants an unscoped session; a scoped one refuses an
    /// unscoped, wider or narrower answer.
    static func checkTargets(_ granted: Set<Principal>?, requested: [Principal]?) throws(ICError) {
        switch (requested, granted) {
        case (nil, nil):
            return
        case (nil, let granted?):
            throw ICError.verification(.target, "the answer restricts the session to \(describe(granted)), but no targets were requested")
        case (let requested?, nil):
            throw ICError.verification(.target, "the answer is unscoped (any canister), but the session was requested for \(describe(Set(requested))) only")
        case (let requested?, let granted?):
            let wanted = Set(requested)
            let extra = granted.subtracting(wanted), missing = wanted.subtracting(granted)
            if !extra.isEmpty {
                throw ICError.verification(.target, "the answer allows canisters that were not requested: \(describe(extra))")
            }
            if !missing.isEmpty {
                throw ICError.verification(.target, "the answer leaves out requested canisters: \(describe(missing))")
            }
        }
    }

    private static func describe(_ principals: Set<Principal>) -> String {
        let sorted = principals.sorted()
        let shown = sorted.prefix(5).map(\.text).joined(separator: ", ")
        return sorted.count > 5 ? "\(shown) and \(sorted.count - 5) more" : shown
    }
}
