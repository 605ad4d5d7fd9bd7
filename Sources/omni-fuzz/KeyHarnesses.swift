import OmniAttest
import OmniCandid
import OmniCodec
import OmniCrypto
import OmniIC

/// Keys and signatures as text (PEM, JWK, hex/base64) and as DER: every reader OmniCrypto, OmniIC and OmniAttest
/// have for Ed25519, P-256, P-384 and secp256k1 keys, ECDSA signatures, IC root keys and X.509 certificates.
let keyHarnesses: [Harness] = [pemKeys, derKeys]

/// The message the key round trips sign: a key read from bytes must sign what its own public key verifies.
private let signedMessage = Array("omni-fuzz key check".utf8)

private enum SeedKeys {
    static let ed25519 = try! Ed25519.PrivateKey(seed: [UInt8](repeating: 9, count: 32))
    static let ecdsa: [ECDSA.PrivateKey] = ECDSA.Curve.allCases.map { curve in
        try! ECDSA.PrivateKey(rawRepresentation: [UInt8](repeating: 0, count: curve.byteCount - 1) + [42], curve: curve)
    }
}

private let pemKeys = Harness(
    "pem-keys",
    "ICIdentity(pem:), Ed25519 and ECDSA private and public key PEM, AttestPublicKey.parse (PEM, JWK, hex, base64), Certificate.certificates(fromPEM:); keys re-export and read back, and sign what their public keys verify",
    seeds: { sources in
        var seeds = [Seed("ed25519", text: SeedKeys.ed25519.pemRepresentation)]
        for key in SeedKeys.ecdsa {
            seeds.append(Seed("ecdsa-sec1-\(key.curve)", text: key.sec1PEMRepresentation))
            seeds.append(Seed("ecdsa-pkcs8-\(key.curve)", text: PEM.encode(label: "PRIVATE KEY", der: key.pkcs8DERRepresentation)))
            seeds.append(Seed("ecdsa-public-\(key.curve)", text: key.publicKey.pemRepresentation))
            if key.curve == .p256 {
                seeds.append(Seed("jwk", text: AttestPublicKey.jwk(key.publicKey).serialized()))
                seeds.append(Seed("x962-hex", text: Hex.encode(key.publicKey.uncompressedRepresentation)))
            }
        }
        if let identity = try? ICIdentity.generate(.secp256k1), let pem = try? identity.exportPrivateKeyPEM() { seeds.append(Seed("dfx-secp256k1", text: pem)) }
        for text in VectorStrings.strings(sources.vectorJSON("ic/keys.json"), keys: ["pem_sec1", "pem_pkcs8", "pem"]) {
            seeds.append(Seed("vector-\(seeds.count)", text: text))
        }
        for file in sources.vectorFiles("attest", suffix: ".pem") { seeds.append(Seed("vector-" + file.name, file.bytes)) }
        return seeds
    }
) { bytes in
    guard let text = utf8Text(bytes) else { return }
    if let identity = try? ICIdentity(pem: text) {
        guard let der = identity.publicKeyDER, (try? SenderPublicKey(der: der)) != nil else {
            FuzzCheck.fail("an identity read from PEM has no usable public key")
        }
        if let exported = try? identity.exportPrivateKeyPEM() {
            FuzzCheck.require((try? ICIdentity(pem: exported))?.publicKeyDER == der, "an identity's exported PEM reads back another key")
        }
        guard let signature = try? identity.sign(signedMessage), (try? SenderPublicKey(der: der).verify(signature: signature, message: signedMessage)) != nil
        else { FuzzCheck.fail("an identity read from PEM signs what its public key does not verify") }
    }
    if let key = try? Ed25519.PrivateKey(pemRepresentation: text) {
        FuzzCheck.require((try? Ed25519.PrivateKey(pemRepresentation: key.pemRepresentation))?.publicKey == key.publicKey,
                          "an Ed25519 key's PEM reads back another key")
        FuzzCheck.require((try? key.publicKey.isValidSignature(key.signature(for: signedMessage), for: signedMessage)) == true,
                          "an Ed25519 key read from PEM signs what its public key does not verify")
    }
    if let key = try? ECDSA.PrivateKey(pemRepresentation: text) { checkECDSAPrivateKey(key) }
    if let key = try? ECDSA.PublicKey(pemRepresentation: text) {
        FuzzCheck.require((try? ECDSA.PublicKey(pemRepresentation: key.pemRepresentation)) == key, "an EC public key's PEM reads back another key")
    }
    if let key = try? AttestPublicKey.parse(text) {
        FuzzCheck.require(key.curve == .p256, "AttestPublicKey accepted a \(key.curve) key")
        FuzzCheck.require((try? AttestPublicKey.parse(AttestPublicKey.jwk(key).serialized())) == key, "an App Attest key's JWK reads back another key")
    }
    if let certificates = try? Certificate.certificates(fromPEM: text) {
        for certificate in certificates { checkCertificate(certificate) }
    }
}

private func checkECDSAPrivateKey(_ key: ECDSA.PrivateKey) {
    FuzzCheck.require((try? ECDSA.PrivateKey(sec1DERRepresentation: key.sec1DERRepresentation))?.publicKey == key.publicKey,
                      "an EC private key's SEC1 form reads back another key")
    FuzzCheck.require((try? ECDSA.PrivateKey(pkcs8DERRepresentation: key.pkcs8DERRepresentation))?.publicKey == key.publicKey,
                      "an EC private key's PKCS#8 form reads back another key")
    guard let signature = try? key.signature(for: signedMessage),
          (try? key.publicKey.isValidSignature(signature, for: signedMessage)) == true
    else { FuzzCheck.fail("an EC private key signs what its public key does not verify") }
}

