import OmniCandid
import OmniCodec
import OmniCrypto
import Testing
@testable import OmniIC

/// Messages state a location once, in one style (`byte N` for binary, `line L, column C` for text), and every
/// hex failure reads the same.
@Suite("IC error messages")
struct MessageStyleTests {
    private func occurrences(of needle: String, in text: String) -> Int {
        text.components(separatedBy: needle).count - 1
    }

    /// A certificate cut in half: the CBOR error's byte offset and path appear once, not once from the codec
    /// message and again from the IC error's own fields.
    @Test("a truncated certificate says where once", .vectors("ic"))
    func truncatedCertificate() throws {
        let entry = try #require(try icVector("certificates.json").array("certificates").first { $0["id"] != nil && $0["certificate_cbor_hex"] != nil })
        let bytes = try hex(try entry.string("certificate_cbor_hex"))
        let error = try #require(expectICError(.malformed, "truncated") { _ = try ICCertificate(decoding: Array(bytes.prefix(bytes.count / 2))) })
        let text = error.description
        #expect(occurrences(of: "byte ", in: text) == 1, "\(text)")
        #expect(occurrences(of: "$<55799>", in: text) <= 1, "\(text)")
        #expect(error.offset != nil)
        #expect(text.hasPrefix("malformed input (byte "), "\(text)")
    }

    /// JSON is text: its errors give line and column, never a byte offset as well.
    @Test("a malformed delegation chain gives line and column only")
    func textLocation() throws {
        let error = try #require(expectICError(.malformed, "json") { _ = try DelegationChain(jsonText: "{\n  \"publicKey\": tru\n}") })
        #expect(error.line == 2 && error.column != nil)
        #expect(!error.description.contains("byte "), "\(error.description)")
        #expect(occurrences(of: "line 2", in: error.description) == 1, "\(error.description)")
    }

    @Test("a path given as the location is not repeated in the message")
    func locationNotRepeated() throws {
        let error = try #require(expectICError(.malformed, "LEB128") { _ = try LEB128Value.natural([0x80], what: "/time") })
        #expect(occurrences(of: "/time", in: error.description) == 1, "\(error.description)")
        let relabelled = ICError(.malformed, "bad", location: "$.a", offset: 9, line: 2, column: 4).labelled("FILE")
        #expect(relabelled.description == "malformed input (line 2, column 4, at $.a): FILE: bad")
        #expect(ICError(.storage, "gone").labelled("--pem", location: "/k.pem").description == "storage error (at /k.pem): --pem: gone")
    }

    @Test("every hex failure reads \"malformed hex\" and names the digit")
    func oneHexWording() throws {
        let requestID = try #require(expectICError(.malformed, "request id") { _ = try RequestID(hex: "0xzz") })
        #expect(requestID.description == "malformed input (byte 2): request id: malformed hex: invalid hex digit 'z'")
        let label = try #require(expectICError(.invalidArgument, "path label") { _ = try StatePath(text: "/time/0x0g") })
        #expect(label.message.hasSuffix("label 0x0g: malformed hex: invalid hex digit 'g'"), "\(label.message)")
        let owner = try Principal(icText: "k2t6j-2nvnp-4zjm3-25dtz-6xhaa-c7boj-5gayf-oj3xs-i43lp-teztq-6ae")
        let account = try #require(expectICError(.malformed, "ICRC-1") { _ = try ICRC1Account(text: owner.text + "-6cc627i.1g") })
        #expect(account.message.hasSuffix("the subaccount: malformed hex: invalid hex digit 'g'"), "\(account.message)")
        for error in [requestID, label, account] {
            #expect(!error.description.contains("is not hex"), "\(error)")
        }
    }

    @Test("key classification: sender algorithms and BLS root keys")
    func keyAlgorithms() throws {
        let ed25519 = Ed25519.PrivateKey().publicKey.derRepresentation
        #expect(ICKeyAlgorithm(der: ed25519) == .ed25519)
        #expect(ICKeyAlgorithm(der: try ECDSA.PrivateKey(curve: .p256).publicKey.derRepresentation) == .ecdsaP256)
        #expect(ICKeyAlgorithm(der: try ECDSA.PrivateKey(curve: .secp256k1).publicKey.derRepresentation) == .ecdsaSecp256k1)
        #expect(ICKeyAlgorithm(der: try ECDSA.PrivateKey(curve: .p384).publicKey.derRepresentation) == nil)
        let canisterKey = SenderPublicKey.canisterSignatureDER(canister: .managementCanister, seed: [1, 2, 3])
        #expect(ICKeyAlgorithm(der: canisterKey) == .canisterSignature)
        #expect(ICKeyAlgorithm(der: ICRootKey.mainnet.der)?.rawValue == "bls12_381")
        #expect(ICKeyAlgorithm(der: [0x30, 0x00]) == nil)
        #expect(ICKeyAlgorithm(der: Array(ed25519.dropLast())) == nil)
    }

    /// The sender key reader is the shared strict DER reader: a BER-only length is refused with its offset.
    @Test("sender keys are strict DER, errors with the byte offset")
    func senderKeyDER() throws {
        // SEQUENCE with a long-form length below 128 around the canister signature AlgorithmIdentifier.
        let content = SenderPublicKey.canisterSignatureAlgorithm + [0x03, 0x02, 0x00, 0x00]
        let longForm = [0x30, 0x81, UInt8(content.count)] + content
        let error = try #require(expectICError(.malformed, "long form") { _ = try SenderPublicKey(der: longForm) })
        #expect(error.offset == 1 && error.message.contains("length not minimally encoded"), "\(error)")
        // The same key in DER: a canister id of length 0 (the management canister) and no seed. Reading it
        // used to trap on the empty range 1...0.
        #expect(try SenderPublicKey(der: DERWriter.element(tag: 0x30, content)) == .canisterSignature(canister: .managementCanister, seed: []))
    }
}
