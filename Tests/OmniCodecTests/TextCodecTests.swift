import Foundation
import OmniCodec
import OmniTestSupport
import Testing

private func failure(_ body: () throws(CodecError) -> [UInt8]) -> CodecError? {
    do {
        _ = try body()
        return nil
    } catch {
        return error
    }
}

/// RFC 4648 §10 test vectors.
private let rfc4648: [(text: String, base64: String, base32: String, base16: String)] = [
    ("", "", "", ""),
    ("f", "Zg==", "MY======", "66"),
    ("fo", "Zm8=", "MZXQ====", "666F"),
    ("foo", "Zm9v", "MZXW6===", "666F6F"),
    ("foob", "Zm9vYg==", "MZXW6YQ=", "666F6F62"),
    ("fooba", "Zm9vYmE=", "MZXW6YTB", "666F6F6261"),
    ("foobar", "Zm9vYmFy", "MZXW6YTBOI======", "666F6F626172"),
]

/// Naive bit-string base32 (RFC 4648 §6), independent of the table-driven codec under test.
private func referenceBase32(_ data: [UInt8]) -> String {
    let alphabet = Array("abcdefghijklmnopqrstuvwxyz234567")
    var bits = data.map { byte in (0..<8).map { byte >> (7 - $0) & 1 == 1 ? "1" : "0" }.joined() }.joined()
    while bits.count % 5 != 0 { bits += "0" }
    var out = ""
    var index = bits.startIndex
    while index < bits.endIndex {
        let next = bits.index(index, offsetBy: 5)
        out.append(alphabet[Int(bits[index..<next], radix: 2) ?? 0])
        index = next
    }
    return out
}

@Suite("Hex, base32, base64")
struct TextCodecTests {
    @Test("RFC 4648 §10 vectors", arguments: rfc4648.indices)
    func rfcVectors(index: Int) throws {
        let vector = rfc4648[index]
        let data = Array(vector.text.utf8)
        #expect(Base64.encode(data) == vector.base64)
        #expect(try Base64.decode(vector.base64) == data)
        #expect(try Base64.decode(vector.base64.filter { $0 != "=" }) == data)
        #expect(Base64.encode(data, padded: false) == vector.base64.filter { $0 != "=" })
        #expect(Base32.encode(data, padded: true, uppercase: true) == vector.base32)
        #expect(Base32.encode(data) == vector.base32.lowercased().filter { $0 != "=" })
        #expect(try Base32.decode(vector.base32) == data)
        #expect(try Base32.decode(vector.base32.lowercased(), padding: .required) == data)
        #expect(try Base32.decode(vector.base32.filter { $0 != "=" }, padding: .forbidden) == data)
        #expect(Hex.encode(data, uppercase: true) == vector.base16)
        #expect(Hex.encode(data) == vector.base16.lowercased())
        #expect(try Hex.decode(vector.base16) == data)
        #expect(try Hex.decode(vector.base16.lowercased()) == data)
    }

