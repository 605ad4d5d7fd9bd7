import OmniConnect
import OmniCrypto
import OmniTestSupport
import Testing

/// Hex, base64url and PEM failures in Connect read like everywhere else: the codec's words, `byte N` or
/// `line L, column C`, stated once.
@Suite struct TextErrorTests {
    private func message(_ body: () throws(ConnectError) -> Void) -> String? {
        let error = caughtError(body)
        #expect(error == nil || error?.kind == .malformed)
        return error?.message
    }

    @Test func hexAndBase64ErrorsUseTheCodecWording() {
        #expect(message { () throws(ConnectError) in _ = try ConnectText.parseHex("0g", what: "nonce") }
            == "nonce: malformed hex (byte 1): invalid hex digit 'g'")
        #expect(message { () throws(ConnectError) in _ = try ConnectText.parseBase64URL("ab*d", what: "sid") }
            == "sid: malformed base64 (byte 2): invalid base64 character '*'")
    }

    @Test func keyFilePEMErrorsGiveLineAndColumn() throws {
        let broken = "-----BEGIN PRIVATE KEY-----\nMC4CAQAwBQYDK2VuBCIEICh3lf6hxkrqXeSBgF1MJ8JTRlmoL6TXrCMxid36eQxh\nMC*=\n-----END PRIVATE KEY-----\n"
        let text = try #require(message { () throws(ConnectError) in _ = try ConnectKeyFile.x25519PrivateKey(from: broken) })
        #expect(text.hasPrefix("the key file: malformed PEM (line 3, column 3): block PRIVATE KEY: body is not base64"), "\(text)")
    }
}
