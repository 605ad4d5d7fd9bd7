import OmniCandid

/// Who signs a request: a key identity, or a delegated session (which signs through its delegation chain).
public protocol ICSigner: Sendable {
    /// The identity whose key signs and whose principal is the sender.
    var signingIdentity: ICIdentity { get }
}

extension ICIdentity: ICSigner {
    /// The identity itself.
    public var signingIdentity: ICIdentity { self }
}

extension DelegatedSession: ICSigner {
    /// The session's key, signing through its delegation chain for the chain's principal.
    public var signingIdentity: ICIdentity { ICIdentity(session: self) }
}

/// Routing and delegation choices for one request of an `ICCanisterClient`.
public struct ICRequestOptions: Sendable, Equatable {
    /// For `aaaaa-aa`: the canister whose subnet the request goes to; nil takes it from the argument's
    /// `canister_id` (see `ICAgent.effectiveCanisterID`). Any other canister is its own effective id.
    public var effectiveCanisterID: Principal?
    /// The canister a delegated signer's targets must include, when it is not the one the interface specification
    /// derives from the request (`DelegationTarget.of`: the canister called, or the canister a management query is
    /// about). Checked with the session's expiry before anything is signed, as `ICAgent` checks every request.
    /// Ignored for signers that are not delegated sessions.
    public var delegationTarget: Principal?

    /// The defaults: the canister's own routing, no extra target.
    public init(effectiveCanisterID: Principal? = nil, delegationTarget: Principal? = nil) {
        self.effectiveCanisterID = effectiveCanisterID
        self.delegationTarget = delegationTarget
    }
}

/// How a canister answered a query or an update call.
public enum ICCanisterAnswer: Sendable, Equatable {
    /// The reply's Candid bytes: from a verified certificate (calls) or node-signed and verified (queries).
    case replied([UInt8])
    /// Certified by consensus when `reject.certified` (calls); node-signed for queries; `certified` false for a
    /// call the replica refused before consensus (its message is the replica's word only).
    case rejected(Reject)
    /// The call completed, but its reply is no longer available.
    case done
}

/// What became of a one-way call.
public enum ICSubmission: Sendable, Equatable {
    case accepted(RequestID)
    case rejected(Reject)
}

/// One canister seen through a verified `ICAgent`: the calls typed bindings make.
///
/// Every answer is verified as `ICAgent` verifies it: the client never asks for the agent's unverified query, so
/// nothing built on it can return an unverified reply. Queries are signed by the agent's own identity unless a
/// signer is given; update calls always name their signer.
public struct ICCanisterClient: Sendable {
    /// The verified agent every request goes through (its identity signs queries that name no signer).
    public let agent: ICAgent
    public let canister: Principal

    /// A client of `canister` through `agent`.
    public init(agent: ICAgent, canister: Principal) throws(ICError) {
        self.agent = agent
        self.canister = canister
    }

    /// A verified query (also for composite queries).
    public func query(_ method: String, arg: [UInt8], signer: (any ICSigner)? = nil,
                      options: ICRequestOptions = ICRequestOptions()) throws -> ICCanisterAnswer {
        let agent = self.agent(for: signer, options: options)
        let result = try agent.query(canister: canister, method: method, arg: arg, effectiveCanister: options.effectiveCanisterID,
                                     delegationTarget: options.delegationTarget)
        switch result.outcome {
        case .replied(let bytes): return .replied(bytes)
        case .rejected(let reject): return .rejected(reject)
        }
    }

    /// An update call, waited for until its certified outcome.
    public func call(_ method: String, arg: [UInt8], signer: any ICSigner,
                     options: ICRequestOptions = ICRequestOptions()) throws -> ICCanisterAnswer {
        let agent = self.agent(for: signer, options: options)
        let result = try agent.call(canister: canister, method: method, arg: arg, effectiveCanister: options.effectiveCanisterID,
                                    delegationTarget: options.delegationTarget)
        switch result.outcome {
        case .replied(let bytes): return .replied(bytes)
        case .rejected(let reject): return .rejected(reject)
        case .done: return .done
        case .accepted:
            throw ICError(.internalFailure, "call \(result.requestID) was accepted but not followed to its outcome")
        }
    }

    /// A one-way call: submitted, not waited for (one-way methods never reply). Accepted with the request id to
    /// check its status with, or the reject the replica answered before accepting it (not certified).
    public func submit(_ method: String, arg: [UInt8], signer: any ICSigner,
                       options: ICRequestOptions = ICRequestOptions()) throws -> ICSubmission {
        let agent = self.agent(for: signer, options: options)
        let result = try agent.call(canister: canister, method: method, arg: arg, effectiveCanister: options.effectiveCanisterID,
                                    delegationTarget: options.delegationTarget, wait: false)
        if case .rejected(let reject) = result.outcome { return .rejected(reject) }
        return .accepted(result.requestID)
    }

    /// The agent that signs as `signer` (this client's own when nil); the agent checks a delegated signer's
    /// expiry and targets before signing.
    private func agent(for signer: (any ICSigner)?, options: ICRequestOptions) -> ICAgent {
        guard let signer else { return agent }
        return agent.signing(as: signer.signingIdentity)
    }
}
