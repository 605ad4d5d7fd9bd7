import Foundation
import OmniCandid
import OmniCodec
import OmniTestSupport
import OmniTransport
import Testing
@testable import OmniIC

/// `ICCanisterClient`, the calls typed bindings make: verified answers only (the client has no unverified path), the signer of each request, sessions
/// checked before anything is signed, and agents made by `signing(as:)` sharing what the first one learned.
@Suite(.serialized, .offPool)
struct CanisterClientTests {
    /// A replica of this suite's own (the agent suites reset theirs between tests).
    static let fixture = Result { try ReplicaFixture() }
    let replica: ReplicaFixture

    init() throws { replica = try Self.fixture.get() }

    @Test func answersComeBackAsRepliesRejectsAndDone() throws {
        let client = try ICCanisterClient(agent: try replica.agent(), canister: replica.canister)
        let caller = try ICIdentity.generate()
        #expect(try client.query("greet", arg: try candidText("q")) == .replied(try candidText("Hello, q!")))
        #expect(try client.call("greet_update", arg: try candidText("u"), signer: caller) == .replied(try candidText("Hello, u!")))
        guard case .rejected(let certified) = try client.call("fail", arg: try Candid.encode([]), signer: caller) else {
            Issue.record("fail did not reject"); return
        }
        #expect(certified.code == .canisterReject && certified.certified)
        guard case .rejected(let query) = try client.query("fail_query", arg: try Candid.encode([])) else {
            Issue.record("fail_query did not reject"); return
        }
        #expect(query.code == .canisterReject && !query.certified, "a query reject is node-signed, not certified")
        guard case .rejected(let early) = try client.call("guarded", arg: try Candid.encode([]), signer: caller) else {
            Issue.record("guarded did not reject"); return
        }
        #expect(!early.certified, "refused before consensus: the replica's word only")
        #expect(try client.call("forget", arg: try Candid.encode([]), signer: caller) == .done)
        guard case .accepted(let requestID) = try client.submit("counter", arg: try Candid.encode([]), signer: caller) else {
            Issue.record("the one-way call was not accepted"); return
        }
        let status = try replica.agent(identity: caller).requestStatus(requestID, route: .canister(replica.canister))
        #expect(status.status != RequestStatus.unknown, "the submitted call ran")
    }

    @Test func eachRequestIsSignedByItsSigner() throws {
        let transport = HandlerTransport { _, _, _ in (500, Array("no".utf8)) }
        var configuration = ICAgent.Configuration(network: replica.network, rootKey: replica.rootKey)
        configuration.requestTimeout = .seconds(5)
        let owner = try ICIdentity.generate()
        let client = try ICCanisterClient(agent: try ICAgent(configuration: configuration, identity: owner, transport: transport),
                                          canister: replica.canister)
        let session = try DelegatedSession.create(root: try ICIdentity.generate(), targets: [replica.canister])
        let key = try ICIdentity.generate(.secp256k1)
        _ = try? client.query("greet", arg: try candidText("a"))
        _ = try? client.query("greet", arg: try candidText("b"), signer: session)
        _ = try? client.call("greet_update", arg: try candidText("c"), signer: key)
        let senders = transport.envelopes.map(\.content.sender)
        #expect(senders == [owner.principal, session.principal, key.principal])
        #expect(transport.envelopes[1].senderDelegation?.count == 1, "a session signs through its chain")
    }

    @Test func aSessionIsCheckedBeforeAnythingIsSigned() throws {
        let transport = HandlerTransport { _, _, _ in (500, []) }
        let configuration = ICAgent.Configuration(network: replica.network, rootKey: replica.rootKey)
        let client = try ICCanisterClient(agent: try ICAgent(configuration: configuration, transport: transport), canister: replica.canister)
        let other = try Principal(icText: "ryjl3-tyaaa-aaaaa-aaaba-cai")
        let session = try DelegatedSession.create(root: try ICIdentity.generate(), targets: [replica.canister])
        let target = thrownError(ICError.self) {
            _ = try client.call("greet_update", arg: try candidText("x"), signer: session, options: ICRequestOptions(delegationTarget: other))
        }
        #expect(target?.reason == .target)
        #expect(target?.message.contains("may sign only for \(replica.canister)") == true && target?.message.contains("\(other)") == true)
        let elsewhere = try DelegatedSession.create(root: try ICIdentity.generate(), targets: [other])
        #expect(thrownError(ICError.self) { _ = try client.query("greet", arg: try candidText("x"), signer: elsewhere) }?.reason == .target)
        let expired = try DelegatedSession.create(root: try ICIdentity.generate(), lifetime: 1, now: 1_000)
        #expect(thrownError(ICError.self) { _ = try client.call("greet_update", arg: try candidText("x"), signer: expired) }?.reason == .expired)
        #expect(transport.envelopes.isEmpty, "nothing was sent")
        // An unrestricted session passes any target.
        let open = try DelegatedSession.create(root: try ICIdentity.generate())
        _ = try? client.query("greet", arg: try candidText("x"), signer: open, options: ICRequestOptions(delegationTarget: other))
        #expect(transport.envelopes.count == 1)
    }

    @Test func agentsSigningForOthersShareWhatTheFirstLearned() throws {
        try replica.set([("clock_skew_s", 120)])
        defer { try? replica.set([("clock_skew_s", 0)]) }
        let agent = try replica.agent()
        let early = agent.signing(as: try ICIdentity.generate())
        #expect(early.identity.principal != agent.identity.principal && early.configuration.network == agent.configuration.network)
        _ = try ICCanisterClient(agent: agent, canister: replica.canister).call("greet_update", arg: try candidText("s"),
                                                                                 signer: try ICIdentity.generate())
        #expect(agent.clockSkew > 100_000_000_000, "the certified time taught the first agent the network's clock")
        #expect(early.clockSkew == agent.clockSkew, "an agent made before it learned shares it")
        #expect(agent.signing(as: .anonymous).clockSkew == agent.clockSkew)
    }
}
