/// Limits for decoding untrusted Norito. Lengths are also always bounded by the bytes actually present.
public struct NoritoLimits: Sendable {
    /// Nesting of `field`/`option`/`sequence` bodies.
    public var maxDepth: Int
    /// Elements in one sequence.
    public var maxSequenceCount: Int
    /// Bytes in one string or byte vector.
    public var maxByteLength: Int

    public init(maxDepth: Int = 32, maxSequenceCount: Int = 4096, maxByteLength: Int = 1 << 20) {
        self.maxDepth = maxDepth
        self.maxSequenceCount = maxSequenceCount
        self.maxByteLength = maxByteLength
    }

    public static let `default` = NoritoLimits()
}

/// One decoded item with where it sits in the input, for annotated dumps.
public struct NoritoAnnotation: Sendable, Equatable {
    public let offset: Int
    public let length: Int
    /// Dotted location, e.g. `kind.control.open.app_meta.name`.
    public let path: String
    /// The value as text (`len 32`, `7`, `"omni"`, hex for bytes).
    public let value: String
}

/// Reads Norito's default encoding from a byte array, refusing anything that does not consume its declared
/// lengths exactly. Errors are `CodecError(format: "Norito")` with the absolute byte offset and the field path.
public struct NoritoReader: Sendable {
    /// The shared bounded cursor (also SCALE's); its window is the innermost field being read.
    private var cursor: ByteCursor
    public let limits: NoritoLimits
    /// Filled only when annotations were requested.
    public private(set) var annotations: [NoritoAnnotation]?

    public init(_ bytes: [UInt8], limits: NoritoLimits = .default, recordAnnotations: Bool = false) {
        cursor = ByteCursor(bytes, format: "Norito", pathStyle: .dotted)
        self.limits = limits
        annotations = recordAnnotations ? [] : nil
    }

    public var position: Int { cursor.position }

    /// Bytes left in the innermost field.
    public var remaining: Int { cursor.remaining }

    public var pathDescription: String { cursor.pathDescription ?? "" }

    private var path: [String] { cursor.path }

    // MARK: - Errors

    public func error(_ message: String, at offset: Int? = nil) -> CodecError {
        cursor.error(message, at: offset)
    }

    private func limitError(_ message: String, at offset: Int) -> CodecError {
        cursor.limitError(message, at: offset)
    }

    /// Succeeds only when every byte of the input was consumed.
    public func finish() throws(CodecError) {
        guard cursor.position == cursor.bytes.count else {
            throw error("\(cursor.bytes.count - cursor.position) trailing bytes after the value")
        }
    }

    // MARK: - Primitives

    public mutating func u8(_ name: String) throws(CodecError) -> UInt8 {
        let value = try takeByte(name)
        note(name, offset: position - 1, length: 1, String(value))
        return value
    }

    public mutating func u16(_ name: String) throws(CodecError) -> UInt16 {
        let value = UInt16(try littleEndian(2, name))
        note(name, offset: position - 2, length: 2, String(value))
        return value
    }

    public mutating func u32(_ name: String) throws(CodecError) -> UInt32 {
        let value = UInt32(try littleEndian(4, name))
        note(name, offset: position - 4, length: 4, String(value))
        return value
    }

    public mutating func u64(_ name: String) throws(CodecError) -> UInt64 {
        let value = try littleEndian(8, name)
        note(name, offset: position - 8, length: 8, String(value))
        return value
    }

    public mutating func bool(_ name: String) throws(CodecError) -> Bool {
        let start = position
        let byte = try takeByte(name)
        guard byte <= 1 else { throw error("\(name): bool must be 00 or 01, got \(hexByte(byte))", at: start) }
        note(name, offset: start, length: 1, byte == 1 ? "true" : "false")
        return byte == 1
    }

    /// Exactly `count` bytes with no prefix.
    public mutating func raw(_ count: Int, _ name: String) throws(CodecError) -> [UInt8] {
        let start = position
        let value = Array(try take(count, name))
        note(name, offset: start, length: count, Hex.encode(value))
        return value
    }

    /// `String`: `u64 length` ‖ UTF-8 (validated).
    public mutating func string(_ name: String) throws(CodecError) -> String {
        let start = position
        let length = try declaredLength(name, elementSize: 1)
        let textStart = position
        let utf8 = try take(length, name)
        guard let text = String(validating: utf8, as: UTF8.self) else {
            throw error("\(name): string is not valid UTF-8", at: textStart)
        }
        note(name, offset: start, length: position - start, quoted(text))
        return text
    }

    /// `Vec<u8>` in its packed form: `u64 length` ‖ raw bytes.
    public mutating func byteVector(_ name: String) throws(CodecError) -> [UInt8] {
        let start = position
        let length = try declaredLength(name, elementSize: 1)
        let value = Array(try take(length, name))
        note(name, offset: start, length: position - start, "\(length) bytes " + Hex.encode(value.prefix(64)) + (length > 64 ? "…" : ""))
        return value
    }

