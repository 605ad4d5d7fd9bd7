import OmniCandid
import OmniCodec
import OmniCrypto

/// A sender delegation (interface spec § Authentication): the key `publicKey` may sign requests on behalf of
/// the delegating key until `expiration`, optionally only to `targets`.
public struct Delegation: Hashable, Sendable {
    /// The spec's limit on targets per delegation.
    public static let maxTargets = 1000

    /// DER public key of the delegate.
    public var publicKey: [UInt8]
    /// Nanoseconds since the epoch.
    public var expiration: UInt64
    /// The canisters the delegate may call; nil means all.
    public var targets: [Principal]?

    public init(publicKey: [UInt8], expiration: UInt64, targets: [Principal]? = nil) {
        self.publicKey = publicKey
        self.expiration = expiration
        self.targets = targets
    }

    /// `{pubkey, expiration, ?targets}`.
    public var cbor: CBOR {
        var pairs: [CBOR.Pair] = [("pubkey", .bytes(publicKey)), ("expiration", .unsigned(expiration))]
        if let targets { pairs.append(("targets", .array(targets.map { .bytes($0.bytes) }))) }
        return .map(pairs)
    }

    /// What the delegating key signs: `0x1A "ic-request-auth-delegation" ‖ hash_of_map(delegation)`.
    public var signedMessage: [UInt8] {
        guard let hash = try? RepresentationIndependentHash.hash(cbor) else {
            preconditionFailure("a delegation map always hashes")
        }
        return DomainSeparator.delegation + hash
    }

    init(cbor: CBOR) throws(ICError) {
        let fields = try CBORFields(cbor, what: "delegation")
        publicKey = try fields.bytes("pubkey")
        expiration = try fields.natural("expiration")
        if let list = fields.optionalNonNull("targets") {
            guard let items = list.array else { throw ICError.malformed("delegation.targets is not an array") }
            guard items.count <= Delegation.maxTargets else {
                throw ICError.malformed("delegation has \(items.count) targets, at most \(Delegation.maxTargets) are allowed")
            }
            var parsed: [Principal] = []
            for item in items {
                guard let bytes = item.bytes else { throw ICError.malformed("a delegation target is \(item.kindName), expected bytes") }
                parsed.append(try Principal.fromBytes(bytes, what: "delegation target"))
            }
            targets = parsed
        } else {
            targets = nil
        }
    }
}

/// A delegation and the delegating key's signature on it.
public struct SignedDelegation: Hashable, Sendable {
    public var delegation: Delegation
    public var signature: [UInt8]

    public init(delegation: Delegation, signature: [UInt8]) {
        self.delegation = delegation
        self.signature = signature
    }

    /// `{delegation, signature}` as in the envelope's `sender_delegation`.
    public var cbor: CBOR { .map([(key: .text("delegation"), value: delegation.cbor), (key: .text("signature"), value: .bytes(signature))]) }

    public init(cbor: CBOR) throws(ICError) {
        let fields = try CBORFields(cbor, what: "signed delegation")
        delegation = try Delegation(cbor: try fields.required("delegation"))
        signature = try fields.bytes("signature")
    }
}

/// A chain of delegations from `publicKey` (whose self-authenticating id is the sender) to the key that signs
/// requests — what agent-js calls a `DelegationChain`, with the same JSON form.
public struct DelegationChain: Hashable, Sendable {
    /// The interface specification allows at most 20 delegations per request.
    public static let maxLength = 20

    /// DER public key of the delegating (root) identity.
    public var publicKey: [UInt8]
    public var delegations: [SignedDelegation]

    public init(publicKey: [UInt8], delegations: [SignedDelegation]) {
        self.publicKey = publicKey
        self.delegations = delegations
    }

    /// The sender of requests signed through this chain: selfauth(publicKey).
    public var principal: Principal { Principal.selfAuthenticating(publicKeyDER: publicKey) }

    /// The earliest expiration in the chain (nil for an empty chain).
    public var expiration: UInt64? { delegations.map(\.delegation.expiration).min() }

    /// The key the chain ends in: the one that signs requests.
    public var sessionPublicKey: [UInt8] { delegations.last?.delegation.publicKey ?? publicKey }

