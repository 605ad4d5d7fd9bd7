import Foundation
import OmniCandid
import OmniCodec
import OmniCrypto
import OmniTestSupport
import Testing
@testable import OmniIC

/// principals.json and account_identifiers.json, plus the ICRC-1 textual-encoding examples of the standard.
@Suite struct PrincipalTests {
    @Test("principals.json: every valid text ⇄ bytes, case-insensitive parsing, class", .vectors("ic"))
    func validPrincipals() throws {
        let document = try icVector("principals.json")
        var count = 0
        for entry in try document.array("valid") {
            let text = try entry.string("text")
            let bytes = try hex(try entry.string("hex"))
            let parsed = try principal(text)
            #expect(parsed.bytes == bytes, "\(text)")
            #expect(parsed.text == text)
            #expect(try Principal.fromBytes(bytes).text == text)
            #expect(Principal.textProblem(text) == nil)
            count += 1
        }
        for entry in try document.array("case_insensitive") {
            let text = try entry.string("text")
            #expect(try principal(text).bytes == (try hex(try entry.string("hex"))), "\(text)")
            count += 1
        }
        #expect(count == 18)
        #expect(try principal("aaaaa-aa").principalClass == .management)
        #expect(try principal("2vxsx-fae").principalClass == .anonymous)
        #expect(try principal("ryjl3-tyaaa-aaaaa-aaaba-cai").principalClass == .opaque)
        #expect(try principal("em77e-bvlzu-aq").principalClass == .opaque)
        #expect(try principal("uzr34-akd3s-xrdag-3ql62-ocgoh-ld2ao-tamcv-54e7j-krwgb-2gm4z-oqe").principalClass == .selfAuthenticating)
        #expect(Principal.managementCanister.text == "aaaaa-aa")
        print("principals.json: \(count) valid texts")
    }

    /// The vector labels ("bad checksum", "wrong dash position", …) mapped to the rule omni reports. The
    /// "bad checksum" texts start with '0', which is outside the base32 alphabet, so the first rule they break
    /// is the character set; replacing the '0' by a valid letter yields the checksum error upstream meant.
    @Test("principals.json: every invalid text fails with the right error", .vectors("ic"))
    func invalidPrincipals() throws {
        let document = try icVector("principals.json")
        var count = 0
        for entry in try document.array("invalid") {
            let text = try entry.string("text")
            let label = try entry.string("error")
            let expected: Set<PrincipalTextProblem>
            switch label {
            case "invalid base32 / length", "text too short": expected = [.tooShort]
            case "30 bytes: too long": expected = [.tooLong]
            case "wrong dash position": expected = [.dashPosition]
            case "bad checksum": expected = [.invalidCharacter]
            case "invalid characters": expected = [.invalidCharacter]
            default: throw TestSupportError("unmapped vector error label \(label)")
            }
            let problem = Principal.textProblem(text)
            #expect(problem.map { expected.contains($0) } == true, "\(text): got \(String(describing: problem)), vector says \(label)")
            expectICError(.malformed, text) { _ = try Principal(icText: text) }
            if label == "bad checksum" {
                let corrected = "q" + text.dropFirst()
                #expect(Principal.textProblem(corrected) == .checksum, "\(corrected)")
            }
            count += 1
        }
        #expect(count == 12)
        print("principals.json: \(count) invalid texts")
    }

    @Test("principals.json: self-authenticating ids, CRC32, ordering", .vectors("ic"))
    func selfAuthenticating() throws {
        let document = try icVector("principals.json")
        var count = 0
        for entry in try document.array("self_authenticating") {
            let der = try hex(entry["public_key_hex"]?.stringValue ?? entry["ed25519_der_hex"]?.stringValue
                              ?? entry.string("secp256k1_der_hex"))
            let derived = Principal.selfAuthenticating(publicKeyDER: der)
            #expect(derived.bytes == (try hex(try entry.string("principal_hex"))))
            #expect(derived.text == (try entry.string("principal_text")))
            #expect(derived.principalClass == .selfAuthenticating)
            #expect(derived.isSelfAuthenticating(for: der))
            count += 1
        }
        #expect(count == 8)
        for entry in try document.array("crc32") {
            let value = CRC32.checksum(try hex(try entry.string("input_hex")))
            #expect(Hex.encode(CRC32.bigEndianBytes(try hex(try entry.string("input_hex")))) == (try entry.string("crc32")))
            #expect(value == UInt32(try entry.string("crc32"), radix: 16))
            count += 1
        }
        let ordered = try ["ryjl3-tyaaa-aaaaa-aaaba-cai", "ivg37-qiaaa-aaaab-aaaga-cai", "2vxsx-fae"].map(principal)
        #expect(ordered == ordered.sorted())
        #expect(ordered[0] < ordered[1] && ordered[1] < ordered[2])
        print("principals.json: \(count) self-authenticating and CRC32 vectors")
    }

