extension StringProtocol {
    /// Foundation's `padding(toLength: length, withPad: " ", startingAt: 0)` without Foundation: appends spaces up
    /// to `length` characters, or cuts the text to its first `length` characters. Counts Characters (grapheme
    /// clusters), so a cut never splits one; Foundation counts UTF-16 units, which differs only beyond ASCII.
    public func paddingWithSpaces(toLength length: Int) -> String {
        let count = self.count
        if count >= length { return String(prefix(Swift.max(0, length))) }
        return String(self) + String(repeating: " ", count: length - count)
    }
}
