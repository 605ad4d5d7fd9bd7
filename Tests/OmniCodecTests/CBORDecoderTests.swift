import Foundation
import OmniCodec
import OmniTestSupport
import Testing

private func decodeError(_ hex: String, _ options: CBORDecodingOptions = .default) -> CodecError? {
    do {
        _ = try CBOR.decode(bytes(hex), options: options)
        return nil
    } catch {
        return error
    }
}

/// Malformed inputs (RFC 8949 Appendix F kinds) with the offset the error must point at.
private let malformed: [(hex: String, offset: Int, reason: String)] = [
    ("", 0, "end of input"),
    ("18", 0, "truncated head"), ("19 01", 0, "truncated head"), ("1a 0102 03", 0, "truncated head"),
    ("1b 01020304050607", 0, "truncated head"), ("f9 00", 0, "truncated head"), ("fb 0000", 0, "truncated head"),
    ("42 01", 0, "truncated string"), ("62 61", 0, "truncated string"), ("5b 0000000100000000", 0, "truncated string"),
    ("7b ffffffffffffffff 61", 0, "truncated string"),
    ("83 01 02", 0, "truncated array"), ("83 01 02 81", 3, "truncated array"), ("9b 0010000000000000", 0, "truncated array"),
    ("a1 01", 0, "truncated map"), ("a2 01 02 81 01", 5, "end of input"), ("bb ffffffffffffffff", 0, "truncated map"),
    ("9f 01 02", 3, "end of input in indefinite-length array"), ("bf 01 02", 3, "end of input in indefinite-length map"),
    ("5f 41 00", 3, "end of input in indefinite-length string"),
    ("bf 01 ff", 2, "break"), ("81 ff", 1, "break"), ("ff", 0, "break"), ("a1 ff 01", 1, "break"),
    ("1c", 0, "reserved"), ("3d", 0, "reserved"), ("5e", 0, "reserved"), ("fc", 0, "reserved"), ("fe", 0, "reserved"),
    ("1f", 0, "indefinite length is not allowed"), ("3f", 0, "indefinite length is not allowed"),
    ("df 01", 0, "indefinite length is not allowed"),
    ("f8 00", 0, "one-byte form"), ("f8 1f", 0, "one-byte form"),
    ("5f 61 61 ff", 1, "major type 3"), ("7f 41 61 ff", 1, "major type 2"), ("5f 5f ff ff", 1, "nested indefinite"),
    ("5f 01 ff", 1, "major type 0"),
    ("c6", 1, "end of input"), ("d9 d9 f7", 3, "end of input"),
    ("62 c3 28", 1, "UTF-8"), ("63 ed a0 80", 1, "UTF-8"), ("62 c0 80", 1, "UTF-8"), ("64 f4 90 80 80", 1, "UTF-8"),
    ("63 61 62 ff", 3, "UTF-8"), ("7f 61 c3 61 bc ff", 2, "UTF-8"),
    ("a2 61 61 01 61 61 02", 4, "duplicate map key"), ("a2 01 00 f9 3c00 00", 0, "never"),
    ("00 00", 1, "after the data item"),
]

