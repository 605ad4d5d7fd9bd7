import Foundation
import OmniCandid
import OmniCodec
import OmniCrypto
import OmniTestSupport
import OmniTransport
import Testing
@testable import OmniIC

private extension Principal {
    static func exactly(bytes: [UInt8]) -> Principal {
        guard let principal = try? Principal(bytes: bytes) else { preconditionFailure("at most 29 bytes") }
        return principal
    }
}

/// The agent against a replica played by a handler that sees every request: what an expiry refusal may and may not
/// make the agent do. The refusal's text is unauthenticated (a boundary node can write anything), so a hint beyond
/// the time tolerance is an error about the clock, a refused call is never signed again while its first signature
/// may still run, and certified time is what moves the clock for calls.
@Suite(.serialized, .offPool) struct ClockSkewTests {
    static let second: UInt64 = 1_000_000_000
    static let canister = Principal.exactly(bytes: [0, 0, 0, 0, 0, 0x20, 0, 5, 1, 1])
    static let key = TestBLSKey(seed: 21)

    static func agent(_ transport: HandlerTransport, events: EventLog,
                      configure: (inout ICAgent.Configuration) -> Void = { _ in }) throws -> ICAgent {
        var configuration = ICAgent.Configuration(network: try ICNetwork("http://127.0.0.1:9"), rootKey: try key.rootKey)
        configuration.pollInterval = .milliseconds(1)
        configure(&configuration)
        return try ICAgent(configuration: configuration, identity: ICIdentity(ed25519: Ed25519.PrivateKey()), transport: transport,
                           onEvent: { events.append($0) })
    }

    /// The replica's "ingress_expiry not within expected range" text, claiming `replicaTime`.
    static func expiryRefusal(claiming replicaTime: UInt64) -> (Int, [UInt8]) {
        func stamp(_ time: UInt64) -> String {
            ICTime.format(time).replacingOccurrences(of: "T", with: " ").replacingOccurrences(of: "Z", with: " UTC")
        }
        return (400, Array(("Invalid request expiry: Specified ingress_expiry not within expected range: Minimum allowed expiry: "
            + "\(stamp(replicaTime)), Maximum allowed expiry: \(stamp(replicaTime + 330 * second)), Provided expiry: "
            + "\(stamp(replicaTime - 3600 * second))").utf8))
    }

    /// A root-signed certificate at `time` holding `status` for `requestID` (nil: the request is proven unknown).
    static func certificate(time: UInt64, requestID: RequestID, replied reply: [UInt8]?) throws -> [UInt8] {
        let status: HashTree = reply.map { reply in
            TestCertificates.node([(requestID.bytes, TestCertificates.node([("reply", .leaf(reply)), ("status", .leaf(Array("replied".utf8)))]))])
        } ?? .empty
        return try TestCertificates.encode(tree: TestCertificates.node([("request_status", status),
                                                                        ("time", .leaf(TestCertificates.leb128(time)))]), key: key)
    }

    static func readStateAnswer(_ certificate: [UInt8]) throws -> (Int, [UInt8]) {
        (200, try CBOR.map([("certificate", .bytes(certificate))]).selfDescribed.encoded())
    }

    static func callAnswer(_ certificate: [UInt8]) throws -> (Int, [UInt8]) {
        (200, try CBOR.map([("status", "replied"), ("certificate", .bytes(certificate))]).selfDescribed.encoded())
    }

    static let reply: [UInt8] = Array("DIDL\u{0}\u{0}".utf8)

    /// The request id a read_state of `/request_status/<id>` asks about.
    static func polledID(_ content: ICRequest) throws -> RequestID {
        guard case .readState(let paths) = content.body, let path = paths.first, path.labels.count == 2,
              path.labels[0] == Array("request_status".utf8) else {
            throw TestSupportError("not a request status read: \(content.body)")
        }
        return try RequestID(bytes: path.labels[1])
    }

    @Test("a genuine refusal of a call: certified time proves the first signature expired, so one new call is signed")
    func refusedCallIsSignedAgainOnlyAfterCertifiedTimeProvesItExpired() throws {
        // The network is 4 minutes ahead: our 3-minute expiry is already past for it.
        let networkTime = IngressExpiry.currentTime() + 240 * Self.second
        let transport = HandlerTransport { _, envelope, _ in
            let content = envelope.content
            if content.requestType == "read_state" {
                return try Self.readStateAnswer(try Self.certificate(time: networkTime, requestID: try Self.polledID(content), replied: nil))
            }
            guard content.ingressExpiry > networkTime else { return Self.expiryRefusal(claiming: networkTime) }
            return try Self.callAnswer(try Self.certificate(time: networkTime, requestID: content.requestID, replied: Self.reply))
        }
        let events = EventLog()
        let result = try Self.agent(transport, events: events).call(canister: Self.canister, method: "m", arg: try Candid.encode([]))
        #expect(result.outcome == CallOutcome.replied(Self.reply))
        let calls = transport.calls
        #expect(calls.count == 2 && calls[0].requestID != calls[1].requestID && result.requestID == calls[1].requestID)
        #expect(transport.envelopes.map(\.content.requestType) == ["call", "read_state", "call"])
        let sources = events.events.compactMap { event -> ClockSource? in
            if case .clockSkewCorrected(_, let source) = event { return source }
            return nil
        }
        #expect(sources == [.certifiedTime], "\(events.descriptions)")
    }

