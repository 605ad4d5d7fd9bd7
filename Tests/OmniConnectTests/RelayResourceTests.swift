import Foundation
import OmniTestSupport
import Glibc
import OmniCodec
@testable import OmniConnect
import OmniCrypto
import OmniTransport
import Testing

/// The relay's own resources stay bounded against peers that misbehave on purpose: sockets that never answer a
/// close or never speak, unauthenticated registrations in bulk, and buffers filled for peers that never come.
@Suite(.serialized, .offPool) struct RelayResourceTests {
    static let network = try! ConnectNetworkID(bytes: [UInt8](repeating: 0x41, count: 32))

    /// A WebSocket client that completes the upgrade and then never reads or writes again: it ignores the relay's
    /// close frames, as a hostile or wedged peer would.
    final class SilentPeer {
        let descriptor: Int32

        init(port: UInt16, sid: [UInt8], role: ConnectRole, token: String) throws {
            descriptor = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
            guard descriptor >= 0 else { throw ConnectError(.configuration, "socket() failed: errno \(errno)") }
            var address = sockaddr_in()
            address.sin_family = sa_family_t(AF_INET)
            address.sin_port = port.bigEndian
            address.sin_addr.s_addr = inet_addr("127.0.0.1")
            let connected = withUnsafePointer(to: &address) {
                $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { connect(descriptor, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) }
            }
            guard connected == 0 else {
                close(descriptor)
                throw ConnectError(.configuration, "connect() failed: errno \(errno)")
            }
            let request = "GET /v1/connect/ws?sid=\(ConnectText.base64URL(sid))&role=\(role) HTTP/1.1\r\nHost: 127.0.0.1:\(port)\r\n"
                + "Upgrade: websocket\r\nConnection: Upgrade\r\nSec-WebSocket-Key: dGhlIHNhbXBsZSBub25jZQ==\r\n"
                + "Sec-WebSocket-Version: 13\r\nAuthorization: Bearer \(token)\r\n\r\n"
            let bytes = Array(request.utf8)
            guard bytes.withUnsafeBytes({ send(descriptor, $0.baseAddress, $0.count, 0) }) == bytes.count else {
                close(descriptor)
                throw ConnectError(.configuration, "send() failed")
            }
            // Read exactly the response head, byte by byte, so nothing after it (the relay's frames) is consumed.
            var head: [UInt8] = []
            var byte: UInt8 = 0
            while !head.suffix(4).elementsEqual([13, 10, 13, 10]) {
                guard recv(descriptor, &byte, 1, 0) == 1, head.count < 4096 else {
                    close(descriptor)
                    throw ConnectError(.remote, "no upgrade response: \(String(decoding: head, as: UTF8.self))")
                }
                head.append(byte)
            }
            guard String(decoding: head, as: UTF8.self).hasPrefix("HTTP/1.1 101") else {
                close(descriptor)
                throw ConnectError(.remote, "upgrade refused: \(String(decoding: head, as: UTF8.self))")
            }
        }

        /// The first WebSocket frame the relay sent since the upgrade (opcode, payload), read only now.
        func firstFrame(timeout: Double) -> (opcode: UInt8, payload: [UInt8])? {
            var timeout = timeval(tv_sec: Int(timeout), tv_usec: 0)
            setsockopt(descriptor, SOL_SOCKET, SO_RCVTIMEO, &timeout, socklen_t(MemoryLayout<timeval>.size))
            func read(_ count: Int) -> [UInt8]? {
                var buffer = [UInt8](repeating: 0, count: count)
                var offset = 0
                while offset < count {
                    let got = buffer.withUnsafeMutableBytes { recv(descriptor, $0.baseAddress! + offset, count - offset, 0) }
                    guard got > 0 else { return nil }
                    offset += got
                }
                return buffer
            }
            guard let header = read(2), header[1] & 0x80 == 0 else { return nil }
            var length = Int(header[1] & 0x7F)
            if length == 126 {
                guard let extended = read(2) else { return nil }
                length = Int(extended[0]) << 8 | Int(extended[1])
            } else if length == 127 {
                return nil
            }
            guard let payload = read(length) else { return nil }
            return (header[0] & 0x0F, payload)
        }

