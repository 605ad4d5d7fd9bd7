import OmniTransport

/// OmniTransport's parsers of peer bytes: the RFC 6455 frame decoder on both sides (a server requires masked
/// frames, a client unmasked ones), the HTTP/1.1 server's request reading (head, Content-Length and chunked
/// bodies, pipelining) and the WebSocket client's reading of the upgrade response.
let transportHarnesses: [Harness] = [webSocket(.client), webSocket(.server), httpRequest, httpResponseHead]

/// The split of a stream into reads: 1 to 16 bytes at a time, chosen by the input's first byte.
private func pieceSize(_ selector: UInt8) -> Int { 1 + Int(selector % 16) }

// MARK: - WebSocket frames

/// A fixed masking key for re-encoded client frames (any key works; the decoder must unmask with the frame's own).
private let maskingKey: UInt32 = 0x3779_a1c5

private struct DecodedStream: Equatable {
    var events: [WebSocketFrameDecoder.Event] = []
    var failure: WebSocketCloseCode?
}

/// Every event of `bytes` read in pieces of `pieceSize` (nil: all at once), up to the first failure.
private func decode(_ bytes: [UInt8], role: WebSocketRole, pieceSize: Int?) -> DecodedStream {
    var decoder = WebSocketFrameDecoder(role: role, maxMessageBytes: 64 << 10)
    var stream = DecodedStream()
    var offset = 0
    while offset < bytes.count || offset == 0 {
        let end = pieceSize.map { min(bytes.count, offset + $0) } ?? bytes.count
        decoder.append(Array(bytes[offset..<end]))
        offset = max(end, 1)
        do {
            while let event = try decoder.nextEvent() { stream.events.append(event) }
        } catch {
            stream.failure = decoder.failureCloseCode
            FuzzCheck.require(stream.failure != nil, "a decoder failure has no close code")
            return stream
        }
    }
    return stream
}

/// Reads every event and drops it, as a connection does (for measuring the decoder alone); false on a violation.
private func drain(_ bytes: ArraySlice<UInt8>, role: WebSocketRole) -> Bool {
    var decoder = WebSocketFrameDecoder(role: role, maxMessageBytes: WebSocketConnection.Options().maxMessageBytes)
    // In 64 KiB reads, as a socket delivers them: the decoder never holds more than a read beyond the message.
    for offset in stride(from: 0, to: max(bytes.count, 1), by: 64 << 10) {
        let start = bytes.startIndex + offset
        decoder.append(Array(bytes[start..<min(bytes.endIndex, start + (64 << 10))]))
        do {
            while try decoder.nextEvent() != nil {}
        } catch {
            return false
        }
    }
    return true
}

private func webSocket(_ role: WebSocketRole) -> Harness {
    let side = role == .client ? "client" : "server"
    let peerMask: UInt32? = role == .server ? maskingKey : nil
    return Harness(
        "websocket-\(side)",
        "WebSocketFrameDecoder as the \(side) (\(role == .server ? "masked frames required" : "unmasked frames required"), 64 KiB messages) on `[piece size][stream]`; reading in pieces gives the same events and failure as reading at once, and re-encoded events decode to themselves",
        seeds: { _ in
            func frame(_ opcode: WebSocketOpcode, _ payload: [UInt8], fin: Bool = true) -> [UInt8] {
                WebSocketFrameEncoder.frame(opcode: opcode, fin: fin, payload: payload, mask: peerMask)
            }
            return [
                Seed("text", [0] + frame(.text, Array("héllo".utf8))),
                Seed("fragmented", [3] + frame(.text, Array("frag".utf8), fin: false) + frame(.ping, [1, 2]) + frame(.continuation, Array("ment".utf8))),
                Seed("binary-16bit", [7] + frame(.binary, [UInt8](repeating: 0xab, count: 300))),
                Seed("binary-64bit", [15] + frame(.binary, [UInt8](repeating: 0x5c, count: 70_000))),
                Seed("close", [1] + frame(.pong, []) + frame(.close, WebSocketFrameEncoder.closePayload(code: .normal, reason: "bye"))),
            ]
        }
    ,
        parse: { bytes in drain(bytes.dropFirst(), role: role) }
    ) { bytes in
        var input = FuzzInput(bytes)
        let pieces = pieceSize(input.byte())
        let stream = input.rest()
        let whole = decode(stream, role: role, pieceSize: nil)
        FuzzCheck.require(decode(stream, role: role, pieceSize: pieces) == whole, "reading in pieces of \(pieces) bytes changed the events")
        var encoded: [UInt8] = []
        for event in whole.events {
            switch event {
            case .text(let text): encoded += WebSocketFrameEncoder.frame(opcode: .text, payload: Array(text.utf8), mask: peerMask)
            case .binary(let payload): encoded += WebSocketFrameEncoder.frame(opcode: .binary, payload: payload, mask: peerMask)
            case .ping(let payload): encoded += WebSocketFrameEncoder.frame(opcode: .ping, payload: payload, mask: peerMask)
            case .pong(let payload): encoded += WebSocketFrameEncoder.frame(opcode: .pong, payload: payload, mask: peerMask)
            case .close(let info):
                encoded += WebSocketFrameEncoder.frame(opcode: .close, payload: WebSocketFrameEncoder.closePayload(code: info.code, reason: info.reason),
                                                       mask: peerMask)
            }
        }
        let again = decode(encoded, role: role, pieceSize: nil)
        FuzzCheck.require(again.failure == nil && again.events == whole.events, "re-encoded events decode differently")
    }
}

