import OmniCandid
import OmniCodec
import OmniCrypto

extension SenderPublicKey {
    /// Checks `signature` on `message` (the full domain-separated bytes) under this key. Ed25519 and ECDSA
    /// (raw r ‖ s over SHA-256) are checked directly; a canister signature is checked as the interface spec
    /// § Canister signatures says: its certificate verified for the signing canister under `rootKey` (no
    /// freshness: the delegation's expiration bounds its use), `certified_data` equal to the signature tree's
    /// root hash, and `["sig", SHA-256(seed), SHA-256(message)]` Found with an empty value in a well-formed tree.
    /// Throws `.verificationFailed` (reason `.signature`) when it does not verify.
    public func verify(signature: [UInt8], message: [UInt8], rootKey: ICRootKey = .mainnet) throws(ICError) {
        switch self {
        case .ed25519(let key):
            guard signature.count == Ed25519.signatureByteCount else {
                throw ICError.verification(.signature, "an Ed25519 signature is 64 bytes, got \(signature.count)")
            }
            guard (try? key.isValidSignature(signature, for: message)) == true else {
                throw ICError.verification(.signature, "the Ed25519 signature does not verify")
            }
        case .ecdsa(let key):
            guard signature.count == 2 * key.curve.byteCount else {
                throw ICError.verification(.signature, "an ECDSA \(key.curve.rawValue) signature is r ‖ s, \(2 * key.curve.byteCount) bytes, got \(signature.count)")
            }
            let valid = (try? key.isValidSignature(signature, for: message, hashedWith: .sha256, format: .raw)) ?? false
            guard valid else { throw ICError.verification(.signature, "the ECDSA \(key.curve.rawValue) signature does not verify") }
        case .canisterSignature(let canister, let seed):
            try CanisterSignature.verify(signature, message: message, canister: canister, seed: seed, rootKey: rootKey)
        }
    }
}

/// Canister signatures (interface spec § Canister signatures): `55799({certificate: bytes, tree: hash-tree})`.
public enum CanisterSignature {
    static func verify(_ signature: [UInt8], message: [UInt8], canister: Principal, seed: [UInt8],
                       rootKey: ICRootKey) throws(ICError) {
        let value = try ICCBOR.decode(signature, what: "canister signature", maxBytes: 1 << 20, maxDepth: 192)
        let fields = try CBORFields(value, what: "canister signature")
        let certificate = try ICCertificate(decoding: try fields.bytes("certificate"))
        let tree = try HashTree(cbor: try fields.required("tree"))
        let verified: VerifiedCertificate
        do {
            verified = try certificate.verify(scope: .canister(canister), rootKey: rootKey, freshness: nil)
        } catch {
            throw ICError(error.kind, "canister signature certificate: \(error.message)", reason: error.reason ?? .signature,
                          location: error.location)
        }
        let dataPath = StatePath([Array("canister".utf8), canister.bytes, Array("certified_data".utf8)])
        guard case .found(let certifiedData) = verified.lookup(dataPath) else {
            throw ICError.verification(.signature, "the canister signature's certificate has no certified data for \(canister)",
                                       location: dataPath.description)
        }
        guard certifiedData == tree.digest else {
            throw ICError.verification(.signature, "the canister signature tree is not the canister's certified data")
        }
        guard tree.isWellFormed else {
            throw ICError.verification(.signature, "the canister signature tree is not well formed")
        }
        let sigPath = StatePath([Array("sig".utf8), SHA256.hash(seed), SHA256.hash(message)])
        guard tree.lookup(sigPath) == .found([]) else {
            throw ICError.verification(.signature, "the canister signature tree does not contain the signed message")
        }
    }

    /// Builds the signature bytes from a certificate and the canister's signature tree (for tests and tools).
    public static func encode(certificate: [UInt8], tree: HashTree) throws(ICError) -> [UInt8] {
        try ICCBOR.encode(CBOR.map([("certificate", .bytes(certificate)), ("tree", tree.cbor)]).selfDescribed,
                          what: "canister signature")
    }
}

