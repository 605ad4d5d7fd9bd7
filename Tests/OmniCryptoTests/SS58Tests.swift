import OmniTestSupport
import Testing
import OmniCodec
import OmniCrypto

/// SS58 addresses: a well-known address, random 32- and 33-byte payloads and prefixes (one- and two-byte) against
/// scalecodec both ways, and malformed addresses refused with a message that says what is wrong.
@Suite("SS58")
struct SS58Tests {
    /// Substrate's development account Alice (`//Alice`), as every Substrate tool prints it.
    @Test func aliceAddress() throws {
        let key = hex("d43593c715fdd31c61141abd04a99fd6822c8558854ccde39a5684e7a56da27d")
        #expect(try SS58.encode(key) == "5GrwvaEF5zXb26Fz9rcQpDWS57CtERHpNehXCPcNoHGKutQY")
        #expect(try SS58.decode("5GrwvaEF5zXb26Fz9rcQpDWS57CtERHpNehXCPcNoHGKutQY") == SS58.Address(prefix: 42, payload: key))
        // Alice's key on Polkadot (prefix 0) and Kusama (prefix 2), and on a two-byte prefix.
        for prefix: UInt16 in [0, 2, 63, 64, 255, 1284, 16383] {
            let address = try SS58.encode(key, prefix: prefix)
            #expect(try SS58.decode(address, expectedPrefix: prefix) == SS58.Address(prefix: prefix, payload: key))
        }
    }

    @Test func matchesScalecodecBothWays() throws {
        var random = SeededGenerator()
        let context: Comment = "seed \(random.seed)"
        var cases: [([UInt8], UInt16)] = []
        for _ in 0..<60 {
            let payload = random.bytes([32, 32, 32, 33].randomElement(using: &random)!)
            var prefix: UInt16
            repeat {
                prefix = Bool.random(using: &random) ? UInt16.random(in: 0...63, using: &random) : UInt16.random(in: 64...16383, using: &random)
            } while SS58.reservedPrefixes.contains(prefix)
            cases.append((payload, prefix))
        }
        var requests: [JSONValue] = cases.map { ["op": "ss58_encode", "payload": .string($0.0.hexString), "prefix": .number(String($0.1))] }
        let ours = try cases.map { try SS58.encode($0.0, prefix: $0.1) }
        requests += ours.map { ["op": "ss58_decode", "address": .string($0)] }
        let responses = try Sr25519Peer.run(requests)
        for (index, (payload, prefix)) in cases.enumerated() {
            let theirs = try responses[index].string("address")
            #expect(ours[index] == theirs, "\(context): payload \(payload.hexString) prefix \(prefix)")
            #expect(try SS58.decode(theirs) == SS58.Address(prefix: prefix, payload: payload), context)
            let decoded = responses[cases.count + index]
            #expect(try decoded.bytes("payload") == payload, context)
            #expect(try decoded.int("prefix") == Int64(prefix), context)
        }
    }

    @Test func malformedAddressesAreRefused() throws {
        let alice = "5GrwvaEF5zXb26Fz9rcQpDWS57CtERHpNehXCPcNoHGKutQY"
        let key = try SS58.decode(alice).payload
        var wrongCharacter = Array(alice)
        wrongCharacter[20] = wrongCharacter[20] == "a" ? "b" : "a"
        let tooShort = try SS58.encode(key, prefix: 42).dropLast(4)
        let cases: [(String, String)] = [
            ("", "SS58 address is empty"),
            (String(alice.prefix(10)) + "0" + String(alice.dropFirst(11)), "character 11 is not a base58 digit"),
            (String(alice.prefix(5)) + "l" + String(alice.dropFirst(6)), "character 6 is not a base58 digit"),
            (String(wrongCharacter), "checksum does not match"),
            (String(tooShort), "bytes after its prefix"),
            (String(repeating: "5", count: 65), "more than 64"),
            (alice + "é", "not a base58 digit"),
        ]
        for (address, expected) in cases {
            let error = caughtError { () throws(CryptoError) in _ = try SS58.decode(address) }
            #expect(error?.kind == .invalidInput, "\(address)")
            #expect(error?.message.contains(expected) == true, "\(address): \(error?.message ?? "accepted")")
        }
        #expect(caughtError { () throws(CryptoError) in _ = try SS58.decode(alice, expectedPrefix: 0) }?.message
            == "SS58 address is for network prefix 42, expected 0")
    }

    @Test func prefixesAndPayloadsOutOfRange() throws {
        let key = [UInt8](repeating: 7, count: 32)
        for prefix: UInt16 in [46, 47] {
            #expect(caughtError { () throws(CryptoError) in _ = try SS58.encode(key, prefix: prefix) }?.message == "SS58 prefix \(prefix) is reserved")
        }
        #expect(caughtError { () throws(CryptoError) in _ = try SS58.encode(key, prefix: 16384) }?.message == "SS58 prefix must be 0…16383, got 16384")
        for count in [0, 1, 2, 4, 8, 31, 34] {
            #expect(caughtError { () throws(CryptoError) in _ = try SS58.encode([UInt8](repeating: 1, count: count)) }?.message.contains("got \(count)") == true)
        }
        // Hand-built bodies with a valid checksum: a reserved prefix, a first byte above 127, and prefix 42 spelt
        // in two bytes are each refused by what is wrong with them.
        func address(_ body: [UInt8]) -> String {
            Base58Reference.encode(body + Array(BLAKE2b.hash512(Array("SS58PRE".utf8) + body).prefix(2)))
        }
        let reserved = address([46] + key)
        #expect(caughtError { () throws(CryptoError) in _ = try SS58.decode(reserved) }?.message == "SS58 prefix 46 is reserved")
        let highFirstByte = address([0x80, 0x00] + key)
        #expect(caughtError { () throws(CryptoError) in _ = try SS58.decode(highFirstByte) }?.message.contains("which is no prefix") == true)
        let twoByte42 = address([0x40 | (42 >> 2), UInt8(42 & 0b11) << 6] + key)
        #expect(caughtError { () throws(CryptoError) in _ = try SS58.decode(twoByte42) }?.message == "SS58 address spells prefix 42 in two bytes; prefixes below 64 take one")
    }
}

/// A test-only base58 encoder (the textbook big-integer one) to build addresses omni's encoder would refuse to write.
enum Base58Reference {
    static func encode(_ bytes: [UInt8]) -> String {
        let alphabet = Array("123456789ABCDEFGHJKLMNPQRSTUVWXYZabcdefghijkmnopqrstuvwxyz")
        var number = bytes
        var digits: [Character] = []
        while number.contains(where: { $0 != 0 }) {
            var remainder = 0
            var quotient: [UInt8] = []
            for byte in number {
                let accumulator = remainder * 256 + Int(byte)
                quotient.append(UInt8(accumulator / 58))
                remainder = accumulator % 58
            }
            digits.append(alphabet[remainder])
            number = quotient
        }
        let zeros = bytes.prefix { $0 == 0 }.count
        return String(repeating: "1", count: zeros) + String(digits.reversed())
    }
}
