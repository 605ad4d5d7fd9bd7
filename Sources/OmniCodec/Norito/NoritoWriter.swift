/// Builds Norito's default (AoS, header flags 0x00) encoding: little-endian integers, and every struct field,
/// option body and sequence element wrapped as `field(x)` = `u64 LE byte length of x` ‖ `x`.
///
/// Only the primitives live here; types decide which of them to use (the two Iroha Connect generations differ
/// in how fixed byte arrays, signatures and algorithm tags are written, see `elementwiseBytes`).
public struct NoritoWriter: Sendable {
    public private(set) var bytes: [UInt8]

    public init(capacity: Int = 128) {
        bytes = []
        bytes.reserveCapacity(capacity)
    }

    public mutating func u8(_ value: UInt8) { bytes.append(value) }
    public mutating func u16(_ value: UInt16) { appendLittleEndian(value) }
    public mutating func u32(_ value: UInt32) { appendLittleEndian(value) }
    public mutating func u64(_ value: UInt64) { appendLittleEndian(value) }
    public mutating func bool(_ value: Bool) { bytes.append(value ? 1 : 0) }

    /// Bytes with no prefix (fixed arrays in the packed form, already-encoded parts).
    public mutating func raw(_ data: some Collection<UInt8>) { bytes.append(contentsOf: data) }

    /// `String`: `u64 length` ‖ UTF-8.
    public mutating func string(_ text: String) {
        let utf8 = text.utf8
        u64(UInt64(utf8.count))
        bytes.append(contentsOf: utf8)
    }

    /// `Vec<u8>` in its packed form: `u64 length` ‖ raw bytes.
    public mutating func byteVector(_ data: some Collection<UInt8>) {
        u64(UInt64(data.count))
        bytes.append(contentsOf: data)
    }

    /// Bytes as a generic sequence of `u8` elements without a count: each byte as `field(u8)` = `u64 1` ‖ byte.
    /// (Older Norito wrote `[u8; N]` this way; with `withCount` it is the generic `Vec<u8>` form.)
    public mutating func elementwiseBytes(_ data: some Collection<UInt8>, withCount: Bool) {
        if withCount { u64(UInt64(data.count)) }
        bytes.reserveCapacity(bytes.count + data.count * 9)
        for byte in data {
            u64(1)
            bytes.append(byte)
        }
    }

    /// `field(x)`: writes what `body` writes, preceded by its byte length.
    public mutating func field(_ body: (inout NoritoWriter) -> Void) {
        let lengthAt = bytes.count
        u64(0)
        body(&self)
        patchLength(at: lengthAt)
    }

    /// `Option<T>`: `00`, or `01` ‖ `field(T)`.
    public mutating func option<T>(_ value: T?, _ body: (inout NoritoWriter, T) -> Void) {
        guard let value else {
            bytes.append(0)
            return
        }
        bytes.append(1)
        field { body(&$0, value) }
    }

    /// `Vec<T>`: `u64 count` ‖ `field(element)` for each element.
    public mutating func sequence<C: Collection>(_ items: C, _ body: (inout NoritoWriter, C.Element) -> Void) {
        u64(UInt64(items.count))
        for item in items { field { body(&$0, item) } }
    }

    /// A hand-rolled tagged body: `u32 tag` ‖ `u64 body length` ‖ body (Connect's frame kind and control codec).
    public mutating func taggedBody(tag: UInt32, _ body: (inout NoritoWriter) -> Void) {
        u32(tag)
        field(body)
    }

    private mutating func patchLength(at offset: Int) {
        var length = UInt64(bytes.count - offset - 8)
        for index in 0..<8 {
            bytes[offset + index] = UInt8(truncatingIfNeeded: length)
            length >>= 8
        }
    }

    private mutating func appendLittleEndian<T: FixedWidthInteger>(_ value: T) {
        var remaining = value.littleEndian
        withUnsafeBytes(of: &remaining) { bytes.append(contentsOf: $0) }
    }
}
