import OmniCodec
import Testing

/// BigUInt/BigInt arithmetic and LEB128 (the arbitrary-precision and fixed-width codecs in OmniCodec/Numbers).
@Suite struct NumbersTests {
    @Test func decimalAndHexTextRoundTrip() throws {
        let text = "340282366920938463463374607431768211457"  // 2^128 + 1
        let value = try #require(BigUInt(text))
        #expect(value.description == text)
        #expect(value.toString(radix: 16) == "100000000000000000000000000000001")
        #expect(BigUInt("100000000000000000000000000000001", radix: 16) == value)
        #expect(BigUInt("FFff", radix: 16) == BigUInt(0xFFFF))
        #expect(BigUInt("") == nil)
        #expect(BigUInt("12a") == nil)
        #expect(BigUInt("-1") == nil)
        #expect(BigInt("-340282366920938463463374607431768211457")?.description == "-" + text)
        #expect(BigInt("+5") == BigInt(5))
        #expect(BigInt("-0") == BigInt.zero)
        #expect(BigInt("-0")?.isNegative == false)
    }

    @Test func arithmeticMatchesUInt64WhereItFits() {
        var random = SystemRandomNumberGenerator()
        for _ in 0..<500 {
            let a = UInt64.random(in: 0...UInt64(UInt32.max), using: &random)
            let b = UInt64.random(in: 1...UInt64(UInt32.max), using: &random)
            #expect(BigUInt(a) + BigUInt(b) == BigUInt(a + b))
            #expect(BigUInt(a) * BigUInt(b) == BigUInt(a * b))
            let (q, r) = BigUInt(a).quotientAndRemainder(dividingBy: BigUInt(b))
            #expect(q == BigUInt(a / b) && r == BigUInt(a % b))
            #expect(BigUInt(a).subtracting(BigUInt(b)) == (a >= b ? BigUInt(a - b) : nil))
        }
    }

    /// Division identity n = q·d + r with r < d on multi-limb operands (exercises Knuth D's correction steps).
    @Test func multiLimbDivisionIdentity() {
        var random = SystemRandomNumberGenerator()
        for _ in 0..<300 {
            let n = BigUInt(limbs: (0..<Int.random(in: 1...6, using: &random)).map { _ in random.next() })
            var divisorLimbs = (0..<Int.random(in: 1...4, using: &random)).map { _ in random.next() }
            // Top limbs near the limits stress the qhat estimate.
            if Bool.random(using: &random) { divisorLimbs[divisorLimbs.count - 1] = UInt64.max - UInt64.random(in: 0...3, using: &random) }
            let d = BigUInt(limbs: divisorLimbs)
            guard !d.isZero else { continue }
            let (q, r) = n.quotientAndRemainder(dividingBy: d)
            #expect(q * d + r == n)
            #expect(r < d)
        }
        let big = BigUInt(limbs: [0, 0, 1])  // 2^128
        #expect(big.quotientAndRemainder(dividingBy: BigUInt(limbs: [UInt64.max, UInt64.max])) == (BigUInt(1), BigUInt(1)))
    }

    @Test func signedArithmetic() {
        #expect(BigInt(-7) + BigInt(3) == BigInt(-4))
        #expect(BigInt(7) - BigInt(10) == BigInt(-3))
        #expect(BigInt(-6) * BigInt(-7) == BigInt(42))
        #expect(BigInt(-7).quotientAndRemainder(dividingBy: BigInt(2)) == (BigInt(-3), BigInt(-1)))
        #expect(BigInt(-5) < BigInt(-4) && BigInt(-4) < BigInt(0) && BigInt(0) < BigInt(1))
        #expect(BigInt(Int64.min).int64Value == Int64.min)
        #expect((BigInt(Int64.min) - BigInt(1)).int64Value == nil)
        #expect(BigUInt(1) << 64 == BigUInt(limbs: [0, 1]))
        #expect(BigUInt(limbs: [0, 1]) >> 63 == BigUInt(2))
    }

    @Test(arguments: [
        (UInt64(0), "00"), (127, "7f"), (128, "8001"), (624485, "e58e26"), (UInt64.max, "ffffffffffffffffff01"),
    ])
    func unsignedLEB128(_ value: UInt64, _ hex: String) throws {
        #expect(hexString(LEB128.encoded(value)) == hex)
        #expect(hexString(LEB128.encoded(BigUInt(value))) == hex)
        var offset = 0
        #expect(try LEB128.decodeUInt64(bytes(hex), at: &offset) == value)
        #expect(offset == hex.count / 2)
        offset = 0
        #expect(try LEB128.decodeBigUInt(bytes(hex), at: &offset, maxBytes: 64) == BigUInt(value))
    }