@Suite("CBOR decoder")
struct CBORDecoderTests {
    @Test("malformed input is refused with the right offset", arguments: malformed.filter { $0.reason != "never" })
    func refusesMalformed(_ sample: (hex: String, offset: Int, reason: String)) throws {
        let error = try #require(decodeError(sample.hex), "\(sample.hex) was accepted")
        #expect(error.format == "CBOR")
        #expect(error.offset == sample.offset, "\(sample.hex): \(error)")
        #expect(error.message.contains(sample.reason), "\(sample.hex): \(error)")
        if sample.reason != "after the data item" { #expect(error.path?.hasPrefix("$") == true) }
    }

    @Test("an integer key and an equal float key are different data items")
    func intAndFloatKeysDiffer() throws {
        let map = try CBOR.decode(bytes("a2 01 00 f9 3c00 00"))
        #expect(map.map?.count == 2)
    }

    @Test("text keys are compared by code points: precomposed and decomposed é are different keys")
    func exactTextKeys() throws {
        // {"é": 1, "e\u0301": 2}
        let map = try CBOR.decode(bytes("a2 62c3a9 01 6365cc81 02"))
        #expect(map.map?.count == 2)
        #expect(map["\u{E9}"] == 1 && map["e\u{301}"] == 2)
        #expect(CBOR.text("\u{E9}") != CBOR.text("e\u{301}"))
        #expect(Set<CBOR>([.text("\u{E9}"), .text("e\u{301}")]).count == 2)
        #expect(decodeError("a2 62c3a9 01 62c3a9 02")?.message.contains("duplicate") == true)
    }

    @Test("every strict prefix of a valid item is an error, never a crash")
    func truncationsFail() throws {
        let samples = ["9f018202039f0405ffff", "bf61610161629f0203ffff", "c249010000000000000000",
                       "a26161016162820203", "7f657374726561646d696e67ff", "fb7e37e43c8800759c", "d9d9f7a0"]
        for hex in samples {
            let full = bytes(hex)
            _ = try CBOR.decode(full)
            for length in 0..<full.count {
                #expect(throws: CodecError.self, "\(hex) cut to \(length)") { try CBOR.decode(Array(full[..<length])) }
            }
        }
    }

    @Test("error paths name the element: $[1].\"key\"")
    func errorPaths() throws {
        // {"a": [0, {"key": <invalid UTF-8>}]}
        let error = try #require(decodeError("a1 6161 82 00 a1 636b6579 62 c328"))
        #expect(error.path == "$.\"a\"[1].\"key\"")
        #expect(error.offset == 11)
        #expect(error.description.contains("byte 11"))
        let keyError = try #require(decodeError("81 a1 5f 61 ff 00"))
        #expect(keyError.path == "$[0]{key 0}(0)")
        let tagError = try #require(decodeError("a1 01 d8 18 ff"))
        #expect(tagError.path == "${1}<24>")
    }

    @Test("limits: depth, items, string size, input size")
    func limits() throws {
        let depth128 = [UInt8](repeating: 0x81, count: 127) + [0x80]
        _ = try CBOR.decode(depth128)
        let depth129 = [UInt8](repeating: 0x81, count: 128) + [0x80]
        let deep = try #require(decodeError(Hex.encode(depth129)))
        #expect(deep.kind == .limitExceeded)
        #expect(deep.offset == 128)
        // Tags nest too: 200 tags must not recurse unbounded.
        let tags = try #require(decodeError(String(repeating: "c6", count: 200) + "00"))
        #expect(tags.kind == .limitExceeded)
        let tiny = CBORDecodingOptions(maxDepth: 2, maxItems: 4, maxStringBytes: 3, maxInputBytes: 8)
        #expect(decodeError("81 80", tiny) == nil)
        #expect(decodeError("81 c6 00", tiny) == nil)
        #expect(decodeError("8181 80", tiny)?.kind == .limitExceeded)
        #expect(decodeError("81 c6 80", tiny)?.kind == .limitExceeded)
        #expect(decodeError("84 01020304", tiny)?.kind == .limitExceeded)
        #expect(decodeError("83 010203", tiny) == nil)
        #expect(decodeError("44 01020304", tiny)?.kind == .limitExceeded)
        #expect(decodeError("5f 42 0102 42 0304 ff", tiny)?.kind == .limitExceeded)
        #expect(decodeError("49 000102030405060708", tiny)?.kind == .limitExceeded)
        #expect(decodeError("49 000102030405060708", tiny)?.offset == 0)
    }

    @Test("a claimed 2^60-byte string or 2^60-item array fails fast without allocating")
    func hugeClaims() {
        for hex in ["5b 1000000000000000", "7b 1000000000000000 00", "9b 1000000000000000 00", "bb 1000000000000000 0000"] {
            let error = decodeError(hex)
            #expect(error?.kind == .malformed, "\(hex)")
            #expect(error?.offset == 0)
        }
    }

    @Test("strict mode: UTF-8, duplicates, trailing bytes; lenient mode keeps going")
    func strictAndLenient() throws {
        #expect(decodeError("62 c328")?.kind == .malformed)
        let repaired = try CBOR.decode(bytes("62 c328"), options: .lenient)
        #expect(repaired.text == "\u{FFFD}(")
        #expect(decodeError("a2 0101 0102")?.message.contains("duplicate map key 1") == true)
        let duplicates = try CBOR.decode(bytes("a2 0101 0102"), options: .lenient)
        #expect(duplicates.map?.count == 2)
        // Duplicates found in large maps too (hash-set path) and across encodings of the same value.
        var large: [UInt8] = [0xB8, 40]
        for i in 0..<39 { large += [0x18, UInt8(24 + i), 0x00] }
        large += [0x19, 0x00, 0x18, 0x00]  // 24 again, non-preferred head
        #expect(decodeError(Hex.encode(large))?.message.contains("duplicate map key 24") == true)
        #expect(decodeError("a2 6161 00 7f 6161 ff 00")?.message.contains("duplicate") == true)
        #expect(decodeError("a2 f93e00 00 fa3fc00000 00")?.message.contains("duplicate") == true)
        #expect(decodeError("0001")?.offset == 1)
        let prefix = try CBOR.decodePrefix(bytes("0001"), options: .lenient)
        #expect(prefix.item == 0 && prefix.byteCount == 1)
        #expect(try CBOR.decodeSequence(bytes("00 6161 80")) == [0, "a", []])
        #expect(try CBOR.decodeSequence([UInt8]()) == [])
    }

    @Test("canonical mode refuses non-preferred heads, indefinite lengths, wide floats and unsorted keys")
    func canonical() throws {
        for hex in ["1817", "190017", "1a0000ffff", "1b00000000ffffffff", "3817", "5800", "7800", "9800", "b800",
                    "d81701", "f818" /* malformed anyway */, "fa3f800000", "fb3ff0000000000000", "9fff",
                    "a2 6162 01 6161 02", "a2 0a 00 0a 00", "a2 6161 00 01 00"] {
            #expect(decodeError(hex, .canonical) != nil, "\(hex)")
        }
        for hex in ["17", "1818", "19ffff", "1a00010000", "1b0000000100000000", "f97e00", "fa47c35000",
                    "fb3ff199999999999a", "a2 01 00 6161 00", "a3 0a 00 1864 00 20 00"] {
            #expect(decodeError(hex, .canonical) == nil, "\(hex)")
            #expect(decodeError(hex) == nil, "\(hex)")
        }
        #expect(decodeError("1817") == nil)
        #expect(decodeError("1817", .canonical)?.kind == .unsupported)
        #expect(decodeError("9fff", CBORDecodingOptions(allowIndefiniteLength: false))?.kind == .unsupported)
    }

    @Test("self-describe tag stripped on request")
    func selfDescribe() throws {
        let tagged = try CBOR.decode(bytes("d9d9f7 83010203"))
        #expect(tagged.tag?.number == 55799)
        let stripped = try CBOR.decode(bytes("d9d9f7 83010203"), options: CBORDecodingOptions(stripSelfDescribeTag: true))
        #expect(stripped == [1, 2, 3])
        #expect(try CBOR.array([1]).selfDescribed.encoded() == bytes("d9d9f7 8101"))
    }

    @Test("decodes from [UInt8], ArraySlice and Data alike")
    func contiguousInputs() throws {
        let raw = bytes("ff a26161016162820203")
        let expected: CBOR = ["a": 1, "b": [2, 3]]
        #expect(try CBOR.decode(raw[1...]) == expected)
        #expect(try CBOR.decode(Data(raw.dropFirst())) == expected)
        #expect(try CBOR.decode(Array(raw.dropFirst())) == expected)
    }

    @Test("every half-precision bit pattern decodes exactly and re-encodes to itself")
    func allHalfFloats() throws {
        for bits in 0...UInt16.max {
            let encoded: [UInt8] = [0xF9, UInt8(bits >> 8), UInt8(bits & 0xFF)]
            let item = try CBOR.decode(encoded)
            guard case .float(let value, let width) = item else { Issue.record("not a float"); return }
            #expect(width == .half)
            let reference = Double(Float16(bitPattern: bits))
            if reference.isNaN {
                #expect(value.isNaN)
            } else if value.bitPattern != reference.bitPattern {
                Issue.record("half \(bits): \(value) ≠ \(reference)")
            }
            if try item.encoded() != encoded { Issue.record("half \(bits) does not round-trip") }
        }
    }

    @Test("random single-precision patterns decode exactly and re-encode to themselves")
    func singleFloats() throws {
        let seed = SeededGenerator.freshSeed()
        var rng = SeededGenerator(seed: seed)
        for _ in 0..<20_000 {
            let bits = UInt32.random(in: 0 ... .max, using: &rng)
            let encoded: [UInt8] = [0xFA] + (0..<4).map { UInt8(truncatingIfNeeded: bits >> (24 - 8 * $0)) }
            let item = try CBOR.decode(encoded)
            let value = try #require(item.double)
            let reference = Double(Float(bitPattern: bits))
            if reference.isNaN ? !value.isNaN : value.bitPattern != reference.bitPattern {
                Issue.record("single \(bits): \(value) ≠ \(reference) (seed \(seed))")
            }
            if try item.encoded() != encoded { Issue.record("single \(bits) does not round-trip (seed \(seed))") }
        }
    }

    @Test("accessors")
    func accessors() throws {
        #expect(CBOR.unsigned(.max).uint == .max)
        #expect(CBOR.unsigned(.max).int == nil)
        #expect(CBOR.negative(UInt64(Int64.max)).int == .min)
        #expect(CBOR.negative(UInt64(Int64.max) + 1).int == nil)
        #expect(CBOR.integer(-1) == .negative(0))
        #expect(CBOR.integer(.min) == .negative(UInt64(Int64.max)))
        let big = try CBOR.decode(bytes("3bffffffffffffffff")).bigInteger
        #expect(big?.negative == true && big?.magnitude == [1, 0, 0, 0, 0, 0, 0, 0, 0])
        #expect(CBOR.bigInteger(negative: true, magnitude: [1, 0, 0, 0, 0, 0, 0, 0, 0]) == .negative(.max))
        #expect(CBOR.bigInteger(negative: true, magnitude: [1, 0, 0, 0, 0, 0, 0, 0, 1])
                == .tagged(3, .bytes([1, 0, 0, 0, 0, 0, 0, 0, 0])))
        #expect(CBOR.bigInteger(negative: false, magnitude: [0, 0, 5]) == 5)
        #expect(CBOR.bigInteger(negative: false, magnitude: [1, 0, 0, 0, 0, 0, 0, 0, 0]).tag?.number == 2)
        #expect(CBOR.bigInteger(negative: true, magnitude: []) == 0)
        #expect(CBOR.unsigned(0).bigInteger?.magnitude == [])
        let item = try CBOR.decode(bytes("a3 6161 83 01 02 03 6162 5f 41 01 41 02 ff 01 d8 18 40"),
                                   options: CBORDecodingOptions(preserveIndefiniteLength: true))
        #expect(item["a"]?[2]?.int == 3)
        #expect(item["a"]?[3] == nil)
        #expect(item["b"]?.bytes == [1, 2])
        #expect(item[CBOR.unsigned(1)]?.tag?.number == 24)
        #expect(item[CBOR.unsigned(1)]?.untagged.bytes == [])
        #expect(item["missing"] == nil)
        #expect(CBOR.text("x")["a"] == nil)
        #expect(CBOR.textChunks(["ab", "c"]).text == "abc")
        #expect(CBOR.bool(true).bool == true && CBOR.null.isNull)
        #expect(CBOR.float(1.5, width: .half) == CBOR.float(1.5, width: .double))
        #expect(CBOR.indefiniteArray([1]) == [1])
        #expect(Set<CBOR>([.byteChunks([[1], [2]]), .bytes([1, 2])]).count == 1)
    }