    @Test("a false refusal of a call the replica accepted: the first request id is followed, nothing is signed again")
    func falselyRefusedCallIsFollowedNotSignedAgain() throws {
        let transport = HandlerTransport { _, envelope, _ in
            let content = envelope.content
            if content.requestType == "read_state" {
                let id = try Self.polledID(content)
                return try Self.readStateAnswer(try Self.certificate(time: IngressExpiry.currentTime(), requestID: id, replied: Self.reply))
            }
            return Self.expiryRefusal(claiming: IngressExpiry.currentTime() + 200 * Self.second)
        }
        let events = EventLog()
        let result = try Self.agent(transport, events: events).call(canister: Self.canister, method: "m", arg: try Candid.encode([]))
        #expect(result.outcome == CallOutcome.replied(Self.reply))
        #expect(transport.calls.count == 1 && result.requestID == transport.calls[0].requestID)
        #expect(events.descriptions.contains { $0.contains("following it instead of signing it again") }, "\(events.descriptions)")
    }

    @Test("a false refusal of a call whose signature is still valid by certified time: an error, never a second signature")
    func refusedCallThatMayStillRunIsNotSignedAgain() throws {
        let transport = HandlerTransport { _, envelope, _ in
            let content = envelope.content
            if content.requestType == "read_state" {
                let id = try Self.polledID(content)
                return try Self.readStateAnswer(try Self.certificate(time: IngressExpiry.currentTime(), requestID: id, replied: nil))
            }
            return Self.expiryRefusal(claiming: IngressExpiry.currentTime() + 120 * Self.second)
        }
        let events = EventLog()
        let error = expectICError(.verificationFailed, reason: .time, "still valid") {
            _ = try Self.agent(transport, events: events).call(canister: Self.canister, method: "m", arg: try Candid.encode([]))
        }
        #expect(error?.message.contains("may still run, so it is not signed again") == true, "\(String(describing: error))")
        #expect(error?.message.contains("omni ic request-status 0x") == true, "\(String(describing: error))")
        #expect(transport.calls.count == 1)
    }

    @Test("a hint days ahead is beyond the tolerance: the clock is named, nothing is signed for that time", arguments: [
        (Int64(3 * 86_400), "local clock is 259200 s behind the network; fix the clock or pass --time-tolerance"),
        (Int64(-600), "local clock is 600 s ahead of the network; fix the clock or pass --time-tolerance"),
    ])
    func hintBeyondTheToleranceIsRefused(skewSeconds: Int64, message: String) throws {
        for operation in ["call", "read_state"] {
            let transport = HandlerTransport { _, _, _ in
                Self.expiryRefusal(claiming: ClockSkew.apply(skewSeconds * Int64(Self.second), to: IngressExpiry.currentTime()))
            }
            let agent = try Self.agent(transport, events: EventLog())
            let error = expectICError(.configuration, reason: .time, "\(operation) \(skewSeconds) s") {
                if operation == "call" {
                    _ = try agent.call(canister: Self.canister, method: "m", arg: try Candid.encode([]))
                } else {
                    _ = try agent.readState(canister: Self.canister, paths: [.time])
                }
            }
            // The seconds come from a clock read a moment later: allow one second either way.
            let text = error?.message ?? ""
            let close = [message] + [-1, 1].map { delta in
                message.replacingOccurrences(of: "\(abs(skewSeconds)) s", with: "\(abs(skewSeconds) + Int64(delta)) s")
            }
            #expect(close.contains { text.hasPrefix($0) }, "\(operation): \(text)")
            #expect(transport.envelopes.count == 1, "\(operation): signed once, never for the hinted time")
            #expect(agent.clockSkew == 0)
        }
    }

    @Test("--time-tolerance widens what a hint is believed about (reads are signed again with it, once)")
    func readsFollowAHintWithinTheTolerance() throws {
        let claimed = IngressExpiry.currentTime() + 600 * Self.second
        let transport = HandlerTransport { _, _, _ in Self.expiryRefusal(claiming: claimed) }
        let events = EventLog()
        let agent = try Self.agent(transport, events: events) { $0.freshnessTolerance = 900 * Self.second }
        let error = thrownError(TransportError.self) { _ = try agent.readState(canister: Self.canister, paths: [.time]) }
        #expect(error?.status == 400 && transport.envelopes.count == 2, "one more signature, then the refusal stands")
        #expect(transport.envelopes[1].content.ingressExpiry > claimed)
        #expect(agent.clockSkew > 590 * Int64(Self.second) && agent.clockSkew < 610 * Int64(Self.second))
        #expect(events.descriptions.contains { $0.contains("(unverified, within the time tolerance)") }, "\(events.descriptions)")
    }

    @Test("an endpoint fallback posts the same signed bytes: a 404 never makes a second request id")
    func fallbackReusesTheSignature() throws {
        let reject = try CBOR.map([("reject_code", 3), ("reject_message", "no"), ("error_code", "IC0301")]).selfDescribed.encoded()
        let transport = HandlerTransport { _, _, index in
            // Time passes between the attempts: a re-signed request would carry another expiry, hence another id.
            Thread.sleep(forTimeInterval: 0.002)
            return index < 2 ? (404, []) : (200, reject)
        }
        // Without rounding to the minute, every signing has its own expiry.
        let agent = try Self.agent(transport, events: EventLog()) { $0.ingressLifetime = 60 * Self.second }
        _ = try agent.call(canister: Self.canister, method: "m", arg: try Candid.encode([]))
        let bodies = transport.bodies
        #expect(bodies.count == 3 && Set(bodies).count == 1)
    }
}