    @Test(arguments: [
        (Int64(0), "00"), (-1, "7f"), (63, "3f"), (64, "c000"), (-64, "40"), (-65, "bf7f"), (-123456, "c0bb78"),
        (Int64.max, "ffffffffffffffffff00"), (Int64.min, "8080808080808080807f"),
    ])
    func signedLEB128(_ value: Int64, _ hex: String) throws {
        #expect(hexString(LEB128.encodedSigned(value)) == hex)
        #expect(hexString(LEB128.encodedSigned(BigInt(value))) == hex)
        var offset = 0
        #expect(try LEB128.decodeInt64(bytes(hex), at: &offset) == value)
        offset = 0
        #expect(try LEB128.decodeBigInt(bytes(hex), at: &offset, maxBytes: 64) == BigInt(value))
    }

    /// Values beyond 64 bits round-trip through the arbitrary-precision forms, and encodings stay minimal.
    @Test func bigValuesRoundTrip() throws {
        var random = SystemRandomNumberGenerator()
        for _ in 0..<300 {
            let magnitude = BigUInt(limbs: (0..<Int.random(in: 1...5, using: &random)).map { _ in random.next() } )
            for value in [BigInt(magnitude), BigInt(isNegative: true, magnitude: magnitude)] {
                let encoded = LEB128.encodedSigned(value)
                var offset = 0
                #expect(try LEB128.decodeBigInt(encoded, at: &offset, maxBytes: 100) == value)
                #expect(offset == encoded.count)
                // Minimal: dropping the last byte's role (one byte shorter) cannot represent the value.
                if encoded.count > 1 {
                    let last = encoded[encoded.count - 1], previous = encoded[encoded.count - 2]
                    let redundant = (last == 0x00 && previous & 0x40 == 0) || (last == 0x7F && previous & 0x40 != 0)
                    #expect(!redundant, "non-minimal SLEB128 for \(value)")
                }
            }
            let encoded = LEB128.encoded(magnitude)
            var offset = 0
            #expect(try LEB128.decodeBigUInt(encoded, at: &offset, maxBytes: 100) == magnitude)
            #expect(encoded.last != 0 || encoded.count == 1)
        }
        // -2^k boundaries are the classic off-by-one for signed minimality.
        let minus2to70 = BigInt(isNegative: true, magnitude: BigUInt(1) << 70)
        #expect(hexString(LEB128.encodedSigned(minus2to70)) == "808080808080808080807f")
    }

    @Test func paddedEncodingsAreAccepted() throws {
        var offset = 0
        #expect(try LEB128.decodeUInt64([0x80, 0x80, 0x00], at: &offset) == 0)
        offset = 0
        #expect(try LEB128.decodeInt64([0xFF, 0x7F], at: &offset) == -1)
        offset = 0
        #expect(try LEB128.decodeUInt64([0xFF, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x00], at: &offset) == 127)
        offset = 0
        #expect(try LEB128.decodeBigUInt([0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x00], at: &offset, maxBytes: 16) == 0)
    }

    @Test func overflowTruncationAndLimitsAreErrors() {
        func error(_ body: () throws -> Void) -> CodecError? {
            do { try body(); return nil } catch { return error as? CodecError }
        }
        var offset = 0
        // 2^64 does not fit.
        let tooBig = error { offset = 0; _ = try LEB128.decodeUInt64([0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x02], at: &offset) }
        #expect(tooBig?.kind == .limitExceeded && tooBig?.format == "LEB128" && tooBig?.offset == 0)
        // All 64 bits set, then a padding byte with a bit beyond them.
        let paddedOverflow = error { offset = 0; _ = try LEB128.decodeUInt64([0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0x81, 0x01], at: &offset, maxBytes: 11) }
        #expect(paddedOverflow?.kind == .limitExceeded)
        // Int64.max + 1.
        let signedOverflow = error { offset = 0; _ = try LEB128.decodeInt64([0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x01], at: &offset) }
        #expect(signedOverflow?.kind == .limitExceeded)
        let truncated = error { offset = 1; _ = try LEB128.decodeUInt64([0x00, 0x80, 0x80], at: &offset) }
        #expect(truncated?.kind == .malformed && truncated?.offset == 1)
        let tooLong = error { offset = 0; _ = try LEB128.decodeBigUInt([UInt8](repeating: 0x80, count: 20) + [0], at: &offset, maxBytes: 8) }
        #expect(tooLong?.kind == .limitExceeded)
        #expect(error { offset = 0; _ = try LEB128.decodeBigInt([], at: &offset, maxBytes: 8) }?.kind == .malformed)
    }
}

func hexString(_ bytes: [UInt8]) -> String { bytes.map { ($0 < 16 ? "0" : "") + String($0, radix: 16) }.joined() }

func bytes(_ hex: String) -> [UInt8] {
    var result: [UInt8] = []
    var index = hex.startIndex
    while index < hex.endIndex {
        let next = hex.index(index, offsetBy: 2)
        result.append(UInt8(hex[index..<next], radix: 16) ?? 0)
        index = next
    }
    return result
}
