/// The 40-byte "NRT0" header Norito puts in front of a self-describing payload:
///
/// ```
///  0  4  magic "NRT0"          22  1  compression (0 = none)
///  4  1  major = 0             23  8  payload length, u64 LE
///  5  1  minor = 0             31  8  CRC-64/XZ of the payload, u64 LE
///  6 16  schema hash           39  1  layout flags
/// ```
/// The payload follows directly (types with no alignment padding, as everything Iroha Connect frames).
public struct NoritoHeader: Sendable, Equatable {
    public static let magic: [UInt8] = Array("NRT0".utf8)
    public static let byteCount = 40
    public static let schemaHashByteCount = 16

    public var major: UInt8 = 0
    public var minor: UInt8 = 0
    public var schemaHash: [UInt8]
    public var compression: UInt8 = 0
    public var payloadLength: UInt64
    public var checksum: UInt64
    public var flags: UInt8 = 0

    /// The header and payload, uncompressed, with the given flags.
    public static func frame(_ payload: [UInt8], schemaHash: [UInt8], flags: UInt8 = 0) -> [UInt8] {
        var writer = NoritoWriter(capacity: byteCount + payload.count)
        writer.raw(magic)
        writer.u8(0)
        writer.u8(0)
        writer.raw(schemaHash)
        writer.u8(0)
        writer.u64(UInt64(payload.count))
        writer.u64(CRC64XZ.checksum(payload))
        writer.u8(flags)
        writer.raw(payload)
        return writer.bytes
    }

    /// Parses and checks a framed value: magic, version 0.0, no compression, the expected flags, exact length,
    /// CRC and schema hash. Returns the header and the payload bytes.
    public static func unframe(
        _ bytes: [UInt8], expectedSchemaHash: [UInt8], expectedFlags: UInt8 = 0, typeName: String
    ) throws(CodecError) -> (header: NoritoHeader, payload: [UInt8]) {
        guard bytes.count >= byteCount else {
            throw CodecError(.malformed, format: "Norito", "header needs \(byteCount) bytes, got \(bytes.count)", offset: bytes.count)
        }
        var reader = NoritoReader(Array(bytes.prefix(byteCount)))
        guard try reader.raw(4, "magic") == magic else {
            throw CodecError(.malformed, format: "Norito", "magic is not \"NRT0\"", offset: 0)
        }
        let major = try reader.u8("major")
        let minor = try reader.u8("minor")
        guard major == 0, minor == 0 else {
            throw CodecError(.unsupported, format: "Norito", "version \(major).\(minor) (only 0.0 is supported)", offset: 4)
        }
        let schemaHash = try reader.raw(schemaHashByteCount, "schema")
        let compression = try reader.u8("compression")
        guard compression == 0 else {
            throw CodecError(.unsupported, format: "Norito", "compression \(compression) (only 0 = none is accepted)", offset: 22)
        }
        let length = try reader.u64("length")
        let checksum = try reader.u64("checksum")
        let flags = try reader.u8("flags")
        guard flags == expectedFlags else {
            throw CodecError(.unsupported, format: "Norito", "layout flags 0x\(String(flags, radix: 16)) (expected 0x\(String(expectedFlags, radix: 16)))", offset: 39)
        }
        guard length == UInt64(bytes.count - byteCount) else {
            throw CodecError(.malformed, format: "Norito",
                             "header declares a \(length)-byte payload but \(bytes.count - byteCount) bytes follow", offset: 23)
        }
        guard schemaHash == expectedSchemaHash else {
            throw CodecError(.malformed, format: "Norito", "schema hash does not match \(typeName)", offset: 6)
        }
        let payload = Array(bytes[byteCount...])
        guard CRC64XZ.checksum(payload) == checksum else {
            throw CodecError(.malformed, format: "Norito", "payload CRC-64 does not match the header", offset: 31)
        }
        let header = NoritoHeader(major: major, minor: minor, schemaHash: schemaHash, compression: compression,
                                  payloadLength: length, checksum: checksum, flags: flags)
        return (header, payload)
    }
}

/// CRC-64/XZ (ECMA-182 polynomial, reflected, init and xorout all ones): Norito's payload checksum.
public enum CRC64XZ {
    private static let table: [UInt64] = (0..<256).map { index -> UInt64 in
        var crc = UInt64(index)
        for _ in 0..<8 { crc = crc & 1 == 1 ? (crc >> 1) ^ 0xC96C_5795_D787_0F42 : crc >> 1 }
        return crc
    }

    public static func checksum(_ bytes: some Sequence<UInt8>) -> UInt64 {
        var crc = UInt64.max
        for byte in bytes { crc = table[Int((crc ^ UInt64(byte)) & 0xff)] ^ (crc >> 8) }
        return ~crc
    }
}

/// Schema hashes of Norito type names.
public enum NoritoSchemaHash {
    /// Older Norito: 64-bit FNV-1a of the Rust type name, little-endian, written twice (16 bytes).
    public static func fnv1a(typeName: String) -> [UInt8] {
        var hash: UInt64 = 0xcbf2_9ce4_8422_2325
        for byte in typeName.utf8 {
            hash ^= UInt64(byte)
            hash = hash &* 0x100_0000_01b3
        }
        let half = (0..<8).map { UInt8(truncatingIfNeeded: hash >> (8 * UInt64($0))) }
        return half + half
    }

    /// The prefix newer Norito hashes (with SHA-256) before the type name: `"norito:v1:type-name\0"`.
    public static let typeNameDomain: [UInt8] = Array("norito:v1:type-name".utf8) + [0]
}
