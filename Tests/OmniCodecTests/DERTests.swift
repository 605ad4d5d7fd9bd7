import OmniCodec
import OmniTestSupport
import Testing

@Suite("DER reader and writer")
struct DERTests {
    @Test("lengths: short and long form round-trip; the writer uses the shortest form")
    func lengthForms() throws {
        for count in [0, 1, 127, 128, 255, 256, 65_535, 65_536] {
            let content = [UInt8](repeating: 0xAB, count: count)
            let encoded = DERWriter.element(tag: 0x04, content)
            let header = count < 0x80 ? 2 : count < 0x100 ? 3 : count < 0x10000 ? 4 : 5
            #expect(encoded.count == header + count, "\(count)")
            var reader = try DERReader(encoded)
            #expect(try reader.read(tag: 0x04) == content, "\(count)")
            try reader.requireEnd()
        }
        #expect(DERWriter.element(tag: 0x04, [UInt8](repeating: 0, count: 200)).prefix(3) == [0x04, 0x81, 0xC8])
    }

    /// Every BER-only length form is refused, with the offset of the length byte.
    @Test("non-DER lengths are refused where they stand")
    func strictLengths() {
        let cases: [(bytes: [UInt8], offset: Int, message: String)] = [
            ([0x04, 0x80, 0x00, 0x00], 1, "indefinite length is not DER"),
            ([0x04, 0x81, 0x05, 1, 2, 3, 4, 5], 1, "length not minimally encoded"),  // long form below 128
            ([0x04, 0x82, 0x00, 0x80] + [UInt8](repeating: 0, count: 128), 1, "length not minimally encoded"),  // leading zero
            ([0x04, 0x85, 1, 0, 0, 0, 0], 1, "length of 5 bytes is not supported"),
            ([0x04, 0x82, 0x01], 1, "truncated length"),
            ([0x04], 1, "missing length"),
            ([0x04, 0x05, 1, 2], 0, "length 5 exceeds the 2 remaining bytes"),
            ([0x1F, 0x81, 0x01, 0x00], 0, "multi-byte tag 0x1f is not supported"),
        ]
        for (bytes, offset, message) in cases {
            let error = caughtError { () throws(CodecError) in
                var reader = try DERReader(bytes)
                _ = try reader.readElement()
            }
            #expect(error?.format == "DER", "\(bytes)")
            #expect(error?.offset == offset, "\(bytes): \(String(describing: error))")
            #expect(error?.message == message, "\(bytes): \(String(describing: error))")
        }
    }

    @Test("offsets in errors count from the start of the whole input, also inside nested elements")
    func absoluteOffsets() throws {
        // SEQUENCE { INTEGER 1, SEQUENCE { OCTET STRING with a length running past its parent } }
        let bytes: [UInt8] = [0x30, 0x08, 0x02, 0x01, 0x01, 0x30, 0x03, 0x04, 0x05, 0x00]
        let error = caughtError { () throws(CodecError) in
            var reader = try DERReader(bytes)
            var outer = try reader.readConstructed(tag: 0x30)
            _ = try outer.readUnsignedInteger()
            var inner = try outer.readConstructed(tag: 0x30)
            _ = try inner.read(tag: 0x04)
        }
        #expect(error?.offset == 7)
        #expect(error?.description == "malformed DER (byte 7): length 5 exceeds the 1 remaining bytes")
    }

    @Test("tags, trailing bytes and the end of the data")
    func structure() throws {
        var reader = try DERReader([0x02, 0x01, 0x05, 0xFF])
        #expect(reader.nextTag == 0x02)
        let wrongTag = caughtError { () throws(CodecError) in _ = try reader.read(tag: 0x04) }
        #expect(wrongTag?.message == "expected tag 0x04, found 0x02" && wrongTag?.offset == 0)
        #expect(try reader.readUInt64() == 5)
        #expect(reader.offset == 3 && reader.remainingBytes == [0xFF])
        #expect(caughtError { () throws(CodecError) in try reader.requireEnd() }?.message == "1 unexpected trailing bytes")
        var empty = try DERReader([])
        #expect(caughtError { () throws(CodecError) in _ = try empty.read(tag: 0x30) }?.message == "expected tag 0x30, found the end of the data")
        #expect(empty.isAtEnd && empty.nextTag == nil)
    }

