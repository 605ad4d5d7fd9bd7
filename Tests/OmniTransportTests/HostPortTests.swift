import OmniTestSupport
import OmniTransport
import Testing

@Suite("HOST:PORT")
struct HostPortTests {
    private func problem(_ text: String) -> String? {
        let error = caughtError { () throws(TransportError) in _ = try HostPort(parsing: text) }
        #expect(error == nil || error?.kind == .invalidArgument)
        return error?.message
    }

    @Test("IPv4, names and bracketed IPv6 read; description writes them back")
    func valid() throws {
        let cases: [(text: String, host: String, port: UInt16)] = [
            ("127.0.0.1:8080", "127.0.0.1", 8080), ("localhost:0", "localhost", 0), ("[::1]:8443", "::1", 8443),
            ("[fe80::1%eth0]:1", "fe80::1%eth0", 1), ("[::ffff:127.0.0.1]:65535", "::ffff:127.0.0.1", 65535),
            ("relay.example-1.org:443", "relay.example-1.org", 443),
        ]
        for (text, host, port) in cases {
            let parsed = try HostPort(parsing: text)
            #expect(parsed.host == host && parsed.port == port, "\(text)")
            #expect(parsed.description == text)
        }
        #expect(HostPort(host: "::1", port: 0).description == "[::1]:0")
    }

    @Test("each mistake is named")
    func invalid() {
        let cases: [(text: String, problem: String)] = [
            ("", "it is empty"),
            ("127.0.0.1", "the ':PORT' is missing"),
            ("::1:8080", "an IPv6 address must be in brackets, e.g. [::1]:8080"),
            ("[::1:8080", "the IPv6 address has no closing ']'"),
            ("[::1]8080", "expected ':PORT' after ']'"),
            ("[localhost]:80", "\"localhost\" in brackets is not an IPv6 address"),
            (":8080", "the host before ':' is missing"),
            ("127.0.0.1:", "the port after ':' is missing"),
            ("127.0.0.1:65536", "the port \"65536\" is not a number from 0 to 65535"),
            ("127.0.0.1:+80", "the port \"+80\" is not a number from 0 to 65535"),
            ("127.0.0.1:0x50", "the port \"0x50\" is not a number from 0 to 65535"),
            ("127.0.0.1:000080", "the port \"000080\" is not a number from 0 to 65535"),
            ("bad host:80", "the host \"bad host\" has a character other than letters, digits, '-' and '.'"),
            (String(repeating: "a", count: 301) + ":1", "it is longer than 300 characters"),
        ]
        for (text, expected) in cases {
            let message = problem(text)
            #expect(message?.hasSuffix(": " + expected) == true, "\(text): \(message ?? "accepted")")
            #expect(message?.contains("is not HOST:PORT (e.g. 127.0.0.1:8080 or [::1]:8080)") == true)
        }
        // Untrusted text is quoted short and without control characters.
        let noisy = problem("\u{1B}[31m" + String(repeating: "x", count: 100))
        #expect(noisy?.contains("\u{1B}") == false && noisy?.contains("…") == true)
    }
}
