import Foundation
import OmniTestSupport
import OmniCodec
import OmniConnect
import OmniCrypto
import OmniTransport
import Testing

/// A relay on a loopback HTTPServer with the library's app and wallet: the whole flow in one process.
final class RelayHarness: @unchecked Sendable {
    let server: HTTPServer
    let relay: ConnectRelay
    let url: String
    private let log = EventLog()

    init(generation: ConnectGeneration = .genB, networkID: ConnectNetworkID? = nil, maxConnections: Int = 256,
         configure: (inout ConnectRelayConfiguration) -> Void = { _ in }) throws {
        var configuration = ConnectRelayConfiguration()
        configuration.generation = generation
        configuration.networkID = networkID
        configure(&configuration)
        var serverConfiguration = HTTPServer.Configuration()
        serverConfiguration.shutdownGracePeriod = 0.1
        serverConfiguration.maxConnections = maxConnections
        server = try HTTPServer(configuration: serverConfiguration)
        try server.start()
        url = "http://127.0.0.1:\(server.port)"
        let log = log
        relay = ConnectRelay(configuration: configuration) { log.append($0) }
        relay.install(on: server, publicURL: url)
    }

    var events: [ConnectRelayEvent] { log.events }

    func terminations() -> [String] {
        events.compactMap { if case .terminated(_, let reason) = $0 { reason } else { nil } }
    }

    /// Waits (briefly) for a relay event.
    func waitFor(_ predicate: (ConnectRelayEvent) -> Bool, timeout: Double = 5) -> Bool {
        log.wait(timeout: timeout) { $0.contains(where: predicate) }
    }

    /// Waits until a condition of the relay's state holds (for states no event reports, such as a frame buffered).
    func waitUntil(timeout: Double = 20, _ condition: () -> Bool) -> Bool {
        let deadline = Date(timeIntervalSinceNow: timeout)
        while !condition() {
            if Date() > deadline { return false }
            Thread.sleep(forTimeInterval: 0.01)
        }
        return true
    }

    /// Waits until `count` events match.
    func waitFor(count: Int, timeout: Double, _ predicate: (ConnectRelayEvent) -> Bool) -> Bool {
        log.wait(timeout: timeout) { $0.filter(predicate).count >= count }
    }

    deinit {
        relay.stop()
        server.stop()
    }
}

@Suite(.serialized, .offPool) struct RelayFlowTests {
    static let network = try! ConnectNetworkID(bytes: [UInt8](repeating: 0x41, count: 32))

    @Test(arguments: [ConnectGeneration.genB, .genA])
    func approveSignClose(generation: ConnectGeneration) throws {
        let harness = try RelayHarness(generation: generation, networkID: generation == .genB ? Self.network : nil)
        let constraints: ConnectConstraints = generation == .genB ? .network(Self.network) : .chain("omni-local")
        let client = try ToriiConnectClient(node: harness.url, generation: generation, http: HTTPClient())
        let account = Ed25519.PrivateKey()
        let accountID = try IrohaAccountID(ed25519PublicKey: account.publicKey.rawRepresentation)
        let request = ConnectSignRequest.raw(domainTag: "omni|test", bytes: Array("hello".utf8))
        var options = ConnectAppOptions(constraints: constraints, request: request)
        options.timeout = 20
        options.expectedAccount = accountID
        let walletResult = WalletThread()
        let outcome = try ConnectApp(client: client, options: options).run(events: { event in
            guard case .session(let registration) = event else { return }
            walletResult.start {
                var walletOptions = ConnectWalletOptions(uri: try ConnectURI(parsing: registration.walletURI, generation: generation),
                                                         accountKey: account, accountID: accountID, decision: .approve)
                walletOptions.autoSign = true
                walletOptions.allowedDomains = ["omni|test"]
                walletOptions.timeout = 20
                return try ConnectWallet(options: walletOptions).run(events: { _ in })
            }
        })
        guard case .signed(let signature, let signer) = outcome else {
            Issue.record("expected a signature, got \(outcome)")
            return
        }
        #expect(signer == accountID)
        #expect(try account.publicKey.isValidSignature(signature.bytes, for: Array("hello".utf8)))
        let walletOutcome = try walletResult.wait()
        guard case .closed(let close) = walletOutcome else {
            Issue.record("wallet: \(walletOutcome)")
            return
        }
        #expect(close.code == 1000)
        #expect(harness.terminations().allSatisfy { $0 == "connect_session_purged" })
    }