    @Test("random bytes round-trip and match independent encoders")
    func randomRoundTrips() throws {
        let seed = SeededGenerator.freshSeed()
        var rng = SeededGenerator(seed: seed)
        for _ in 0..<2_000 {
            let data = (0..<Int.random(in: 0...70, using: &rng)).map { _ in UInt8.random(in: 0...255, using: &rng) }
            let foundation = Data(data).base64EncodedString()
            #expect(Base64.encode(data) == foundation, "seed \(seed)")
            #expect(try Base64.decode(foundation) == data, "seed \(seed)")
            let url = Base64.encode(data, alphabet: .urlSafe, padded: false)
            #expect(url == foundation.replacingOccurrences(of: "+", with: "-").replacingOccurrences(of: "/", with: "_")
                .replacingOccurrences(of: "=", with: ""), "seed \(seed)")
            #expect(try Base64.decode(url, alphabet: .urlSafe) == data, "seed \(seed)")
            #expect(Base32.encode(data) == referenceBase32(data), "seed \(seed)")
            #expect(try Base32.decode(Base32.encode(data, padded: true)) == data, "seed \(seed)")
            #expect(Hex.encode(data) == data.map { String(format: "%02x", $0) }.joined(), "seed \(seed)")
            #expect(try Hex.decode(Hex.encode(data, uppercase: true)) == data, "seed \(seed)")
        }
    }

    @Test("IC principal texts are lowercase unpadded base32 of CRC32 ‖ bytes", .vectors("ic"))
    func principals() throws {
        let vectors = try #require(try Vectors.json("ic/principals.json") as? [String: Any])
        let valid = try #require(vectors["valid"] as? [[String: Any]])
        #expect(valid.count >= 5)
        for entry in valid {
            let text = try #require(entry["text"] as? String)
            let bytes = try Hex.decode(#require(entry["hex"] as? String))
            let decoded = try Base32.decode(text.filter { $0 != "-" }, padding: .forbidden)
            #expect(Array(decoded.dropFirst(4)) == bytes, "\(text)")
            #expect(Base32.encode(decoded) == text.filter { $0 != "-" }, "\(text)")
        }
        for entry in try #require(vectors["case_insensitive"] as? [[String: Any]]) {
            let text = try #require(entry["text"] as? String)
            #expect(try Base32.decode(text.filter { $0 != "-" }).dropFirst(4).isEmpty)
        }
    }

    @Test("hex errors carry the offset")
    func hexErrors() throws {
        #expect(failure { () throws(CodecError) in try Hex.decode("0g") }?.offset == 1)
        #expect(failure { () throws(CodecError) in try Hex.decode("g0") }?.offset == 0)
        #expect(failure { () throws(CodecError) in try Hex.decode("abc") }?.message == "odd number of hex digits (3)")
        #expect(failure { () throws(CodecError) in try Hex.decode("abc") }?.offset == 2)
        #expect(failure { () throws(CodecError) in try Hex.decode("ab z") }?.message == "invalid hex digit 0x20")
        #expect(failure { () throws(CodecError) in try Hex.decode("0x00") }?.offset == 1)
        #expect(try Hex.decode("0x00ff", allowPrefix: true) == [0, 255])
        #expect(try Hex.decode("0XAB", allowPrefix: true) == [0xAB])
        #expect(try Hex.decode("ab", allowPrefix: true) == [0xAB])
        #expect(failure { () throws(CodecError) in try Hex.decode("0x0g", allowPrefix: true) }?.offset == 3)
        #expect(failure { () throws(CodecError) in try Hex.decode("é0") }?.offset == 0)
        #expect(try Hex.decode(utf8: Array("0a0B".utf8)) == [10, 11])
        #expect(try Hex.decode("  00ff  ".trimmingCharacters(in: .whitespaces)[...]) == [0, 255])
        #expect(failure { () throws(CodecError) in try Hex.decode("zz") }?.format == "hex")
    }

    @Test("base32 is strict about length, padding and unused bits")
    func base32Errors() throws {
        #expect(try Base32.decode("MZXW6YQ") == Array("foob".utf8))
        #expect(try Base32.decode("mzxw6yq") == Array("foob".utf8))
        for (text, offset) in [("M", 0), ("MZX", 2), ("MZXW6Y", 5), ("MZXW6YTBO", 8)] {
            let error = failure { () throws(CodecError) in try Base32.decode(text) }
            #expect(error?.message.contains("invalid length") == true, "\(text)")
            #expect(error?.offset == offset, "\(text)")
        }
        #expect(failure { () throws(CodecError) in try Base32.decode("MZ") }?.message.contains("unused bits") == true)
        #expect(failure { () throws(CodecError) in try Base32.decode("MZ") }?.offset == 1)
        #expect(failure { () throws(CodecError) in try Base32.decode("MY1=") }?.offset == 2)
        #expect(failure { () throws(CodecError) in try Base32.decode("MY=====") }?.message.contains("padding") == true)
        #expect(failure { () throws(CodecError) in try Base32.decode("MY======", padding: .forbidden) }?.offset == 2)
        #expect(failure { () throws(CodecError) in try Base32.decode("MY", padding: .required) }?.message == "missing padding")
        #expect(failure { () throws(CodecError) in try Base32.decode("MY======MY") }?.offset == 8)
        #expect(failure { () throws(CodecError) in try Base32.decode("MZXW6YTB========") }?.offset == 8)
        #expect(failure { () throws(CodecError) in try Base32.decode("MY ======") }?.offset == 2)
        #expect(failure { () throws(CodecError) in try Base32.decode("1") }?.format == "base32")
    }

    @Test("base64 is strict by default; whitespace and loose trailing bits only on request")
    func base64Errors() throws {
        #expect(failure { () throws(CodecError) in try Base64.decode("Zm9v\nYg==") }?.offset == 4)
        #expect(try Base64.decode("Zm9v\r\n Yg = =\n", allowWhitespace: true) == Array("foob".utf8))
        #expect(failure { () throws(CodecError) in try Base64.decode("Zh==") }?.message == "non-zero unused bits in the last symbol")
        #expect(failure { () throws(CodecError) in try Base64.decode("Zh==") }?.offset == 1)
        #expect(try Base64.decode("Zh==", strict: false) == Array("f".utf8))
        #expect(try Base64.decode("Zm9=", strict: false) == Array("fo".utf8))
        #expect(failure { () throws(CodecError) in try Base64.decode("Zm9vY") }?.message.contains("invalid length") == true)
        #expect(failure { () throws(CodecError) in try Base64.decode("Zg=") }?.offset == 2)
        #expect(failure { () throws(CodecError) in try Base64.decode("Zg===") }?.offset == 2)
        #expect(failure { () throws(CodecError) in try Base64.decode("Zg==", padding: .forbidden) }?.message == "padding is not allowed")
        #expect(failure { () throws(CodecError) in try Base64.decode("Zg", padding: .required) }?.offset == 2)
        #expect(failure { () throws(CodecError) in try Base64.decode("Zm9v=") }?.offset == 4)
        #expect(failure { () throws(CodecError) in try Base64.decode("Zg==Zg==") }?.offset == 4)
        #expect(failure { () throws(CodecError) in try Base64.decode("-_8=") }?.offset == 0)
        #expect(failure { () throws(CodecError) in try Base64.decode("+/8=", alphabet: .urlSafe) }?.offset == 0)
        #expect(try Base64.decode("-_8=", alphabet: .urlSafe) == [0xFB, 0xFF])
        #expect(try Base64.decode("+/8") == [0xFB, 0xFF])
        #expect(failure { () throws(CodecError) in try Base64.decode("Zm9v\u{0}") }?.message == "invalid base64 character 0x00")
        #expect(failure { () throws(CodecError) in try Base64.decode("Zm9v") } == nil)
    }
}
