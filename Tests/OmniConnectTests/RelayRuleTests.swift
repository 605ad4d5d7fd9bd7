import Foundation
import OmniTestSupport
import OmniCodec
import OmniConnect
import OmniCrypto
import OmniTransport
import Testing

/// The relay's bus rules, driven frame by frame over real loopback WebSockets.
@Suite(.serialized, .offPool) struct RelayRuleTests {
    static let network = try! ConnectNetworkID(bytes: [UInt8](repeating: 0x41, count: 32))
    let codec = ConnectCodec(generation: .genB)

    /// A registered session with the app's key, and helpers to join and talk.
    struct Fixture {
        let harness: RelayHarness
        let client: ToriiConnectClient
        let appKey = X25519.PrivateKey()
        let registration: ConnectRegistration
        let codec = ConnectCodec(generation: .genB)

        init(configure: (inout ConnectRelayConfiguration) -> Void = { _ in }) throws {
            harness = try RelayHarness(networkID: RelayRuleTests.network, configure: configure)
            client = try ToriiConnectClient(node: harness.url, generation: .genB, http: HTTPClient())
            registration = try client.createSession(constraints: .network(RelayRuleTests.network), appPublicKey: appKey.publicKey.rawRepresentation,
                                                    nonce: ConnectCrypto.makeNonce())
        }

        var sid: [UInt8] { registration.sid }

        /// Joins and waits until the relay has attached the socket (its handler runs after the 101).
        func join(_ role: ConnectRole) throws -> WebSocketConnection {
            let socket = try client.join(sid: sid, role: role, token: role == .app ? registration.tokenApp : registration.tokenWallet,
                                         transport: role == .app ? .header : .subprotocol)
            _ = harness.waitFor { if case .attached(_, role) = $0 { true } else { false } }
            return socket
        }

        func frame(_ direction: ConnectDirection, _ sequence: UInt64, _ control: ConnectControl) -> [UInt8] {
            codec.encode(ConnectFrame(sid: sid, direction: direction, sequence: sequence, kind: .control(control)))
        }

        var open: ConnectControl { .open(ConnectOpen(appPublicKey: appKey.publicKey.rawRepresentation, constraints: .network(RelayRuleTests.network))) }

        /// A valid Approve for this session from a fresh wallet key and account.
        func approve() throws -> ConnectControl {
            let walletKey = X25519.PrivateKey(), account = Ed25519.PrivateKey()
            let accountID = try IrohaAccountID(ed25519PublicKey: account.publicKey.rawRepresentation)
            let preimage = try ConnectGeneration.genB.approvalPreimage(ConnectApprovalInput(
                sid: sid, appPublicKey: appKey.publicKey.rawRepresentation, walletPublicKey: walletKey.publicKey.rawRepresentation,
                accountID: accountID.literal, constraints: .network(RelayRuleTests.network), permissions: nil, proof: nil,
                relayToken: registration.tokenRelay))
            return .approve(ConnectApprove(walletPublicKey: walletKey.publicKey.rawRepresentation, accountID: accountID.literal,
                                           signature: ConnectWalletSignature(algorithm: .ed25519, bytes: account.signature(for: preimage))))
        }

        /// Frames received until the socket closes or `timeout` passes, and the close.
        func collect(_ socket: WebSocketConnection, timeout: Double = 2, count: Int = .max) -> ([ConnectFrame], WebSocketCloseInfo?) {
            var frames: [ConnectFrame] = []
            let deadline = Date(timeIntervalSinceNow: timeout)
            while frames.count < count, Date() < deadline {
                guard let message = try? socket.receive(timeout: max(0.01, deadline.timeIntervalSinceNow)) else { break }
                switch message {
                case .binary(let bytes): if let frame = try? codec.decodeFrame(bytes) { frames.append(frame) }
                case .close(let info): return (frames, info)
                default: continue
                }
            }
            return (frames, socket.peerCloseInfo)
        }

        static func closeReason(_ frames: [ConnectFrame]) -> String? {
            for frame in frames { if case .close(let close)? = frame.control, close.code == 4002 { return close.reason } }
            return nil
        }
    }

