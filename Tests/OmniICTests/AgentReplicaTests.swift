import Foundation
import OmniCandid
import OmniCodec
import OmniCrypto
import OmniTestSupport
import OmniTransport
import Testing
@testable import OmniIC

/// The agent against `Tests/Peers/ic_replica.py`, whose BLS, Ed25519 and CBOR come from pyblst, cryptography and
/// cbor2: every endpoint, fallback and verification path, and every attack the replica can stage.
@Suite(.serialized, .offPool)
struct AgentReplicaTests {
    let replica: ReplicaFixture

    init() throws {
        replica = try ReplicaFixture.get()
        try replica.reset()
    }

    // MARK: Queries

    @Test func verifiedQueryCachesNodeKeysOnDisk() throws {
        let directory = try temporaryDirectory("omni-nodekeys")
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let cache = NodeKeyCache(directory: directory)
        let events = EventLog()
        let agent = try replica.agent(cache: cache, events: events)
        let result = try agent.query(canister: replica.canister, method: "greet", arg: try candidText("omni"))
        guard case .replied(let reply) = result.outcome else { Issue.record("not replied: \(result.outcome)"); return }
        #expect(try decodedText(reply) == "Hello, omni!")
        #expect(result.endpoint == "v3")
        guard case .nodeSignatures(let subnet, let nodes, let fromCache, let refreshed) = result.verification else {
            Issue.record("not verified: \(result.verification)"); return
        }
        #expect(subnet == replica.subnet && nodes.count == 1 && !fromCache && !refreshed)
        #expect(try replica.stat("node_key_reads") == 1)

        // The cache file: under the root key's folder, 0600, and used by the next agent (no second key read).
        let file = cache.path(subnet: replica.subnet, rootKey: replica.rootKey)
        let mode = (try FileManager.default.attributesOfItem(atPath: file)[.posixPermissions] as? Int) ?? 0
        #expect(mode == 0o600)
        let second = EventLog()
        let again = try replica.agent(cache: cache, events: second).query(canister: replica.canister, method: "greet",
                                                                          arg: try candidText("again"))
        guard case .nodeSignatures(_, _, true, false) = again.verification else { Issue.record("\(again.verification)"); return }
        #expect(try replica.stat("node_key_reads") == 1)
        #expect(second.descriptions.contains { $0.contains("cached node keys") })

        // Another root of trust never sees these keys; an expired entry is a miss.
        #expect(cache.load(serving: replica.canister, rootKey: .mainnet) == nil)
        #expect(cache.load(serving: replica.canister, rootKey: replica.rootKey, now: IngressExpiry.currentTime() + 3601 * 1_000_000_000) == nil)
    }

    @Test func signedQueryRejectIsVerifiedToo() throws {
        let result = try replica.agent().query(canister: replica.canister, method: "fail_query", arg: try Candid.encode([]))
        guard case .rejected(let reject) = result.outcome else { Issue.record("\(result.outcome)"); return }
        #expect(reject.code == .canisterReject && reject.errorCode == "IC0406" && !reject.certified)
        guard case .nodeSignatures = result.verification else { Issue.record("\(result.verification)"); return }
    }

    @Test func queryFallsBackToV2() throws {
        try replica.reset([("disabled_endpoints", ["query_v3"])])
        let events = EventLog()
        let agent = try replica.agent(events: events)
        let result = try agent.query(canister: replica.canister, method: "greet", arg: try candidText("v2"))
        #expect(result.endpoint == "v2")
        #expect(events.descriptions.contains("query v3 is not available (HTTP 404); using query v2"))
        // The agent remembers: the next query goes to v2 directly.
        _ = try agent.query(canister: replica.canister, method: "greet", arg: try candidText("v2"))
        #expect(try replica.stat("query_v2") == 2)
        #expect(events.descriptions.filter { $0.contains("not available") }.count == 1)
    }

    // MARK: Node signature attacks

