/// How `CBOR.encoded` writes a value. Integer, length and tag heads are always in their shortest form
/// (RFC 8949 preferred serialization).
public struct CBOREncodingOptions: Sendable {
    public enum FloatWidths: Sendable {
        /// The width each `.float` records; a value that does not fit it exactly is widened, never rounded.
        case asRecorded
        /// The shortest width that holds each value exactly (preferred serialization).
        case shortest
    }

    public var floatWidths: FloatWidths
    /// Order map pairs by the bytewise lexicographic order of their encoded keys (RFC 8949 §4.2.1).
    public var sortMapKeys: Bool
    /// Write indefinite-length cases as their definite equivalents.
    public var definiteLengthsOnly: Bool
    /// Nesting of arrays, maps and tags the encoder follows before refusing the value.
    public var maxDepth: Int

    public init(floatWidths: FloatWidths = .asRecorded, sortMapKeys: Bool = false, definiteLengthsOnly: Bool = false,
                maxDepth: Int = 1024) {
        self.floatWidths = floatWidths
        self.sortMapKeys = sortMapKeys
        self.definiteLengthsOnly = definiteLengthsOnly
        self.maxDepth = maxDepth
    }

    /// Writes exactly what the model says (indefinite lengths and float widths included).
    public static let `default` = CBOREncodingOptions()
    /// RFC 8949 §4.2.1 core deterministic encoding.
    public static let canonical = CBOREncodingOptions(floatWidths: .shortest, sortMapKeys: true, definiteLengthsOnly: true)
}

extension CBOR {
    /// The encoding of this value. Fails only for values no encoding exists for (simple values 24…31) or nesting
    /// beyond `options.maxDepth`.
    public func encoded(options: CBOREncodingOptions = .default) throws(CodecError) -> [UInt8] {
        var writer = CBORWriter(options: options)
        try writer.write(self)
        return writer.out
    }

    /// Appends the encoding of this value to `buffer`.
    public func encode(into buffer: inout [UInt8], options: CBOREncodingOptions = .default) throws(CodecError) {
        var writer = CBORWriter(options: options)
        swap(&writer.out, &buffer)
        defer { swap(&writer.out, &buffer) }
        try writer.write(self)
    }
}

struct CBORWriter {
    var out: [UInt8] = []
    let options: CBOREncodingOptions

    init(options: CBOREncodingOptions) {
        self.options = options
        out.reserveCapacity(64)
    }

    mutating func write(_ item: CBOR) throws(CodecError) {
        do { try write(item, depth: 0) } catch { throw error.path == nil ? error.withPath("$") : error }
    }

    mutating func writeHead(_ major: UInt8, _ argument: UInt64) {
        let type = major << 5
        switch argument {
        case 0..<24:
            out.append(type | UInt8(argument))
        case 24...0xFF:
            out.append(type | 24)
            out.append(UInt8(argument))
        case 0x100...0xFFFF:
            out.append(type | 25)
            appendBigEndian(argument, byteCount: 2)
        case 0x1_0000...0xFFFF_FFFF:
            out.append(type | 26)
            appendBigEndian(argument, byteCount: 4)
        default:
            out.append(type | 27)
            appendBigEndian(argument, byteCount: 8)
        }
    }

    private mutating func appendBigEndian(_ value: UInt64, byteCount: Int) {
        for i in stride(from: byteCount - 1, through: 0, by: -1) {
            out.append(UInt8(truncatingIfNeeded: value >> (UInt64(i) * 8)))
        }
    }