// MARK: - HTTP/1.1 server requests

/// What the server made of one request: the request, or the refusal status.
private struct ParsedRequest: Equatable {
    var method = "", target = "", version = ""
    /// Name and value bytes: Strings compare by canonical equivalence and split by Character, and a combining
    /// mark after a colon would hide it.
    var headers: [Field] = []
    var body: [UInt8] = []
    var keepAlive = false
    var refusal: Int?

    init(_ request: HTTPServerRequest, keepAlive: Bool) {
        method = request.method
        target = request.target
        version = request.version
        headers = request.headers.map { Field(name: Array($0.name.utf8), value: Array($0.value.utf8)) }
        body = request.body
        self.keepAlive = keepAlive
    }

    init(refusal: Int) { self.refusal = refusal }

    struct Field: Equatable {
        var name: [UInt8]
        var value: [UInt8]

        var isFraming: Bool {
            let lowered = String(decoding: name, as: UTF8.self).lowercased()
            return lowered == "content-length" || lowered == "transfer-encoding"
        }
    }
}

/// Runs the server's parser over a connection's bytes (pieces of `pieceSize`, nil: all at once), request after
/// request while the connection stays open, as the connection worker does; an incomplete request at the end is
/// what a closed connection leaves unanswered.
private func serve(_ bytes: [UInt8], pieceSize: Int?, limits: HTTPRequestParser.Limits) -> [ParsedRequest] {
    var results: [ParsedRequest] = []
    var buffer: [UInt8] = []
    var offset = 0
    var parser = HTTPRequestParser(limits: limits)
    var heads = 0
    while true {
        switch parser.advance(&buffer) {
        case .needHead, .needBody:
            guard offset < bytes.count else { return results }
            let end = pieceSize.map { min(bytes.count, offset + $0) } ?? bytes.count
            buffer += bytes[offset..<end]
            offset = end
        case .head(let request, _):
            heads += 1
            FuzzCheck.require(heads == results.count + 1, "the parser announced a head twice")
            _ = request.queryItems
            if let key = request.headers["Sec-WebSocket-Key"] { _ = WebSocketHandshake.isValidKey(key) }
        case .complete(let request, let keepAlive):
            results.append(ParsedRequest(request, keepAlive: keepAlive))
            guard keepAlive else { return results }
            parser = HTTPRequestParser(limits: limits)
        case .refused(let response, _):
            results.append(ParsedRequest(refusal: response.status))
            return results
        }
    }
}

/// Small limits, so the fuzzer reaches every limit with inputs of a few KiB.
private let fuzzRequestLimits = HTTPRequestParser.Limits(maxHeadBytes: 2048, maxHeaderCount: 16, maxBodyBytes: 4096, maxChunkLineBytes: 64)