    @Test(arguments: ["always", "unknown_node"])
    func badNodeSignatureRefreshesKeysOnceThenFails(mode: String) throws {
        let agent = try replica.agent()
        _ = try agent.query(canister: replica.canister, method: "greet", arg: try candidText("warm"))
        try replica.set([("bad_node_signature", .string(mode)), ("action", "reset_stats")])
        let error = thrownError(ICError.self) {
            _ = try agent.query(canister: replica.canister, method: "greet", arg: try candidText("x"))
        }
        #expect(error?.reason == .nodeSignature)
        #expect(try replica.stat("node_key_reads") == 1, "exactly one forced refresh")
    }

    @Test func rotatedNodeKeysPassAfterOneRefresh() throws {
        let agent = try replica.agent()
        _ = try agent.query(canister: replica.canister, method: "greet", arg: try candidText("warm"))
        try replica.set([("bad_node_signature", "until_refresh"), ("action", "reset_stats")])
        let result = try agent.query(canister: replica.canister, method: "greet", arg: try candidText("rotated"))
        guard case .nodeSignatures(_, _, false, true) = result.verification else { Issue.record("\(result.verification)"); return }
        #expect(try replica.stat("node_key_reads") == 1)
    }

    @Test func missingSignatureFailsWithoutRefresh() throws {
        let agent = try replica.agent()
        _ = try agent.query(canister: replica.canister, method: "greet", arg: try candidText("warm"))
        try replica.set([("bad_node_signature", "missing"), ("action", "reset_stats")])
        let error = thrownError(ICError.self) {
            _ = try agent.query(canister: replica.canister, method: "greet", arg: try candidText("x"))
        }
        #expect(error?.reason == .nodeSignature)
        #expect(try replica.stat("node_key_reads") == 0)
    }

    @Test func staleQuerySignatureTimestampIsRefused() throws {
        try replica.reset([("stale_query_timestamp_s", 600)])
        let error = thrownError(ICError.self) {
            _ = try replica.agent().query(canister: replica.canister, method: "greet", arg: try candidText("x"))
        }
        #expect(error?.reason == .time)
    }

    // MARK: Calls

    @Test func synchronousCallV4() throws {
        let agent = try replica.agent()
        let result = try agent.call(canister: replica.canister, method: "greet_update", arg: try candidText("sync"))
        guard case .replied(let reply) = result.outcome else { Issue.record("\(result.outcome)"); return }
        #expect(try decodedText(reply) == "Hello, sync!")
        #expect(result.endpoint == "v4" && result.polls == 0 && result.certificate != nil)
        // Two identical calls are two calls (each has its own nonce).
        let first = try agent.call(canister: replica.canister, method: "counter", arg: try Candid.encode([]))
        let second = try agent.call(canister: replica.canister, method: "counter", arg: try Candid.encode([]))
        #expect(first.requestID != second.requestID)
        guard case .replied(let a) = first.outcome, case .replied(let b) = second.outcome else { Issue.record("not replied"); return }
        #expect(try Candid.decode(a) != Candid.decode(b))
    }

    @Test func acceptedCallIsPolled() throws {
        try replica.reset([("call_polls", 2)])
        let events = EventLog()
        let result = try replica.agent(events: events).call(canister: replica.canister, method: "greet_update",
                                                             arg: try candidText("polled"))
        guard case .replied(let reply) = result.outcome else { Issue.record("\(result.outcome)"); return }
        #expect(try decodedText(reply) == "Hello, polled!")
        #expect(result.endpoint == "v4" && result.polls == 3)
        #expect(events.descriptions.contains { $0.hasPrefix("request 0x") && $0.contains("processing (poll 2/30)") })
    }

