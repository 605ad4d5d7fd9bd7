import OmniTransport
import Testing

/// The server's request reading without sockets: the same requests and refusals however the bytes arrive, and
/// the limits it applies (docs/security.md, "Limits").
@Suite struct HTTPRequestParserTests {
    enum Outcome: Equatable {
        case request(method: String, target: String, body: [UInt8], keepAlive: Bool)
        case refused(Int, headOnly: Bool)
        case incomplete
    }

    /// Every request (or the refusal) in `bytes` delivered `piece` bytes at a time.
    static func read(_ text: String, piece: Int, limits: HTTPRequestParser.Limits = .init()) -> [Outcome] {
        let bytes = Array(text.utf8)
        var outcomes: [Outcome] = []
        var buffer: [UInt8] = []
        var offset = 0
        var parser = HTTPRequestParser(limits: limits)
        while true {
            switch parser.advance(&buffer) {
            case .needHead, .needBody:
                guard offset < bytes.count else { return outcomes + [.incomplete] }
                buffer += bytes[offset..<min(bytes.count, offset + piece)]
                offset += piece
            case .head:
                continue
            case .complete(let request, let keepAlive):
                outcomes.append(.request(method: request.method, target: request.target, body: request.body, keepAlive: keepAlive))
                guard keepAlive else { return outcomes }
                parser = HTTPRequestParser(limits: limits)
            case .refused(let response, let headOnly):
                return outcomes + [.refused(response.status, headOnly: headOnly)]
            }
        }
    }

