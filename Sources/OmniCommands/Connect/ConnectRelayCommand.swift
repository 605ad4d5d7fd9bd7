import OmniCLI
import OmniCodec
import OmniConnect
import OmniTransport

/// A listener address, `HOST:PORT`, parsed by the one HOST:PORT parser (OmniTransport.HostPort).
struct ListenAddress: ArgumentValue {
    let address: HostPort

    init(_ address: HostPort) { self.address = address }

    init?(argument: String) {
        guard let parsed = try? HostPort(parsing: argument) else { return nil }
        address = parsed
    }

    static var expectation: String { "HOST:PORT, e.g. 127.0.0.1:8080 or [::1]:8080" }

    static func problem(with text: String) -> String? {
        do throws(TransportError) { _ = try HostPort(parsing: text) } catch { return error.message }
        return nil
    }

    var argumentText: String { address.description }
}

enum ConnectRelayCommand {
    static let listen = DefaultedOption<ListenAddress>("listen", valueName: "HOST:PORT", help: "Loopback address to serve on (port 0 picks one).",
                                                       default: ListenAddress(HostPort(host: "127.0.0.1", port: 8080)))
    static let sessionTTL = DefaultedOption<Duration>("session-ttl", valueName: "DURATION", help: "Idle time before a session is closed with 4001.",
                                                      default: .seconds(300), group: "Limits")
    static let heartbeat = DefaultedOption<Duration>("heartbeat-interval", valueName: "DURATION",
                                                     help: "How long a relayed ping may wait for its pong.", default: .seconds(30), group: "Limits")
    static let pingMisses = DefaultedOption<Int>("ping-miss-tolerance", valueName: "N", help: "Late pings that close a socket with 4003.",
                                                 default: 3, group: "Limits")
    static let frameMax = DefaultedOption<ByteCount>("frame-max-bytes", valueName: "SIZE", help: "Largest frame accepted.",
                                                     default: ByteCount(bytes: ConnectCodec.defaultMaxFrameBytes), group: "Limits")
    static let bufferMax = DefaultedOption<ByteCount>("buffer-max-bytes", valueName: "SIZE", help: "Bytes buffered per session for an absent peer.",
                                                      default: ByteCount(bytes: 262_144), group: "Limits")
    static let totalBufferMax = DefaultedOption<ByteCount>(
        "max-buffered-bytes", valueName: "SIZE", help: "Bytes buffered for absent peers across all sessions; past it the session ends.",
        default: ByteCount(bytes: 64 << 20), group: "Limits")
    static let maxSessions = DefaultedOption<Int>("max-sessions", valueName: "N", help: "Sessions registered at once.", default: 10_000,
                                                  group: "Limits")
    static let registrationRate = DefaultedOption<Int>(
        "registrations-per-minute", valueName: "N", help: "Session registrations one peer address may make per minute (429 beyond).",
        default: 120, group: "Limits")
    static let idleTimeout = DefaultedOption<Duration>(
        "idle-timeout", valueName: "DURATION", help: "Close a WebSocket that sends nothing for this long (1001).", default: .seconds(300),
        group: "Limits")
    static let closeTimeout = DefaultedOption<Duration>(
        "close-timeout", valueName: "DURATION", help: "How long a peer has to answer the relay's close before its socket is dropped.",
        default: .seconds(5), group: "Limits")

