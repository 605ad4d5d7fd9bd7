import Foundation
import OmniCandid
import OmniCodec
import OmniCrypto
import OmniTestSupport
import OmniTransport
import Testing
@testable import OmniIC

/// The agent's pieces that need no replica: networks, state path text, the signed request file, the node key
/// cache, and the HTTP handling (fallbacks, refusals, clock skew) with a scripted transport.
@Suite(.serialized, .offPool)
struct AgentUnitTests {
    // MARK: Networks

    @Test(arguments: [
        ("ic", "https://icp-api.io", true, false),
        ("local", "http://127.0.0.1:4943", false, true),
        ("http://localhost:8080/", "http://localhost:8080", false, true),
        ("http://127.5.0.1:1", "http://127.5.0.1:1", false, true),
        ("http://[::1]:4943", "http://[::1]:4943", false, true),
        ("https://ic0.app", "https://ic0.app", true, false),
        ("https://a.icp0.io", "https://a.icp0.io", true, false),
        ("https://icp0.io.evil.example", "https://icp0.io.evil.example", false, false),
        ("http://127.0.0.1.evil.example", "http://127.0.0.1.evil.example", false, false),
        ("http://1270.0.0.1", "http://1270.0.0.1", false, false),
    ])
    func networks(text: String, url: String, mainnet: Bool, loopback: Bool) throws {
        let network = try ICNetwork(text)
        #expect(network.url == url && network.isMainnet == mainnet && network.isLoopback == loopback)
    }

    @Test(arguments: ["ftp://x", "http://", "icp-api.io", "https://user:pw@icp-api.io", "https://icp-api.io/api", "https://x?y=1", ""])
    func badNetworks(text: String) {
        #expect(throws: ICError.self) { _ = try ICNetwork(text) }
    }

    // MARK: State paths

