/// A string compared by its exact Unicode scalars, as JSON, CBOR and TOML compare keys and text. Swift's own
/// `String` equality is canonical equivalence, under which "\u{E9}" and "e\u{301}" are equal — two different
/// keys to every one of those formats.
public struct ExactText: Hashable, Sendable {
    public let value: String

    public init(_ value: String) { self.value = value }

    public static func == (lhs: ExactText, rhs: ExactText) -> Bool { lhs.value.utf8.elementsEqual(rhs.value.utf8) }

    public func hash(into hasher: inout Hasher) {
        var text = value
        text.withUTF8 { hasher.combine(bytes: UnsafeRawBufferPointer($0)) }
    }
}

extension String {
    /// Equality of Unicode scalars (code points), not canonical equivalence.
    func isExactly(_ other: String) -> Bool { utf8.elementsEqual(other.utf8) }
}