    static let command = Command(
        "relay", abstract: "Run a local Torii-compatible Connect relay (never decrypts).",
        discussion: """
        Serves POST /v1/connect/session, GET /v1/connect/ws, DELETE /v1/connect/session/{sid} and \
        GET /v1/connect/status with Torii's rules: only token hashes are kept and tokens are one-time; frames must \
        travel in their sender's direction with contiguous sequence numbers (duplicates are dropped); Open and \
        Approve are validated (gen-b: network, app key, approval signature); plaintext Close/Reject after approval \
        are dropped; a violation terminates the session with Close 4002 to both sides; idle sessions close with \
        4001 and unanswered pings with 4003. The relay's own resources are bounded: registered sessions, bytes \
        buffered across sessions, registrations per peer address and minute (the POST needs no token, so it is \
        rate-limited), a socket that stays silent (idle timeout) and a peer that never answers the relay's close \
        (close timeout). Events are a stream: with --output jsonl the first stdout line is \
        {"event":"ready","url":...}, then one line per relay event; --output json prints one array. SIGINT and \
        SIGTERM stop it cleanly (exit 130 and 143).
        """,
        options: [listen, ConnectCommands.networkID, ConnectCommands.chainID, ConnectCommands.generationOption, sessionTTL, heartbeat,
                  pingMisses, frameMax, bufferMax, totalBufferMax, maxSessions, registrationRate, idleTimeout, closeTimeout],
        examples: [Example("omni connect relay --listen 127.0.0.1:0 --network-id 4141414141414141414141414141414141414141414141414141414141414141 --output jsonl",
                           "Prints {\"event\":\"ready\",\"url\":\"http://127.0.0.1:PORT\"} and serves until Ctrl-C.")],
        streaming: .always
    ) { invocation in
        let generation = try invocation.value(ConnectCommands.generationOption)
        var configuration = ConnectRelayConfiguration()
        configuration.generation = generation
        configuration.networkID = try invocation.value(ConnectCommands.networkID)
        if let chain = try invocation.value(ConnectCommands.chainID) { configuration.chainID = chain }
        configuration.sessionTTL = try invocation.value(sessionTTL).secondsValue
        configuration.heartbeatInterval = try invocation.value(heartbeat).secondsValue
        configuration.pingMissTolerance = try invocation.value(pingMisses)
        guard configuration.pingMissTolerance >= 1 else {
            throw CLIError.usage("--ping-miss-tolerance must be at least 1", commandPath: invocation.commandPath)
        }
        configuration.frameMaxBytes = try invocation.value(frameMax).bytes
        guard configuration.frameMaxBytes >= 256 else {
            throw CLIError.usage("--frame-max-bytes must be at least 256 (an Open with metadata needs more)", commandPath: invocation.commandPath)
        }
        configuration.sessionBufferMaxBytes = try invocation.value(bufferMax).bytes
        configuration.maxBufferedBytes = try invocation.value(totalBufferMax).bytes
        configuration.maxSessions = try invocation.value(maxSessions)
        configuration.registrationsPerMinute = try invocation.value(registrationRate)
        guard configuration.maxSessions >= 1, configuration.registrationsPerMinute >= 1 else {
            throw CLIError.usage("--max-sessions and --registrations-per-minute must be at least 1", commandPath: invocation.commandPath)
        }
        configuration.socketIdleTimeout = try invocation.value(idleTimeout).secondsValue
        configuration.closeTimeout = try invocation.value(closeTimeout).secondsValue

        let address = try invocation.value(listen).address
        var serverConfiguration = HTTPServer.Configuration()
        serverConfiguration.addresses = [address.host]
        serverConfiguration.port = address.port
        serverConfiguration.shutdownGracePeriod = 1
        let server = try HTTPServer(configuration: serverConfiguration)
        let relay = ConnectRelay(configuration: configuration) { event in invocation.emitItem(line(event)) }
        try server.start()
        let url = "http://" + HostPort(host: address.host, port: server.port).description
        relay.install(on: server, publicURL: url)
        invocation.interrupts.onInterrupt { server.requestStop() }
        invocation.emitItem(ConnectEventLine("ready", [("url", .string(url))], text: "Connect relay (\(generation)) listening on \(url)"))
        server.waitUntilStopped()
        relay.stop()
        return .output(ConnectEventLine("stopped", text: "Relay stopped."))
    }

    static func line(_ event: ConnectRelayEvent) -> ConnectEventLine {
        switch event {
        case .sessionCreated(let sid):
            return ConnectEventLine("session_created", [("sid", .string(sid))], text: "session \(sid) created")
        case .attached(let sid, let role):
            return ConnectEventLine("attached", [("sid", .string(sid)), ("role", .string(role.description))], text: "\(sid): \(role) attached")
        case .refused(let sid, let status, let reason):
            return ConnectEventLine("refused", [("sid", sid.map { .string($0) } ?? .null), ("status", .int(status)), ("reason", .string(reason))],
                                    text: "refused (\(status)): \(reason)")
        case .detached(let sid, let role):
            return ConnectEventLine("detached", [("sid", .string(sid)), ("role", .string(role.description))], text: "\(sid): \(role) detached")
        case .dropped(let sid, let role, let reason):
            return ConnectEventLine("dropped", [("sid", .string(sid)), ("role", .string(role.description)), ("reason", .string(reason))],
                                    text: "\(sid): dropped a frame from the \(role): \(reason)")
        case .terminated(let sid, let reason):
            return ConnectEventLine("terminated", [("sid", .string(sid)), ("reason", .string(reason))], text: "\(sid): terminated (\(reason))")
        case .expired(let sid):
            return ConnectEventLine("expired", [("sid", .string(sid)), ("code", 4001)], text: "\(sid): idle TTL expired (4001)")
        case .heartbeatTimeout(let sid, let role):
            return ConnectEventLine("heartbeat_timeout", [("sid", .string(sid)), ("role", .string(role.description)), ("code", 4003)],
                                    text: "\(sid): \(role) missed its pongs (4003)")
        case .deleted(let sid):
            return ConnectEventLine("deleted", [("sid", .string(sid))], text: "\(sid): deleted")
        }
    }
}
