import OmniCodec

/// What PKCS#8 readers share (RFC 5208 `PrivateKeyInfo`, RFC 5958 `OneAsymmetricKey`).
enum PKCS8 {
    /// Reads what follows the privateKey OCTET STRING to the end of `info`: attributes (skipped), then RFC 5958's
    /// public key, as `[1] IMPLICIT BIT STRING` or wrapped in an explicit `[1]` (ring, and so dfx, write that).
    /// Returns the BIT STRING's content: the unused-bits byte, then the key.
    static func readPublicKeyTrailer(_ info: inout DERReader) throws(CodecError) -> [UInt8]? {
        if info.nextTag == 0xa0 { _ = try info.read(tag: 0xa0) }
        var publicKey: [UInt8]?
        if info.nextTag == 0x81 {
            publicKey = try info.read(tag: 0x81)
        } else if info.nextTag == 0xa1 {
            var wrapper = try info.readConstructed(tag: 0xa1)
            publicKey = try wrapper.read(tag: 0x03)
            try wrapper.requireEnd()
        }
        try info.requireEnd()
        return publicKey
    }
}
