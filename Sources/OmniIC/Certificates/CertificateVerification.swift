import OmniBLS
import OmniCandid
import OmniCodec

/// What a certificate must be authoritative for — and so where a request is routed: the effective canister id of
/// `/api/v…/canister/<id>/…` or the effective subnet id of `/api/v…/subnet/<id>/…`, whose answers are verified for
/// that canister or subnet.
public enum CertificateScope: Sendable, Equatable, CustomStringConvertible {
    /// A canister's state (canister read_state, call, request status): the effective canister id must lie in
    /// the signing subnet's certified canister ranges.
    case canister(Principal)
    /// A subnet's state (subnet read_state): the delegation must be for this subnet.
    case subnet(Principal)

    public var description: String {
        switch self {
        case .canister(let id): "canister \(id)"
        case .subnet(let id): "subnet \(id)"
        }
    }

    /// The effective canister id (nil for a subnet route).
    public var canister: Principal? {
        if case .canister(let id) = self { return id }
        return nil
    }

    /// The effective subnet id (nil for a canister route).
    public var subnet: Principal? {
        if case .subnet(let id) = self { return id }
        return nil
    }

    /// `canister/<id>` or `subnet/<id>`, as the endpoints spell it after `/api/v<n>/`.
    var urlPath: String {
        switch self {
        case .canister(let id): "canister/" + id.text
        case .subnet(let id): "subnet/" + id.text
        }
    }
}

/// The freshness rule for a certificate's `/time`.
public struct Freshness: Sendable, Equatable {
    public static let defaultTolerance: UInt64 = 5 * 60 * 1_000_000_000

    /// The reference instant, nanoseconds since the epoch.
    public var referenceTime: UInt64
    /// How far `/time` may be from the reference, in either direction.
    public var tolerance: UInt64

    public init(referenceTime: UInt64, tolerance: UInt64 = Freshness.defaultTolerance) {
        self.referenceTime = referenceTime
        self.tolerance = tolerance
    }

    /// Checked against the local clock.
    public static func now(tolerance: UInt64 = defaultTolerance) -> Freshness {
        Freshness(referenceTime: IngressExpiry.currentTime(), tolerance: tolerance)
    }

    /// Checked against a given instant (offline verification of an old certificate).
    public static func at(_ referenceTime: UInt64, tolerance: UInt64 = defaultTolerance) -> Freshness {
        Freshness(referenceTime: referenceTime, tolerance: tolerance)
    }

    func check(_ time: UInt64, what: String) throws(ICError) {
        let distance = time > referenceTime ? time - referenceTime : referenceTime - time
        guard distance <= tolerance else {
            let direction = time > referenceTime ? "ahead of" : "behind"
            throw ICError.verification(
                .time,
                "\(what) time \(ICTime.format(time)) is \(Freshness.describe(distance)) \(direction) the reference time "
                    + "\(ICTime.format(referenceTime)) (tolerance \(Freshness.describe(tolerance)))",
                location: "/time")
        }
    }

    static func describe(_ nanoseconds: UInt64) -> String {
        let seconds = nanoseconds / 1_000_000_000
        if seconds >= 86_400 { return "\(seconds / 86_400) d \(seconds % 86_400 / 3600) h" }
        if seconds >= 60 { return "\(seconds / 60) min \(seconds % 60) s" }
        return "\(seconds).\(String(nanoseconds % 1_000_000_000 / 1_000_000).leftPadded(3)) s"
    }
}

/// A certificate that passed every check, with the facts the checks established.
public struct VerifiedCertificate: Sendable {
    public let certificate: ICCertificate
    /// The certified `/time`.
    public let time: UInt64
    /// The subnet that signed the certificate: the delegation's subnet, or the root subnet (selfauth of the
    /// root key) when the root key signed it directly.
    public let subnetID: Principal
    /// Whether a subnet delegation was used.
    public let isDelegated: Bool
    /// DER of the BLS key that signed the certificate (the subnet key, or the root key).
    public let signingKeyDER: [UInt8]
    /// The root key the chain of trust ends in.
    public let rootKey: ICRootKey

    public var tree: HashTree { certificate.tree }
    public var rootHash: [UInt8] { certificate.rootHash }

    /// `lookup_path` in the verified tree.
    public func lookup(_ path: StatePath) -> LookupResult { certificate.tree.lookup(path) }
}

