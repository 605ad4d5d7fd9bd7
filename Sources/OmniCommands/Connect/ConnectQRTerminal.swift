import OmniConnect

/// Draws a wallet URI's QR code on a terminal.
enum ConnectQRTerminal {
    /// Two module rows per line with half blocks, light modules drawn (for dark terminal backgrounds), with a
    /// quiet zone. Nil when the text does not fit a QR code.
    static func terminalText(_ text: String) -> String? {
        guard let code = ConnectQRCode(bytes: Array(text.utf8)) else { return nil }
        let quiet = 2
        let span = code.size + quiet * 2
        func light(_ x: Int, _ y: Int) -> Bool {
            let (mx, my) = (x - quiet, y - quiet)
            guard (0..<code.size).contains(mx), (0..<code.size).contains(my) else { return true }
            return !code.modules[my][mx]
        }
        var lines: [String] = []
        for y in stride(from: 0, to: span, by: 2) {
            var line = ""
            for x in 0..<span {
                let top = light(x, y)
                let bottom = y + 1 < span ? light(x, y + 1) : false
                line += top && bottom ? "█" : top ? "▀" : bottom ? "▄" : " "
            }
            lines.append(line)
        }
        return lines.joined(separator: "\n")
    }
}