    @Test("INTEGERs: minimal, non-negative; 64-bit values")
    func integers() throws {
        func magnitude(_ content: [UInt8]) throws(CodecError) -> [UInt8] {
            var reader = try DERReader([0x02, UInt8(content.count)] + content)
            return try reader.readUnsignedInteger()
        }
        #expect(try magnitude([0x00]) == [])
        #expect(try magnitude([0x00, 0x80]) == [0x80])
        #expect(try magnitude([0x7F]) == [0x7F])
        #expect(caughtError { () throws(CodecError) in _ = try magnitude([]) }?.message == "empty INTEGER")
        #expect(caughtError { () throws(CodecError) in _ = try magnitude([0x80]) }?.message == "negative INTEGER")
        #expect(caughtError { () throws(CodecError) in _ = try magnitude([0x00, 0x7F]) }?.message == "INTEGER not minimally encoded")
        var big = try DERReader(DERWriter.unsignedInteger([UInt8](repeating: 0xFF, count: 9)))
        #expect(caughtError { () throws(CodecError) in _ = try big.readUInt64() }?.message == "INTEGER of 9 bytes does not fit in 64 bits")
        var max = try DERReader(DERWriter.unsignedInteger([UInt8](repeating: 0xFF, count: 8)))
        #expect(try max.readUInt64() == UInt64.max)
        // The writer adds the sign byte and strips leading zeros.
        #expect(DERWriter.unsignedInteger([0x00, 0x00, 0x80]) == [0x02, 0x02, 0x00, 0x80])
        #expect(DERWriter.unsignedInteger([]) == [0x02, 0x01, 0x00])
        #expect(DERWriter.sequence([0x05, 0x00], [0x05, 0x00]) == [0x30, 0x04, 0x05, 0x00, 0x05, 0x00])
    }

    @Test("limits: nesting depth and input size")
    func limits() throws {
        var nested: [UInt8] = [0x05, 0x00]
        for _ in 0..<20 { nested = DERWriter.element(tag: 0x30, nested) }
        let tooDeep = caughtError { () throws(CodecError) in
            var reader = try DERReader(nested, limits: DERLimits(maxDepth: 8))
            while reader.nextTag == 0x30 { reader = try reader.readConstructed(tag: 0x30) }
        }
        #expect(tooDeep?.kind == .limitExceeded && tooDeep?.message == "nesting deeper than 8 elements")
        var reader = try DERReader(nested, limits: DERLimits(maxDepth: 20))
        while reader.nextTag == 0x30 { reader = try reader.readConstructed(tag: 0x30) }
        #expect(try reader.read(tag: 0x05) == [])

        let tooLarge = caughtError { () throws(CodecError) in _ = try DERReader([UInt8](repeating: 0, count: 65), limits: DERLimits(maxInputBytes: 64)) }
        #expect(tooLarge?.kind == .limitExceeded)
    }

    /// Random bytes, and valid DER with random bytes changed, never crash the reader: every outcome is a value or
    /// a CodecError.
    @Test("arbitrary bytes are read or refused, never trapped on")
    func arbitraryBytes() throws {
        var random = SeededGenerator()
        let valid = DERWriter.sequence(DERWriter.unsignedInteger([1, 2, 3]), DERWriter.element(tag: 0xA1, DERWriter.sequence(
            DERWriter.element(tag: 0x04, [UInt8](repeating: 7, count: 130)), DERWriter.element(tag: 0x05, []))))
        var refused = 0
        for round in 0..<4000 {
            var bytes: [UInt8]
            if round % 2 == 0 {
                bytes = (0..<Int.random(in: 0..<24, using: &random)).map { _ in UInt8.random(in: 0...255, using: &random) }
            } else {
                bytes = valid
                for _ in 0..<Int.random(in: 1...3, using: &random) {
                    bytes[Int.random(in: 0..<bytes.count, using: &random)] = UInt8.random(in: 0...255, using: &random)
                }
            }
            if caughtError({ () throws(CodecError) in try walk(try DERReader(bytes)) }) != nil { refused += 1 }
        }
        #expect(refused > 0, "seed \(random.seed)")
        try walk(try DERReader(valid))
    }

    private func walk(_ start: DERReader) throws(CodecError) {
        var reader = start
        while !reader.isAtEnd {
            let element = try reader.readElement()
            if element.tag & 0x20 != 0 { try walk(try element.contents()) }
        }
    }
}
