import Foundation
import OmniCodec
import OmniTestSupport
import Testing

/// Bytes from hex ("0x" prefix and odd length allowed: hex integers in vector files).
func bytes(hex text: String) -> [UInt8] {
    let body = text.hasPrefix("0x") ? String(text.dropFirst(2)) : text
    guard let decoded = try? Hex.decode(body.utf8.count % 2 == 1 ? "0" + body : body) else {
        preconditionFailure("bad hex in a vector file: \(text.prefix(40))")
    }
    return decoded
}

/// A hex integer as a 48-byte big-endian field element.
func field(_ text: String) -> [UInt8] {
    let raw = Array(bytes(hex: text).drop(while: { $0 == 0 }))
    precondition(raw.count <= 48, "field element too long")
    return [UInt8](repeating: 0, count: 48 - raw.count) + raw
}

/// Big-endian bytes of an integer.
func scalarBytes(_ value: UInt64) -> [UInt8] { (0..<8).map { UInt8(truncatingIfNeeded: value >> (56 - 8 * $0)) } }

/// A JSON object from a vector file.
typealias JSONObject = [String: Any]

func loadObject(_ path: String) throws -> JSONObject {
    try #require(try Vectors.json(path) as? JSONObject, "\(path) is not a JSON object")
}

func string(_ object: JSONObject, _ key: String) throws -> String {
    try #require(object[key] as? String, "missing string \(key)")
}

func array(_ object: JSONObject, _ key: String) throws -> [JSONObject] {
    try #require(object[key] as? [JSONObject], "missing array \(key)")
}

/// Records how many vectors of a file a test checked (visible in the test log).
func report(_ file: String, _ count: Int) {
    print("OmniBLSTests: \(file): \(count) vectors checked")
}

/// Unsigned big integers for checking the curve's defining relations (test-only; little-endian 32-bit limbs).
struct BigUInt: Equatable, CustomStringConvertible {
    var limbs: [UInt32]

    init(_ value: UInt64) {
        limbs = [UInt32(truncatingIfNeeded: value), UInt32(truncatingIfNeeded: value >> 32)]
        normalize()
    }

    init(hex text: String) {
        let raw = OmniBLSTests.bytes(hex: text)
        limbs = []
        var index = raw.count
        while index > 0 {
            var limb: UInt32 = 0
            for j in max(0, index - 4)..<index { limb = limb << 8 | UInt32(raw[j]) }
            limbs.append(limb)
            index -= 4
        }
        normalize()
    }

    private init(limbs: [UInt32]) {
        self.limbs = limbs
        normalize()
    }

    private mutating func normalize() {
        while let last = limbs.last, last == 0 { limbs.removeLast() }
    }

    static func + (a: BigUInt, b: BigUInt) -> BigUInt {
        var out: [UInt32] = []
        var carry: UInt64 = 0
        for i in 0..<max(a.limbs.count, b.limbs.count) {
            let sum = UInt64(i < a.limbs.count ? a.limbs[i] : 0) + UInt64(i < b.limbs.count ? b.limbs[i] : 0) + carry
            out.append(UInt32(truncatingIfNeeded: sum))
            carry = sum >> 32
        }
        out.append(UInt32(carry))
        return BigUInt(limbs: out)
    }

    /// a − b for a ≥ b.
    static func - (a: BigUInt, b: BigUInt) -> BigUInt {
        var out: [UInt32] = []
        var borrow: Int64 = 0
        for i in 0..<a.limbs.count {
            var diff = Int64(a.limbs[i]) - Int64(i < b.limbs.count ? b.limbs[i] : 0) - borrow
            borrow = diff < 0 ? 1 : 0
            if diff < 0 { diff += 1 << 32 }
            out.append(UInt32(diff))
        }
        precondition(borrow == 0, "negative BigUInt")
        return BigUInt(limbs: out)
    }

    static func * (a: BigUInt, b: BigUInt) -> BigUInt {
        var out = [UInt32](repeating: 0, count: a.limbs.count + b.limbs.count + 1)
        for i in 0..<a.limbs.count {
            var carry: UInt64 = 0
            for j in 0..<b.limbs.count {
                let t = UInt64(a.limbs[i]) * UInt64(b.limbs[j]) + UInt64(out[i + j]) + carry
                out[i + j] = UInt32(truncatingIfNeeded: t)
                carry = t >> 32
            }
            out[i + b.limbs.count] = UInt32(carry)
        }
        return BigUInt(limbs: out)
    }

    /// (quotient, remainder) of division by a small divisor.
    func divided(by divisor: UInt32) -> (BigUInt, UInt32) {
        var out = [UInt32](repeating: 0, count: limbs.count)
        var remainder: UInt64 = 0
        for i in stride(from: limbs.count - 1, through: 0, by: -1) {
            let current = remainder << 32 | UInt64(limbs[i])
            out[i] = UInt32(current / UInt64(divisor))
            remainder = current % UInt64(divisor)
        }
        return (BigUInt(limbs: out), UInt32(remainder))
    }

    /// Big-endian bytes, padded to `width`.
    func bytes(width: Int) -> [UInt8] {
        var out: [UInt8] = []
        for limb in limbs.reversed() { out += [UInt8(limb >> 24), UInt8(truncatingIfNeeded: limb >> 16),
                                              UInt8(truncatingIfNeeded: limb >> 8), UInt8(truncatingIfNeeded: limb)] }
        let trimmed = Array(out.drop(while: { $0 == 0 }))
        return [UInt8](repeating: 0, count: max(0, width - trimmed.count)) + trimmed
    }

    var description: String { "0x" + Hex.encode(bytes(width: 1)) }
}