    @Test(arguments: [(["call_v4"], "v3", 0), (["call_v4", "call_v3"], "v2", 1)])
    func callFallsBack(disabled: [String], endpoint: String, polls: Int) throws {
        try replica.reset([("disabled_endpoints", .array(disabled.map { .string($0) }))])
        let result = try replica.agent().call(canister: replica.canister, method: "greet_update", arg: try candidText("old"))
        guard case .replied(let reply) = result.outcome else { Issue.record("\(result.outcome)"); return }
        #expect(try decodedText(reply) == "Hello, old!")
        #expect(result.endpoint == endpoint && result.polls == polls)
    }

    @Test func pollingGivesUpAfterTheAttempts() throws {
        try replica.reset([("call_polls", 10)])
        let error = thrownError(TransportError.self) {
            _ = try replica.agent { $0.pollAttempts = 3 }.call(canister: replica.canister, method: "greet_update",
                                                               arg: try candidText("slow"))
        }
        #expect(error?.kind == .timeout)
        #expect(error?.message.contains("omni ic request-status 0x") == true)
    }

    @Test func rejectsAndDone() throws {
        let agent = try replica.agent()
        let certified = try agent.call(canister: replica.canister, method: "fail", arg: try Candid.encode([]))
        #expect(certified.outcome == .rejected(Reject(code: .canisterReject, message: try rejectMessage(certified), errorCode: "IC0406", certified: true)))
        let trapped = try agent.call(canister: replica.canister, method: "trap", arg: try Candid.encode([]))
        guard case .rejected(let trap) = trapped.outcome else { Issue.record("\(trapped.outcome)"); return }
        #expect(trap.code == .canisterError && trap.errorCode == "IC0503" && trap.certified)
        let refused = try agent.call(canister: replica.canister, method: "guarded", arg: try Candid.encode([]))
        guard case .rejected(let inspect) = refused.outcome else { Issue.record("\(refused.outcome)"); return }
        #expect(inspect.code == .canisterReject && !inspect.certified && refused.certificate == nil)
        let forgotten = try agent.call(canister: replica.canister, method: "forget", arg: try Candid.encode([]))
        #expect(forgotten.outcome == .done)
    }

    private func rejectMessage(_ result: CallResult) throws -> String {
        guard case .rejected(let reject) = result.outcome else { throw TestSupportError("not a reject: \(result.outcome)") }
        #expect(!reject.message.isEmpty)
        return reject.message
    }

    @Test func asynchronousCallAndRequestStatus() throws {
        let agent = try replica.agent()
        let submitted = try agent.call(canister: replica.canister, method: "greet_update", arg: try candidText("later"), wait: false)
        #expect(submitted.outcome == .accepted && submitted.endpoint == "v2")
        let status = try agent.requestStatus(submitted.requestID, route: .canister(replica.canister))
        guard case .replied(let reply) = status.status else { Issue.record("\(status.status)"); return }
        #expect(try decodedText(reply) == "Hello, later!")
        // An id nobody sent is certified absent.
        let unknown = try agent.requestStatus(try RequestID(bytes: [UInt8](repeating: 7, count: 32)),
                                              route: .canister(replica.canister), wait: false)
        #expect(unknown.status == .unknown)
    }

    @Test func requestStatusOfAnotherSenderIsRefused() throws {
        let owner = ICIdentity(ed25519: Ed25519.PrivateKey())
        let submitted = try replica.agent(identity: owner).call(canister: replica.canister, method: "greet_update",
                                                                arg: try candidText("mine"), wait: false)
        let error = thrownError(TransportError.self) {
            _ = try replica.agent().requestStatus(submitted.requestID, route: .canister(replica.canister), wait: false)
        }
        #expect(error?.kind == .rejected && error?.status == 403)
    }