    @Test func derivedPrincipals() throws {
        let registrar = try principal("ryjl3-tyaaa-aaaaa-aaaba-cai")
        let derived = Principal.derived(registrar: registrar, nonce: [1, 2, 3])
        #expect(derived.bytes.count == 29 && derived.principalClass == .derived)
        #expect(derived.bytes.prefix(28) == SHA224.hash([UInt8(registrar.bytes.count)] + registrar.bytes + [1, 2, 3])[...])
        #expect(try Principal.fromBytes([0x01, 0x7f]).principalClass == .reserved)
        expectICError(.malformed) { _ = try Principal.fromBytes([UInt8](repeating: 1, count: 30)) }
    }

    @Test("account_identifiers.json: account ids, subaccounts from ids and principals", .vectors("ic"))
    func accountIdentifiers() throws {
        let document = try icVector("account_identifiers.json")
        var count = 0
        for entry in try document.array("vectors") {
            let owner = try principal(try entry.string("principal"))
            let subaccount = try Subaccount(hex: try entry.string("subaccount_hex"))
            let id = AccountIdentifier(owner: owner, subaccount: subaccount)
            let expected = try entry.string("account_identifier_hex")
            #expect(id.hex == expected)
            #expect(try AccountIdentifier(hex: expected) == id)
            #expect(ICRC1Account(owner: owner, subaccount: subaccount).accountIdentifier == id)
            if subaccount.isDefault { #expect(AccountIdentifier(owner: owner).hex == expected) }
            var corrupted = try hex(expected)
            corrupted[31] ^= 1
            expectICError(.malformed, "checksum") { _ = try AccountIdentifier(bytes: corrupted) }
            count += 1
        }
        for entry in try document.array("subaccount_from_id") {
            #expect(Subaccount(index: try entry.uint("id")).hex == (try entry.string("subaccount_hex")))
            count += 1
        }
        guard let fromPrincipal = document["subaccount_from_principal"] else { throw TestSupportError("missing subaccount_from_principal") }
        for entry in try fromPrincipal.array("vectors") {
            #expect(Subaccount(principal: try principal(try entry.string("principal"))).hex == (try entry.string("subaccount_hex")))
            count += 1
        }
        #expect(count == 10)
        print("account_identifiers.json: \(count) vectors")
    }

    /// The examples table of ICRC-1 `standards/ICRC-1/TextualEncoding.md` (dfinity/ICRC-1), quoted here because the
    /// shared vectors have no ICRC-1 text cases.
    @Test func icrc1TextualEncoding() throws {
        let owner = try principal("k2t6j-2nvnp-4zjm3-25dtz-6xhaa-c7boj-5gayf-oj3xs-i43lp-teztq-6ae")
        let counting = try Subaccount(bytes: Array(1...32))
        let one = Subaccount(index: 1)
        let valid: [(String, Subaccount?)] = [
            (owner.text, nil),
            (owner.text + "-6cc627i.1", one),
            (owner.text + "-dfxgiyy.102030405060708090a0b0c0d0e0f101112131415161718191a1b1c1d1e1f20", counting),
        ]
        for (text, subaccount) in valid {
            let account = try ICRC1Account(text: text)
            #expect(account.owner == owner && account.subaccount == subaccount, "\(text)")
            #expect(account.text == text)
        }
        #expect(ICRC1Account(owner: owner, subaccount: .default).text == owner.text)
        let invalid = [
            owner.text + "-q6bn32y.",  // default subaccount written out
            "k2t6j2nvnp4zjm3-25dtz6xhaac7boj5gayfoj3xs-i43lp-teztq-6ae",  // bad principal
            owner.text + "-6cc627i.01",  // leading zero
            owner.text + ".1",  // no checksum
            owner.text + "-6cc627j.1",  // wrong checksum
            owner.text + "-dfxgiyy.1" + String(repeating: "0", count: 64),  // longer than 32 bytes
            owner.text + "-6cc627i.1g",  // not hex
        ]
        for text in invalid {
            expectICError(.malformed, text) { _ = try ICRC1Account(text: text) }
        }
    }
}