    /// The app pings while the wallet is away; a late wallet still answers every ping, so the relay's heartbeat
    /// never fires and the session completes. The wallet joins only once the relay holds several of the app's pings
    /// for it (no guess at how long that takes).
    @Test func keepAlivePingsWhileWaiting() throws {
        let harness = try RelayHarness(networkID: Self.network) { $0.heartbeatInterval = 2; $0.pingMissTolerance = 2 }
        let client = try ToriiConnectClient(node: harness.url, generation: .genB, http: HTTPClient())
        let account = Ed25519.PrivateKey()
        let accountID = try IrohaAccountID(ed25519PublicKey: account.publicKey.rawRepresentation)
        var options = ConnectAppOptions(constraints: .network(Self.network), request: .transaction(txBytes: [7]))
        options.timeout = 30
        options.pingInterval = 0.05
        let walletResult = WalletThread()
        let outcome = try ConnectApp(client: client, options: options).run(events: { event in
            guard case .session(let registration) = event else { return }
            walletResult.start {
                // Open and at least three pings are waiting for the wallet.
                let buffered = harness.waitUntil {
                    let status = try? client.status(sid: registration.sid, managementToken: registration.tokenManagement)
                    return (status?["buffered_frames"]?.int64Value ?? 0) >= 4
                }
                guard buffered else { throw ConnectError(.timeout, "the app's pings never reached the relay's buffer") }
                var walletOptions = ConnectWalletOptions(uri: try ConnectURI(parsing: registration.walletURI, generation: .genB),
                                                         accountKey: account, accountID: accountID, decision: .approve)
                walletOptions.autoSign = true
                walletOptions.pingInterval = 0.05
                walletOptions.timeout = 30
                return try ConnectWallet(options: walletOptions).run(events: { _ in })
            }
        })
        guard case .signed(let signature, _) = outcome else {
            Issue.record("expected a signature, got \(outcome)")
            return
        }
        #expect(try account.publicKey.isValidSignature(signature.bytes, for: ConnectSignRequest.irohaHash([7])))
        _ = try walletResult.wait()
        #expect(!harness.events.contains { if case .heartbeatTimeout = $0 { true } else { false } })
    }

