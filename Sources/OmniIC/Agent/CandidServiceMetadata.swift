import OmniCandid

/// The Candid interface a canister publishes in its `candid:service` metadata section.
public struct CandidServiceMetadata: Sendable {
    public let canister: Principal
    /// The `.did` text, as the canister stores it (read from a verified certificate).
    public let text: String
}

extension ICAgent {
    /// The metadata section that holds a canister's Candid interface.
    public static let candidServiceSection = "candid:service"

    /// The `candid:service` of `canister`, read from its certified state; nil when the certificate proves there is
    /// none or does not say (pruned). A refused read (a private section) throws the replica's `TransportError`.
    public func candidService(canister: Principal) throws -> CandidServiceMetadata? {
        let (lookup, _) = try metadata(canister: canister, name: ICAgent.candidServiceSection)
        guard case .found(let bytes) = lookup else { return nil }
        return CandidServiceMetadata(canister: canister, text: String(decoding: bytes, as: UTF8.self))
    }
}
