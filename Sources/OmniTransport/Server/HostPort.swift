/// A `HOST:PORT` as people write one for a listener (`--listen`): `127.0.0.1:8080`, `localhost:0`, `[::1]:8443`.
/// An IPv6 address must be in brackets (`::1:80` could be read two ways); the port is decimal 0…65535 (0 asks
/// for an ephemeral one).
public struct HostPort: Hashable, Sendable, CustomStringConvertible {
    /// An IPv4 or IPv6 literal (without brackets) or a host name.
    public let host: String
    public let port: UInt16

    /// Longest text parsed; a host name is at most 253 characters.
    static let maximumLength = 300

    public init(host: String, port: UInt16) {
        self.host = host
        self.port = port
    }

    /// Parses `HOST:PORT` or `[IPv6]:PORT`; throws `.invalidArgument` naming what is wrong.
    public init(parsing text: String) throws(TransportError) {
        func failure(_ problem: String) -> TransportError {
            TransportError(.invalidArgument, "\(HostPort.quoted(text)) is not HOST:PORT (e.g. 127.0.0.1:8080 or [::1]:8080): \(problem)")
        }
        guard !text.isEmpty else { throw failure("it is empty") }
        guard text.utf8.count <= HostPort.maximumLength else { throw failure("it is longer than \(HostPort.maximumLength) characters") }
        let host: Substring, portText: Substring
        if text.hasPrefix("[") {
            guard let close = text.firstIndex(of: "]") else { throw failure("the IPv6 address has no closing ']'") }
            host = text[text.index(after: text.startIndex)..<close]
            let rest = text[text.index(after: close)...]
            guard rest.hasPrefix(":") else { throw failure("expected ':PORT' after ']'") }
            portText = rest.dropFirst()
            guard HostPort.isIPv6Literal(host) else {
                throw failure("\(HostPort.quoted(host)) in brackets is not an IPv6 address")
            }
        } else {
            guard let colon = text.lastIndex(of: ":") else { throw failure("the ':PORT' is missing") }
            host = text[..<colon]
            portText = text[text.index(after: colon)...]
            if host.contains(":") { throw failure("an IPv6 address must be in brackets, e.g. [::1]:8080") }
            guard !host.isEmpty else { throw failure("the host before ':' is missing") }
            guard host.utf8.allSatisfy(HostPort.isHostNameCharacter) else {
                throw failure("the host \(HostPort.quoted(host)) has a character other than letters, digits, '-' and '.'")
            }
        }
        guard !portText.isEmpty else { throw failure("the port after ':' is missing") }
        guard portText.utf8.count <= 5, portText.utf8.allSatisfy({ (0x30...0x39).contains($0) }), let port = UInt16(portText) else {
            throw failure("the port \(HostPort.quoted(portText)) is not a number from 0 to 65535")
        }
        self.init(host: String(host), port: port)
    }

    /// `host:port`, with an IPv6 host in brackets: the form `init(parsing:)` reads and URLs use.
    public var description: String {
        host.contains(":") ? "[\(host)]:\(port)" : "\(host):\(port)"
    }

    private static func isHostNameCharacter(_ byte: UInt8) -> Bool {
        (0x30...0x39).contains(byte) || (0x41...0x5A).contains(byte) || (0x61...0x7A).contains(byte)
            || byte == UInt8(ascii: "-") || byte == UInt8(ascii: ".")
    }

    /// Hex digits, ':' and '.' (an embedded IPv4 tail), optionally '%' and a zone name (`fe80::1%eth0`). Whether
    /// the digits make an address is for the socket layer to say.
    private static func isIPv6Literal(_ text: Substring) -> Bool {
        let parts = text.split(separator: "%", maxSplits: 1, omittingEmptySubsequences: false)
        let address = parts[0], zone = parts.count > 1 ? parts[1] : nil
        let addressOK = address.contains(":") && address.utf8.allSatisfy {
            (0x30...0x39).contains($0) || (0x41...0x46).contains($0) || (0x61...0x66).contains($0) || $0 == UInt8(ascii: ":")
                || $0 == UInt8(ascii: ".")
        }
        return addressOK && (zone.map { !$0.isEmpty && $0.utf8.allSatisfy { isHostNameCharacter($0) || $0 == UInt8(ascii: "_") } } ?? true)
    }

    /// At most 40 characters of untrusted text, control characters shown as '?', in quotes.
    private static func quoted(_ text: some StringProtocol) -> String {
        let shown = text.unicodeScalars.prefix(40).map { $0.value < 0x20 || $0.value == 0x7F ? "?" : String($0) }.joined()
        return "\"" + shown + (text.unicodeScalars.count > 40 ? "…" : "") + "\""
    }
}