    /// A node that answers for another identity is refused.
    @Test func substitutedRegistrationIsRefused() throws {
        let server = try HTTPServer()
        try server.start()
        defer { server.stop() }
        let url = "http://127.0.0.1:\(server.port)"
        server.route("POST", "/v1/connect/session") { request in
            let body = try JSONValue.parse(request.body)
            var answer = JSONObject()
            answer["sid"] = body["sid"]
            answer["network_id"] = .string(try ConnectNetworkID(bytes: [UInt8](repeating: 0x42, count: 32)).typedLiteral)
            answer["app_pk"] = body["app_pk"]
            answer["nonce"] = body["nonce"]
            for key in ["wallet_uri", "token_app", "token_wallet", "token_management", "token_relay"] { answer[key] = "x" }
            return .json(JSONValue.object(answer).serialized())
        }
        let client = try ToriiConnectClient(node: url, generation: .genB, http: HTTPClient())
        let error = try #require(throws: ConnectError.self) {
            try client.createSession(constraints: .network(Self.network), appPublicKey: SecureRandom.bytes(32), nonce: ConnectCrypto.makeNonce())
        }
        #expect(error.kind == .remote)
        #expect(error.message.contains("refusing the substitution"))
    }

    /// An app pinned to one account refuses an approval by another: it closes the session (1008) without sending
    /// its request, and says why.
    @Test func appRefusesAnUnexpectedAccount() throws {
        let harness = try RelayHarness(networkID: Self.network)
        let client = try ToriiConnectClient(node: harness.url, generation: .genB, http: HTTPClient())
        let account = Ed25519.PrivateKey()
        let accountID = try IrohaAccountID(ed25519PublicKey: account.publicKey.rawRepresentation)
        let expected = try IrohaAccountID(ed25519PublicKey: Ed25519.PrivateKey().publicKey.rawRepresentation)
        var options = ConnectAppOptions(constraints: .network(Self.network), request: .transaction(txBytes: [1]))
        options.timeout = 20
        options.expectedAccount = expected
        let walletResult = WalletThread()
        var requested = false
        let error = try #require(throws: ConnectError.self) {
            _ = try ConnectApp(client: client, options: options).run(events: { event in
                if case .requestSent = event { requested = true }
                guard case .session(let registration) = event else { return }
                walletResult.start {
                    var walletOptions = ConnectWalletOptions(uri: try ConnectURI(parsing: registration.walletURI, generation: .genB),
                                                             accountKey: account, accountID: accountID, decision: .approve)
                    walletOptions.autoSign = true
                    walletOptions.timeout = 20
                    return try ConnectWallet(options: walletOptions).run(events: { _ in })
                }
            })
        }
        #expect(error.kind == .verificationFailed)
        #expect(error.message.contains("approved as \(accountID.literal), not the expected account \(expected.literal)"))
        #expect(!requested)
        guard case .closed(let close) = try walletResult.wait() else {
            Issue.record("the wallet was not closed by the app")
            return
        }
        #expect(close.code == ConnectApp.policyCloseCode)
        #expect(close.reason == "unexpected account")
    }

    /// The wallet derives the session keys before it signs: an app key of small order fails the key agreement, and
    /// no Approve (no signature by the account key) ever reaches the app.
    @Test func walletDerivesKeysBeforeApproving() throws {
        let harness = try RelayHarness(networkID: Self.network)
        let client = try ToriiConnectClient(node: harness.url, generation: .genB, http: HTTPClient())
        let smallOrder = [UInt8](repeating: 0, count: 32)
        let registration = try client.createSession(constraints: .network(Self.network), appPublicKey: smallOrder, nonce: ConnectCrypto.makeNonce())
        let codec = ConnectCodec(generation: .genB)
        let app = try client.join(sid: registration.sid, role: .app, token: registration.tokenApp)
        try app.send(binary: codec.encode(ConnectFrame(sid: registration.sid, direction: .appToWallet, sequence: 1, kind: .control(.open(
            ConnectOpen(appPublicKey: smallOrder, constraints: .network(Self.network)))))))
        let account = Ed25519.PrivateKey()
        var walletOptions = ConnectWalletOptions(uri: try ConnectURI(parsing: registration.walletURI, generation: .genB), accountKey: account,
                                                 accountID: try IrohaAccountID(ed25519PublicKey: account.publicKey.rawRepresentation),
                                                 decision: .approve)
        walletOptions.timeout = 20
        let error = try #require(throws: ConnectError.self) { try ConnectWallet(options: walletOptions).run(events: { _ in }) }
        #expect(error.kind == .protocolViolation)
        #expect(error.message.contains("nothing was signed or approved"))
        // The wallet's socket is closed: the relay has seen it leave, so everything it sent has been relayed.
        #expect(harness.waitFor { if case .detached(_, .wallet) = $0 { true } else { false } })
        #expect(try client.status(sid: registration.sid, managementToken: registration.tokenManagement)["last_seq_wallet_to_app"] == .int(0))
        #expect(try client.status(sid: registration.sid, managementToken: registration.tokenManagement)["approved"] == false)
        _ = try? app.close()
    }

    @Test func rejectEndsTheSession() throws {
        let harness = try RelayHarness(networkID: Self.network)
        let client = try ToriiConnectClient(node: harness.url, generation: .genB, http: HTTPClient())
        let account = Ed25519.PrivateKey()
        let accountID = try IrohaAccountID(ed25519PublicKey: account.publicKey.rawRepresentation)
        var options = ConnectAppOptions(constraints: .network(Self.network), request: .transaction(txBytes: [1, 2, 3]))
        options.timeout = 20
        let walletResult = WalletThread()
        let outcome = try ConnectApp(client: client, options: options).run(events: { event in
            guard case .session(let registration) = event else { return }
            walletResult.start {
                let options = ConnectWalletOptions(uri: try ConnectURI(parsing: registration.walletURI, generation: .genB), accountKey: account,
                                                   accountID: accountID, decision: .reject(codeID: "USER_DENIED"))
                return try ConnectWallet(options: options).run(events: { _ in })
            }
        })
        #expect(outcome == .rejected(ConnectReject(code: 401, codeID: "USER_DENIED", reason: "wallet rejected the session")))
        _ = try walletResult.wait()
        #expect(harness.waitFor { if case .terminated(_, "connect_rejected") = $0 { true } else { false } })
    }
}

/// Runs the wallet on its own thread and hands back its result.
final class WalletThread: @unchecked Sendable {
    private let done = DispatchSemaphore(value: 0)
    private var result: Result<ConnectWalletOutcome, Error>?

    func start(_ body: @escaping @Sendable () throws -> ConnectWalletOutcome) {
        Thread {
            self.result = Result { try body() }
            self.done.signal()
        }.start()
    }

    func wait(timeout: Double = 30) throws -> ConnectWalletOutcome {
        guard done.wait(timeout: .now() + timeout) == .success, let result else {
            throw ConnectError(.timeout, "the wallet thread did not finish")
        }
        return try result.get()
    }
}

/// The relay's events as they happen; waiters wake on each new one.
final class EventLog: @unchecked Sendable {
    private let condition = NSCondition()
    private var items: [ConnectRelayEvent] = []

    func append(_ event: ConnectRelayEvent) {
        condition.withLock {
            items.append(event)
            condition.broadcast()
        }
    }

    var events: [ConnectRelayEvent] { condition.withLock { items } }

    /// Waits until the events satisfy `done`; false if `timeout` passed first.
    func wait(timeout: Double, until done: ([ConnectRelayEvent]) -> Bool) -> Bool {
        let deadline = Date(timeIntervalSinceNow: timeout)
        condition.lock()
        defer { condition.unlock() }
        while !done(items) {
            if !condition.wait(until: deadline) { return done(items) }
        }
        return true
    }
}