private func checkCertificate(_ certificate: Certificate) {
    FuzzCheck.require((try? Certificate(derRepresentation: certificate.derRepresentation)) == certificate, "a certificate's DER reads back another certificate")
    _ = try? certificate.ecdsaPublicKey()
    _ = try? certificate.ed25519PublicKey()
    _ = certificate.extensions.count
}

private let derKeys = Harness(
    "der-keys",
    "SenderPublicKey(der:), ICKeyAlgorithm, ICRootKey(der:), Ed25519/ECDSA SPKI, SEC1 and PKCS#8 DER, strict-DER ECDSA signatures on every curve, X.509 DER; accepted encodings re-encode to the input (or to an equal key)",
    seeds: { sources in
        var seeds = [Seed("ed25519-spki", SeedKeys.ed25519.publicKey.derRepresentation), Seed("ed25519-pkcs8", SeedKeys.ed25519.pkcs8DERRepresentation),
                     Seed("root-key", ICRootKey.mainnetDER),
                     Seed("canister-signature-key", SenderPublicKey.canisterSignatureDER(canister: try! Principal(text: "rdmx6-jaaaa-aaaaa-aaadq-cai"), seed: [1, 2, 3]))]
        for key in SeedKeys.ecdsa {
            seeds.append(Seed("spki-\(key.curve)", key.publicKey.derRepresentation))
            seeds.append(Seed("sec1-\(key.curve)", key.sec1DERRepresentation))
            seeds.append(Seed("pkcs8-\(key.curve)", key.pkcs8DERRepresentation))
            if let signature = try? key.signature(for: signedMessage) { seeds.append(Seed("signature-\(key.curve)", signature)) }
        }
        for bytes in VectorStrings.hex(sources.vectorJSON("ic/keys.json"), keys: ["der_hex", "der_public_key_hex"]) { seeds.append(Seed("vector-\(seeds.count)", bytes)) }
        for file in sources.vectorFiles("attest", suffix: ".pem") {
            if let text = utf8Text(file.bytes), let blocks = try? PEM.blocks(in: text) {
                for block in blocks { seeds.append(Seed("vector-" + file.name, block.der)) }
            }
        }
        return seeds
    }
) { bytes in
    if let key = try? SenderPublicKey(der: bytes) {
        let encoded: [UInt8]
        switch key {
        case .ed25519(let key): encoded = key.derRepresentation
        case .ecdsa(let key): encoded = key.derRepresentation
        case .canisterSignature(let canister, let seed): encoded = SenderPublicKey.canisterSignatureDER(canister: canister, seed: seed)
        }
        FuzzCheck.require(encoded == bytes, "a \(key.algorithmName) sender key does not re-encode to its DER")
        FuzzCheck.require(ICKeyAlgorithm(der: bytes) != nil, "a sender key has no key algorithm")
    }
    if let root = try? ICRootKey(der: bytes) { FuzzCheck.require(root.der == bytes, "a root key does not keep its DER") }
    if let key = try? Ed25519.PublicKey(derRepresentation: bytes) { FuzzCheck.require(key.derRepresentation == bytes, "an Ed25519 SPKI does not re-encode to itself") }
    if let key = try? Ed25519.PrivateKey(pkcs8DERRepresentation: bytes) {
        FuzzCheck.require((try? Ed25519.PrivateKey(pkcs8DERRepresentation: key.pkcs8DERRepresentation))?.publicKey == key.publicKey,
                          "an Ed25519 PKCS#8 key reads back another key")
    }
    if let key = try? ECDSA.PublicKey(derRepresentation: bytes) {
        FuzzCheck.require((try? ECDSA.PublicKey(derRepresentation: key.derRepresentation)) == key, "an EC SPKI re-encodes to another key")
        FuzzCheck.require((try? ECDSA.PublicKey(pointRepresentation: key.compressedRepresentation, curve: key.curve)) == key,
                          "an EC key's compressed point reads back another key")
    }
    if let key = try? ECDSA.PrivateKey(sec1DERRepresentation: bytes) { checkECDSAPrivateKey(key) }
    if let key = try? ECDSA.PrivateKey(pkcs8DERRepresentation: bytes) { checkECDSAPrivateKey(key) }
    for curve in ECDSA.Curve.allCases {
        if let signature = try? ECDSA.Signature(derRepresentation: bytes, curve: curve) {
            FuzzCheck.require(signature.derRepresentation == bytes, "a strict-DER \(curve) signature does not re-encode to itself")
            FuzzCheck.require((try? ECDSA.Signature(rawRepresentation: signature.rawRepresentation, curve: curve)) == signature,
                              "a \(curve) signature's raw form reads back another signature")
            let normalized = signature.lowSNormalized
            FuzzCheck.require(normalized.isLowS && normalized.r == signature.r, "low-S normalization of a \(curve) signature failed")
        }
        if let signature = try? ECDSA.Signature(rawRepresentation: bytes, curve: curve) {
            FuzzCheck.require(signature.rawRepresentation == bytes, "a raw \(curve) signature does not re-encode to itself")
        }
    }
    if let certificate = try? Certificate(derRepresentation: bytes) { checkCertificate(certificate) }
}
