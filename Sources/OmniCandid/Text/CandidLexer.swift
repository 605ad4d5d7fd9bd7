import OmniCodec

/// Tokens of Candid text: values, types, `.did` files and `.test.did` files share one lexical grammar.
struct CandidToken {
    enum Kind: Equatable {
        /// Identifiers and keywords (`record`, `nat`, `foo`).
        case identifier
        /// A number literal; `text` holds it with underscores removed and the sign kept.
        case number
        /// A string literal; `bytes` holds the unescaped bytes (not necessarily UTF-8, for `blob "…"`).
        case text
        case symbol(Symbol)
        case end
    }

    enum Symbol: String {
        case leftParen = "(", rightParen = ")", leftBrace = "{", rightBrace = "}", semicolon = ";", comma = ","
        case colon = ":", equals = "=", dot = ".", arrow = "->", equalEqual = "==", notEqual = "!=", notColon = "!:"
    }

    var kind: Kind
    var text: String = ""
    var bytes: [UInt8] = []
    /// For numbers: a decimal point or exponent is present.
    var isFloat = false
    /// For numbers: hexadecimal digits after an optional sign and `0x`.
    var isHex = false
    var offset: Int
    /// The comment block (`//` lines or a block comment) that ends on the line just before this token, with no
    /// blank line in between: the token's documentation.
    var leadingComment: String?
    /// A comment that starts on this token's line after it (`amount : nat; // in e8s`).
    var trailingComment: String?
}

/// Splits Candid text into tokens, skipping whitespace, `//` line comments and nested `/* */` block comments.
struct CandidLexer {
    private let source: [UInt8]
    private var index = 0

    init(_ source: [UInt8]) { self.source = source }

    /// Refuses input that is not valid UTF-8 (at the first bad byte's real position), then splits it into tokens.
    static func tokenize(_ source: [UInt8], maxTokens: Int = CandidLimits.default.maxTextTokens) throws(CandidError) -> [CandidToken] {
        try validateUTF8(source)
        var lexer = CandidLexer(source)
        var tokens: [CandidToken] = []
        while true {
            let token = try lexer.next()
            guard tokens.count < maxTokens || token.kind == .end else {
                throw CandidError(.limitExceeded, "more than \(maxTokens) tokens", offset: token.offset)
            }
            if let trailing = lexer.trailingComment, !tokens.isEmpty { tokens[tokens.count - 1].trailingComment = trailing }
            tokens.append(token)
            if token.kind == .end { return tokens }
        }
    }

    /// Candid text is UTF-8 (the spec's grammar is over Unicode); OmniCodec's validator decides, strictly.
    static func validateUTF8(_ source: [UInt8]) throws(CandidError) {
        let bad = source.withUnsafeBufferPointer { UTF8Validation.firstInvalidByte($0) }
        guard bad < source.count else { return }
        // Show the bytes of the broken sequence: the lead byte and the continuation bytes it claims (at most 4).
        var end = bad + 1
        while end < min(source.count, bad + 4), source[end] & 0xC0 == 0x80 { end += 1 }
        let shown = source[bad..<end].map { "0x" + String($0, radix: 16, uppercase: true) }.joined(separator: " ")
        throw CandidError(.syntax, "invalid UTF-8 sequence \(shown)", offset: bad)
    }

    /// How an unexpected character is named in messages: `'%'`, or its code point and Unicode name.
    private func describeCharacter(at offset: Int) -> String {
        let byte = source[offset]
        if byte >= 0x20 && byte < 0x7F { return "'\(Character(Unicode.Scalar(byte)))'" }
        // The input is valid UTF-8 (checked first), so the scalar starting here decodes.
        var length = 1
        while offset + length < source.count, source[offset + length] & 0xC0 == 0x80 { length += 1 }
        guard let scalar = String(decoding: source[offset..<(offset + length)], as: UTF8.self).unicodeScalars.first else {
            return "U+" + String(byte, radix: 16, uppercase: true)
        }
        var code = String(scalar.value, radix: 16, uppercase: true)
        code = String(repeating: "0", count: max(0, 4 - code.count)) + code
        if let name = scalar.properties.name ?? scalar.properties.nameAlias { return "U+\(code) (\(name))" }
        return "U+\(code)"
    }

    private func peek(_ ahead: Int = 0) -> UInt8? {
        index + ahead < source.count ? source[index + ahead] : nil
    }

