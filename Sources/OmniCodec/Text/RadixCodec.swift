/// What a decoder accepts as `=` padding at the end of base32/base64 text.
public enum PaddingRule: Sendable {
    /// The text must be padded to a whole group.
    case required
    /// No `=` may appear.
    case forbidden
    /// Either no padding, or exactly the padding that completes the last group.
    case optional
}

/// Table-driven base32/base64 (RFC 4648): a bit accumulator over fixed-width symbols, output allocated once.
struct RadixCodec: Sendable {
    let format: String
    let symbols: [UInt8]
    /// Symbol value per input byte; 0xFF for bytes outside the alphabet.
    let values: [UInt8]
    let bitsPerSymbol: Int
    let symbolsPerGroup: Int
    let bytesPerGroup: Int
    /// Symbol counts (mod the group) that a final partial group may have.
    let validRemainders: Set<Int>

    init(format: String, alphabet: String, caseInsensitive: Bool, bitsPerSymbol: Int, symbolsPerGroup: Int,
         bytesPerGroup: Int, validRemainders: Set<Int>) {
        self.format = format
        symbols = Array(alphabet.utf8)
        var table = [UInt8](repeating: 0xFF, count: 256)
        for (value, symbol) in symbols.enumerated() {
            table[Int(symbol)] = UInt8(value)
            if caseInsensitive, (UInt8(ascii: "A")...UInt8(ascii: "Z")).contains(symbol) {
                table[Int(symbol | 0x20)] = UInt8(value)
            }
        }
        values = table
        self.bitsPerSymbol = bitsPerSymbol
        self.symbolsPerGroup = symbolsPerGroup
        self.bytesPerGroup = bytesPerGroup
        self.validRemainders = validRemainders
    }

    func encode(_ bytes: some Collection<UInt8>, padded: Bool, lowercase: Bool) -> String {
        let symbolCount = (bytes.count * 8 + bitsPerSymbol - 1) / bitsPerSymbol
        let groups = (bytes.count + bytesPerGroup - 1) / bytesPerGroup
        let total = padded ? groups * symbolsPerGroup : symbolCount
        let mask: UInt32 = (1 << UInt32(bitsPerSymbol)) - 1
        let shift = UInt32(bitsPerSymbol)
        let caseBit: UInt8 = lowercase ? 0x20 : 0
        return String(unsafeUninitializedCapacity: total) { out in
            var accumulator: UInt32 = 0
            var bits: UInt32 = 0
            var o = 0
            for byte in bytes {
                accumulator = accumulator << 8 | UInt32(byte)
                bits += 8
                while bits >= shift {
                    bits -= shift
                    out[o] = symbol(Int(accumulator >> bits & mask), caseBit)
                    o += 1
                }
                accumulator &= (1 << bits) - 1
            }
            if bits > 0 {
                out[o] = symbol(Int(accumulator << (shift - bits) & mask), caseBit)
                o += 1
            }
            while o < total {
                out[o] = UInt8(ascii: "=")
                o += 1
            }
            return o
        }
    }

    private func symbol(_ value: Int, _ caseBit: UInt8) -> UInt8 {
        let s = symbols[value]
        return s >= UInt8(ascii: "A") && s <= UInt8(ascii: "Z") ? s | caseBit : s
    }

    func decode(_ text: some StringProtocol, padding: PaddingRule, allowWhitespace: Bool,
                strictTrailingBits: Bool) throws(CodecError) -> [UInt8] {
        let result = text.utf8.withContiguousStorageIfAvailable {
            decode($0, padding: padding, allowWhitespace: allowWhitespace, strictTrailingBits: strictTrailingBits)
        } ?? Array(text.utf8).withUnsafeBufferPointer {
            decode($0, padding: padding, allowWhitespace: allowWhitespace, strictTrailingBits: strictTrailingBits)
        }
        return try result.get()
    }

    private func error(_ message: String, at offset: Int) -> CodecError {
        CodecError(.malformed, format: format, message, offset: offset)
    }

    private static func isWhitespace(_ byte: UInt8) -> Bool {
        byte == 0x20 || byte == 0x09 || byte == 0x0A || byte == 0x0D
    }

