import OmniTestSupport
import Testing
@testable import OmniCrypto

/// The variable-time ristretto255 arithmetic of sr25519 verification against libsodium's constant-time
/// operations on random points and scalars (fresh seed per run, printed with every failure).
@Suite("Ristretto255 variable time: against libsodium")
struct Ristretto255VartimeTests {
    static func randomScalar(_ random: inout SeededGenerator) -> RistrettoScalar {
        RistrettoScalar(reducingWide: random.bytes(64))
    }

    static func randomPoint(_ random: inout SeededGenerator) -> RistrettoPoint {
        RistrettoPoint.fromUniformBytes(random.bytes(64))
    }

    @Test func decodeThenEncodeIsTheIdentityOnValidPoints() {
        var random = SeededGenerator()
        for _ in 0..<64 {
            let point = Self.randomPoint(&random)
            let decoded = EdwardsPoint(ristrettoEncoding: point.encoding)
            #expect(decoded?.ristrettoEncoding() == point.encoding, "seed \(random.seed)")
        }
        #expect(EdwardsPoint(ristrettoEncoding: RistrettoPoint.identity.encoding)?.ristrettoEncoding() == RistrettoPoint.identity.encoding)
    }

    /// Random bytes, and valid encodings as they are, with one bit flipped or with the top bit set: accepted exactly when libsodium
    /// (with the bit-255 check RistrettoPoint adds) accepts them.
    @Test func decodingAcceptsWhatLibsodiumAccepts() {
        var random = SeededGenerator()
        var candidates = (0..<256).map { _ in random.bytes(32) }
        for _ in 0..<128 {
            var encoding = Self.randomPoint(&random).encoding
            candidates.append(encoding)
            encoding[Int.random(in: 0..<32, using: &random)] ^= 1 << UInt8.random(in: 0...7, using: &random)
            candidates.append(encoding)
        }
        var withTopBit = Self.randomPoint(&random).encoding
        withTopBit[31] |= 0x80
        candidates.append(withTopBit)
        // p itself and p + 2 (non-canonical encodings of 0 and 2).
        candidates.append([0xed] + [UInt8](repeating: 0xff, count: 30) + [0x7f])
        candidates.append([0xef] + [UInt8](repeating: 0xff, count: 30) + [0x7f])
        var accepted = 0
        for candidate in candidates {
            let expected = RistrettoPoint(encoding: candidate) != nil
            if expected { accepted += 1 }
            #expect((EdwardsPoint(ristrettoEncoding: candidate) != nil) == expected, "\(candidate.hexString) seed \(random.seed)")
        }
        #expect(accepted >= 128, "too few valid encodings among the candidates to test acceptance (seed \(random.seed))")
    }

    @Test func doubleScalarMultiplicationMatchesLibsodium() {
        var random = SeededGenerator()
        var one = [UInt8](repeating: 0, count: 32)
        one[0] = 1
        var small = [UInt8](repeating: 0, count: 32)
        small[0] = 3
        let fixed = [RistrettoScalar(canonical: one)!, RistrettoScalar(canonical: small)!,
                     RistrettoScalar(canonical: [UInt8](repeating: 0, count: 32))!,
                     RistrettoScalar(canonical: RistrettoScalar.order.enumerated().map { $0 == 0 ? $1 - 1 : $1 })!]
        var cases: [(RistrettoScalar, RistrettoScalar)] = []
        for s in fixed { for k in fixed { cases.append((s, k)) } }
        for _ in 0..<48 { cases.append((Self.randomScalar(&random), Self.randomScalar(&random))) }
        for (s, k) in cases {
            let point = Self.randomPoint(&random)
            let expected = RistrettoPoint.base(s) - point.multiplied(by: k)
            let decoded = EdwardsPoint(ristrettoEncoding: point.encoding)!
            let actual = EdwardsPoint.baseMinus(baseScalar: s, point: decoded, pointScalar: k).ristrettoEncoding()
            #expect(actual == expected.encoding, "s \(s.bytes.hexString) k \(k.bytes.hexString) seed \(random.seed)")
            #expect(Ristretto255Vartime.verifiesCommitment(expected.encoding, publicKey: decoded, response: s, challenge: k))
            var wrong = expected.encoding
            wrong[0] ^= 2
            #expect(!Ristretto255Vartime.verifiesCommitment(wrong, publicKey: decoded, response: s, challenge: k))
        }
    }
}
