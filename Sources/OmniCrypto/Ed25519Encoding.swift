import OmniCodec

/// PKCS#8 (RFC 5208 / RFC 5958 `OneAsymmetricKey`) for Ed25519 keys, as RFC 8410 specifies and as dfx and
/// OpenSSL write them. Parsed here rather than by OpenSSL because OpenSSL 3.0 refuses version-2 keys with the
/// public key attached, which is what dfx (through ring) writes for Ed25519 identities.
extension Ed25519.PrivateKey {
    /// Reads a `-----BEGIN PRIVATE KEY-----` PEM block (other blocks in the text are ignored).
    public init(pemRepresentation: String) throws(CryptoError) {
        var block = try PEM.singleBlock(in: pemRepresentation, labels: ["PRIVATE KEY"], what: "Ed25519 private key",
                                        errorKind: .invalidKey)
        defer { wipe(&block.der) }
        try self.init(pkcs8DERRepresentation: block.der)
    }

    /// Reads DER PKCS#8: version 0 (RFC 5208) or 1 (RFC 5958, with the public key, which must match the seed).
    /// The public key field is accepted both as `[1] IMPLICIT BIT STRING` (RFC 5958) and wrapped in an explicit
    /// `[1]` (ring and hence dfx).
    public init(pkcs8DERRepresentation der: some Collection<UInt8>) throws(CryptoError) {
        var bytes = Array(der)
        defer { wipe(&bytes) }
        var outer = DERReader(bytes, what: "Ed25519 PKCS#8 key", errorKind: .invalidKey)
        var info = try outer.readConstructed(tag: 0x30)
        try outer.requireEnd()
        let version = try info.readUnsignedInteger()
        guard version == [] || version == [1] else {
            throw info.error("unsupported PKCS#8 version \(Hex.encode(version))")
        }
        let algorithm = try info.read(tag: 0x30)
        guard DER.element(tag: 0x30, algorithm) == Ed25519.algorithmIdentifier else {
            throw CryptoError(.invalidKey, "PKCS#8 key is not an Ed25519 key (algorithm \(Hex.encode(algorithm)))")
        }
        var privateKey = try info.read(tag: 0x04)
        defer { wipe(&privateKey) }
        var inner = DERReader(privateKey, what: "Ed25519 CurvePrivateKey", errorKind: .invalidKey)
        var seed = try inner.read(tag: 0x04)
        defer { wipe(&seed) }
        try inner.requireEnd()
        if info.nextTag == 0xa0 { _ = try info.read(tag: 0xa0) }
        var embeddedPublicKey: [UInt8]?
        if info.nextTag == 0x81 {
            embeddedPublicKey = try info.read(tag: 0x81)
        } else if info.nextTag == 0xa1 {
            var wrapper = try info.readConstructed(tag: 0xa1)
            embeddedPublicKey = try wrapper.read(tag: 0x03)
            try wrapper.requireEnd()
        }
        try info.requireEnd()
        try self.init(seed: seed)
        if let embedded = embeddedPublicKey {
            guard embedded.first == 0, Array(embedded.dropFirst()) == publicKey.rawRepresentation else {
                throw CryptoError(.invalidKey, "PKCS#8 Ed25519 key: the embedded public key does not match the private key")
            }
        }
    }

    /// DER PKCS#8 version 0 (48 bytes), the form `openssl genpkey -algorithm ed25519` writes. Contains the secret.
    public var pkcs8DERRepresentation: [UInt8] {
        var seed = self.seed
        defer { wipe(&seed) }
        return DER.sequence(DER.unsignedInteger([0]), Ed25519.algorithmIdentifier,
                            DER.element(tag: 0x04, DER.element(tag: 0x04, seed)))
    }

    /// `-----BEGIN PRIVATE KEY-----` PEM of `pkcs8DERRepresentation`. Contains the secret.
    public var pemRepresentation: String {
        var der = pkcs8DERRepresentation
        defer { wipe(&der) }
        return PEM.encode(label: "PRIVATE KEY", der: der)
    }
}