    /// The canisters every delegation allows (nil when none restricts targets).
    public var effectiveTargets: Set<Principal>? {
        var allowed: Set<Principal>?
        for link in delegations {
            guard let targets = link.delegation.targets else { continue }
            allowed = allowed.map { $0.intersection(targets) } ?? Set(targets)
        }
        return allowed
    }

    // MARK: JSON (agent-js `DelegationChain.toJSON` / `fromJSON`)

    /// `{"delegations": [{"delegation": {"expiration": "<hex>", "pubkey": "<hex>", "targets"?: ["<HEX>"]},
    /// "signature": "<hex>"}], "publicKey": "<hex>"}`: expiration as hexadecimal nanoseconds and targets as
    /// uppercase hex principal bytes, exactly as agent-js writes them.
    public var json: JSONValue {
        let links: [JSONValue] = delegations.map { link in
            var delegation = JSONObject()
            delegation.append("expiration", .string(String(link.delegation.expiration, radix: 16)))
            delegation.append("pubkey", .string(Hex.encode(link.delegation.publicKey)))
            if let targets = link.delegation.targets {
                delegation.append("targets", .array(targets.map { .string(Hex.encode($0.bytes, uppercase: true)) }))
            }
            return .object(["delegation": .object(delegation), "signature": .string(Hex.encode(link.signature))])
        }
        return .object(["delegations": .array(links), "publicKey": .string(Hex.encode(publicKey))])
    }

    /// Reads the agent-js JSON form. Expirations may be hex strings (agent-js) or JSON integers; hex in either
    /// case; `targets` may be absent or null.
    public init(json: JSONValue) throws(ICError) {
        func hex(_ value: JSONValue?, _ what: String) throws(ICError) -> [UInt8] {
            guard let text = value?.stringValue else { throw ICError.malformed("delegation chain: \(what) is missing or not a string") }
            do { return try Hex.decode(text, allowPrefix: true) } catch { throw ICError.codec(error, "delegation chain \(what)") }
        }
        guard json.objectValue != nil else { throw ICError.malformed("delegation chain JSON is not an object") }
        let root = try hex(json["publicKey"], "publicKey")
        guard let list = json["delegations"]?.arrayValue else {
            throw ICError.malformed("delegation chain: delegations is missing or not an array")
        }
        guard list.count <= DelegationChain.maxLength else {
            throw ICError.malformed("delegation chain has \(list.count) delegations, at most \(DelegationChain.maxLength) are allowed")
        }
        var links: [SignedDelegation] = []
        for (index, item) in list.enumerated() {
            let what = "delegations[\(index)]"
            guard let delegation = item["delegation"], delegation.objectValue != nil else {
                throw ICError.malformed("delegation chain: \(what).delegation is missing")
            }
            let expiration: UInt64
            switch delegation["expiration"] {
            case .string(let text)?:
                let digits = text.hasPrefix("0x") ? String(text.dropFirst(2)) : text
                guard let value = UInt64(digits, radix: 16) else {
                    throw ICError.malformed("delegation chain: \(what).expiration \"\(Principal.quotedSample(text))\" is not a hex number below 2^64")
                }
                expiration = value
            case .number(let text)?:
                guard let value = UInt64(text) else { throw ICError.malformed("delegation chain: \(what).expiration is not a natural below 2^64") }
                expiration = value
            default:
                throw ICError.malformed("delegation chain: \(what).expiration is missing")
            }
            var targets: [Principal]?
            if let list = delegation["targets"], !list.isNull {
                guard let items = list.arrayValue, items.count <= Delegation.maxTargets else {
                    throw ICError.malformed("delegation chain: \(what).targets is not an array of at most \(Delegation.maxTargets) entries")
                }
                var parsed: [Principal] = []
                for target in items { parsed.append(try Principal.fromBytes(try hex(target, "\(what).targets"), what: "delegation target")) }
                targets = parsed
            }
            links.append(SignedDelegation(
                delegation: Delegation(publicKey: try hex(delegation["pubkey"], "\(what).pubkey"), expiration: expiration, targets: targets),
                signature: try hex(item["signature"], "\(what).signature")))
        }
        self.init(publicKey: root, delegations: links)
    }

    public init(jsonText: String) throws(ICError) {
        let value: JSONValue
        do { value = try JSONValue.parse(jsonText, limits: JSONLimits(maxDepth: 16, maxBytes: 1 << 20)) } catch {
            throw ICError.codec(error, "delegation chain")
        }
        try self.init(json: value)
    }
}