    @Test func statePathText() throws {
        let canister = try Principal(icText: "ryjl3-tyaaa-aaaaa-aaaba-cai")
        #expect(try StatePath(text: "/time") == .time)
        #expect(try StatePath(text: "time") == .time)
        #expect(try StatePath(text: "/") == StatePath([[UInt8]]()))
        #expect(try StatePath(text: "/canister/ryjl3-tyaaa-aaaaa-aaaba-cai/metadata/candid:service")
                == .canisterMetadata(canister.bytes, name: "candid:service"))
        let id = try RequestID(bytes: [UInt8](repeating: 0xab, count: 32))
        #expect(try StatePath(text: "/request_status/0x" + id.hex) == .requestStatus(id))
        // A bare request id, as `description` prints it: the text form round-trips.
        #expect(try StatePath(text: "/request_status/" + id.hex) == .requestStatus(id))
        #expect(try StatePath(text: StatePath.requestStatus(id).appending("reply").description) == StatePath.requestStatus(id).appending("reply"))
        // Not a principal (bad checksum): kept as text.
        #expect(try StatePath(text: "/a-b").labels == [Array("a-b".utf8)])
        #expect(throws: ICError.self) { _ = try StatePath(text: "/a//b") }
        #expect(throws: ICError.self) { _ = try StatePath(text: "/0xzz") }
        #expect(throws: ICError.self) { _ = try StatePath(text: Array(repeating: "x", count: 128).joined(separator: "/")) }
    }

    // MARK: Signed request files

    static func signedCall(nonce: [UInt8]? = [1, 2, 3]) throws -> (ICIdentity, ICRequest, ICEnvelope, ICEnvelope) {
        let identity = ICIdentity(ed25519: Ed25519.PrivateKey())
        let canister = try Principal(icText: "ryjl3-tyaaa-aaaaa-aaaba-cai")
        let call = try ICRequest(.call(canister: canister, method: "transfer", arg: try Candid.encode([.nat(5)])),
                                 sender: identity.principal, ingressExpiry: 1_800_000_000_000_000_000, nonce: nonce)
        let status = try ICRequest(.readState(paths: [StatePath.requestStatus(call.requestID)]), sender: identity.principal,
                                   ingressExpiry: 1_800_000_000_000_000_000)
        return (identity, call, try identity.envelope(for: call, at: 1_700_000_000_000_000_000),
                try identity.envelope(for: status, at: 1_700_000_000_000_000_000))
    }

    @Test func signedRequestFileRoundTrip() throws {
        let (identity, call, envelope, status) = try Self.signedCall()
        let file = try SignedRequestFile(envelope: envelope, effectiveCanisterID: call.canister ?? .anonymous, network: "ic",
                                         requestStatus: status)
        let json = file.json
        #expect(json["format"] == "omni-ic-signed-request" && json["version"] == 1 && json["request_type"] == "call")
        #expect(json.objectValue?.keys == ["format", "version", "request_type", "request_id", "canister_id", "effective_canister_id",
                                           "method_name", "sender", "ingress_expiry", "ingress_expiry_rfc3339", "arg", "envelope",
                                           "request_status_envelope", "network"])
        #expect(json["method_name"] == "transfer" && json["sender"]?.stringValue == identity.principal.text)
        #expect(json["request_id"]?.stringValue == call.requestID.hex)
        #expect(json["ingress_expiry"] == "1800000000000000000")
        let decoded = try SignedRequestFile(text: file.text)
        #expect(decoded == file && decoded.requestStatus?.envelope.content.sender == identity.principal)
        try decoded.envelope.verifySender(at: 1_700_000_000_000_000_000)
    }

    /// Each field that disagrees with the signed envelope is refused for that disagreement (kind, field, words).
    @Test(arguments: [
        ("method_name", JSONValue.string("approve"), "\"method_name\" is \"approve\" but the signed envelope says \"transfer\""),
        ("arg", JSONValue.string("4449444c0000"), "\"arg\" is \"4449444c0000\" but the signed envelope says"),
        ("arg", JSONValue.null, "\"arg\" is missing or not a string"),
        ("request_id", JSONValue.string(String(repeating: "00", count: 32)), "\"request_id\" is \"0000"),
        ("sender", JSONValue.string("2vxsx-fae"), "\"sender\" is \"2vxsx-fae\" but the signed envelope says"),
        ("ingress_expiry", JSONValue.string("1"), "\"ingress_expiry\" is \"1\" but the signed envelope says \"1800000000000000000\""),
        ("request_type", JSONValue.string("query"), "\"request_type\" is \"query\" but the signed envelope says \"call\""),
        ("canister_id", JSONValue.string("aaaaa-aa"), "\"canister_id\" is \"aaaaa-aa\" but the signed envelope says \"ryjl3-tyaaa-aaaaa-aaaba-cai\""),
        ("effective_canister_id", JSONValue.string("qoctq-giaaa-aaaaa-aaaea-cai"),
         "the effective canister id qoctq-giaaa-aaaaa-aaaea-cai is not the called canister ryjl3-tyaaa-aaaaa-aaaba-cai"),
        ("envelope", JSONValue.string("d9d9f7a0"), "content"),
        ("request_status_envelope", JSONValue.string("d9d9f7a0"), "content"),
        ("format", JSONValue.string("dfx"), "not a signed request file: \"format\" is not \"omni-ic-signed-request\""),
    ])
    func signedRequestFileRefusesDisagreement(key: String, value: JSONValue, words: String) throws {
        let (_, call, envelope, status) = try Self.signedCall()
        guard case .object(var object) = try SignedRequestFile(envelope: envelope, effectiveCanisterID: call.canister ?? .anonymous,
                                                                requestStatus: status).json else {
            Issue.record("not an object"); return
        }
        object[key] = value
        let error = expectICError(.malformed, key) { _ = try SignedRequestFile(json: .object(object)) }
        #expect(error?.message.contains(words) == true, "\(key): \(String(describing: error))")
    }

    /// A file for aaaaa-aa: its effective canister id must be the canister the signed argument names.
    @Test func signedRequestFileChecksTheManagementCanistersRoute() throws {
        let identity = ICIdentity(ed25519: Ed25519.PrivateKey())
        let target = try Principal(icText: "ryjl3-tyaaa-aaaaa-aaaba-cai")
        let other = try Principal(icText: "qoctq-giaaa-aaaaa-aaaea-cai")
        func signed(_ method: String, _ arg: [UInt8]) throws -> ICEnvelope {
            let request = try ICRequest(.call(canister: .managementCanister, method: method, arg: arg), sender: identity.principal,
                                        ingressExpiry: 1_800_000_000_000_000_000, nonce: [1])
            return try identity.envelope(for: request, at: 1_700_000_000_000_000_000)
        }
        let status = try signed("canister_status", try Candid.encode([.record(["canister_id": .principal(target)])]))
        let file = try SignedRequestFile(envelope: status, effectiveCanisterID: target)
        #expect(try SignedRequestFile(text: file.text).effectiveCanisterID == target)
        guard case .object(var object) = file.json else { Issue.record("not an object"); return }
        object["effective_canister_id"] = .string(other.text)
        let error = expectICError(.malformed, "routed elsewhere") { _ = try SignedRequestFile(json: .object(object)) }
        #expect(error?.location == "effective_canister_id")
        #expect(error?.message.contains("is not ryjl3-tyaaa-aaaaa-aaaba-cai, the canister the signed argument of aaaaa-aa.canister_status names") == true,
                "\(String(describing: error))")
        // An argument that names no canister cannot be checked, so it is refused too.
        let unnamed = expectICError(.malformed, "no canister_id") {
            _ = try SignedRequestFile(envelope: try signed("canister_status", try Candid.encode([])), effectiveCanisterID: target)
        }
        #expect(unnamed?.message.contains("cannot be checked against the signed request") == true, "\(String(describing: unnamed))")
        // Canister creation may go to any subnet: any id routes it.
        _ = try SignedRequestFile(envelope: try signed("create_canister", try Candid.encode([])), effectiveCanisterID: other)
    }

    /// A root-signed `/subnet` read that certifies no ranges for the root subnet: its node keys serve no canister,
    /// so the agent refuses them (and caches nothing) instead of verifying queries with them.
    @Test func rootSubnetKeysWithoutRangesServeNoCanister() throws {
        let key = TestBLSKey(seed: 31)
        let rootSubnet = try key.rootKey.subnetID
        let node = Principal.selfAuthenticating(publicKeyDER: Ed25519.PrivateKey().publicKey.derRepresentation)
        let transport = HandlerTransport { _, envelope, _ in
            #expect(envelope.content.sender == .anonymous && envelope.senderSignature == nil, "the /subnet read is anonymous")
            let tree = TestCertificates.node([
                ("subnet", TestCertificates.node([(rootSubnet.bytes, TestCertificates.node([
                    ("node", TestCertificates.node([(node.bytes, TestCertificates.node([("public_key", HashTree.leaf([7]))]))])),
                ]))])),
                ("time", .leaf(TestCertificates.leb128(IngressExpiry.currentTime()))),
            ])
            let certificate = try TestCertificates.encode(tree: tree, key: key)
            return (200, try CBOR.map([("certificate", .bytes(certificate))]).selfDescribed.encoded())
        }
        let directory = try temporaryDirectory("omni-cache-unranged")
        defer { try? FileManager.default.removeItem(atPath: directory) }
        var configuration = ICAgent.Configuration(network: try ICNetwork("http://127.0.0.1:9"), rootKey: try key.rootKey)
        configuration.nodeKeyCache = NodeKeyCache(directory: directory)
        let agent = try ICAgent(configuration: configuration, identity: ICIdentity(ed25519: Ed25519.PrivateKey()), transport: transport)
        let canister = try Principal(icText: "ryjl3-tyaaa-aaaaa-aaaba-cai")
        let error = expectICError(.verificationFailed, reason: .range, "unranged root subnet") {
            _ = try agent.subnetInfo(serving: canister)
        }
        #expect(error?.message.contains("subnet \(rootSubnet) does not serve canister \(canister)") == true, "\(String(describing: error))")
        #expect(configuration.nodeKeyCache?.load(subnet: rootSubnet, rootKey: try key.rootKey) == nil)
        #expect(transport.envelopes.count == 1)
    }

    @Test("a replica's self-reported root key is labelled by what it is compared with")
    func reportedRootKeyLabels() throws {
        let local = try ICNetwork("http://127.0.0.1:4943"), mainnet = try ICNetwork("ic")
        let other = try TestBLSKey(seed: 5).rootKey
        #expect(ReportedRootKey(der: ICRootKey.mainnetDER, network: mainnet) == .pinnedMainnet)
        #expect(ReportedRootKey(der: other.der, network: mainnet) == .mismatch)
        #expect(ReportedRootKey(der: other.der, network: local) == .unverified)
        #expect(ReportedRootKey(der: other.der, network: local, trusted: other) == .matchesTrusted)
        #expect(ReportedRootKey(der: other.der, network: local, trusted: .mainnet) == .mismatch)
        #expect(ReportedRootKey(der: ICRootKey.mainnetDER, network: local, trusted: .mainnet) == .pinnedMainnet)
        #expect(ReportedRootKey.unverified.description.hasPrefix("unverified: reported by the replica itself, not authenticated"))
        #expect(!ReportedRootKey.unverified.isTrusted && ReportedRootKey.matchesTrusted.isTrusted)
        let body = try CBOR.map([("root_key", .bytes(other.der)), ("replica_health_status", "healthy")]).selfDescribed.encoded()
        #expect(try ReplicaStatus(decoding: body).rootKeyTrust(network: local) == .unverified)
        #expect(try ReplicaStatus(decoding: try CBOR.map([("replica_health_status", "healthy")]).encoded()).rootKeyTrust(network: local) == nil)
    }

    @Test func signedRequestFileChecksTheStatusRequest() throws {
        let (identity, call, envelope, _) = try Self.signedCall()
        let other = try ICRequest(.readState(paths: [.time]), sender: identity.principal, ingressExpiry: 1_800_000_000_000_000_000)
        #expect(throws: ICError.self) {
            _ = try SignedRequestFile(envelope: envelope, effectiveCanisterID: call.canister ?? .anonymous,
                                      requestStatus: try identity.envelope(for: other, at: 1_700_000_000_000_000_000))
        }
        let stranger = ICIdentity(ed25519: Ed25519.PrivateKey())
        let foreign = try ICRequest(.readState(paths: [StatePath.requestStatus(call.requestID)]), sender: stranger.principal,
                                    ingressExpiry: 1_800_000_000_000_000_000)
        #expect(throws: ICError.self) {
            _ = try SignedRequestFile(envelope: envelope, effectiveCanisterID: call.canister ?? .anonymous,
                                      requestStatus: try stranger.envelope(for: foreign, at: 1_700_000_000_000_000_000))
        }
        #expect(throws: ICError.self) { _ = try SignedRequestFile(text: "{\"format\": \"omni-ic-signed-request\", \"version\": 2}") }
        #expect(throws: ICError.self) { _ = try SignedRequestFile(text: "[1, 2") }
    }

    // MARK: Node key cache

    static func subnetInfo(certifiedAt: UInt64 = 1) throws -> SubnetInfo {
        let node = Principal.selfAuthenticating(publicKeyDER: Ed25519.PrivateKey().publicKey.derRepresentation)
        return SubnetInfo(subnetID: try Principal(icText: "tdb26-jop6k-aogll-7ltgs-eruif-6kk7m-qpktf-gdiqx-mxtrf-vb5e6-eqe"),
                          publicKeyDER: ICRootKey.mainnetDER, nodeKeys: [node: Ed25519.PrivateKey().publicKey.derRepresentation],
                          canisterRanges: [CanisterRange(lowest: try Principal(icText: "rwlgt-iiaaa-aaaaa-aaaaa-cai"),
                                                         highest: try Principal(icText: "renrk-eyaaa-aaaaa-aaada-cai"))],
                          certifiedAt: certifiedAt)
    }

    @Test func nodeKeyCacheLifetimeAndCorruption() throws {
        let directory = try temporaryDirectory("omni-cache")
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let cache = NodeKeyCache(directory: directory)
        let info = try Self.subnetInfo()
        let inside = try Principal(icText: "ryjl3-tyaaa-aaaaa-aaaba-cai")
        let outside = try Principal(icText: "jkoii-tqaaa-aaaab-aaacq-cai")
        let now: UInt64 = 1_800_000_000_000_000_000
        try cache.store(info, rootKey: .mainnet, fetchedAt: now)
        #expect(cache.load(serving: inside, rootKey: .mainnet, now: now + 10) == info)
        #expect(cache.load(subnet: info.subnetID, rootKey: .mainnet, now: now + 10) == info)
        #expect(cache.load(serving: outside, rootKey: .mainnet, now: now + 10) == nil)
        #expect(cache.load(serving: inside, rootKey: .mainnet, now: now + NodeKeyCache.defaultLifetime) == nil, "expired")
        #expect(cache.load(serving: inside, rootKey: .mainnet, now: now - 3600 * 1_000_000_000) == nil, "written in the future")
        let directoryMode = (try FileManager.default.attributesOfItem(atPath: cache.rootDirectory(.mainnet))[.posixPermissions] as? Int)
        #expect(directoryMode == 0o700)

        // A damaged or misplaced file is a miss, not an error.
        let path = cache.path(subnet: info.subnetID, rootKey: .mainnet)
        try Data("{\"version\": 1, \"fetched_at\": \"x\"".utf8).write(to: URL(fileURLWithPath: path))
        #expect(cache.load(serving: inside, rootKey: .mainnet, now: now + 10) == nil)
        try cache.store(info, rootKey: .mainnet, fetchedAt: now)
        try FileManager.default.moveItem(atPath: path, toPath: cache.rootDirectory(.mainnet) + "/other.json")
        #expect(cache.load(serving: inside, rootKey: .mainnet, now: now + 10) == nil)
        try cache.clear()
        #expect(!FileManager.default.fileExists(atPath: directory))
    }

    // MARK: HTTP handling

    /// Answers requests from a script and records them.
    final class ScriptedTransport: ICTransport, @unchecked Sendable {
        private let lock = NSLock()
        private var answers: [(Int, [UInt8])]
        private(set) var requests: [HTTPRequest] = []

        init(_ answers: [(Int, [UInt8])]) { self.answers = answers }

        func perform(_ request: HTTPRequest) throws(TransportError) -> HTTPResponse {
            let answer: (Int, [UInt8])? = lock.withLock {
                requests.append(request)
                return answers.isEmpty ? nil : answers.removeFirst()
            }
            guard let (status, body) = answer else { throw TransportError(.connect, "no more scripted answers") }
            return HTTPResponse(status: status, version: .http1_1, headers: [:], body: body, effectiveURL: request.url,
                                redirectCount: 0, totalSeconds: 0)
        }

        var paths: [String] { lock.withLock { requests.map { URLComponents(string: $0.url)?.path ?? $0.url } } }
    }

    func agent(_ transport: ScriptedTransport, events: EventLog? = nil) throws -> ICAgent {
        var configuration = ICAgent.Configuration(network: try ICNetwork("http://127.0.0.1:9"))
        configuration.pollInterval = .milliseconds(1)
        configuration.retryPolicy = RetryPolicy(initialDelay: .zero, maxDelay: .zero)
        return try ICAgent(configuration: configuration, transport: transport, onEvent: { events?.append($0) })
    }

    @Test func callFallsBackOn404AndReportsUncertifiedRejects() throws {
        let reject = try CBOR.map([("reject_code", 3), ("reject_message", "no such canister"), ("error_code", "IC0301")])
            .selfDescribed.encoded()
        let transport = ScriptedTransport([(404, []), (404, Array("Not Found".utf8)), (200, reject)])
        let events = EventLog()
        let canister = try Principal(icText: "ryjl3-tyaaa-aaaaa-aaaba-cai")
        let result = try agent(transport, events: events).call(canister: canister, method: "m", arg: try Candid.encode([]))
        #expect(transport.paths == ["/api/v4/canister/ryjl3-tyaaa-aaaaa-aaaba-cai/call", "/api/v3/canister/ryjl3-tyaaa-aaaaa-aaaba-cai/call",
                                    "/api/v2/canister/ryjl3-tyaaa-aaaaa-aaaba-cai/call"])
        #expect(result.outcome == .rejected(Reject(code: .destinationInvalid, message: "no such canister", errorCode: "IC0301", certified: false)))
        #expect(events.descriptions == ["call v4 is not available (HTTP 404); using call v3", "call v3 is not available (HTTP 404); using call v2"])
        #expect(transport.requests.allSatisfy { $0.method == "POST" && $0.body?.starts(with: [0xd9, 0xd9, 0xf7]) == true })
    }

    @Test func refusalsCarryTheReplicasWords() throws {
        let canister = try Principal(icText: "ryjl3-tyaaa-aaaaa-aaaba-cai")
        for (status, text) in [(400, "Malformed request: bad\u{7}thing"), (403, "not yours"), (503, "overloaded"), (404, "Invalid path requested.")] {
            // A 404 first means "no such endpoint": the older endpoint is asked too, and refuses the same way. A 503 is
            // asked again twice (the default retries) before it stands.
            let transport = ScriptedTransport(Array(repeating: (status, Array(text.utf8)), count: status == 404 ? 2 : status == 503 ? 3 : 1))
            let error = thrownError(TransportError.self) { _ = try agent(transport).readState(canister: canister, paths: [.time]) }
            #expect(error?.kind == .rejected && error?.status == status)
            #expect(error?.message.contains(text.replacingOccurrences(of: "\u{7}", with: " ")) == true, "\(String(describing: error))")
        }
        let unexpected = thrownError(TransportError.self) {
            _ = try agent(ScriptedTransport([(202, [])])).query(canister: canister, method: "m", arg: try Candid.encode([]))
        }
        #expect(unexpected?.kind == .protocolViolation)
        let garbage = thrownError(ICError.self) {
            _ = try agent(ScriptedTransport([(200, [0xff, 0x00])])).query(canister: canister, method: "m", arg: try Candid.encode([]))
        }
        #expect(garbage?.kind == .malformed)
    }

    @Test func expiryErrorCorrectsTheClockOnceThenGivesUp() throws {
        let replicaTime = IngressExpiry.currentTime() + 120 * 1_000_000_000
        let stamp = ICTime.format(replicaTime).replacingOccurrences(of: "T", with: " ").replacingOccurrences(of: "Z", with: " UTC")
        let message = Array(("Invalid request expiry: Specified ingress_expiry not within expected range: Minimum allowed expiry: "
            + "\(stamp), Maximum allowed expiry: \(stamp), Provided expiry: 2020-01-01 00:00:00 UTC").utf8)
        let transport = ScriptedTransport([(400, message), (400, message)])
        let agent = try agent(transport)
        let canister = try Principal(icText: "ryjl3-tyaaa-aaaaa-aaaba-cai")
        let error = thrownError(TransportError.self) { _ = try agent.readState(canister: canister, paths: [.time]) }
        #expect(error?.status == 400 && transport.requests.count == 2)
        #expect(agent.clockSkew > 110 * 1_000_000_000 && agent.clockSkew < 130 * 1_000_000_000)
        // The second request was signed with the replica's time.
        let second = try ICEnvelope(decoding: transport.requests[1].body ?? [])
        #expect(second.content.ingressExpiry > replicaTime)
    }
}
