/// The one bounded reader over untrusted bytes that the binary decoders share (Norito, SCALE): a position, a
/// window end (the innermost length-delimited field), the field path for messages, and errors that carry the
/// absolute byte offset. It never reads past the window and never traps on hostile lengths.
public struct ByteCursor: Sendable {
    /// How the path prints in errors: Norito's dotted names (`kind.control.open`) or a JSON-style path
    /// (`$.payload.items[3].label`) whose components already carry their `.` or `[…]`.
    public enum PathStyle: Sendable {
        case dotted
        case jsonPath
    }

    public let bytes: [UInt8]
    public private(set) var position: Int
    /// End of the window being read (the whole input unless inside `enterWindow`).
    public private(set) var end: Int
    /// "Norito", "SCALE": the format named in errors.
    public let format: String
    public let pathStyle: PathStyle
    public private(set) var path: [String] = []

    public init(_ bytes: [UInt8], format: String, pathStyle: PathStyle, start: Int = 0) {
        self.bytes = bytes
        self.format = format
        self.pathStyle = pathStyle
        position = min(max(0, start), bytes.count)
        end = bytes.count
    }

    /// Bytes left in the current window.
    public var remaining: Int { end - position }
    public var isAtEnd: Bool { position >= end }

    /// The path as it prints; nil at the top level.
    public var pathDescription: String? {
        switch pathStyle {
        case .dotted: path.isEmpty ? nil : path.joined(separator: ".")
        case .jsonPath: "$" + path.joined()
        }
    }

    public mutating func push(_ component: String) { path.append(component) }
    public mutating func pop() { if !path.isEmpty { path.removeLast() } }

    // MARK: - Errors

    public func error(_ message: String, at offset: Int? = nil) -> CodecError {
        CodecError(.malformed, format: format, message, offset: offset ?? position, path: pathDescription)
    }

    public func limitError(_ message: String, at offset: Int? = nil) -> CodecError {
        CodecError(.limitExceeded, format: format, message, offset: offset ?? position, path: pathDescription)
    }

    // MARK: - Reading

    /// The next `count` bytes of the window.
    public mutating func take(_ count: Int, _ what: String) throws(CodecError) -> ArraySlice<UInt8> {
        guard count >= 0, count <= remaining else {
            throw error("\(what): needs \(count) bytes, \(remaining) left")
        }
        defer { position += count }
        return bytes[position..<(position + count)]
    }

    public mutating func byte(_ what: String) throws(CodecError) -> UInt8 {
        guard remaining >= 1 else { throw error("\(what): needs 1 byte, 0 left") }
        defer { position += 1 }
        return bytes[position]
    }

    /// A little-endian unsigned integer of `size` ≤ 8 bytes.
    public mutating func littleEndian(_ size: Int, _ what: String) throws(CodecError) -> UInt64 {
        precondition(size <= 8, "at most 8 bytes fit a UInt64")
        let slice = try take(size, what)
        var value: UInt64 = 0
        for (shift, byte) in slice.enumerated() { value |= UInt64(byte) << (8 * UInt64(shift)) }
        return value
    }

    /// The rest of the window, consumed.
    public mutating func rest() -> ArraySlice<UInt8> {
        defer { position = end }
        return bytes[position..<end]
    }

    // MARK: - Windows

    /// Narrows reading to the next `length` bytes (which must be present); returns the outer end for `leaveWindow`.
    public mutating func enterWindow(length: Int, _ what: String) throws(CodecError) -> Int {
        guard length >= 0, length <= remaining else {
            throw error("\(what): declared length \(length) exceeds the \(remaining) bytes left")
        }
        let outer = end
        end = position + length
        return outer
    }

    /// Restores the window `enterWindow` narrowed, after checking every byte of it was read.
    public mutating func leaveWindow(_ outerEnd: Int, _ what: String) throws(CodecError) {
        guard position == end else {
            throw error("\(end - position) unread bytes at the end of \(what)")
        }
        end = outerEnd
    }
}
