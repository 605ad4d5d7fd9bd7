import Foundation
import Testing
import OmniCrypto

@Test func sha256OfABC() {
    let hex = SHA256.hash(Array("abc".utf8)).map { String(format: "%02x", $0) }.joined()
    #expect(hex == "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad")
}