    private func error(_ message: String, at offset: Int) -> CandidError {
        CandidError(.syntax, message, offset: offset)
    }

    /// Comments read by the last `skipTrivia`: one on the previous token's line, and the block just before the next.
    private(set) var trailingComment: String?
    private var leadingComment: String?
    private var hasReadToken = false

    /// Skips whitespace and comments, keeping the comments that document the tokens on either side.
    private mutating func skipTrivia() throws(CandidError) {
        trailingComment = nil
        leadingComment = nil
        var block: [String] = []
        // Newlines since the previous token or the end of the last comment: 2 or more means a blank line.
        var newlines = 0
        var sawNewline = !hasReadToken
        func add(_ lines: [String]) {
            if !sawNewline {
                trailingComment = ((trailingComment.map { [$0] } ?? []) + lines).joined(separator: " ")
            } else {
                if newlines >= 2 { block.removeAll() }
                block += lines
            }
            newlines = 0
        }
        while let byte = peek() {
            switch byte {
            case 0x0A:
                index += 1
                newlines += 1
                sawNewline = true
            case 0x20, 0x09, 0x0D:
                index += 1
            case UInt8(ascii: "/") where peek(1) == UInt8(ascii: "/"):
                let start = index
                while let next = peek(), next != 0x0A { index += 1 }
                add([CandidLexer.lineCommentText(source[start..<index])])
            case UInt8(ascii: "/") where peek(1) == UInt8(ascii: "*"):
                let start = index
                index += 2
                var nesting = 1
                while nesting > 0 {
                    guard let next = peek() else { throw error("unterminated block comment", at: start) }
                    if next == UInt8(ascii: "/") && peek(1) == UInt8(ascii: "*") { nesting += 1; index += 2 }
                    else if next == UInt8(ascii: "*") && peek(1) == UInt8(ascii: "/") { nesting -= 1; index += 2 }
                    else { index += 1 }
                }
                add(CandidLexer.blockCommentLines(source[start..<index]))
            default:
                if newlines < 2 && !block.isEmpty {
                    let text = CandidLexer.trimmedBlock(block)
                    if !text.isEmpty { leadingComment = text }
                }
                return
            }
        }
    }

    /// `// text`, `/// text` → `text` (one space after the slashes dropped, trailing blanks trimmed).
    static func lineCommentText(_ bytes: ArraySlice<UInt8>) -> String {
        var body = bytes.dropFirst(2)
        if body.first == UInt8(ascii: "/") { body = body.dropFirst() }
        if body.first == 0x20 { body = body.dropFirst() }
        while let last = body.last, last == 0x20 || last == 0x09 || last == 0x0D { body = body.dropLast() }
        return String(decoding: body, as: UTF8.self)
    }

    /// The lines of `/* … */` or `/** … */` without the delimiters and the ` * ` margin of each line.
    static func blockCommentLines(_ bytes: ArraySlice<UInt8>) -> [String] {
        var body = bytes.dropFirst(2).dropLast(2)
        while body.first == UInt8(ascii: "*") { body = body.dropFirst() }
        return String(decoding: body, as: UTF8.self).split(separator: "\n", omittingEmptySubsequences: false).map { line in
            var text = Substring(line)
            while let first = text.first, first == " " || first == "\t" { text = text.dropFirst() }
            if text.first == "*" { text = text.dropFirst(); if text.first == " " { text = text.dropFirst() } }
            while let last = text.last, last == " " || last == "\t" || last == "\r" { text = text.dropLast() }
            return String(text)
        }
    }

    /// Comment lines as one text: blank lines at either end dropped, inner ones kept.
    static func trimmedBlock(_ lines: [String]) -> String {
        var lines = lines[...]
        while lines.first?.isEmpty == true { lines = lines.dropFirst() }
        while lines.last?.isEmpty == true { lines = lines.dropLast() }
        return lines.joined(separator: "\n")
    }

    mutating func next() throws(CandidError) -> CandidToken {
        try skipTrivia()
        hasReadToken = true
        var token = try lexToken()
        token.leadingComment = leadingComment
        return token
    }

