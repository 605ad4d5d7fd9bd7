import OmniCodec

/// One `-----BEGIN label----- … -----END label-----` block (RFC 7468) with its decoded DER.
struct PEMBlock {
    let label: String
    var der: [UInt8]
    /// 1-based line of the BEGIN line, for error messages.
    let line: Int
}

/// RFC 7468 textual encoding. Text outside blocks is ignored (the RFC allows explanatory text); encrypted
/// (RFC 1421 header) blocks are refused rather than prompting for a password.
enum PEM {
    static let maximumInputByteCount = 4 << 20
    static let maximumBlockCount = 256

    static func blocks(in text: String, errorKind: CryptoError.Kind) throws(CryptoError) -> [PEMBlock] {
        guard text.utf8.count <= maximumInputByteCount else {
            throw CryptoError(errorKind, "PEM input is larger than \(maximumInputByteCount) bytes")
        }
        var blocks: [PEMBlock] = []
        var current: (label: String, line: Int, body: String)?
        var lineNumber = 0
        for rawLine in text.split(separator: "\n", omittingEmptySubsequences: false) {
            lineNumber += 1
            let line = rawLine.trimmingWhitespaceAndNewlines()
            if var open = current {
                if line.hasPrefix("-----END ") {
                    guard line == "-----END \(open.label)-----" else {
                        throw CryptoError(errorKind, "PEM line \(lineNumber): \(line) does not close BEGIN \(open.label) (line \(open.line))")
                    }
                    // Padded, as RFC 7468 writes it; unused trailing bits are not checked, as by OpenSSL.
                    guard let der = try? Base64.decode(open.body, padding: .required, strict: false), !der.isEmpty else {
                        throw CryptoError(errorKind, "PEM block \(open.label) at line \(open.line): body is not valid base64")
                    }
                    guard blocks.count < maximumBlockCount else {
                        throw CryptoError(errorKind, "PEM input has more than \(maximumBlockCount) blocks")
                    }
                    blocks.append(PEMBlock(label: open.label, der: der, line: open.line))
                    current = nil
                } else if line.contains(":") {
                    throw CryptoError(errorKind, "PEM block \(open.label) at line \(open.line) has RFC 1421 headers (encrypted PEM is not supported)")
                } else if line.hasPrefix("-----") {
                    throw CryptoError(errorKind, "PEM line \(lineNumber): unexpected \(line) inside \(open.label) block")
                } else {
                    open.body += line
                    current = open
                }
            } else if line.hasPrefix("-----BEGIN "), line.hasSuffix("-----"), line.count > 16 {
                let label = String(line.dropFirst(11).dropLast(5))
                current = (label, lineNumber, "")
            }
        }
        if let open = current {
            throw CryptoError(errorKind, "PEM block \(open.label) at line \(open.line) has no END line")
        }
        return blocks
    }

    /// Exactly one block with one of `labels`, e.g. a private key file.
    static func singleBlock(in text: String, labels: Set<String>, what: String,
                            errorKind: CryptoError.Kind) throws(CryptoError) -> PEMBlock {
        let found = try blocks(in: text, errorKind: errorKind)
        let matching = found.filter { labels.contains($0.label) }
        guard matching.count == 1, let block = matching.first else {
            let expected = labels.sorted().joined(separator: " or ")
            if matching.isEmpty {
                let seen = found.map(\.label).joined(separator: ", ")
                throw CryptoError(errorKind, "no \(expected) PEM block found for \(what)" + (seen.isEmpty ? "" : " (found: \(seen))"))
            }
            throw CryptoError(errorKind, "\(matching.count) \(expected) PEM blocks found; expected exactly one \(what)")
        }
        return block
    }

    /// 64-column base64 between BEGIN/END lines, with a trailing newline.
    static func encode(label: String, der: [UInt8]) -> String {
        var text = "-----BEGIN \(label)-----\n"
        var rest = Base64.encode(der)[...]
        while !rest.isEmpty {
            text += rest.prefix(64) + "\n"
            rest = rest.dropFirst(64)
        }
        return text + "-----END \(label)-----\n"
    }
}