    /// The replica's clock 200 s ahead: the refused call's status is read (the read itself is signed again once
    /// with the replica's hint), certified time proves the first call expired, and one new call is signed.
    @Test func clockSkewIsCorrectedOnce() throws {
        try replica.reset([("clock_skew_s", 200)])
        let events = EventLog()
        let agent = try replica.agent(events: events)
        let result = try agent.call(canister: replica.canister, method: "greet_update", arg: try candidText("skew"))
        guard case .replied = result.outcome else { Issue.record("\(result.outcome)"); return }
        let sources = events.events.compactMap { event -> ClockSource? in
            if case .clockSkewCorrected(_, let source) = event { return source }
            return nil
        }
        #expect(sources == [.replicaHint, .certifiedTime], "\(events.descriptions)")
        #expect(agent.clockSkew > 150_000_000_000)
        #expect(try replica.stat("errors") == 2 && replica.stat("call_v4") == 2 && replica.stat("far_future_expiries") == 0)
    }

    @Test func subnetKeysAreReadAnonymously() throws {
        // A session restricted to another canister: a /subnet read signed with it would be refused by the replica.
        let other = try Principal(icText: "ryjl3-tyaaa-aaaaa-aaaba-cai")
        let session = try DelegatedSession.create(root: try ICIdentity.generate(), targets: [other])
        let (info, fromCache) = try replica.agent(identity: ICIdentity(session: session)).subnetInfo(serving: replica.canister)
        #expect(info.subnetID == replica.subnet && !fromCache && info.serves(replica.canister))
        // A verified query by a key identity: its node keys are read anonymously too.
        let query = try replica.agent(identity: try ICIdentity.generate()).query(canister: replica.canister, method: "greet",
                                                                               arg: try candidText("k"))
        guard case .nodeSignatures = query.verification else { Issue.record("\(query.verification)"); return }
        #expect(try replica.stat("node_key_reads") == 2)
        #expect(try replica.stat("signed_node_key_reads") == 0, "the user's principal never signs a public /subnet read")
    }

    /// A query asked for unverified reads no node keys at all, so nothing unverified can reach the cache.
    @Test func unverifiedQueryReadsNoSubnetFacts() throws {
        let directory = try temporaryDirectory("omni-nodekeys-unsafe")
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let cache = NodeKeyCache(directory: directory)
        try replica.reset([("bad_node_signature", "always")])
        let query = try replica.agent(cache: cache).query(canister: replica.canister, method: "greet", arg: try candidText("u"),
                                                          verified: false)
        #expect(query.verification == .skipped && !query.verified)
        #expect(try replica.stat("node_key_reads") == 0)
        #expect(!FileManager.default.fileExists(atPath: cache.path(subnet: replica.subnet, rootKey: replica.rootKey)))
        _ = try replica.agent(cache: cache).subnetInfo(serving: replica.canister)
        #expect(cache.load(serving: replica.canister, rootKey: replica.rootKey)?.subnetID == replica.subnet, "verified facts are")
    }

    // MARK: Certificate attacks

    @Test(arguments: [
        ("bad_bls", JSONValue.string("certificate"), ICError.Reason.signature),
        ("bad_bls", JSONValue.string("delegation"), ICError.Reason.signature),
        ("foreign_range", JSONValue.bool(true), ICError.Reason.range),
        ("stale_time_s", JSONValue.int(600), ICError.Reason.time),
        ("nested_delegation", JSONValue.bool(true), ICError.Reason.delegation),
    ])
    func attackedCertificatesAreRefused(key: String, value: JSONValue, reason: ICError.Reason) throws {
        try replica.reset([(key, value)])
        let agent = try replica.agent()
        let call = thrownError(ICError.self) {
            _ = try agent.call(canister: replica.canister, method: "greet_update", arg: try candidText("x"))
        }
        #expect(call?.kind == .verificationFailed && call?.reason == reason, "call: \(String(describing: call))")
        let read = thrownError(ICError.self) { _ = try agent.readState(canister: replica.canister, paths: [.time]) }
        #expect(read?.reason == reason, "read_state: \(String(describing: read))")
    }

    /// The specification asks only the certificate itself to be fresh: delegations are reused for long periods.
    @Test func oldDelegationIsAccepted() throws {
        try replica.reset([("stale_delegation_s", 600)])
        _ = try replica.agent().readState(canister: replica.canister, paths: [.time])
    }

