import OmniCodec

/// A product's identity as the host knows it (reference §6, `truapi-platform`): trimmed, Unicode NFC, lowercase, and
/// ending in a dotNS suffix (`.dot`, `.paseo`, `.test` by default) or being `localhost` / `localhost:<port>`, the
/// development wildcards that may act for any product.
///
/// The bridge prints it at start, because a mismatch with what the product sends only shows later, as a refusal
/// (§12). It also names the product's state directory, so it never contains `/`, `..` or control characters.
public struct TruAPIProductID: Sendable, Hashable, CustomStringConvertible {
    public static let defaultSuffixes = [".dot", ".paseo", ".test"]

    public let value: String

    /// Normalises and validates `text`; `suffixes` are the accepted dotNS suffixes (each with its leading dot).
    public init(_ text: String, suffixes: [String] = TruAPIProductID.defaultSuffixes) throws(TruAPIError) {
        let normalized = Self.normalize(text)
        if let problem = Self.problem(with: normalized, suffixes: suffixes) {
            throw TruAPIError(.configuration, "product id \(Self.quoted(text)): \(problem)")
        }
        value = normalized
    }

    /// Trim, NFC, lowercase — the reference's order. The standard library's NFC (there is no Foundation here) gives
    /// valid UTF-8, so decoding it cannot replace anything.
    public static func normalize(_ text: String) -> String {
        let trimmed = text.trimmingWhitespaceAndNewlines()
        return String(decoding: trimmed._nfcCodeUnits, as: UTF8.self).lowercased()
    }

    /// A suffix as given on the command line (`paseo`, `.paseo`, ` .Paseo `) in the form ids are matched with.
    public static func suffix(_ text: String) -> String? {
        let word = normalize(text)
        let bare = word.hasPrefix(".") ? String(word.dropFirst()) : word
        guard !bare.isEmpty, bare.utf8.allSatisfy({ isLabelByte($0) || $0 == UInt8(ascii: ".") }),
              !bare.hasPrefix("."), !bare.hasSuffix("."), !bare.contains("..") else { return nil }
        return "." + bare
    }

    /// `localhost` and `localhost:<port>`: development ids that may sign for any product (§6).
    public var isDevelopmentWildcard: Bool { Self.isLocalhost(value) }

    public var description: String { value }

    /// The reference's scoped key for product local storage (`ProductStorageKey::encode`):
    /// `truapi:product-storage:v1:<byte length of id>:<id>:<key>`.
    public func storageKey(_ key: String) -> String {
        "truapi:product-storage:v1:\(value.utf8.count):\(value):\(key)"
    }

    /// Whether `other` (a `dot_ns_identifier` a product sent) names this product once normalised.
    public func matches(_ other: String) -> Bool { Self.normalize(other) == value }

    static func problem(with id: String, suffixes: [String]) -> String? {
        guard !id.isEmpty else { return "it is empty" }
        guard id.utf8.count <= 253 else { return "it is longer than 253 bytes" }
        if isLocalhost(id) { return nil }
        if id.hasPrefix("localhost:") { return "the port after localhost: must be a number from 1 to 65535" }
        guard !id.unicodeScalars.contains(where: { $0.value < 0x21 || $0.value == 0x7F || (0x80...0x9F).contains($0.value) }) else {
            return "it contains spaces or control characters"
        }
        guard !id.contains("/"), !id.contains("\\"), !id.hasPrefix("."), !id.contains("..") else {
            return "it contains '/', '\\' or an empty label"
        }
        guard suffixes.contains(where: { id.hasSuffix($0) && id.count > $0.count }) else {
            let list = suffixes.joined(separator: ", ")
            return "it must end in \(list) or be localhost[:port] (accepted suffixes are set with --product-tld)"
        }
        return nil
    }

    static func isLocalhost(_ id: String) -> Bool {
        if id == "localhost" { return true }
        guard id.hasPrefix("localhost:") else { return false }
        let port = id.dropFirst("localhost:".count)
        guard !port.isEmpty, port.count <= 5, port.utf8.allSatisfy({ (0x30...0x39).contains($0) }), let number = Int(port) else {
            return false
        }
        return (1...65535).contains(number)
    }

    private static func isLabelByte(_ byte: UInt8) -> Bool {
        (0x30...0x39).contains(byte) || (0x61...0x7A).contains(byte) || byte == UInt8(ascii: "-") || byte >= 0x80
    }

    private static func quoted(_ text: String) -> String {
        let shown = text.unicodeScalars.prefix(60).map { $0.value < 0x20 || $0.value == 0x7F ? "?" : String($0) }.joined()
        return "'" + shown + (text.unicodeScalars.count > 60 ? "…" : "") + "'"
    }
}