extension DelegationChain {
    /// Verifies the chain as the IC does before accepting a request signed through it:
    /// at most 20 delegations, no key appearing twice (no cycles, no self-delegation), every signature valid
    /// under the previous key (the first under `publicKey`), every delegation unexpired at `time`, and — when
    /// `canister` is given — the canister among the targets of every delegation that has targets.
    /// Fails with reason `delegation_chain`, `expired` or `target`.
    public func verify(at time: UInt64, canister: Principal? = nil, rootKey: ICRootKey = .mainnet) throws(ICError) {
        guard delegations.count <= DelegationChain.maxLength else {
            throw ICError.verification(.delegationChain, "the chain has \(delegations.count) delegations, at most \(DelegationChain.maxLength) are allowed")
        }
        var seen: Set<[UInt8]> = [publicKey]
        var signer = publicKey
        for (index, link) in delegations.enumerated() {
            guard seen.insert(link.delegation.publicKey).inserted else {
                throw ICError.verification(.delegationChain, "delegation \(index) delegates to a key already in the chain (a cycle)")
            }
            if let targets = link.delegation.targets, targets.count > Delegation.maxTargets {
                throw ICError.verification(.delegationChain, "delegation \(index) has \(targets.count) targets, at most \(Delegation.maxTargets)")
            }
            let key: SenderPublicKey
            do { key = try SenderPublicKey(der: signer) } catch {
                throw ICError.verification(.delegationChain, "the key signing delegation \(index) is unusable: \(error.message)")
            }
            do {
                try key.verify(signature: link.signature, message: link.delegation.signedMessage, rootKey: rootKey)
            } catch {
                throw ICError.verification(.delegationChain, "delegation \(index) (\(key.algorithmName)): \(error.message)")
            }
            signer = link.delegation.publicKey
        }
        for (index, link) in delegations.enumerated() where link.delegation.expiration < time {
            throw ICError.verification(.expired, "delegation \(index) expired at \(ICTime.format(link.delegation.expiration))")
        }
        if let canister, let allowed = effectiveTargets, !allowed.contains(canister) {
            throw ICError.verification(.target, "canister \(canister) is not among the delegation targets")
        }
    }
}

extension ICEnvelope {
    /// Checks an envelope the way the IC authenticates it (useful before sending a request signed elsewhere):
    /// anonymous requests carry no key or signature; otherwise the sender must be selfauth(sender_pubkey), the
    /// delegation chain valid at `time` with `delegationTarget` among its targets (by default what the
    /// specification checks for the content, `DelegationTarget.of`), and `sender_sig` valid under the chain's last
    /// key over `0x0A "ic-request" ‖ request id`.
    public func verifySender(at time: UInt64, delegationTarget: DelegationTarget? = nil, rootKey: ICRootKey = .mainnet) throws(ICError) {
        let sender = content.sender
        guard let senderPublicKey else {
            guard sender == .anonymous, senderSignature == nil, senderDelegation == nil else {
                throw ICError.verification(.signature, "a request from \(sender) needs sender_pubkey and sender_sig")
            }
            return
        }
        guard sender.isSelfAuthenticating(for: senderPublicKey) else {
            throw ICError.verification(.signature, "sender \(sender) is not the self-authenticating id of sender_pubkey")
        }
        let chain = DelegationChain(publicKey: senderPublicKey, delegations: senderDelegation ?? [])
        let target = delegationTarget ?? DelegationTarget.of(content.body)
        try chain.verify(at: time, canister: target.canister, rootKey: rootKey)
        guard let senderSignature else { throw ICError.verification(.signature, "the request has no sender_sig") }
        let key = try SenderPublicKey(der: chain.sessionPublicKey)
        try key.verify(signature: senderSignature, message: DomainSeparator.request + requestID.bytes, rootKey: rootKey)
    }
}