        deinit { close(descriptor) }
    }

    static func register(_ client: ToriiConnectClient) throws -> ConnectRegistration {
        try client.createSession(constraints: .network(network), appPublicKey: X25519.PrivateKey().publicKey.rawRepresentation,
                                 nonce: ConnectCrypto.makeNonce())
    }

    /// 300 peers that never answer the relay's close (more than the server's default 256 connection threads): every
    /// socket is reclaimed by the close timeout, long before the idle timeout could, and the relay keeps serving.
    @Test func socketsThatIgnoreTheCloseAreReclaimed() throws {
        let harness = try RelayHarness(networkID: Self.network, maxConnections: 400) {
            $0.registrationsPerMinute = 1000
            $0.closeTimeout = 0.5
            $0.socketIdleTimeout = 600
        }
        let client = try ToriiConnectClient(node: harness.url, generation: .genB, http: HTTPClient())
        var peers: [SilentPeer] = []
        var registrations: [ConnectRegistration] = []
        for _ in 0..<300 {
            let registration = try Self.register(client)
            peers.append(try SilentPeer(port: harness.server.port, sid: registration.sid, role: .app, token: registration.tokenApp))
            registrations.append(registration)
        }
        let isAttached = { (event: ConnectRelayEvent) in if case .attached = event { true } else { false } }
        #expect(harness.waitFor(count: 300, timeout: 60, isAttached))
        #expect(harness.relay.openSocketCount == 300)
        // Deleting a session sends its socket Close 4002 and a WebSocket close, which these peers never answer.
        for registration in registrations {
            #expect(try client.deleteSession(sid: registration.sid, managementToken: registration.tokenManagement))
        }
        let isDetached = { (event: ConnectRelayEvent) in if case .detached = event { true } else { false } }
        #expect(harness.waitFor(count: 300, timeout: 60, isDetached), "sockets still held: \(harness.relay.openSocketCount)")
        #expect(harness.relay.openSocketCount == 0)
        #expect(harness.server.webSockets().isEmpty)
        // The server lets each connection linger at most a second for the peer's FIN, then frees its thread (what
        // remains are the test client's keep-alive HTTP connections).
        #expect(harness.waitUntil(timeout: 30) { harness.server.connectionCount < 10 }, "connections: \(harness.server.connectionCount)")

        // Still serving: a new session joins.
        let fresh = try Self.register(client)
        let socket = try client.join(sid: fresh.sid, role: .app, token: fresh.tokenApp)
        #expect(harness.waitFor { if case .attached(ConnectText.base64URL(fresh.sid), .app) = $0 { true } else { false } })
        _ = try? socket.close()
        withExtendedLifetime(peers) {}
    }

    /// A socket that never sends a byte is closed with 1001 after the idle timeout, without any close from the
    /// session's side first.
    @Test func silentSocketsAreClosedAfterTheIdleTimeout() throws {
        let harness = try RelayHarness(networkID: Self.network) { $0.socketIdleTimeout = 0.3 }
        let client = try ToriiConnectClient(node: harness.url, generation: .genB, http: HTTPClient())
        let registration = try Self.register(client)
        let peer = try SilentPeer(port: harness.server.port, sid: registration.sid, role: .app, token: registration.tokenApp)
        #expect(harness.waitFor(timeout: 30) { if case .detached = $0 { true } else { false } })
        #expect(harness.relay.openSocketCount == 0)
        let frame = try #require(peer.firstFrame(timeout: 5))
        #expect(frame.opcode == 0x8, "a close frame")
        #expect(frame.payload.prefix(2).elementsEqual([0x03, 0xE9]), "code 1001")
    }

    /// The registration POST needs no token: one address gets `registrationsPerMinute` of them, then 429.
    @Test func registrationsAreRateLimitedPerAddress() throws {
        let harness = try RelayHarness(networkID: Self.network) { $0.registrationsPerMinute = 3 }
        let client = try ToriiConnectClient(node: harness.url, generation: .genB, http: HTTPClient())
        for _ in 0..<3 { _ = try Self.register(client) }
        let refused = try #require(throws: ConnectError.self) { try Self.register(client) }
        #expect(refused.code == 429)
        #expect(refused.message.contains("per-ip registration rate"))
        #expect(harness.relay.sessionCount == 3)
    }

