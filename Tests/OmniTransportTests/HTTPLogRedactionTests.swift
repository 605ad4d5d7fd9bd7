import Testing
@testable import OmniTransport

struct HTTPLogRedactionTests {
    @Test(arguments: [
        ("Authorization: Bearer abc", "Authorization: [REDACTED]"),
        ("proxy-authorization: Basic eA==", "proxy-authorization: [REDACTED]"),
        ("Cookie: a=b; c=d", "Cookie: [REDACTED]"),
        ("Set-Cookie: id=1; HttpOnly", "Set-Cookie: [REDACTED]"),
        ("X-Refresh-Token: t", "X-Refresh-Token: [REDACTED]"),
        ("x-client-secret: s", "x-client-secret: [REDACTED]"),
        ("X-API-Key: k", "X-API-Key: [REDACTED]"),
        ("WWW-Authenticate: Bearer realm=\"api\"", "WWW-Authenticate: Bearer realm=\"api\""),
        ("Content-Type: application/cbor", "Content-Type: application/cbor"),
        ("Location: https://h/cb?code=abc&state=1", "Location: https://h/cb?code=[REDACTED]&state=1"),
        ("GET /api?device_code=xyz&page=2 HTTP/1.1", "GET /api?device_code=[REDACTED]&page=2 HTTP/1.1"),
        ("GET http://user:pw@proxy.test/x?access_token=t HTTP/1.1",
         "GET http://[REDACTED]@proxy.test/x?access_token=[REDACTED] HTTP/1.1"),
        ("Uses proxy env variable http_proxy == 'http://me:pw@127.0.0.1:3128'",
         "Uses proxy env variable http_proxy == 'http://[REDACTED]@127.0.0.1:3128'"),
        ("h2h3 [authorization: Bearer abc]", "h2h3 [authorization: [REDACTED]]"),
        ("[HTTP/2] [1] [cookie: a=b] [accept: */*]", "[HTTP/2] [1] [cookie: [REDACTED]] [accept: */*]"),
        ("Connected to 127.0.0.1 (127.0.0.1) port 80 (#0)", "Connected to 127.0.0.1 (127.0.0.1) port 80 (#0)"),
        ("HTTP/1.1 200 OK", "HTTP/1.1 200 OK"),
        // A combining mark after a delimiter joins it into one Character; the delimiter must still count.
        ("Authorization:\u{301}Bearer abc", "Authorization: [REDACTED]"),
        ("GET /api?token=\u{301}xyz&page=2 HTTP/1.1", "GET /api?token=[REDACTED]&page=2 HTTP/1.1"),
        ("GET http://\u{301}user:pw@proxy.test/x HTTP/1.1", "GET http://[REDACTED]@proxy.test/x HTTP/1.1"),
        ("h2h3 [\u{301}x: 1] [authorization: Bearer abc]", "h2h3 [\u{301}x: 1] [authorization: [REDACTED]]"),
    ])
    func redactsCredentialsOnly(line: String, expected: String) {
        #expect(HTTPLogRedaction.redact(line: line) == expected)
    }
}
