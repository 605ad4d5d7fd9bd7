import OmniCodec
import OmniCrypto

/// Key files for Connect: X25519 session keys and Ed25519 account keys, as PKCS#8 PEM (`-----BEGIN PRIVATE
/// KEY-----`, what `openssl genpkey -algorithm x25519|ed25519` writes) or as the 32 raw bytes in hex.
public enum ConnectKeyFile {
    /// `SEQUENCE { INTEGER 0, SEQUENCE { OID 1.3.101.110 }, OCTET STRING { OCTET STRING (32) } }` minus the key.
    private static let x25519PKCS8Prefix: [UInt8] = [0x30, 0x2e, 0x02, 0x01, 0x00, 0x30, 0x05, 0x06, 0x03, 0x2b, 0x65, 0x6e, 0x04, 0x22, 0x04, 0x20]

    public static func x25519PrivateKey(from text: String) throws(ConnectError) -> X25519.PrivateKey {
        let raw: [UInt8]
        if PEM.containsBlock(text) {
            let der: [UInt8]
            do { der = try PEM.singleBlock(in: text, labels: ["PRIVATE KEY"], what: "X25519 private key").der } catch {
                throw ConnectError.malformed(error, "the key file")
            }
            guard der.count == x25519PKCS8Prefix.count + 32, der.starts(with: x25519PKCS8Prefix) else {
                throw ConnectError(.malformed, "the key file is not an X25519 PKCS#8 private key")
            }
            raw = Array(der.dropFirst(x25519PKCS8Prefix.count))
        } else {
            raw = try ConnectText.parseBytes(text, byteCount: 32, what: "X25519 private key")
        }
        do {
            return try X25519.PrivateKey(rawRepresentation: raw)
        } catch {
            throw ConnectError.crypto(error, "X25519 private key")
        }
    }

    public static func pem(_ key: X25519.PrivateKey) -> String {
        PEM.encode(label: "PRIVATE KEY", der: x25519PKCS8Prefix + key.rawRepresentation)
    }

    public static func ed25519PrivateKey(from text: String) throws(ConnectError) -> Ed25519.PrivateKey {
        do {
            if PEM.containsBlock(text) { return try Ed25519.PrivateKey(pemRepresentation: text) }
            return try Ed25519.PrivateKey(seed: try ConnectText.parseBytes(text, byteCount: 32, what: "Ed25519 seed"))
        } catch let error as CryptoError {
            throw ConnectError.crypto(error, "Ed25519 account key")
        } catch let error as ConnectError {
            throw error
        } catch {
            throw ConnectError(.malformed, "Ed25519 account key: \(error)")
        }
    }
}