    private mutating func lexToken() throws(CandidError) -> CandidToken {
        let start = index
        guard let byte = peek() else { return CandidToken(kind: .end, offset: start) }
        func symbol(_ symbol: CandidToken.Symbol, length: Int = 1) -> CandidToken {
            index += length
            return CandidToken(kind: .symbol(symbol), offset: start)
        }
        switch byte {
        case UInt8(ascii: "("): return symbol(.leftParen)
        case UInt8(ascii: ")"): return symbol(.rightParen)
        case UInt8(ascii: "{"): return symbol(.leftBrace)
        case UInt8(ascii: "}"): return symbol(.rightBrace)
        case UInt8(ascii: ";"): return symbol(.semicolon)
        case UInt8(ascii: ","): return symbol(.comma)
        case UInt8(ascii: ":"): return symbol(.colon)
        case UInt8(ascii: "."): return symbol(.dot)
        case UInt8(ascii: "="): return peek(1) == UInt8(ascii: "=") ? symbol(.equalEqual, length: 2) : symbol(.equals)
        case UInt8(ascii: "!") where peek(1) == UInt8(ascii: "="): return symbol(.notEqual, length: 2)
        case UInt8(ascii: "!") where peek(1) == UInt8(ascii: ":"): return symbol(.notColon, length: 2)
        case UInt8(ascii: "-") where peek(1) == UInt8(ascii: ">"): return symbol(.arrow, length: 2)
        case UInt8(ascii: "\""): return try lexText()
        case UInt8(ascii: "+"), UInt8(ascii: "-"), UInt8(ascii: "0")...UInt8(ascii: "9"): return try lexNumber()
        default:
            guard byte == UInt8(ascii: "_") || CandidLabel.isLetter(byte) else {
                throw error("unexpected character \(describeCharacter(at: start))", at: start)
            }
            while let next = peek(), next == UInt8(ascii: "_") || CandidLabel.isLetter(next) || CandidLabel.isDigit(next) {
                index += 1
            }
            return CandidToken(kind: .identifier, text: String(decoding: source[start..<index], as: UTF8.self), offset: start)
        }
    }

    private static func isHexDigit(_ byte: UInt8) -> Bool {
        CandidLabel.isDigit(byte) || (byte >= UInt8(ascii: "a") && byte <= UInt8(ascii: "f"))
            || (byte >= UInt8(ascii: "A") && byte <= UInt8(ascii: "F"))
    }

    /// `[+-]? digits(_digits)* (. digits?)? ([eE][+-]?digits)?` or `[+-]? 0x hex (. hex?)? ([pP][+-]?digits)?`.
    private mutating func lexNumber() throws(CandidError) -> CandidToken {
        let start = index
        var text = ""
        if let sign = peek(), sign == UInt8(ascii: "+") || sign == UInt8(ascii: "-") {
            if sign == UInt8(ascii: "-") { text = "-" }
            index += 1
            // Signed special floats: -inf, +nan.
            for word in ["infinity", "inf", "nan"] where source[index...].starts(with: word.utf8)
                && !(peek(word.utf8.count).map { CandidLabel.isLetter($0) || CandidLabel.isDigit($0) || $0 == UInt8(ascii: "_") } ?? false) {
                index += word.utf8.count
                return CandidToken(kind: .number, text: text + (word == "nan" ? "nan" : "inf"), isFloat: true, offset: start)
            }
            guard let next = peek(), CandidLabel.isDigit(next) else { throw error("expected a digit after the sign", at: start) }
        }
        var isFloat = false, isHex = false
        func digits(hex: Bool) -> String {
            var run = ""
            while let next = peek(), next == UInt8(ascii: "_") || (hex ? CandidLexer.isHexDigit(next) : CandidLabel.isDigit(next)) {
                if next != UInt8(ascii: "_") { run.unicodeScalars.append(Unicode.Scalar(next)) }
                index += 1
            }
            return run
        }
        /// An exponent after `marker` (either case): the marker, an optional sign and decimal digits (`e-3`, `p+4`);
        /// nil when the next character is not the marker.
        func exponentPart(marker: UInt8) throws(CandidError) -> String? {
            guard let next = peek(), next | 0x20 == marker else { return nil }
            index += 1
            var part = String(Unicode.Scalar(marker))
            if let sign = peek(), sign == UInt8(ascii: "+") || sign == UInt8(ascii: "-") {
                part.unicodeScalars.append(Unicode.Scalar(sign))
                index += 1
            }
            let exponent = digits(hex: false)
            guard !exponent.isEmpty else { throw error("expected exponent digits", at: index) }
            return part + exponent
        }
        if peek() == UInt8(ascii: "0"), let marker = peek(1), marker == UInt8(ascii: "x") || marker == UInt8(ascii: "X") {
            index += 2
            isHex = true
            let body = digits(hex: true)
            guard !body.isEmpty else { throw error("expected hexadecimal digits after 0x", at: start) }
            text += "0x" + body
            if peek() == UInt8(ascii: "."),
               !(peek(1).map { ($0 == UInt8(ascii: "_") || CandidLabel.isLetter($0)) && !CandidLexer.isHexDigit($0) } ?? false) {
                index += 1
                isFloat = true
                text += "." + digits(hex: true)
            }
            if let exponent = try exponentPart(marker: UInt8(ascii: "p")) {
                isFloat = true
                text += exponent
            }
        } else {
            text += digits(hex: false)
            // A dot belongs to the number unless a name follows (as in `func "…".method`).
            if peek() == UInt8(ascii: "."), !(peek(1).map { CandidLabel.isLetter($0) || $0 == UInt8(ascii: "_") } ?? false) {
                index += 1
                isFloat = true
                text += "." + digits(hex: false)
            }
            if let exponent = try exponentPart(marker: UInt8(ascii: "e")) {
                isFloat = true
                text += exponent
            }
        }
        if let next = peek(), CandidLabel.isLetter(next) || next == UInt8(ascii: "_") {
            throw error("unexpected character after number", at: index)
        }
        return CandidToken(kind: .number, text: text, isFloat: isFloat, isHex: isHex, offset: start)
    }

