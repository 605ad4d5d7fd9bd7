import OmniTestSupport
import Testing
import OmniCodec
@testable import OmniCrypto

/// Keccak-f[1600] and the SHA-3 sponge on it: the Keccak team's known answers for the permutation, NIST's example
/// values for SHA3-256 and SHAKE128, and OpenSSL's SHA-3 (Python hashlib, which is OpenSSL's) on random inputs
/// of every length around the rate boundaries.
@Suite("Keccak-f[1600] and SHA-3")
struct KeccakTests {
    /// XKCP TestVectors/KeccakF-1600-IntermediateValues.txt: the all-zero state after one permutation, then the
    /// first lane after a second one.
    static let zeroStateOnce: [UInt64] = [
        0xF125_8F79_40E1_DDE7, 0x84D5_CCF9_33C0_478A, 0xD598_261E_A65A_A9EE, 0xBD15_4730_6F80_494D, 0x8B28_4E05_6253_D057,
        0xFF97_A42D_7F8E_6FD4, 0x90FE_E5A0_A446_47C4, 0x8C5B_DA0C_D619_2E76, 0xAD30_A6F7_1B19_059C, 0x3093_5AB7_D08F_FC64,
        0xEB5A_A93F_2317_D635, 0xA9A6_E626_0D71_2103, 0x81A5_7C16_DBCF_555F, 0x43B8_31CD_0347_C826, 0x01F2_2F1A_11A5_569F,
        0x05E5_635A_21D9_AE61, 0x64BE_FEF2_8CC9_70F2, 0x6136_7095_7BC4_6611, 0xB87C_5A55_4FD0_0ECB, 0x8C3E_E88A_1CCF_32C8,
        0x940C_7922_AE3A_2614, 0x1841_F924_A2C5_09E4, 0x16F5_3526_E704_65C2, 0x75F6_44E9_7F30_A13B, 0xEAF1_FF7B_5CEC_A249,
    ]

    @Test func permutationOfTheZeroStateMatchesTheKeccakTeam() throws {
        var state = [UInt64](repeating: 0, count: 25)
        try Keccak.permute(&state)
        #expect(state == Self.zeroStateOnce)
        try Keccak.permute(&state)
        #expect(state[0] == 0x2D5C_954D_F96E_CB3C)
    }

    @Test func permuteRefusesAStateOfTheWrongSize() {
        for count in [0, 24, 26] {
            var state = [UInt64](repeating: 0, count: count)
            let error = caughtError { () throws(CryptoError) in try Keccak.permute(&state) }
            #expect(error?.kind == .invalidInput)
            #expect(error?.message.contains("25 lanes, got \(count)") == true)
        }
    }

    /// NIST CSRC "Example Values" (SHA3-256_Msg0, the "abc" example) and the empty-message SHAKE128 output of
    /// FIPS 202's examples.
    @Test func nistExampleValues() throws {
        #expect(Keccak.sha3_256([]).hexString == "a7ffc6f8bf1ed76651c14756a061d662f580ff4de43b49fa82d80a4b80f8434a")
        #expect(Keccak.sha3_256(Array("abc".utf8)).hexString == "3a985da74fe225b2045c172d6bd390bd855f086e3e9d525b46bfe24511431532")
        #expect(try Keccak.shake128([], outputByteCount: 32).hexString == "7f9c2ba4e88f827d616045507605853ed73b8093f6efbc88eb1a6eacfa66ef26")
        #expect(try Keccak.shake256([], outputByteCount: 32).hexString == "46b9dd2b0ba88d13233b3feb743eeb243fcd52ea62b81b82b50c27646ed5762f")
    }

    @Test func shakeRefusesHostileOutputLengths() {
        for count in [-1, Keccak.maximumOutputByteCount + 1] {
            let error = caughtError { () throws(CryptoError) in _ = try Keccak.shake128([], outputByteCount: count) }
            #expect(error?.kind == .invalidInput)
        }
    }

    /// Every input length from 0 to 2·rate + 2 of each function (so the padding byte lands on every position,
    /// including the last byte of a block), and outputs longer than one block, against OpenSSL through hashlib.
    @Test func matchesOpenSSLOnRandomInputs() throws {
        var random = SeededGenerator()
        let context: Comment = "seed \(random.seed)"
        var requests: [JSONValue] = []
        var expected: [[UInt8]] = []
        for length in 0...(2 * 168 + 2) {
            let message = random.bytes(length)
            if length <= 2 * 136 + 2 {
                requests.append(["op": "sha3_256", "message": .string(message.hexString)])
                expected.append(Keccak.sha3_256(message))
                requests.append(["op": "shake256", "message": .string(message.hexString), "length": 200])
                expected.append(try Keccak.shake256(message, outputByteCount: 200))
            }
            if length <= 2 * 72 + 2 {
                requests.append(["op": "sha3_512", "message": .string(message.hexString)])
                expected.append(Keccak.sha3_512(message))
            }
            requests.append(["op": "shake128", "message": .string(message.hexString), "length": .number(String(length % 400))])
            expected.append(try Keccak.shake128(message, outputByteCount: length % 400))
        }
        let responses = try Sr25519Peer.run(requests)
        for (index, response) in responses.enumerated() {
            #expect(try response.bytes("digest") == expected[index], "\(context): \(requests[index].serialized())")
        }
    }
}
