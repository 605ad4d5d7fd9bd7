/// Whitespace trimming without Foundation (whose `trimmingCharacters(in:)` drags ICU into the binary). Both trim
/// Unicode scalars, as Foundation does, so a combining mark after a trimmed space stays.
extension StringProtocol {
    /// Foundation's `trimmingCharacters(in: .whitespacesAndNewlines)`: drops leading and trailing scalars with
    /// the Unicode White_Space property (spaces, tabs, U+000A–U+000D, U+0085, U+2028, U+2029, …) and U+200B, the
    /// zero-width space Foundation still counts as a space.
    public func trimmingWhitespaceAndNewlines() -> String {
        trimmingScalars { $0.properties.isWhitespace || $0 == "\u{200B}" }
    }

    /// Foundation's `trimmingCharacters(in: .whitespaces)`: drops leading and trailing spaces and tabs (General
    /// Category Zs, U+0009 and U+200B, as Foundation) and keeps line breaks.
    public func trimmingWhitespace() -> String {
        trimmingScalars { $0 == "\t" || $0 == "\u{200B}" || $0.properties.generalCategory == .spaceSeparator }
    }

    private func trimmingScalars(where isTrimmed: (Unicode.Scalar) -> Bool) -> String {
        let scalars = unicodeScalars
        guard let first = scalars.firstIndex(where: { !isTrimmed($0) }) else { return "" }
        var end = scalars.endIndex
        while end > first {
            let before = scalars.index(before: end)
            if !isTrimmed(scalars[before]) { break }
            end = before
        }
        return String(String.UnicodeScalarView(scalars[first..<end]))
    }
}
