import OmniCodec

/// The domain gate's rules: which domain names a mutation may touch.
///
/// Names are compared lower-case without trailing dots; `*.x.ro` matches `x.ro` and every name under it; a plain
/// pattern matches that one name. Deny wins over allow. No allow-list (`allow == nil`) allows every name the deny
/// list does not refuse; an empty allow-list allows nothing.
public struct IrdDomainRules: Sendable, Equatable {
    public let deny: [String]
    /// Nil: no allow-list at all (not the same as an empty one).
    public let allow: [String]?

    public enum Decision: Sendable, Equatable {
        case allowed
        /// A deny pattern matched.
        case denied(pattern: String)
        /// An allow-list exists and no pattern of it matched.
        case notAllowed
        /// The domain could not be known and an allow-list exists: fail closed.
        case unresolved
    }

    /// Checks every pattern: a name, or `*.` and a name; nothing empty, no other wildcard.
    public init(deny: [String], allow: [String]?) throws(IrdError) {
        self.deny = try deny.map { pattern throws(IrdError) in try Self.checked(pattern, label: "deny") }
        self.allow = try allow.map { list throws(IrdError) in try list.map { pattern throws(IrdError) in try Self.checked(pattern, label: "allow") } }
    }

    /// No rules at all: nothing is gated.
    public var isEmpty: Bool { deny.isEmpty && allow == nil }

    /// Nil `domain`: the operation touches a domain that could not be resolved.
    public func decide(_ domain: String?) -> Decision {
        guard let domain else { return allow == nil ? .allowed : .unresolved }
        let name = Self.normalized(domain)
        if let pattern = deny.first(where: { Self.matches($0, name) }) { return .denied(pattern: pattern) }
        if let allow, !allow.contains(where: { Self.matches($0, name) }) { return .notAllowed }
        return .allowed
    }

    /// `Example.RO.` → `example.ro`.
    public static func normalized(_ name: String) -> String {
        var text = name.lowercased()
        while text.hasSuffix(".") { text.removeLast() }
        return text
    }

    public static func matches(_ pattern: String, _ name: String) -> Bool {
        let pattern = normalized(pattern)
        let name = normalized(name)
        if pattern.hasPrefix("*.") {
            let base = String(pattern.dropFirst(2))
            return name == base || name.hasSuffix("." + base)
        }
        return name == pattern
    }

    static func checked(_ pattern: String, label: String) throws(IrdError) -> String {
        let name = normalized(pattern.trimmingWhitespaceAndNewlines())
        let base = name.hasPrefix("*.") ? String(name.dropFirst(2)) : name
        guard !base.isEmpty, !base.contains("*"), !base.hasPrefix("."), !base.contains(".."),
              base.unicodeScalars.allSatisfy({ $0.value > 0x20 && $0 != "/" }) else {
            throw IrdError(.configuration, "domain gate: \(label) pattern '\(pattern)' is not a domain name or '*.' and one "
                           + "(examples: example.ro, *.example.ro)")
        }
        return name
    }
}

