import OmniCodec
import Testing

@Suite struct CRC32Tests {
    /// The check value of CRC-32/ISO-HDLC (zlib's CRC-32) for "123456789".
    @Test("CRC-32 check value")
    func crc32() {
        #expect(CRC32.checksum(Array("123456789".utf8)) == 0xCBF4_3926)
        #expect(CRC32.bigEndianBytes(Array("123456789".utf8)) == [0xCB, 0xF4, 0x39, 0x26])
        #expect(CRC32.checksum([UInt8]()) == 0)
    }
}