    /// Bytes written as `u8` elements, each `u64 1` ‖ byte; `count` nil means a `u64` count comes first.
    public mutating func elementwiseBytes(count: Int?, _ name: String) throws(CodecError) -> [UInt8] {
        let start = position
        let elements: Int
        if let count {
            elements = count
        } else {
            elements = try declaredLength(name, elementSize: 9)
        }
        guard elements <= remaining / 9 else {
            throw error("\(name): \(elements) byte elements need \(elements * 9) bytes, \(remaining) left")
        }
        var value = [UInt8]()
        value.reserveCapacity(elements)
        for index in 0..<elements {
            let elementStart = position
            let length = try littleEndian(8, name)
            guard length == 1 else {
                throw error("\(name)[\(index)]: element length must be 1, got \(length)", at: elementStart)
            }
            value.append(try takeByte(name))
        }
        note(name, offset: start, length: position - start, "\(elements) bytes " + Hex.encode(value.prefix(64)) + (elements > 64 ? "…" : ""))
        return value
    }

    // MARK: - Structure

    /// `field(x)`: a `u64` length, then `body` must consume exactly that many bytes.
    public mutating func field<T>(_ name: String, _ body: (inout NoritoReader) throws(CodecError) -> T) throws(CodecError) -> T {
        let start = position
        let length = try declaredLength(name, elementSize: 1)
        note(name, offset: start, length: 8, "len \(length)", suffix: "#len")
        return try within(length: length, name: name, body)
    }

    /// `Option<T>`: `00`, or `01` ‖ `field(T)`.
    public mutating func option<T>(_ name: String, _ body: (inout NoritoReader) throws(CodecError) -> T) throws(CodecError) -> T? {
        let start = position
        let tag = try takeByte(name)
        switch tag {
        case 0:
            note(name, offset: start, length: 1, "None")
            return nil
        case 1:
            note(name, offset: start, length: 1, "Some", suffix: "#some")
            return try field(name, body)
        default:
            throw error("\(name): option tag must be 00 or 01, got \(hexByte(tag))", at: start)
        }
    }

    /// `Vec<T>`: a `u64` count, then one `field(T)` per element.
    public mutating func sequence<T>(_ name: String, _ body: (inout NoritoReader) throws(CodecError) -> T) throws(CodecError) -> [T] {
        let start = position
        let count = try littleEndian(8, name)
        // Every element is at least its 8-byte length prefix.
        guard count <= UInt64(remaining / 8) else {
            throw error("\(name): \(count) elements cannot fit in the \(remaining) bytes left", at: start)
        }
        guard count <= UInt64(limits.maxSequenceCount) else {
            throw limitError("\(name): \(count) elements exceed the limit of \(limits.maxSequenceCount)", at: start)
        }
        note(name, offset: start, length: 8, "count \(count)", suffix: "#count")
        var items: [T] = []
        items.reserveCapacity(Int(count))
        for index in 0..<Int(count) {
            items.append(try field("\(name)[\(index)]", body))
        }
        return items
    }

    /// A hand-rolled tagged body: `u32 tag` ‖ `u64 length` ‖ body consuming exactly that length.
    public mutating func taggedBody<T>(
        _ name: String, _ body: (inout NoritoReader, UInt32) throws(CodecError) -> T
    ) throws(CodecError) -> T {
        let tag = try u32("\(name)#tag")
        return try field(name) { (reader: inout NoritoReader) throws(CodecError) -> T in try body(&reader, tag) }
    }

    /// Runs `body` over the next `length` bytes and checks it consumed all of them.
    private mutating func within<T>(
        length: Int, name: String, _ body: (inout NoritoReader) throws(CodecError) -> T
    ) throws(CodecError) -> T {
        guard path.count < limits.maxDepth else {
            throw limitError("nesting deeper than \(limits.maxDepth)", at: position)
        }
        let outerEnd = try cursor.enterWindow(length: length, name)
        cursor.push(name)
        let value = try body(&self)
        try cursor.leaveWindow(outerEnd, name)
        cursor.pop()
        return value
    }

    // MARK: - Helpers

    private mutating func take(_ count: Int, _ name: String) throws(CodecError) -> ArraySlice<UInt8> {
        try cursor.take(count, name)
    }

    private mutating func takeByte(_ name: String) throws(CodecError) -> UInt8 {
        try cursor.byte(name)
    }

    private mutating func littleEndian(_ size: Int, _ name: String) throws(CodecError) -> UInt64 {
        try cursor.littleEndian(size, name)
    }

    /// A `u64` length that must fit in what is left (each element `elementSize` bytes) and in the limits.
    private mutating func declaredLength(_ name: String, elementSize: Int) throws(CodecError) -> Int {
        let start = position
        let length = try littleEndian(8, name)
        guard length <= UInt64(remaining / elementSize) else {
            throw error("\(name): declared length \(length) exceeds the \(remaining) bytes left", at: start)
        }
        guard length <= UInt64(limits.maxByteLength) else {
            throw limitError("\(name): length \(length) exceeds the limit of \(limits.maxByteLength) bytes", at: start)
        }
        return Int(length)
    }

    private mutating func note(_ name: String, offset: Int, length: Int, _ value: String, suffix: String = "") {
        guard annotations != nil else { return }
        let location = (path + [name]).joined(separator: ".") + suffix
        annotations?.append(NoritoAnnotation(offset: offset, length: length, path: location, value: value))
    }
}

private func hexByte(_ byte: UInt8) -> String { Hex.encode([byte]) }

private func quoted(_ text: String) -> String {
    var out = "\""
    for scalar in text.unicodeScalars {
        switch scalar {
        case "\"": out += "\\\""
        case "\\": out += "\\\\"
        case _ where scalar.value < 0x20: out += "\\u{\(String(scalar.value, radix: 16))}"
        default: out.unicodeScalars.append(scalar)
        }
    }
    return out + "\""
}