    private mutating func write(_ item: CBOR, depth: Int) throws(CodecError) {
        switch item {
        case .unsigned(let n): writeHead(0, n)
        case .negative(let n): writeHead(1, n)
        case .bytes(let b):
            writeHead(2, UInt64(b.count))
            out.append(contentsOf: b)
        case .text(let s):
            var text = s
            text.withUTF8 { utf8 in
                writeHead(3, UInt64(utf8.count))
                out.append(contentsOf: utf8)
            }
        case .array(let items):
            try writeArray(items, indefinite: false, depth: depth)
        case .indefiniteArray(let items):
            try writeArray(items, indefinite: !options.definiteLengthsOnly, depth: depth)
        case .map(let pairs):
            try writeMap(pairs, indefinite: false, depth: depth)
        case .indefiniteMap(let pairs):
            try writeMap(pairs, indefinite: !options.definiteLengthsOnly, depth: depth)
        case .tagged(let number, let content):
            guard depth < options.maxDepth else { throw tooDeep() }
            writeHead(6, number)
            do { try write(content, depth: depth + 1) } catch { throw error.prefixingPath("<\(number)>") }
        case .bool(let b): out.append(b ? 0xF5 : 0xF4)
        case .null: out.append(0xF6)
        case .undefined: out.append(0xF7)
        case .simple(let n):
            switch n {
            case 0..<24: out.append(0xE0 | n)
            case 24..<32:
                throw CodecError(.unsupported, format: "CBOR", "simple value \(n) has no encoding (24…31 are reserved)")
            default:
                out.append(0xF8)
                out.append(n)
            }
        case .float(let value, let recorded):
            let width: CBOR.FloatWidth
            switch options.floatWidths {
            case .asRecorded: width = CBORFloatBits.fits(value, in: recorded) ? recorded : CBORFloatBits.shortestWidth(value)
            case .shortest: width = CBORFloatBits.shortestWidth(value)
            }
            switch width {
            case .half:
                out.append(0xF9)
                appendBigEndian(UInt64(CBORFloatBits.halfBits(exactly: value) ?? 0), byteCount: 2)
            case .single:
                out.append(0xFA)
                appendBigEndian(UInt64(CBORFloatBits.singleBits(exactly: value) ?? 0), byteCount: 4)
            case .double:
                out.append(0xFB)
                appendBigEndian(value.bitPattern, byteCount: 8)
            }
        case .byteChunks(let chunks):
            if options.definiteLengthsOnly {
                writeHead(2, UInt64(chunks.reduce(0) { $0 + $1.count }))
                for chunk in chunks { out.append(contentsOf: chunk) }
            } else {
                out.append(0x5F)
                for chunk in chunks {
                    writeHead(2, UInt64(chunk.count))
                    out.append(contentsOf: chunk)
                }
                out.append(0xFF)
            }
        case .textChunks(let chunks):
            if options.definiteLengthsOnly {
                try write(.text(chunks.joined()), depth: depth)
            } else {
                out.append(0x7F)
                for chunk in chunks { try write(.text(chunk), depth: depth) }
                out.append(0xFF)
            }
        }
    }

    private func tooDeep() -> CodecError {
        CodecError(.limitExceeded, format: "CBOR", "value nested deeper than \(options.maxDepth)")
    }

    private mutating func writeArray(_ items: [CBOR], indefinite: Bool, depth: Int) throws(CodecError) {
        guard depth < options.maxDepth else { throw tooDeep() }
        if indefinite { out.append(0x9F) } else { writeHead(4, UInt64(items.count)) }
        for (index, item) in items.enumerated() {
            do { try write(item, depth: depth + 1) } catch { throw error.prefixingPath("[\(index)]") }
        }
        if indefinite { out.append(0xFF) }
    }

    private mutating func writeMap(_ pairs: [CBOR.Pair], indefinite: Bool, depth: Int) throws(CodecError) {
        guard depth < options.maxDepth else { throw tooDeep() }
        if indefinite { out.append(0xBF) } else { writeHead(5, UInt64(pairs.count)) }
        if options.sortMapKeys {
            var encodedKeys: [(bytes: [UInt8], index: Int)] = []
            encodedKeys.reserveCapacity(pairs.count)
            for (index, pair) in pairs.enumerated() {
                var keyWriter = CBORWriter(options: options)
                do { try keyWriter.write(pair.key, depth: depth + 1) } catch { throw error.prefixingPath("{key \(index)}") }
                encodedKeys.append((keyWriter.out, index))
            }
            encodedKeys.sort { $0.bytes.lexicographicallyPrecedes($1.bytes) }
            for key in encodedKeys {
                out.append(contentsOf: key.bytes)
                let pair = pairs[key.index]
                do { try write(pair.value, depth: depth + 1) } catch {
                    throw error.prefixingPath(CBORReader.pathComponent(for: pair.key, index: key.index))
                }
            }
        } else {
            for (index, pair) in pairs.enumerated() {
                do { try write(pair.key, depth: depth + 1) } catch { throw error.prefixingPath("{key \(index)}") }
                do { try write(pair.value, depth: depth + 1) } catch {
                    throw error.prefixingPath(CBORReader.pathComponent(for: pair.key, index: index))
                }
            }
        }
        if indefinite { out.append(0xFF) }
    }
}