    /// Only the query asked for unverified skips its checks; the same agent verifies everything else.
    @Test func onlyTheQueryAskedForUnverifiedIsUnverified() throws {
        try replica.reset([("bad_node_signature", "always")])
        let agent = try replica.agent()
        let query = try agent.query(canister: replica.canister, method: "greet", arg: try candidText("u"), verified: false)
        #expect(query.verification == .skipped)
        let verified = thrownError(ICError.self) {
            _ = try agent.query(canister: replica.canister, method: "greet", arg: try candidText("u"))
        }
        #expect(verified?.reason == .nodeSignature)
        try replica.reset([("bad_bls", "certificate")])
        let call = thrownError(ICError.self) { _ = try agent.call(canister: replica.canister, method: "fail", arg: try Candid.encode([])) }
        #expect(call?.reason == .signature, "calls are always verified")
    }

    @Test func oversizedResponsesAreCut() throws {
        try replica.reset([("oversize_mib", 11)])
        let error = thrownError(TransportError.self) {
            _ = try replica.agent().query(canister: replica.canister, method: "greet", arg: try candidText("x"))
        }
        #expect(error?.kind == .limitExceeded)
        try replica.reset()
        let capped = thrownError(TransportError.self) {
            _ = try replica.agent { $0.maxResponseBytes = 512 * 1024 }.query(canister: replica.canister, method: "big",
                                                                               arg: try Candid.encode([]))
        }
        #expect(capped?.kind == .limitExceeded)
        #expect(throws: ICError.self) { _ = try replica.agent { $0.maxResponseBytes = 11 << 20 } }
    }

    // MARK: read_state, status, root key

    @Test func readStateAndMetadata() throws {
        let agent = try replica.agent()
        let (lookup, read) = try agent.metadata(canister: replica.canister, name: "candid:service")
        guard case .found(let bytes) = lookup else { Issue.record("\(lookup)"); return }
        let service = String(decoding: bytes, as: UTF8.self)
        #expect(service.contains("greet") && read.endpoint == "v3")
        let interface = try CandidInterface.parse(service)
        #expect(try interface.method("greet")?.isQuery == true)
        let (missing, _) = try agent.metadata(canister: replica.canister, name: "no-such-section")
        #expect(missing == .absent)

        let keyPath = StatePath.subnetPublicKey(replica.subnet.bytes)
        let subnet = try agent.readSubnetState(subnet: replica.subnet, paths: [keyPath])
        #expect(subnet.certificate.lookup(keyPath).value == (try hex(try replica.peer.string("subnet_public_key"))))
        let other = thrownError(TransportError.self) { _ = try agent.readSubnetState(subnet: replica.rootKey.subnetID, paths: [.time]) }
        #expect(other?.status == 400)
    }

