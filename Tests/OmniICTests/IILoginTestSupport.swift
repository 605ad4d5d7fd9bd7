import Foundation
import OmniCandid
import OmniCodec
import OmniCrypto
import OmniTestSupport
import Testing
@testable import OmniIC

/// An Internet Identity stand-in for unit tests: a canister signature user key whose signatures are certified by a
/// test BLS root key (certificates signed by the root directly), and the login's session key.
struct IIFixture {
    let now: UInt64 = 1_750_000_000_000_000_000
    let root = TestBLSKey(seed: 21)
    let canister: Principal
    let seed: [UInt8] = Array("anchor 10000 for http://127.0.0.1:53817".utf8)
    let sessionKey: ICIdentity

    init() throws {
        canister = try principal("rdmx6-jaaaa-aaaaa-aaadq-cai")
        sessionKey = try ICIdentity.generate(.ed25519)
    }

    var rootKey: ICRootKey { get throws { try root.rootKey } }
    var userKey: [UInt8] { SenderPublicKey.canisterSignatureDER(canister: canister, seed: seed) }
    var sessionPublicKey: [UInt8] { sessionKey.publicKeyDER ?? [] }

    func request(ttl: UInt64 = IILoginRequest.defaultTimeToLive, targets: [Principal]? = nil) throws -> IILoginRequest {
        try IILoginRequest(provider: IdentityProviderURL(parsing: "https://identity.ic0.app"), sessionPublicKey: sessionPublicKey,
                           timeToLive: ttl, targets: targets)
    }

    /// A canister signature on `message` by the fixture's user key.
    func canisterSignature(_ message: [UInt8]) throws -> [UInt8] {
        let sigTree = TestCertificates.node([("sig", TestCertificates.node([(SHA256.hash(seed),
                                                                           TestCertificates.node([(SHA256.hash(message), HashTree.leaf([]))]))]))])
        let state = TestCertificates.node([
            ("canister", TestCertificates.node([(canister.bytes, TestCertificates.node([("certified_data", HashTree.leaf(sigTree.digest))]))])),
            ("time", .leaf(TestCertificates.leb128(now - 60_000_000_000))),
        ])
        return try CanisterSignature.encode(certificate: try TestCertificates.encode(tree: state, key: root), tree: sigTree)
    }

    /// The one-delegation chain Internet Identity issues: user key → `to` (the session key by default).
    func chain(expiration: UInt64? = nil, targets: [Principal]? = nil, to key: [UInt8]? = nil) throws -> DelegationChain {
        let delegation = Delegation(publicKey: key ?? sessionPublicKey, expiration: expiration ?? now + DelegatedSession.hour,
                                    targets: targets)
        return DelegationChain(publicKey: userKey, delegations: [SignedDelegation(delegation: delegation,
                                                                                  signature: try canisterSignature(delegation.signedMessage))])
    }

    /// user key → each of `intermediates` in turn → the session key; each link signed by the key before it.
    func chain(through intermediates: [ICIdentity], targets: [[Principal]?]? = nil) throws -> DelegationChain {
        let keys = intermediates.map { $0.publicKeyDER ?? [] } + [sessionPublicKey]
        var links: [SignedDelegation] = []
        for (index, key) in keys.enumerated() {
            let delegation = Delegation(publicKey: key, expiration: now + DelegatedSession.hour, targets: targets?[index] ?? nil)
            let signature = index == 0 ? try canisterSignature(delegation.signedMessage)
                : try intermediates[index - 1].sign(delegation.signedMessage)
            links.append(SignedDelegation(delegation: delegation, signature: signature))
        }
        return DelegationChain(publicKey: userKey, delegations: links)
    }

    func verify(_ chain: DelegationChain, request: IILoginRequest? = nil, at time: UInt64? = nil) throws -> DelegatedSession {
        try IILoginAnswer.verifiedSession(chain: chain, sessionKey: sessionKey, request: try request ?? self.request(),
                                          at: time ?? now, rootKey: try rootKey)
    }

    /// The answer as the login page POSTs it.
    func answerJSON(_ chain: DelegationChain, method: String? = "passkey") -> JSONValue {
        var object = JSONObject()
        object.append("kind", "authorize-client-success")
        object.append("delegations", chain.json["delegations"] ?? .null)
        object.append("userPublicKey", .string(Hex.encode(chain.publicKey)))
        if let method { object.append("authnMethod", .string(method)) }
        return .object(object)
    }
}
