import FoundationEssentials
import OmniCandid
import OmniCodec

/// Where requests go: the IC mainnet (`ic`, https://icp-api.io), a local replica (`local`,
/// http://127.0.0.1:4943), or any http(s) URL. Knows the two facts trust decisions need: whether the URL is the
/// mainnet (whose root key is pinned) and whether it is a loopback address (the only place a root key may be
/// fetched from the replica itself).
public struct ICNetwork: Sendable, Equatable, CustomStringConvertible {
    public static let mainnetURL = "https://icp-api.io"
    public static let localURL = "http://127.0.0.1:4943"
    /// Host names of the mainnet's API boundary nodes (and their subdomains).
    static let mainnetHosts = ["icp-api.io", "ic0.app", "icp0.io"]

    /// `ic`, `local`, or nil when a URL was given.
    public let name: String?
    /// The base URL without a trailing slash.
    public let url: String
    /// The URL's host, lowercased, without brackets.
    public let host: String

    /// `ic`, `local`, or an `http://` / `https://` URL (no query, fragment or credentials).
    public init(_ text: String) throws(ICError) {
        let trimmed = text.trimmingWhitespace()
        switch trimmed {
        case "ic", "mainnet":
            name = "ic"
            url = ICNetwork.mainnetURL
        case "local":
            name = "local"
            url = ICNetwork.localURL
        default:
            name = nil
            var base = trimmed
            while base.hasSuffix("/") { base.removeLast() }
            url = base
        }
        guard let components = URLComponents(string: url), let scheme = components.scheme?.lowercased(),
              scheme == "http" || scheme == "https", let rawHost = components.host, !rawHost.isEmpty
        else {
            throw ICError(.invalidArgument,
                          "network \"\(Principal.quotedSample(trimmed))\" is not ic, local or an http(s):// URL")
        }
        guard components.user == nil, components.password == nil, components.query == nil, components.fragment == nil else {
            throw ICError(.invalidArgument, "network URL \(Principal.quotedSample(trimmed)) must not carry credentials, a query or a fragment")
        }
        guard components.path.isEmpty else {
            throw ICError(.invalidArgument, "network URL \(Principal.quotedSample(trimmed)) must not have a path (omni adds /api/v…)")
        }
        var host = rawHost.lowercased()
        if host.hasPrefix("["), host.hasSuffix("]") { host = String(host.dropFirst().dropLast()) }
        self.host = host
    }

    /// The mainnet: by name, or a URL on one of its boundary-node domains.
    public var isMainnet: Bool {
        name == "ic" || ICNetwork.mainnetHosts.contains { host == $0 || host.hasSuffix("." + $0) }
    }

    /// A loopback address: `localhost`, 127.0.0.0/8 or `::1`. Only such a replica is the user's own machine, so
    /// only there may its self-reported root key be used.
    public var isLoopback: Bool {
        if host == "localhost" || host.hasSuffix(".localhost") || host == "::1" || host == "0:0:0:0:0:0:0:1" { return true }
        let octets = host.split(separator: ".", omittingEmptySubsequences: false)
        guard octets.count == 4, octets.allSatisfy({ !$0.isEmpty && $0.count <= 3 && $0.allSatisfy(\.isASCIIDigit) }) else { return false }
        return octets.first == "127" && octets.allSatisfy { (Int($0) ?? 256) <= 255 }
    }

    public var description: String { name.map { "\($0) (\(url))" } ?? url }
}

private extension Character {
    var isASCIIDigit: Bool { ("0"..."9").contains(self) }
}