    @Test func buffersForAnAbsentPeerAndDropsDuplicates() throws {
        let fixture = try Fixture()
        let app = try fixture.join(.app)
        try app.send(binary: fixture.frame(.appToWallet, 1, fixture.open))
        try app.send(binary: fixture.frame(.appToWallet, 2, .ping(nonce: 2)))
        try app.send(binary: fixture.frame(.appToWallet, 2, .ping(nonce: 2)))
        try app.send(binary: fixture.frame(.appToWallet, 3, .ping(nonce: 3)))
        #expect(fixture.harness.waitFor { if case .dropped(_, .app, let reason) = $0 { reason.contains("duplicate") } else { false } })
        let wallet = try fixture.join(.wallet)
        let (frames, _) = fixture.collect(wallet, count: 3)
        #expect(frames.map(\.sequence) == [1, 2, 3])
        #expect(fixture.harness.terminations().isEmpty)
    }

    /// Frames buffered for an absent wallet reach it before the frames the app sends while it attaches: the
    /// wallet sees one contiguous sequence.
    @Test func bufferedFramesArriveBeforeNewerOnes() throws {
        let fixture = try Fixture { $0.sessionBufferMaxBytes = 1 << 20 }
        let app = try fixture.join(.app)
        try app.send(binary: fixture.frame(.appToWallet, 1, fixture.open))
        for sequence in UInt64(2)...1500 { try app.send(binary: fixture.frame(.appToWallet, sequence, .ping(nonce: sequence))) }
        let sender = Thread {
            for sequence in UInt64(1501)...3000 { _ = try? app.send(binary: fixture.frame(.appToWallet, sequence, .ping(nonce: sequence))) }
        }
        sender.start()
        let wallet = try fixture.join(.wallet)
        let (frames, _) = fixture.collect(wallet, timeout: 20, count: 3000)
        let sequences = frames.map(\.sequence)
        let firstOutOfOrder = sequences.indices.first { sequences[$0] != UInt64($0 + 1) }
        #expect(sequences.count == 3000 && firstOutOfOrder == nil,
                "\(sequences.count) frames; the first out of place is at index \(firstOutOfOrder.map(String.init) ?? "none")")
        #expect(fixture.harness.terminations().isEmpty)
    }

    /// Only the last `dedupeCapacity` sequence numbers count as duplicates; an older one is a replay that ends
    /// the session.
    @Test func duplicatesBeyondTheDedupeWindowTerminate() throws {
        let fixture = try Fixture { $0.dedupeCapacity = 2 }
        let app = try fixture.join(.app)
        try app.send(binary: fixture.frame(.appToWallet, 1, fixture.open))
        for sequence in UInt64(2)...3 { try app.send(binary: fixture.frame(.appToWallet, sequence, .ping(nonce: sequence))) }
        try app.send(binary: fixture.frame(.appToWallet, 2, .ping(nonce: 2)))
        #expect(fixture.harness.waitFor { if case .dropped(_, .app, let reason) = $0 { reason == "duplicate sequence 2" } else { false } })
        #expect(fixture.harness.terminations().isEmpty)
        try app.send(binary: fixture.frame(.appToWallet, 1, fixture.open))
        let (frames, _) = fixture.collect(app)
        #expect(Fixture.closeReason(frames) == "connect_sequence_violation")
    }

    @Test func plaintextCloseAfterApprovalIsDropped() throws {
        let fixture = try Fixture()
        let app = try fixture.join(.app)
        let wallet = try fixture.join(.wallet)
        try app.send(binary: fixture.frame(.appToWallet, 1, fixture.open))
        // A wallet approves what it has seen: wait for the Open to reach it (the two sockets are served apart).
        _ = fixture.collect(wallet, count: 1)
        try wallet.send(binary: fixture.frame(.walletToApp, 1, try fixture.approve()))
        try wallet.send(binary: fixture.frame(.walletToApp, 2, .close(ConnectClose(who: .wallet, code: 1000, reason: "bye"))))
        try wallet.send(binary: fixture.frame(.walletToApp, 3, .ping(nonce: 9)))
        let (frames, _) = fixture.collect(app, count: 2)
        #expect(frames.compactMap(\.control?.name) == ["approve", "ping"])
        #expect(fixture.harness.events.contains { if case .dropped(_, .wallet, let reason) = $0 { reason.contains("after approval") } else { false } })
    }

    @Test(arguments: ["replayed", "network", "identity", "wallet_open", "approval_replayed", "ciphertext_dir", "client_4002"])
    func terminations(kind: String) throws {
        let fixture = try Fixture()
        let app = try fixture.join(.app)
        let wallet = try fixture.join(.wallet)
        let expected: String
        switch kind {
        case "replayed":
            try app.send(binary: fixture.frame(.appToWallet, 1, fixture.open))
            try app.send(binary: fixture.frame(.appToWallet, 2, fixture.open))
            expected = "connect_open_replayed"
        case "network":
            let other = try ConnectNetworkID(bytes: [UInt8](repeating: 0x42, count: 32))
            try app.send(binary: fixture.frame(.appToWallet, 1, .open(ConnectOpen(appPublicKey: fixture.appKey.publicKey.rawRepresentation,
                                                                                   constraints: .network(other)))))
            expected = "connect_network_id_mismatch"
        case "identity":
            try app.send(binary: fixture.frame(.appToWallet, 1, .open(ConnectOpen(appPublicKey: [UInt8](repeating: 9, count: 32),
                                                                                   constraints: .network(RelayRuleTests.network)))))
            expected = "connect_open_identity_mismatch"
        case "wallet_open":
            try wallet.send(binary: fixture.frame(.walletToApp, 1, fixture.open))
            expected = "connect_role_direction_mismatch"
        case "client_4002":
            // A peer posing as the relay: Close 4002 is the relay's alone, so it is not delivered and ends the session.
            try wallet.send(binary: fixture.frame(.walletToApp, 1, .close(ConnectClose(who: .wallet, code: 4002, reason: "connect_session_purged"))))
            expected = "connect_role_direction_mismatch"
        case "approval_replayed":
            try app.send(binary: fixture.frame(.appToWallet, 1, fixture.open))
            let approve = try fixture.approve()
            try wallet.send(binary: fixture.frame(.walletToApp, 1, approve))
            try wallet.send(binary: fixture.frame(.walletToApp, 2, approve))
            expected = "connect_wallet_approval_replayed"
        default:
            try app.send(binary: fixture.frame(.appToWallet, 1, fixture.open))
            try wallet.send(binary: fixture.frame(.walletToApp, 1, try fixture.approve()))
            let frame = ConnectFrame(sid: fixture.sid, direction: .appToWallet, sequence: 2,
                                     kind: .ciphertext(ConnectCiphertext(direction: .walletToApp, aead: [UInt8](repeating: 1, count: 32))))
            try app.send(binary: fixture.codec.encode(frame))
            expected = "connect_role_direction_mismatch"
        }
        let (appFrames, _) = fixture.collect(app)
        let (walletFrames, _) = fixture.collect(wallet)
        #expect(Fixture.closeReason(appFrames) == expected, "\(kind)")
        #expect(Fixture.closeReason(walletFrames) == expected, "\(kind)")
        #expect(fixture.harness.terminations() == [expected])
        // The relay's Close frames use its own counter, addressed to each side.
        let close = appFrames.last
        #expect(close?.direction == .walletToApp)
        #expect(close?.sequence == 1)
    }

    @Test func unansweredPingsCloseTheSocketWith4003() throws {
        let fixture = try Fixture { $0.heartbeatInterval = 0.2; $0.pingMissTolerance = 2 }
        let app = try fixture.join(.app)
        let wallet = try fixture.join(.wallet)
        try app.send(binary: fixture.frame(.appToWallet, 1, .ping(nonce: 1)))
        try app.send(binary: fixture.frame(.appToWallet, 2, .ping(nonce: 2)))
        // The relay holds both pings as pending for the wallet until their pongs, which never come.
        let (frames, close) = fixture.collect(wallet, timeout: 5)
        #expect(frames.count == 2)
        #expect(close?.code.rawValue == 4003)
        #expect(close?.reason == "connect_heartbeat_timeout")
        _ = app
    }

    @Test func answeredPingsKeepTheSocket() throws {
        let fixture = try Fixture { $0.heartbeatInterval = 0.2; $0.pingMissTolerance = 2 }
        let app = try fixture.join(.app)
        let wallet = try fixture.join(.wallet)
        for sequence in UInt64(1)...3 {
            try app.send(binary: fixture.frame(.appToWallet, sequence, .ping(nonce: sequence)))
            _ = fixture.collect(wallet, timeout: 1, count: 1)
            try wallet.send(binary: fixture.frame(.walletToApp, sequence, .pong(nonce: sequence)))
        }
        // Answered pings are no longer pending, so the heartbeat (which counts pending pings older than the
        // interval) has nothing to count, however long one waits.
        let cleared = fixture.harness.waitUntil {
            let status = try? fixture.client.status(sid: fixture.sid, managementToken: fixture.registration.tokenManagement)
            return status?["last_seq_wallet_to_app"] == .int(3) && status?["pending_pings_wallet"] == .int(0)
        }
        #expect(cleared)
        #expect(wallet.isOpen)
        #expect(!fixture.harness.events.contains { if case .heartbeatTimeout = $0 { true } else { false } })
    }

    @Test func bufferOverflowTerminates() throws {
        let fixture = try Fixture { $0.sessionBufferMaxBytes = 300 }
        let app = try fixture.join(.app)
        for sequence in UInt64(1)...5 { try app.send(binary: fixture.frame(.appToWallet, sequence, .ping(nonce: sequence))) }
        let (frames, _) = fixture.collect(app)
        #expect(Fixture.closeReason(frames) == "connect_buffer_overflow")
    }

    /// A wallet that stops reading cannot make the relay queue without bound: once its socket's queue is full for
    /// the delivery timeout, the session ends with `connect_delivery_timeout`.
    @Test func aPeerThatStopsReadingEndsTheSession() throws {
        let fixture = try Fixture { $0.sessionBufferMaxBytes = 4096 }
        let app = try fixture.join(.app)
        let wallet = try fixture.join(.wallet)
        try app.send(binary: fixture.frame(.appToWallet, 1, fixture.open))
        // A wallet approves what it has seen: wait for the Open to reach it (the two sockets are served apart).
        _ = fixture.collect(wallet, count: 1)
        try wallet.send(binary: fixture.frame(.walletToApp, 1, try fixture.approve()))
        // Ciphertext is only allowed once the relay has accepted the Approve: wait until the app has it.
        _ = fixture.collect(app, count: 1)
        let filler = [UInt8](repeating: 7, count: 60_000)
        // Far more than the loopback socket buffers and the relay's queue can hold; the relay never decrypts.
        for sequence in UInt64(2)...1000 where fixture.harness.terminations().isEmpty {
            let frame = ConnectFrame(sid: fixture.sid, direction: .appToWallet, sequence: sequence,
                                     kind: .ciphertext(ConnectCiphertext(direction: .appToWallet, aead: filler)))
            guard (try? app.send(binary: fixture.codec.encode(frame))) != nil else { break }
        }
        #expect(fixture.harness.waitFor { if case .terminated(_, "connect_delivery_timeout") = $0 { true } else { false } })
        let (frames, _) = fixture.collect(app)
        #expect(Fixture.closeReason(frames) == "connect_delivery_timeout")
        _ = wallet
    }

    @Test func joinRefusals() throws {
        let fixture = try Fixture()
        let base = try ConnectURI.webSocketURL(node: fixture.harness.url, sid: fixture.sid, role: .app)
        func status(_ url: String, headers: [(String, String)], protocols: [String] = []) -> Int? {
            var configuration = WebSocketClient.Configuration()
            for (name, value) in headers { configuration.headers.add(name, value) }
            configuration.subprotocols = protocols
            do {
                _ = try WebSocketClient.connect(url, configuration: configuration)
                return 101
            } catch {
                return error.status
            }
        }
        let token = fixture.registration.tokenApp
        #expect(status(base + "&token=" + token, headers: [("Authorization", "Bearer " + token)]) == 400)
        #expect(status(base, headers: []) == 400)
        #expect(status(base, headers: [("Authorization", "Bearer " + token)], protocols: [ConnectURI.tokenSubprotocol("other")]) == 400)
        #expect(status(base.replacingOccurrences(of: "role=app", with: "role=admin"), headers: [("Authorization", "Bearer " + token)]) == 400)
        let unknown = try ConnectURI.webSocketURL(node: fixture.harness.url, sid: SecureRandom.bytes(32), role: .app)
        #expect(status(unknown, headers: [("Authorization", "Bearer " + token)]) == 401)
        // The wallet token does not open the app's side.
        #expect(status(base, headers: [("Authorization", "Bearer " + fixture.registration.tokenWallet)]) == 401)
        #expect(status(base, headers: [("Authorization", "Bearer " + token)], protocols: [ConnectURI.tokenSubprotocol(token)]) == 101)
        #expect(status(base, headers: [("Authorization", "Bearer " + token)]) == 401, "the token is spent")
    }

    @Test func statusAndDeleteNeedTheManagementToken() throws {
        let fixture = try Fixture()
        let app = try fixture.join(.app)
        let refused = try #require(throws: ConnectError.self) { try fixture.client.status(sid: fixture.sid, managementToken: "wrong") }
        #expect(refused.kind == .unauthorized)
        let status = try fixture.client.status(sid: fixture.sid, managementToken: fixture.registration.tokenManagement)
        #expect(status["app_attached"] == true)
        #expect(status["wallet_attached"] == false)
        #expect(status["approved"] == false)
        #expect(throws: ConnectError.self) { try fixture.client.deleteSession(sid: fixture.sid, managementToken: "wrong") }
        #expect(try fixture.client.deleteSession(sid: fixture.sid, managementToken: fixture.registration.tokenManagement))
        let (frames, _) = fixture.collect(app)
        #expect(Fixture.closeReason(frames) == "connect_session_purged")
        #expect(try fixture.client.deleteSession(sid: fixture.sid, managementToken: fixture.registration.tokenManagement) == false)
        let gone = try #require(throws: ConnectError.self) { try fixture.client.status(sid: fixture.sid, managementToken: fixture.registration.tokenManagement) }
        #expect(gone.code == 404)
    }

    @Test func registrationRefusals() throws {
        let harness = try RelayHarness(networkID: Self.network)
        let http = HTTPClient()
        func post(_ body: JSONValue) throws -> HTTPResponse {
            try http.perform(HTTPRequest(method: "POST", url: harness.url + "/v1/connect/session", headers: ["Content-Type": "application/json"],
                                         body: Array(body.serialized().utf8)))
        }
        let key = SecureRandom.bytes(32), nonce = ConnectCrypto.makeNonce()
        let sid = ConnectCrypto.sid(generation: .genB, constraints: .network(Self.network), appPublicKey: key, nonce: nonce)
        func body(sid: [UInt8], network: ConnectNetworkID = Self.network) -> JSONValue {
            .object(["sid": .string(ConnectText.base64URL(sid)), "network_id": .string(network.typedLiteral),
                     "app_pk": .string(ConnectText.base64URL(key)), "nonce": .string(ConnectText.base64URL(nonce))])
        }
        #expect(try post(body(sid: SecureRandom.bytes(32))).status == 400, "sid not derived from the identity")
        #expect(try post(body(sid: sid, network: try ConnectNetworkID(bytes: [UInt8](repeating: 7, count: 32)))).status == 400)
        #expect(try post(.object(["sid": "x"])).status == 400)
        let created = try post(body(sid: sid))
        #expect(created.status == 200)
        let json = try JSONValue.parse(created.body)
        for key in ["wallet_uri", "app_uri", "token_app", "token_wallet", "token_management", "token_relay"] {
            #expect(json[key]?.stringValue?.isEmpty == false, "\(key)")
        }
        #expect(json["network_id"]?.stringValue == Self.network.typedLiteral)
        let duplicate = try post(body(sid: sid))
        #expect(duplicate.status == 400)
        #expect(String(decoding: duplicate.body, as: UTF8.self) == "connect session already exists for provided sid")
    }
}
