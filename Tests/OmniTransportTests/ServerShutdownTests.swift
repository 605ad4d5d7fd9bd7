import Foundation
import OmniTestSupport
import OmniTransport
import Testing

/// `stop()` must return whatever state the server is in; each check runs it on a thread of its own so that a
/// regression fails the test instead of hanging the run.
@Suite(.serialized, .offPool) struct ServerShutdownTests {
    private func stopReturns(_ server: HTTPServer) -> Bool {
        let stopped = DispatchSemaphore(value: 0)
        Thread {
            server.stop()
            stopped.signal()
        }.start()
        return stopped.wait(timeout: .now() + 20) == .success
    }

    @Test func stopReturnsAfterAFailedStart() throws {
        var configuration = HTTPServer.Configuration()
        configuration.addresses = ["192.0.2.1"]  // not loopback, so refused without allowNonLoopback
        let server = try HTTPServer(configuration: configuration)
        let error = #expect(throws: TransportError.self) { try server.start() }
        #expect(error?.kind == .invalidArgument)
        #expect(stopReturns(server))
        #expect(server.isStopped)
    }

    @Test func stopDoesNotWaitForASenderStuckOnAPeerThatDoesNotRead() throws {
        var configuration = HTTPServer.Configuration()
        configuration.shutdownGracePeriod = 0.2
        // Far longer than the test waits: only the abort after the grace period can end the stuck send.
        configuration.webSocket.sendTimeout = 600
        configuration.webSocket.maxPendingOutboundBytes = 64 << 10
        let server = try HTTPServer(configuration: configuration)
        let sending = DispatchSemaphore(value: 0)
        server.webSocket("/flood") { socket, _ in
            sending.signal()
            // More than the loopback socket buffers hold: the send blocks, holding the write lock.
            try socket.send(binary: [UInt8](repeating: 0x5A, count: 32 << 20))
        }
        try server.start()
        let client = try WebSocketClient.connect("ws://127.0.0.1:\(server.port)/flood")
        #expect(sending.wait(timeout: .now() + 10) == .success)
        Thread.sleep(forTimeInterval: 0.5)  // lets the handler fill the buffers; the client never reads
        #expect(stopReturns(server), "stop() waited for a sender stuck on a peer that does not read")
        #expect(server.connectionCount == 0)
        withExtendedLifetime(client) {}
    }
}