    /// A string literal with Candid escapes: `\n \r \t \\ \" \'`, `\XX` (one byte), `\u{X_XXXX}` (a scalar).
    private mutating func lexText() throws(CandidError) -> CandidToken {
        let start = index
        index += 1
        var bytes: [UInt8] = []
        while true {
            guard let byte = peek() else { throw error("unterminated text literal", at: start) }
            index += 1
            if byte == UInt8(ascii: "\"") { break }
            guard byte == UInt8(ascii: "\\") else { bytes.append(byte); continue }
            let escapeStart = index - 1
            guard let escape = peek() else { throw error("unterminated text literal", at: start) }
            index += 1
            switch escape {
            case UInt8(ascii: "n"): bytes.append(0x0A)
            case UInt8(ascii: "r"): bytes.append(0x0D)
            case UInt8(ascii: "t"): bytes.append(0x09)
            case UInt8(ascii: "\\"), UInt8(ascii: "\""), UInt8(ascii: "'"): bytes.append(escape)
            case UInt8(ascii: "u") where peek() == UInt8(ascii: "{"):
                index += 1
                var value: UInt32 = 0, digitCount = 0
                while let next = peek(), next != UInt8(ascii: "}") {
                    index += 1
                    if next == UInt8(ascii: "_") && digitCount > 0 { continue }
                    guard CandidLexer.isHexDigit(next), let digit = UInt32(String(Unicode.Scalar(next)), radix: 16) else {
                        throw error("invalid Unicode escape", at: escapeStart)
                    }
                    digitCount += 1
                    guard digitCount <= 6 else { throw error("Unicode escape out of range", at: escapeStart) }
                    value = value * 16 + digit
                }
                guard peek() == UInt8(ascii: "}"), digitCount > 0 else { throw error("unterminated Unicode escape", at: escapeStart) }
                index += 1
                guard let scalar = Unicode.Scalar(value) else {
                    throw error("Unicode escape out of range \(String(value, radix: 16))", at: escapeStart)
                }
                bytes.append(contentsOf: Array(String(Character(scalar)).utf8))
            default:
                guard CandidLexer.isHexDigit(escape), let low = peek(), CandidLexer.isHexDigit(low),
                      let value = UInt8(String(decoding: [escape, low], as: UTF8.self), radix: 16) else {
                    let shown = escape >= 0x20 && escape < 0x7F ? String(Character(Unicode.Scalar(escape))) : "0x\(String(escape, radix: 16))"
                    throw error("unknown escape character \(shown)", at: escapeStart)
                }
                index += 1
                bytes.append(value)
            }
        }
        return CandidToken(kind: .text, bytes: bytes, offset: start)
    }
}

/// 1-based line and column (in Unicode scalars) of a byte offset.
func lineAndColumn(of offset: Int, in source: [UInt8]) -> (line: Int, column: Int) {
    var line = 1, column = 1
    var index = 0
    while index < min(offset, source.count) {
        if source[index] == 0x0A { line += 1; column = 1 } else if source[index] & 0xC0 != 0x80 { column += 1 }
        index += 1
    }
    return (line, column)
}
