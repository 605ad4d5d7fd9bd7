/// One `-----BEGIN label----- … -----END label-----` block (RFC 7468) with its decoded DER.
public struct PEMBlock: Sendable {
    public let label: String
    public var der: [UInt8]
    /// 1-based line of the BEGIN line, for messages.
    public let line: Int
}

/// RFC 7468 textual encoding. Text outside blocks is ignored (the RFC allows explanatory text); blocks with RFC
/// 1421 headers (encrypted PEM) are refused rather than prompting for a password. Bodies are strict padded
/// base64; an error names the line and column of the offending character.
public enum PEM {
    public static let maximumInputByteCount = 4 << 20
    public static let maximumBlockCount = 256

    /// Every block of `text`, in order.
    public static func blocks(in text: String) throws(CodecError) -> [PEMBlock] {
        guard text.utf8.count <= maximumInputByteCount else {
            throw CodecError(.limitExceeded, format: "PEM", "input is larger than \(maximumInputByteCount) bytes")
        }
        var blocks: [PEMBlock] = []
        var open: OpenBlock?
        var lineNumber = 0
        // Split on the byte: as Characters, "\r\n" is one grapheme that is not "\n".
        for lineBytes in text.utf8.split(separator: 0x0A, omittingEmptySubsequences: false) {
            lineNumber += 1
            let rawLine = String(decoding: lineBytes, as: UTF8.self)
            let leading = rawLine.prefix(while: isSpace).count
            var line = rawLine.dropFirst(leading)
            while let last = line.last, isSpace(last) { line = line.dropLast() }
            let trimmed = String(line)
            let column = leading + 1
            guard var block = open else {
                if trimmed.hasPrefix("-----BEGIN "), trimmed.hasSuffix("-----"), trimmed.count > 16 {
                    open = OpenBlock(label: String(trimmed.dropFirst(11).dropLast(5)), line: lineNumber)
                }
                continue
            }
            // Taken out, not shared: appending to a body still referenced by `open` copied it on every line, which
            // made a 4 MiB block take over a minute.
            open = nil
            if trimmed.hasPrefix("-----END ") {
                guard trimmed == "-----END \(block.label)-----" else {
                    throw error("\(trimmed) does not close BEGIN \(block.label) (line \(block.line))", line: lineNumber, column: column)
                }
                guard blocks.count < maximumBlockCount else {
                    throw CodecError(.limitExceeded, format: "PEM", "more than \(maximumBlockCount) blocks", line: lineNumber, column: column)
                }
                blocks.append(PEMBlock(label: block.label, der: try block.decode(), line: block.line))
                open = nil
            } else if trimmed.contains(":") {
                throw CodecError(.unsupported, format: "PEM", "block \(block.label) has RFC 1421 headers (encrypted PEM is not supported)",
                                 line: lineNumber, column: column)
            } else if trimmed.hasPrefix("-----") {
                throw error("unexpected \(trimmed) inside the \(block.label) block", line: lineNumber, column: column)
            } else {
                block.append(trimmed, line: lineNumber, column: column)
                open = block
            }
        }
        if let block = open {
            throw error("block \(block.label) has no END line", line: block.line, column: 1)
        }
        return blocks
    }

    /// Exactly one block with one of `labels` (other blocks are ignored), e.g. the key of a key file; `what`
    /// names it in messages.
    public static func singleBlock(in text: String, labels: Set<String>, what: String) throws(CodecError) -> PEMBlock {
        let found = try blocks(in: text)
        let matching = found.filter { labels.contains($0.label) }
        guard matching.count == 1, let block = matching.first else {
            let expected = labels.sorted().joined(separator: " or ")
            if matching.isEmpty {
                let seen = found.map(\.label).joined(separator: ", ")
                throw CodecError(.malformed, format: "PEM", "no \(expected) block found for \(what)" + (seen.isEmpty ? "" : " (found: \(seen))"))
            }
            throw CodecError(.malformed, format: "PEM", "\(matching.count) \(expected) blocks found; expected exactly one \(what)",
                             line: matching[1].line, column: 1)
        }
        return block
    }

    /// Whether `text` has a BEGIN line at all (for inputs that may be PEM or something else).
    public static func containsBlock(_ text: some StringProtocol) -> Bool {
        text.contains("-----BEGIN ")
    }

    /// 64-column base64 between BEGIN/END lines, with a trailing newline.
    public static func encode(label: String, der: [UInt8]) -> String {
        var text = "-----BEGIN \(label)-----\n"
        var rest = Base64.encode(der)[...]
        while !rest.isEmpty {
            text += rest.prefix(64) + "\n"
            rest = rest.dropFirst(64)
        }
        return text + "-----END \(label)-----\n"
    }

    private static func isSpace(_ character: Character) -> Bool {
        character == " " || character == "\t" || character == "\r"
    }

    private static func error(_ message: String, line: Int, column: Int) -> CodecError {
        CodecError(.malformed, format: "PEM", message, line: line, column: column)
    }

    /// A block whose END line has not been seen: its body so far and where each body line came from.
    private struct OpenBlock {
        let label: String
        let line: Int
        var body = ""
        /// (offset in `body`, line, column) of each body line, to place a base64 error in the text.
        var origins: [(offset: Int, line: Int, column: Int)] = []

        mutating func append(_ text: String, line: Int, column: Int) {
            guard !text.isEmpty else { return }
            origins.append((body.utf8.count, line, column))
            body += text
        }

        func decode() throws(CodecError) -> [UInt8] {
            let der: [UInt8]
            do {
                der = try Base64.decode(body, padding: .required, strict: true)
            } catch {
                let offset = min(error.offset ?? body.utf8.count, max(body.utf8.count - 1, 0))
                let origin = origins.last(where: { $0.offset <= offset }) ?? (0, line, 1)
                throw CodecError(.malformed, format: "PEM", "block \(label): body is not base64: \(error.message)",
                                 line: origin.line, column: origin.column + offset - origin.offset)
            }
            guard !der.isEmpty else { throw PEM.error("block \(label) is empty", line: line, column: 1) }
            return der
        }
    }
}
