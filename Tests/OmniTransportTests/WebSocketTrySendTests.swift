import Foundation
import OmniTestSupport
import OmniTransport
import Testing

/// `WebSocketConnection.trySend`: a send that never waits (the TrUAPI bridge answers through it from under its
/// dispatcher's lock). What it accepts arrives in order with what `send` sends; it refuses — queuing nothing — when the
/// queue would pass `maxPendingOutboundBytes`, when the message needs fragments, and once the connection is closed.
@Suite("WebSocket trySend", .serialized, .timeLimit(.minutes(1)), .offPool)
struct WebSocketTrySendTests {
    /// A server whose one WebSocket reads until the peer closes (its reader also writes what trySend left queued),
    /// and the client connected to it.
    final class Pair: @unchecked Sendable {
        final class Accepted: @unchecked Sendable {
            let condition = NSCondition()
            var socket: WebSocketConnection?
        }

        let server: HTTPServer
        let client: WebSocketConnection
        private let accepted = Accepted()

        init(_ configure: (inout WebSocketConnection.Options) -> Void = { _ in }) throws {
            server = try HTTPServer()
            var options = WebSocketConnection.Options()
            configure(&options)
            let accepted = accepted
            server.webSocket("/ws", options: options) { socket, _ in
                accepted.condition.withLock {
                    accepted.socket = socket
                    accepted.condition.broadcast()
                }
                while true {
                    guard case .binary = try socket.receive() else { return }
                }
            }
            try server.start()
            client = try WebSocketClient.connect("ws://127.0.0.1:\(server.port)/ws")
        }

        var socket: WebSocketConnection {
            get throws {
                let deadline = Date(timeIntervalSinceNow: 10)
                accepted.condition.lock()
                defer { accepted.condition.unlock() }
                while accepted.socket == nil {
                    guard accepted.condition.wait(until: deadline) else { throw TestSupportError("the server never got the WebSocket") }
                }
                return accepted.socket!
            }
        }

        func binaries(_ count: Int) throws -> [[UInt8]] {
            try (0..<count).map { _ in
                guard case .binary(let bytes) = try client.receive(timeout: 20) else { throw TestSupportError("not a binary message") }
                return bytes
            }
        }

        func stop() {
            client.abort()
            server.stop()
        }
    }

    static func message(_ index: Int, size: Int = 8) -> [UInt8] {
        withUnsafeBytes(of: UInt32(index).bigEndian, Array.init) + [UInt8](repeating: UInt8(truncatingIfNeeded: index), count: max(0, size - 4))
    }

    @Test func acceptedMessagesArriveInOrderWithSentOnes() throws {
        let pair = try Pair()
        defer { pair.stop() }
        let socket = try pair.socket
        for index in 0..<200 {
            if index % 3 == 0 {
                try socket.send(binary: Self.message(index))
            } else {
                #expect(socket.trySend(binary: Self.message(index)))
            }
        }
        #expect(try pair.binaries(200) == (0..<200).map { Self.message($0) })
    }

    @Test func refusesWhenThePeerStopsReadingAndDeliversWhatItTook() throws {
        let pair = try Pair { $0.maxPendingOutboundBytes = 64 << 10 }
        defer { pair.stop() }
        let socket = try pair.socket
        var accepted = 0
        // The client reads nothing: the socket buffers fill, then the 64 KiB queue; bounded so a bug cannot loop.
        while accepted < 100_000, socket.trySend(binary: Self.message(accepted, size: 4096)) { accepted += 1 }
        #expect(accepted < 100_000, "trySend never refused")
        #expect(socket.pendingOutboundBytes <= 64 << 10)
        #expect(!socket.trySend(binary: Self.message(accepted, size: 4096)), "still full")
        #expect(try pair.binaries(accepted) == (0..<accepted).map { Self.message($0, size: 4096) }, "nothing lost or reordered")
        // The reading thread may hold the write lock for a moment while it drains, and trySend never waits for it:
        // room is there once the peer read, but the first try can still find the lock taken.
        let deadline = Date(timeIntervalSinceNow: 10)
        var roomAgain = socket.trySend(binary: Self.message(accepted))
        while !roomAgain, Date() < deadline {
            Thread.sleep(forTimeInterval: 0.001)
            roomAgain = socket.trySend(binary: Self.message(accepted))
        }
        #expect(roomAgain, "room again once the peer read")
        #expect(try pair.binaries(1) == [Self.message(accepted)])
    }

    @Test func refusesFragmentsAndClosedConnections() throws {
        let pair = try Pair { $0.fragmentSize = 16 }
        defer { pair.stop() }
        let socket = try pair.socket
        #expect(!socket.trySend(binary: Self.message(1, size: 17)), "two fragments: use send")
        #expect(socket.trySend(binary: Self.message(2, size: 16)))
        #expect(try pair.binaries(1) == [Self.message(2, size: 16)])
        try socket.sendClose()
        #expect(!socket.trySend(binary: Self.message(3)))
    }
}