extension ICCertificate {
    /// Verifies the certificate for `scope`:
    /// 1. a delegation, if present, must not itself be delegated, must verify under `rootKey` and must certify
    ///    `/subnet/<id>/public_key`;
    /// 2. the BLS signature must verify under the subnet key (or `rootKey` without delegation);
    /// 3. the scope: the effective canister id inside the subnet's canister ranges (sharded
    ///    `/canister_ranges/<subnet>/<shard>` or, when that is absent or pruned, `/subnet/<subnet>/canister_ranges`),
    ///    or the delegation's subnet equal to the effective subnet id. Without a delegation the signer is the root
    ///    subnet: a subnet scope must name it, and a canister must lie in the root subnet's ranges when the tree
    ///    reveals them (verified queries need them revealed: `ICAgent.subnetInfo(serving:)` checks `serves`);
    /// 4. `/time` within `freshness` (nil skips this, which only canister signatures do: their lifetime is the
    ///    delegation's expiration).
    /// Failures are `.verificationFailed` with reason signature, delegation, range, time or lookup.
    public func verify(scope: CertificateScope, rootKey: ICRootKey = .mainnet,
                       freshness: Freshness?) throws(ICError) -> VerifiedCertificate {
        var signingKeyDER = rootKey.der
        var subnetID = rootKey.subnetID
        if let delegation {
            if delegation.hasNestedDelegation {
                throw ICError.verification(.delegation, "the delegation certificate has a delegation of its own (nested delegations are not allowed)")
            }
            try ICCertificate.checkSignature(of: delegation.certificate, key: .decoded(rootKey.key), what: "delegation certificate")
            let keyPath = StatePath.subnetPublicKey(delegation.subnetID.bytes)
            guard case .found(let der) = delegation.certificate.tree.lookup(keyPath) else {
                throw ICError.verification(.delegation, "the delegation certificate does not certify the subnet's public key",
                                           location: keyPath.description)
            }
            signingKeyDER = der
            subnetID = delegation.subnetID
            try ICCertificate.checkSignature(of: self, key: .der(der), what: "certificate")
            switch scope {
            case .canister(let canister):
                try ICCertificate.checkRange(canister, subnet: subnetID, tree: delegation.certificate.tree)
            case .subnet(let subnet):
                guard subnet == subnetID else {
                    throw ICError.verification(.delegation, "the certificate is delegated to subnet \(subnetID), not \(subnet)")
                }
            }
        } else {
            try ICCertificate.checkSignature(of: self, key: .decoded(rootKey.key), what: "certificate")
            switch scope {
            case .canister(let canister):
                // The root subnet speaks for its own canisters only: ranges it certifies that exclude the canister
                // refute the certificate (when it reveals none, the root key's word is taken, as the spec does).
                if let ranges = try tree.canisterRanges(of: subnetID), !ranges.contains(where: { $0.contains(canister) }) {
                    throw ICError.verification(.range, "the certificate is signed by the root key, and canister \(canister) is "
                                               + "outside the canister ranges it certifies for the root subnet \(subnetID)")
                }
            case .subnet(let subnet):
                guard subnet == subnetID else {
                    throw ICError.verification(.delegation, "the certificate is signed by the root key, so it is the root subnet "
                                               + "\(subnetID)'s, not subnet \(subnet)'s")
                }
            }
        }
        let time = try certifiedTime()
        if let freshness { try freshness.check(time, what: "certificate") }
        return VerifiedCertificate(certificate: self, time: time, subnetID: subnetID, isDelegated: delegation != nil,
                                   signingKeyDER: signingKeyDER, rootKey: rootKey)
    }

    enum SigningKey {
        case decoded(BLSPublicKey)
        case der([UInt8])
    }

    static func checkSignature(of certificate: ICCertificate, key: SigningKey, what: String) throws(ICError) {
        guard certificate.signature.count == BLS.signatureLength else {
            throw ICError.malformed("\(what) signature is \(certificate.signature.count) bytes, expected \(BLS.signatureLength)")
        }
        let verdict: BLSVerification
        do {
            switch key {
            case .decoded(let publicKey):
                verdict = try BLS.verify(signature: certificate.signature, publicKey: publicKey, message: certificate.signedMessage)
            case .der(let der):
                let prefix = BLS.icPublicKeyDERPrefix
                guard der.count == prefix.count + BLS.publicKeyLength, der.starts(with: prefix) else {
                    throw ICError.verification(.delegation, "the certified subnet public key is not a 133-byte DER BLS key")
                }
                verdict = try BLS.verify(signature: certificate.signature, publicKey: Array(der[prefix.count...]),
                                         message: certificate.signedMessage)
            }
        } catch let error as BLSError {
            let subject = error.subject == .publicKey ? "the signing key" : "the signature"
            throw ICError.verification(error.subject == .publicKey ? .delegation : .signature,
                                       "\(what): \(subject) is not a valid BLS12-381 point (\(error))")
        } catch let error as ICError {
            throw error
        } catch {
            throw ICError(.internalFailure, "\(what): \(error)")
        }
        guard verdict.isValid else {
            throw ICError.verification(.signature, "\(what): the BLS signature does not verify (\(verdict))")
        }
    }
}

private extension String {
    func leftPadded(_ width: Int) -> String { String(repeating: "0", count: max(0, width - count)) + self }
}
