import OmniCodec

/// PKCS#8 (RFC 5208 / RFC 5958 `OneAsymmetricKey`) for Ed25519 keys, as RFC 8410 specifies and as dfx and
/// OpenSSL write them. Parsed here rather than by OpenSSL because OpenSSL 3.0 refuses version-2 keys with the
/// public key attached, which is what dfx (through ring) writes for Ed25519 identities.
extension Ed25519.PrivateKey {
    /// Reads a `-----BEGIN PRIVATE KEY-----` PEM block (other blocks in the text are ignored).
    public init(pemRepresentation: String) throws(CryptoError) {
        var block = try singlePEMBlock(pemRepresentation, labels: ["PRIVATE KEY"], what: "Ed25519 private key", kind: .invalidKey)
        defer { wipe(&block.der) }
        try self.init(pkcs8DERRepresentation: block.der)
    }

    /// Reads DER PKCS#8: version 0 (RFC 5208) or 1 (RFC 5958, with the public key, which must match the seed).
    /// The public key field is accepted both as `[1] IMPLICIT BIT STRING` (RFC 5958) and wrapped in an explicit
    /// `[1]` (ring and hence dfx).
    public init(pkcs8DERRepresentation der: some Collection<UInt8>) throws(CryptoError) {
        var bytes = Array(der)
        defer { wipe(&bytes) }
        // The readers live only inside the closure, so no copy of the secret outlives the wipe above.
        var key = try parsingDER("Ed25519 PKCS#8 key", .invalidKey) { () throws(CodecError) in
            var outer = try DERReader(bytes)
            var info = try outer.readConstructed(tag: 0x30)
            try outer.requireEnd()
            let version = try info.readUnsignedInteger()
            let algorithm = try info.read(tag: 0x30)
            // The privateKey OCTET STRING holds the DER of CurvePrivateKey ::= OCTET STRING (the seed).
            var privateKey = try info.readConstructed(tag: 0x04)
            var seed = try privateKey.read(tag: 0x04)
            var embeddedPublicKey: [UInt8]?
            do throws(CodecError) {
                try privateKey.requireEnd()
                embeddedPublicKey = try PKCS8.readPublicKeyTrailer(&info)
            } catch {
                wipe(&seed)
                throw error
            }
            return (version: version, algorithm: algorithm, seed: seed, embeddedPublicKey: embeddedPublicKey)
        }
        defer { wipe(&key.seed) }
        guard key.version == [] || key.version == [1] else {
            throw CryptoError(.invalidKey, "unsupported PKCS#8 version \(Hex.encode(key.version)) of an Ed25519 key")
        }
        guard DERWriter.element(tag: 0x30, key.algorithm) == Ed25519.algorithmIdentifier else {
            throw CryptoError(.invalidKey, "PKCS#8 key is not an Ed25519 key (algorithm \(Hex.encode(key.algorithm)))")
        }
        try self.init(seed: key.seed)
        if let embedded = key.embeddedPublicKey {
            guard embedded.first == 0, Array(embedded.dropFirst()) == publicKey.rawRepresentation else {
                throw CryptoError(.invalidKey, "PKCS#8 Ed25519 key: the embedded public key does not match the private key")
            }
        }
    }

    /// DER PKCS#8 version 0 (48 bytes), the form `openssl genpkey -algorithm ed25519` writes. Contains the secret.
    public var pkcs8DERRepresentation: [UInt8] {
        var seed = self.seed
        defer { wipe(&seed) }
        return DERWriter.sequence(DERWriter.unsignedInteger([0]), Ed25519.algorithmIdentifier,
                                  DERWriter.element(tag: 0x04, DERWriter.element(tag: 0x04, seed)))
    }

    /// `-----BEGIN PRIVATE KEY-----` PEM of `pkcs8DERRepresentation`. Contains the secret.
    public var pemRepresentation: String {
        var der = pkcs8DERRepresentation
        defer { wipe(&der) }
        return PEM.encode(label: "PRIVATE KEY", der: der)
    }
}