    /// The interface `omni ic query/call` type values with when no .did is given: the verified candid:service.
    @Test func candidServiceMetadata() throws {
        let service = try #require(try replica.agent().candidService(canister: replica.canister))
        #expect(service.canister == replica.canister)
        #expect(try CandidInterface.parse(service.text).method("greet")?.isQuery == true)
        try replica.reset([("bad_bls", "certificate")])
        #expect(throws: ICError.self, "read from a verified certificate only") {
            _ = try replica.agent().candidService(canister: replica.canister)
        }
    }

    @Test func readStateFallsBackToV2() throws {
        try replica.reset([("disabled_endpoints", ["read_state_v3"])])
        let read = try replica.agent().readState(canister: replica.canister, paths: [.time])
        #expect(read.endpoint == "v2")
    }

    @Test func statusAndLoopbackRootKey() throws {
        let status = try replica.agent().status()
        #expect(status.rootKey == replica.rootKey.der)
        #expect(try ICAgent.fetchRootKey(network: replica.network) == replica.rootKey)
        #expect(throws: ICError.self) { _ = try ICAgent.fetchRootKey(network: try ICNetwork("ic")) }
        #expect(throws: ICError.self) { _ = try ICAgent.fetchRootKey(network: try ICNetwork("https://example.org")) }
    }

    // MARK: Identities and requests signed elsewhere

    @Test func signedIdentityCalls() throws {
        let identity = try ICIdentity.generate(.secp256k1)
        let result = try replica.agent(identity: identity).call(canister: replica.canister, method: "greet_update",
                                                                arg: try candidText("k1"))
        guard case .replied = result.outcome else { Issue.record("\(result.outcome)"); return }
    }

    @Test func signedRequestFileIsSentAndPolled() throws {
        try replica.reset([("call_polls", 1)])
        let signer = ICIdentity(ed25519: Ed25519.PrivateKey())
        let expiry = IngressExpiry.expiry(now: IngressExpiry.currentTime())
        let call = try ICRequest(.call(canister: replica.canister, method: "greet_update", arg: try candidText("offline")),
                                 sender: signer.principal, ingressExpiry: expiry, nonce: ICRequest.randomNonce())
        let status = try ICRequest(.readState(paths: [StatePath.requestStatus(call.requestID)]), sender: signer.principal,
                                   ingressExpiry: expiry)
        let file = try SignedRequestFile(envelope: try signer.envelope(for: call), effectiveCanisterID: replica.canister,
                                         network: replica.network.url, requestStatus: try signer.envelope(for: status))
        let reread = try SignedRequestFile(text: file.text)
        #expect(reread == file)
        // Sent by an agent that holds no key: the file's signed status read does the polling.
        guard case .call(let result) = try replica.agent().send(reread) else { Issue.record("not a call"); return }
        #expect(result.requestID == call.requestID && result.polls >= 1)
        guard case .replied(let reply) = result.outcome else { Issue.record("\(result.outcome)"); return }
        #expect(try decodedText(reply) == "Hello, offline!")
    }

    @Test func effectiveCanisterOfTheManagementCanister() throws {
        let arg = try Candid.encode([.record(["canister_id": .principal(replica.canister)])])
        #expect(try ICAgent.effectiveCanisterID(canister: .managementCanister, method: "canister_status", arg: arg,
                                                explicit: nil) == replica.canister)
        #expect(throws: ICError.self) {
            _ = try ICAgent.effectiveCanisterID(canister: .managementCanister, method: "create_canister", arg: try Candid.encode([]),
                                                explicit: nil)
        }
        let ledger = try Principal(icText: "ryjl3-tyaaa-aaaaa-aaaba-cai")
        #expect(try ICAgent.effectiveCanisterID(canister: .managementCanister, method: "create_canister", arg: try Candid.encode([]),
                                                explicit: ledger) == ledger)
        #expect(try ICAgent.effectiveCanisterID(canister: replica.canister, method: "greet", arg: [], explicit: replica.canister)
                == replica.canister)
        // Another canister's id would have the answer checked against that canister's subnet.
        let foreign = expectICError(.invalidArgument, "explicit id for an ordinary canister") {
            _ = try ICAgent.effectiveCanisterID(canister: replica.canister, method: "greet", arg: [], explicit: ledger)
        }
        #expect(foreign?.message.contains("only aaaaa-aa requests are routed by another id") == true)
        // An argument that names its canister fixes the route of an aaaaa-aa request, explicit or not.
        let named = expectICError(.invalidArgument, "explicit id against the argument") {
            _ = try ICAgent.effectiveCanisterID(canister: .managementCanister, method: "canister_status", arg: arg, explicit: ledger)
        }
        #expect(named?.message.contains("names canister \(replica.canister)") == true, "\(String(describing: named))")
        #expect(try ICAgent.effectiveCanisterID(canister: .managementCanister, method: "canister_status", arg: arg,
                                                explicit: replica.canister) == replica.canister)
    }
}