    /// The bucket refills evenly, is kept per host (whatever the port), and full buckets are forgotten.
    @Test func rateLimiterRefillsPerHost() {
        var limiter = RegistrationRateLimiter(perMinute: 2)
        let start = Date(timeIntervalSince1970: 1_800_000_000)
        let host = RegistrationRateLimiter.host(of: "127.0.0.1:50000")
        #expect(host == RegistrationRateLimiter.host(of: "127.0.0.1:50001"))
        #expect(RegistrationRateLimiter.host(of: "[::1]:8080") == "::1")
        var answers: [Bool] = []
        for _ in 0..<3 { answers.append(limiter.allow(host, now: start)) }
        #expect(answers == [true, true, false])
        let other = limiter.allow("10.0.0.2", now: start)
        #expect(other, "another address has its own budget")
        let halfRefilled = limiter.allow(host, now: start.addingTimeInterval(29))
        #expect(!halfRefilled, "half a token after 29 s")
        let refilled = limiter.allow(host, now: start.addingTimeInterval(31))
        #expect(refilled)
        limiter.forgetIdle(now: start.addingTimeInterval(3600))
        #expect(limiter.rememberedAddresses == 0)
    }

    /// `maxSessions` caps the registry.
    @Test func sessionCapacityIsCapped() throws {
        let harness = try RelayHarness(networkID: Self.network) { $0.maxSessions = 2 }
        let client = try ToriiConnectClient(node: harness.url, generation: .genB, http: HTTPClient())
        for _ in 0..<2 { _ = try Self.register(client) }
        let refused = try #require(throws: ConnectError.self) { try Self.register(client) }
        #expect(refused.message.contains("capacity reached"))
    }

    /// Frames buffered for absent peers count against one relay-wide budget: the session whose frame would pass it
    /// ends (`connect_relay_buffer_full`), the others keep theirs, and ended sessions give their bytes back.
    @Test func bufferedBytesHaveARelayWideBudget() throws {
        let codec = ConnectCodec(generation: .genB)
        let harness = try RelayHarness(networkID: Self.network) {
            $0.sessionBufferMaxBytes = 1 << 20
            $0.maxBufferedBytes = 1000
        }
        let client = try ToriiConnectClient(node: harness.url, generation: .genB, http: HTTPClient())
        func ping(_ sid: [UInt8], _ sequence: UInt64) -> [UInt8] {
            codec.encode(ConnectFrame(sid: sid, direction: .appToWallet, sequence: sequence, kind: .control(.ping(nonce: sequence))))
        }
        let frameSize = ping([UInt8](repeating: 0, count: 32), 1).count
        let first = try Self.register(client), second = try Self.register(client)
        let firstApp = try client.join(sid: first.sid, role: .app, token: first.tokenApp)
        let secondApp = try client.join(sid: second.sid, role: .app, token: second.tokenApp)
        let perSession = 1000 / frameSize / 2 + 1   // each session alone stays under the budget; together they pass it
        for sequence in 1...UInt64(perSession) { try firstApp.send(binary: ping(first.sid, sequence)) }
        // The two sockets are served by different threads: let the first session's frames land before the second's.
        #expect(harness.waitUntil(timeout: 30) { harness.relay.bufferedByteCount == perSession * frameSize })
        for sequence in 1...UInt64(perSession) { try secondApp.send(binary: ping(second.sid, sequence)) }
        #expect(harness.waitFor { if case .terminated(ConnectText.base64URL(second.sid), "connect_relay_buffer_full") = $0 { true } else { false } })
        #expect(harness.relay.bufferedByteCount == perSession * frameSize, "the first session keeps its frames")
        #expect(try client.status(sid: first.sid, managementToken: first.tokenManagement)["buffered_frames"] == .int(perSession))
        #expect(try client.deleteSession(sid: first.sid, managementToken: first.tokenManagement))
        #expect(harness.relay.bufferedByteCount == 0)
        _ = (firstApp, secondApp)
    }
}
