import Foundation
import OmniTestSupport
import OmniTransport
import Testing

/// `WebSocketConnection.Options.receiveSpin`: after reading bytes, `receive` polls without sleeping for a while
/// before it blocks. The spins here are a minute long, so that a receive that spun past its deadline, or past an
/// abort, would run into the suite's time limit instead of passing.
@Suite("WebSocket receive spin", .serialized, .timeLimit(.minutes(1)), .offPool)
struct WebSocketReceiveSpinTests {
    /// Server side of one connection: a handler thread that runs `body` on the socket; its outcome is kept.
    final class Server: @unchecked Sendable {
        final class State: @unchecked Sendable {
            let condition = NSCondition()
            var socket: WebSocketConnection?
            var outcome: String?
        }

        let server: HTTPServer
        let client: WebSocketConnection
        private let state = State()

        init(spin: Double, _ body: @escaping @Sendable (WebSocketConnection) throws -> String) throws {
            server = try HTTPServer()
            var options = WebSocketConnection.Options()
            options.receiveSpin = spin
            let state = state
            server.webSocket("/ws", options: options) { socket, _ in
                state.condition.withLock {
                    state.socket = socket
                    state.condition.broadcast()
                }
                let result: String
                do { result = try body(socket) } catch { result = "threw \(error)" }
                state.condition.withLock {
                    state.outcome = result
                    state.condition.broadcast()
                }
            }
            try server.start()
            client = try WebSocketClient.connect("ws://127.0.0.1:\(server.port)/ws")
        }

        var serverSocket: WebSocketConnection {
            get throws {
                let deadline = Date(timeIntervalSinceNow: 20)
                state.condition.lock()
                defer { state.condition.unlock() }
                while state.socket == nil {
                    guard state.condition.wait(until: deadline) else { throw TestSupportError("the server never got the WebSocket") }
                }
                return state.socket!
            }
        }

        func result() throws -> String {
            let deadline = Date(timeIntervalSinceNow: 50)
            state.condition.lock()
            defer { state.condition.unlock() }
            while state.outcome == nil {
                guard state.condition.wait(until: deadline) else { throw TestSupportError("the server handler did not finish") }
            }
            return state.outcome!
        }

        func stop() {
            client.abort()
            server.stop()
        }
    }

    /// Ping-pong (the next frame comes while the server spins) and bursts (several frames in one read): every
    /// message comes back, in order.
    @Test func echoesEveryMessageInOrder() async throws {
        try await offPool {
            let pair = try Server(spin: 60) { socket in
                while true {
                    guard case .binary(let bytes) = try socket.receive() else { return "closed" }
                    try socket.send(binary: bytes)
                }
            }
            defer { pair.stop() }
            for index in 0..<300 {
                let burst = index % 10 == 0 ? 5 : 1
                for part in 0..<burst { try pair.client.send(binary: [UInt8(index & 0xff), UInt8(part)]) }
                for part in 0..<burst {
                    #expect(try pair.client.receive(timeout: 20) == .binary([UInt8(index & 0xff), UInt8(part)]))
                }
            }
        }
    }

    /// A receive with a timeout returns at its deadline although the spin is longer.
    @Test func spinEndsAtTheReceiveDeadline() async throws {
        try await offPool {
            let pair = try Server(spin: 60) { socket in
                guard case .binary = try socket.receive() else { return "no first message" }
                do {
                    let message = try socket.receive(timeout: 0.05)
                    return "unexpected \(message)"
                } catch {
                    return (error as? TransportError)?.kind == .timeout ? "timed out" : "threw \(error)"
                }
            }
            defer { pair.stop() }
            try pair.client.send(binary: [1])
            #expect(try pair.result() == "timed out")
        }
    }

    /// An abort from another thread ends a receive that is spinning (the wake-up pipe is polled too).
    @Test func abortEndsASpinningReceive() async throws {
        try await offPool {
            let pair = try Server(spin: 60) { socket in
                guard case .binary = try socket.receive() else { return "no first message" }
                try socket.send(binary: [2])
                do {
                    let message = try socket.receive()
                    return "unexpected \(message)"
                } catch {
                    return "ended"
                }
            }
            defer { pair.stop() }
            try pair.client.send(binary: [1])
            // The server has read the first message and is about to spin (or spinning) when the answer arrives.
            #expect(try pair.client.receive(timeout: 20) == .binary([2]))
            try pair.serverSocket.abort()
            #expect(try pair.result() == "ended")
        }
    }
}