    private func decode(_ input: UnsafeBufferPointer<UInt8>, padding: PaddingRule, allowWhitespace: Bool,
                        strictTrailingBits: Bool) -> Result<[UInt8], CodecError> {
        var output: [UInt8] = []
        output.reserveCapacity(input.count * bitsPerSymbol / 8)
        let shift = UInt32(bitsPerSymbol)
        var accumulator: UInt32 = 0
        var bits: UInt32 = 0
        var symbolCount = 0
        var lastSymbolOffset = 0
        var i = 0
        while i < input.count {
            let byte = input[i]
            let value = values[Int(byte)]
            if value != 0xFF {
                accumulator = accumulator << shift | UInt32(value)
                bits += shift
                if bits >= 8 {
                    bits -= 8
                    output.append(UInt8(truncatingIfNeeded: accumulator >> bits))
                    accumulator &= (1 << bits) - 1
                }
                symbolCount += 1
                lastSymbolOffset = i
            } else if byte == UInt8(ascii: "=") {
                break
            } else if !(allowWhitespace && RadixCodec.isWhitespace(byte)) {
                return .failure(error("invalid \(format) character \(describeASCII(byte))", at: i))
            }
            i += 1
        }
        let firstPad = i
        var padCount = 0
        while i < input.count {
            let byte = input[i]
            if byte == UInt8(ascii: "=") {
                padCount += 1
            } else if !(allowWhitespace && RadixCodec.isWhitespace(byte)) {
                return .failure(error("\(describeASCII(byte)) after padding", at: i))
            }
            i += 1
        }
        let remainder = symbolCount % symbolsPerGroup
        guard validRemainders.contains(remainder) else {
            return .failure(error("invalid length: \(symbolCount) symbols cannot end a \(format) text",
                                  at: symbolCount == 0 ? 0 : lastSymbolOffset))
        }
        if padCount > 0 {
            if padding == .forbidden { return .failure(error("padding is not allowed", at: firstPad)) }
            if remainder == 0 || padCount != symbolsPerGroup - remainder {
                return .failure(error("\(padCount) padding character(s) do not complete the last group", at: firstPad))
            }
        } else if padding == .required, remainder != 0 {
            return .failure(error("missing padding", at: input.count))
        }
        if strictTrailingBits, accumulator != 0 {
            return .failure(error("non-zero unused bits in the last symbol", at: lastSymbolOffset))
        }
        return .success(output)
    }
}

/// Base 32 (RFC 4648 §6). Encodes lowercase without padding by default, the form IC principals use.
public enum Base32 {
    static let codec = RadixCodec(format: "base32", alphabet: "ABCDEFGHIJKLMNOPQRSTUVWXYZ234567", caseInsensitive: true,
                                  bitsPerSymbol: 5, symbolsPerGroup: 8, bytesPerGroup: 5, validRemainders: [0, 2, 4, 5, 7])

    public static func encode(_ bytes: some Collection<UInt8>, padded: Bool = false, uppercase: Bool = false) -> String {
        codec.encode(bytes, padded: padded, lowercase: !uppercase)
    }

    /// Decodes either case. Unused bits of the last symbol must be zero; padding follows `padding`.
    public static func decode(_ text: some StringProtocol, padding: PaddingRule = .optional) throws(CodecError) -> [UInt8] {
        try codec.decode(text, padding: padding, allowWhitespace: false, strictTrailingBits: true)
    }
}

/// Base 64 (RFC 4648 §4) and its URL- and filename-safe variant (§5).
public enum Base64 {
    public enum Alphabet: Sendable {
        /// `+` and `/`.
        case standard
        /// `-` and `_`.
        case urlSafe
    }

    static let standardCodec = RadixCodec(
        format: "base64", alphabet: "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/",
        caseInsensitive: false, bitsPerSymbol: 6, symbolsPerGroup: 4, bytesPerGroup: 3, validRemainders: [0, 2, 3])
    static let urlSafeCodec = RadixCodec(
        format: "base64", alphabet: "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_",
        caseInsensitive: false, bitsPerSymbol: 6, symbolsPerGroup: 4, bytesPerGroup: 3, validRemainders: [0, 2, 3])

    private static func codec(_ alphabet: Alphabet) -> RadixCodec {
        alphabet == .standard ? standardCodec : urlSafeCodec
    }

    public static func encode(_ bytes: some Collection<UInt8>, alphabet: Alphabet = .standard, padded: Bool = true) -> String {
        codec(alphabet).encode(bytes, padded: padded, lowercase: false)
    }

    /// Decodes base64. Whitespace (space, tab, CR, LF) is an error unless `allowWhitespace`; with `strict`, the
    /// unused bits of the last symbol must be zero so that every byte string has exactly one encoding.
    public static func decode(_ text: some StringProtocol, alphabet: Alphabet = .standard, padding: PaddingRule = .optional,
                              allowWhitespace: Bool = false, strict: Bool = true) throws(CodecError) -> [UInt8] {
        try codec(alphabet).decode(text, padding: padding, allowWhitespace: allowWhitespace, strictTrailingBits: strict)
    }
}