    static func readEveryWay(_ text: String, limits: HTTPRequestParser.Limits = .init()) -> [Outcome] {
        let whole = read(text, piece: text.utf8.count + 1, limits: limits)
        for piece in [1, 2, 3, 7, 64] { #expect(read(text, piece: piece, limits: limits) == whole, "pieces of \(piece)") }
        return whole
    }

    @Test func pipelinedRequestsWithBothFramings() {
        let text = "POST /a HTTP/1.1\r\nHost: h\r\nContent-Length: 5\r\n\r\nhello"
            + "PUT /b?x=1 HTTP/1.1\r\nHost: h\r\nTransfer-Encoding: chunked\r\n\r\n3;ext=v\r\nabc\r\n2\r\nde\r\n0\r\nTrailer: t\r\n\r\n"
            + "GET /c HTTP/1.0\r\n\r\n"
        #expect(Self.readEveryWay(text) == [
            .request(method: "POST", target: "/a", body: Array("hello".utf8), keepAlive: true),
            .request(method: "PUT", target: "/b?x=1", body: Array("abcde".utf8), keepAlive: true),
            .request(method: "GET", target: "/c", body: [], keepAlive: false),
        ])
    }

    @Test func theHeadIsAnnouncedOnceBeforeTheBody() {
        var parser = HTTPRequestParser()
        var buffer = Array("POST /x HTTP/1.1\r\nHost: h\r\nExpect: 100-continue\r\nContent-Length: 2\r\n\r\n".utf8)
        guard case .head(let head, let expectsBody) = parser.advance(&buffer) else { Issue.record("no head"); return }
        #expect(head.path == "/x" && expectsBody && head.headers.tokens("Expect") == ["100-continue"])
        guard case .needBody = parser.advance(&buffer) else { Issue.record("the head was announced twice"); return }
        buffer += Array("ok".utf8)
        guard case .complete(let request, _) = parser.advance(&buffer) else { Issue.record("no request"); return }
        #expect(request.body == Array("ok".utf8))
    }

    @Test func framingRefusals() {
        let head = "POST / HTTP/1.1\r\nHost: h\r\n"
        #expect(Self.readEveryWay(head + "Content-Length: 3\r\nTransfer-Encoding: chunked\r\n\r\n") == [.refused(400, headOnly: false)])
        #expect(Self.readEveryWay(head + "Transfer-Encoding: gzip\r\n\r\n") == [.refused(501, headOnly: false)])
        #expect(Self.readEveryWay(head + "Content-Length: -1\r\n\r\n") == [.refused(400, headOnly: false)])
        #expect(Self.readEveryWay("HEAD / HTTP/1.1\r\nHost: h\r\nContent-Length: 2000000\r\n\r\n") == [.refused(413, headOnly: true)])
        #expect(Self.readEveryWay(head + "Transfer-Encoding: chunked\r\n\r\n5\r\nhelloXX") == [.refused(400, headOnly: false)])
        #expect(Self.readEveryWay(head + "Transfer-Encoding: chunked\r\n\r\n5\nhello\r\n") == [.refused(400, headOnly: false)])
        #expect(Self.readEveryWay("GET / HTTP/2.0\r\nHost: h\r\n\r\n") == [.refused(505, headOnly: false)])
        #expect(Self.readEveryWay("GET / HTTP/1.1\r\n\r\n") == [.refused(400, headOnly: false)])
    }

    /// Field values are split and trimmed on bytes: a combining mark after a comma or a space makes one Swift
    /// Character with it, and a Character split would not see the comma (`close` was missed). Two lengths joined
    /// that way are refused either way; the case guards the byte split.
    @Test func listDelimitersFollowedByCombiningMarksStillDelimit() {
        #expect(Self.readEveryWay("GET / HTTP/1.1\r\nHost: h\r\nConnection: close,\u{301}x\r\n\r\nGET / HTTP/1.1\r\n")
                == [.request(method: "GET", target: "/", body: [], keepAlive: false)])
        #expect(Self.readEveryWay("POST / HTTP/1.1\r\nHost: h\r\nContent-Length: 1,\u{301}2\r\n\r\nab") == [.refused(400, headOnly: false)])
        var headers: HTTPHeaderFields = ["Sec-WebSocket-Protocol": "a,\u{301}b, \u{301}c"]
        headers.add("X", " \t")
        #expect(headers.tokens("Sec-WebSocket-Protocol") == ["a", "\u{301}b", "\u{301}c"])
        #expect(HTTP1Head.listElements("1,,2", keepingEmpty: true) == ["1", "", "2"] && headers.tokens("X").isEmpty)
    }

    @Test func limits() {
        let limits = HTTPRequestParser.Limits(maxHeadBytes: 64, maxHeaderCount: 2, maxBodyBytes: 8, maxChunkLineBytes: 10)
        #expect(Self.readEveryWay("GET / HTTP/1.1\r\nHost: h\r\nA: " + String(repeating: "a", count: 60) + "\r\n\r\n", limits: limits)
                == [.refused(431, headOnly: false)])
        #expect(Self.readEveryWay("GET / HTTP/1.1\r\nHost: h\r\nA: 1\r\nB: 2\r\n\r\n", limits: limits) == [.refused(431, headOnly: false)])
        let chunked = "POST / HTTP/1.1\r\nHost: h\r\nTransfer-Encoding: chunked\r\n\r\n"
        #expect(Self.readEveryWay(chunked + "8\r\n12345678\r\n0\r\n\r\n", limits: limits)
                == [.request(method: "POST", target: "/", body: Array("12345678".utf8), keepAlive: true), .incomplete])
        #expect(Self.readEveryWay(chunked + "5\r\n12345\r\n4\r\n1234\r\n0\r\n\r\n", limits: limits) == [.refused(413, headOnly: false)])
        // A chunk line longer than the limit is refused whether or not its end arrived with it.
        #expect(Self.readEveryWay(chunked + "1;x=123456\r\na\r\n0\r\n\r\n", limits: limits) == [.refused(400, headOnly: false)])
        #expect(Self.readEveryWay(chunked + "1;x=12345\r\na\r\n0\r\n\r\n", limits: limits)
                == [.request(method: "POST", target: "/", body: Array("a".utf8), keepAlive: true), .incomplete])
    }
}