    @Test("IC certificates from agent-rs and agent-js decode and re-encode byte for byte", .vectors("ic"))
    func icCertificates() throws {
        let vectors = try #require(try Vectors.json("ic/certificates.json") as? [String: Any])
        let certificates = try #require(vectors["certificates"] as? [[String: Any]])
        #expect(certificates.count == 14)
        for entry in certificates {
            let id = entry["id"] as? String ?? "?"
            let certificate = try bytes(#require(entry["certificate_cbor_hex"] as? String))
            let item = try CBOR.decode(certificate)
            if certificate.starts(with: [0xD9, 0xD9, 0xF7]) { #expect(item.tag?.number == 55799, "\(id)") }
            let body = try CBOR.decode(certificate, options: CBORDecodingOptions(stripSelfDescribeTag: true))
            #expect(body["tree"]?.array != nil, "\(id)")
            #expect(body["signature"]?.bytes?.count == 48, "\(id)")
            #expect(try item.encoded() == certificate, "\(id)")
            if let responseHex = entry["response_body_cbor_hex"] as? String {
                let response = try CBOR.decode(bytes(responseHex), options: CBORDecodingOptions(stripSelfDescribeTag: true))
                let nested = try #require(response["certificate"]?.bytes, "\(id)")
                #expect(nested == certificate, "\(id)")
            }
        }
    }

    @Test("App Attest attestation objects decode with their structure", .vectors("attest"))
    func appAttestObjects() throws {
        let directory = Vectors.url("attest/real/attestation")
        let files = try FileManager.default.contentsOfDirectory(atPath: directory.path).filter { $0.hasSuffix(".json") }
        #expect(files.count == 15)
        for file in files {
            let vector = try #require(try Vectors.json("attest/real/attestation/" + file) as? [String: Any])
            let object = try Base64.decode(#require(vector["attestation_b64"] as? String))
            let item = try CBOR.decode(object)
            #expect(item["fmt"]?.text == "apple-appattest", "\(file)")
            #expect(item["attStmt"]?["x5c"]?.array?.allSatisfy { $0.bytes != nil } == true, "\(file)")
            #expect(item["attStmt"]?["receipt"]?.bytes != nil, "\(file)")
            let expected = try #require(vector["expected"] as? [String: Any])
            if let length = expected["auth_data_len"] as? Int {
                #expect(item["authData"]?.bytes?.count == length, "\(file)")
            }
            #expect(try item.encoded() == object, "\(file)")
        }
    }
}
