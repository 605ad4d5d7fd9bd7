/// Text on its way to a terminal, made safe once for every command: C0 and C1 control characters (other than
/// newline and tab) and DEL are shown as `\xNN` escapes, so a peer's title, a canister's reject message or a file
/// name cannot move the cursor, retitle the window or hide what follows. Only the exact colour codes `TextStyle`
/// writes survive, and only on a stream where colour is on.
public enum TerminalText {
    /// The SGR parameters `TextStyle` uses; nothing else is let through.
    static let styleCodes: Set<String> = ["0", "1", "2", "31", "32", "33"]

    public static func sanitized(_ text: String, styled: Bool) -> String {
        // Fast path: plain printable text (the usual case) is returned as is.
        if !text.unicodeScalars.contains(where: isControl) { return text }
        var result = ""
        result.reserveCapacity(text.utf8.count + 16)
        let scalars = Array(text.unicodeScalars)
        var index = 0
        while index < scalars.count {
            let scalar = scalars[index]
            if scalar == "\u{1B}", styled, let end = styleSequenceEnd(scalars, from: index) {
                result.unicodeScalars.append(contentsOf: scalars[index...end])
                index = end + 1
                continue
            }
            if isControl(scalar) { result += escape(scalar) } else { result.unicodeScalars.append(scalar) }
            index += 1
        }
        return result
    }

    /// Every control character escaped, newlines and tabs included: for one-line samples of untrusted text.
    public static func escaped(_ text: String) -> String {
        guard text.unicodeScalars.contains(where: { isControl($0) || $0 == "\n" || $0 == "\t" }) else { return text }
        var result = ""
        for scalar in text.unicodeScalars {
            if isControl(scalar) || scalar == "\n" || scalar == "\t" { result += escape(scalar) } else { result.unicodeScalars.append(scalar) }
        }
        return result
    }

    static func isControl(_ scalar: Unicode.Scalar) -> Bool {
        let value = scalar.value
        if value == 0x0A || value == 0x09 { return false }
        return value < 0x20 || (0x7F...0x9F).contains(value)
    }

    private static func escape(_ scalar: Unicode.Scalar) -> String {
        let hex = String(scalar.value, radix: 16, uppercase: true)
        return "\\x" + (hex.count == 1 ? "0" + hex : hex)
    }

    /// `ESC [ n m` with n one of our codes: the index of the `m`, else nil.
    private static func styleSequenceEnd(_ scalars: [Unicode.Scalar], from start: Int) -> Int? {
        guard start + 3 < scalars.count, scalars[start + 1] == "[" else { return nil }
        var digits = ""
        var index = start + 2
        while index < scalars.count, index < start + 5, ("0"..."9").contains(scalars[index]) {
            digits.unicodeScalars.append(scalars[index])
            index += 1
        }
        guard index < scalars.count, scalars[index] == "m", styleCodes.contains(digits) else { return nil }
        return index
    }
}