private let httpRequest = Harness(
    "http-request",
    "HTTPRequestParser (the HTTP/1.1 server's head, Content-Length and chunked body reading, pipelined requests; limits: 2 KiB head, 16 fields, 4 KiB body, 64-byte chunk lines) on `[piece size][connection bytes]`; reading in pieces gives the same requests and refusals as reading at once, and a request written back reads back the same",
    seeds: { _ in
        [
            Seed("get", text: "\u{0}GET /ws?token=abc&x HTTP/1.1\r\nHost: 127.0.0.1:8080\r\nUpgrade: websocket\r\nConnection: Upgrade\r\nSec-WebSocket-Key: dGhlIHNhbXBsZSBub25jZQ==\r\nSec-WebSocket-Version: 13\r\n\r\n"),
            Seed("post-pipelined", text: "\u{5}POST /api HTTP/1.1\r\nHost: h\r\nContent-Length: 5\r\nExpect: 100-continue\r\n\r\nhelloGET / HTTP/1.0\r\nConnection: keep-alive\r\n\r\nHEAD / HTTP/1.1\r\nHost: h\r\nConnection: close\r\n\r\n"),
            Seed("chunked", text: "\u{2}PUT /x HTTP/1.1\r\nHost: h\r\nTransfer-Encoding: chunked\r\n\r\n5;ext=1\r\nhello\r\n0\r\nTrailer: v\r\n\r\n"),
            Seed("smuggling", text: "\u{9}POST / HTTP/1.1\r\nHost: h\r\nContent-Length: 3\r\nTransfer-Encoding: chunked\r\n\r\n0\r\n\r\n"),
        ]
    },
    parse: { bytes in serve(Array(bytes.dropFirst()), pieceSize: nil, limits: HTTPRequestParser.Limits()).allSatisfy { $0.refusal == nil } }
) { bytes in
    var input = FuzzInput(bytes)
    let pieces = pieceSize(input.byte())
    let stream = input.rest()
    let whole = serve(stream, pieceSize: nil, limits: fuzzRequestLimits)
    FuzzCheck.require(serve(stream, pieceSize: pieces, limits: fuzzRequestLimits) == whole, "reading in pieces of \(pieces) bytes changed the requests")
    for request in whole where request.refusal == nil {
        // Written back with its own Content-Length (framing headers dropped), the request must read the same.
        var written = Array("\(request.method) \(request.target) \(request.version)\r\n".utf8)
        let kept = request.headers.filter { !$0.isFraming }
        for field in kept { written += field.name + Array(": ".utf8) + field.value + [0x0D, 0x0A] }
        if !request.body.isEmpty { written += Array("Content-Length: \(request.body.count)\r\n".utf8) }
        written += [0x0D, 0x0A] + request.body
        let text = String(decoding: written.prefix(300), as: UTF8.self)
        let limits = HTTPRequestParser.Limits(maxHeadBytes: 1 << 20, maxHeaderCount: 1000, maxBodyBytes: 1 << 20)
        var parser = HTTPRequestParser(limits: limits)
        var reread: ParsedRequest?
        reading: while true {
            switch parser.advance(&written) {
            case .head: continue
            case .complete(let again, let keepAlive): reread = ParsedRequest(again, keepAlive: keepAlive); break reading
            default: break reading
            }
        }
        guard let reread else { FuzzCheck.fail("a parsed request written back does not read back: \(text)") }
        FuzzCheck.require(reread.method == request.method && reread.target == request.target && reread.body == request.body
                          && reread.headers.filter({ !$0.isFraming }) == kept,
                          "a parsed request written back reads back differently")
    }
}

// MARK: - WebSocket upgrade responses

private let upgradeKey = "dGhlIHNhbXBsZSBub25jZQ=="

private let httpResponseHead = Harness(
    "http-response-head",
    "HTTP1Head.findEnd and parse of a response head, then WebSocketHandshake.validateResponse as the WebSocket client checks its upgrade answer; an accepted upgrade carries the right Sec-WebSocket-Accept",
    seeds: { _ in
        [
            Seed("switching", text: "HTTP/1.1 101 Switching Protocols\r\nUpgrade: websocket\r\nConnection: Upgrade\r\nSec-WebSocket-Accept: \(WebSocketHandshake.acceptValue(forKey: upgradeKey))\r\nSec-WebSocket-Protocol: truapi\r\n\r\n"),
            Seed("refused", text: "HTTP/1.1 401 Unauthorized\r\nContent-Length: 14\r\n\r\ninvalid token\n"),
        ]
    }
) { bytes in
    guard let end = HTTP1Head.findEnd(in: bytes, start: 0, scanFrom: 0), end <= 64 << 10,
          let head = try? HTTP1Head.parse(bytes[..<end], isRequest: false, maxHeaderCount: 100) else { return }
    let selected: String?
    do {
        selected = try WebSocketHandshake.validateResponse(head, key: upgradeKey, offeredSubprotocols: ["truapi", "iroha-connect.token.v1.x"],
                                                           url: "ws://127.0.0.1/fuzz")
    } catch {
        return
    }
    FuzzCheck.require(head.startLine.1 == "101" && head.headers["Sec-WebSocket-Accept"] == WebSocketHandshake.acceptValue(forKey: upgradeKey),
                      "an upgrade was accepted without status 101 and the right accept value")
    if let selected { FuzzCheck.require(["truapi", "iroha-connect.token.v1.x"].contains(selected), "a subprotocol that was not offered was accepted") }
}
