import Testing
import OmniCrypto

/// RFC 4231 §4.2–4.8 test cases 1–7 for HMAC-SHA-256/384/512 (case 5 is truncated to 128 bits by the RFC).
struct HMACVector: Sendable, CustomTestStringConvertible {
    let number: Int
    let key: [UInt8]
    let data: [UInt8]
    let sha256: String
    let sha384: String
    let sha512: String
    var testDescription: String { "RFC 4231 case \(number)" }
}

let rfc4231: [HMACVector] = [
    HMACVector(number: 1, key: [UInt8](repeating: 0x0b, count: 20), data: Array("Hi There".utf8),
               sha256: "b0344c61d8db38535ca8afceaf0bf12b881dc200c9833da726e9376c2e32cff7",
               sha384: "afd03944d84895626b0825f4ab46907f15f9dadbe4101ec682aa034c7cebc59cfaea9ea9076ede7f4af152e8b2fa9cb6",
               sha512: "87aa7cdea5ef619d4ff0b4241a1d6cb02379f4e2ce4ec2787ad0b30545e17cdedaa833b7d6b8a702038b274eaea3f4e4be9d914eeb61f1702e696c203a126854"),
    HMACVector(number: 2, key: Array("Jefe".utf8), data: Array("what do ya want for nothing?".utf8),
               sha256: "5bdcc146bf60754e6a042426089575c75a003f089d2739839dec58b964ec3843",
               sha384: "af45d2e376484031617f78d2b58a6b1b9c7ef464f5a01b47e42ec3736322445e8e2240ca5e69e2c78b3239ecfab21649",
               sha512: "164b7a7bfcf819e2e395fbe73b56e0a387bd64222e831fd610270cd7ea2505549758bf75c05a994a6d034f65f8f0e6fdcaeab1a34d4a6b4b636e070a38bce737"),
    HMACVector(number: 3, key: [UInt8](repeating: 0xaa, count: 20), data: [UInt8](repeating: 0xdd, count: 50),
               sha256: "773ea91e36800e46854db8ebd09181a72959098b3ef8c122d9635514ced565fe",
               sha384: "88062608d3e6ad8a0aa2ace014c8a86f0aa635d947ac9febe83ef4e55966144b2a5ab39dc13814b94e3ab6e101a34f27",
               sha512: "fa73b0089d56a284efb0f0756c890be9b1b5dbdd8ee81a3655f83e33b2279d39bf3e848279a722c806b485a47e67c807b946a337bee8942674278859e13292fb"),
    HMACVector(number: 4, key: Array(1...25), data: [UInt8](repeating: 0xcd, count: 50),
               sha256: "82558a389a443c0ea4cc819899f2083a85f0faa3e578f8077a2e3ff46729665b",
               sha384: "3e8a69b7783c25851933ab6290af6ca77a9981480850009cc5577c6e1f573b4e6801dd23c4a7d679ccf8a386c674cffb",
               sha512: "b0ba465637458c6990e5a8c5f61d4af7e576d97ff94b872de76f8050361ee3dba91ca5c11aa25eb4d679275cc5788063a5f19741120c4f2de2adebeb10a298dd"),
    HMACVector(number: 5, key: [UInt8](repeating: 0x0c, count: 20), data: Array("Test With Truncation".utf8),
               sha256: "a3b6167473100ee06e0c796c2955552b", sha384: "3abf34c3503b2a23a46efc619baef897",
               sha512: "415fad6271580a531d4179bc891d87a6"),
    HMACVector(number: 6, key: [UInt8](repeating: 0xaa, count: 131),
               data: Array("Test Using Larger Than Block-Size Key - Hash Key First".utf8),
               sha256: "60e431591ee0b67f0d8a26aacbf5b77f8e0bc6213728c5140546040f0ee37f54",
               sha384: "4ece084485813e9088d2c63a041bc5b44f9ef1012a2b588f3cd11f05033ac4c60c2ef6ab4030fe8296248df163f44952",
               sha512: "80b24263c7c1a3ebb71493c1dd7be8b49b46d1f41b4aeec1121b013783f8f3526b56d037e05f2598bd0fd2215d6a1e5295e64f73f63f0aec8b915a985d786598"),
    HMACVector(number: 7, key: [UInt8](repeating: 0xaa, count: 131),
               data: Array("This is a test using a larger than block-size key and a larger than block-size data. The key needs to be hashed before being used by the HMAC algorithm.".utf8),
               sha256: "9b09ffa71b942fcb27635fbcd5b0e944bfdc63644f0713938a7f51535c3a35e2",
               sha384: "6617178e941f020d351e2f254e8fd32c602420feb0b8fb9adccebb82461e99c5a678cc31e799176d3860e6110c46523e",
               sha512: "e37b6a775dc87dbaa4dfa9f96e5e3ffddebd71f8867289865df5a32d20cdc944b6022cac3c4982b10d5eeb55c3e4de15134676fb6de0446065c97440fa8c6a58"),
]

@Suite("HMAC (RFC 4231)")
struct HMACTests {
    @Test(arguments: rfc4231)
    func knownAnswers(_ vector: HMACVector) {
        func check<H: HashFunction>(_: H.Type, _ expected: String) {
            let expected = hex(expected)
            let oneShot = HMAC<H>.authenticationCode(for: vector.data, key: vector.key)
            #expect(Array(oneShot.prefix(expected.count)) == expected, "\(H.algorithm) one-shot")
            // Incremental, byte by byte for the first half then the rest at once.
            var mac = HMAC<H>(key: vector.key)
            let half = vector.data.count / 2
            for byte in vector.data[..<half] { mac.update([byte]) }
            mac.update(vector.data[half...])
            #expect(mac.finalize() == oneShot, "\(H.algorithm) incremental")
            #expect(HMAC<H>.isValidAuthenticationCode(oneShot, for: vector.data, key: vector.key))
        }
        check(SHA256.self, vector.sha256)
        check(SHA384.self, vector.sha384)
        check(SHA512.self, vector.sha512)
    }

    @Test func validationRejectsWrongOrTruncatedCodes() {
        let key = Array("key".utf8), data = Array("data".utf8)
        var code = HMAC<SHA256>.authenticationCode(for: data, key: key)
        #expect(HMAC<SHA256>.isValidAuthenticationCode(code, for: data, key: key))
        #expect(!HMAC<SHA256>.isValidAuthenticationCode(code.prefix(16), for: data, key: key))
        code[31] ^= 1
        #expect(!HMAC<SHA256>.isValidAuthenticationCode(code, for: data, key: key))
    }

    /// An empty key is valid (HMAC pads it with zeros); it must not fall back to a previous key.
    @Test func emptyKeyEqualsZeroBlockKey() {
        let data = Array("message".utf8)
        #expect(HMAC<SHA256>.authenticationCode(for: data, key: [UInt8]())
                == HMAC<SHA256>.authenticationCode(for: data, key: [UInt8](repeating: 0, count: 64)))
    }

    @Test func constantTimeEquals() {
        #expect(ConstantTime.equals([1, 2, 3], [1, 2, 3]))
        #expect(!ConstantTime.equals([1, 2, 3], [1, 2, 4]))
        #expect(!ConstantTime.equals([1, 2, 3], [1, 2]))
        #expect(ConstantTime.equals([UInt8](), [UInt8]()))
    }
}

@Suite("HKDF (RFC 5869) and PBKDF2 (RFC 7914, RFC 6070)")
struct KDFTests {
    /// RFC 5869 Appendix A.1–A.3 (HKDF-SHA-256).
    @Test(arguments: [
        (Array(repeating: UInt8(0x0b), count: 22), Array(UInt8(0x00)...0x0c), Array(UInt8(0xf0)...0xf9), 42,
         "077709362c2e32df0ddc3f0dc47bba6390b6c73bb50f9c3122ec844ad7c2b3e5",
         "3cb25f25faacd57a90434f64d0362f2a2d2d0a90cf1a5a4c5db02d56ecc4c5bf34007208d5b887185865"),
        (Array(UInt8(0x00)...0x4f), Array(UInt8(0x60)...0xaf), Array(UInt8(0xb0)...0xff), 82,
         "06a6b88c5853361a06104c9ceb35b45cef760014904671014a193f40c15fc244",
         "b11e398dc80327a1c8e7f78c596a49344f012eda2d4efad8a050cc4c19afa97c59045a99cac7827271cb41c65e590e09da3275600c2f09b8367793a9aca3db71cc30c58179ec3e87c14c01d5c1f3434f1d87"),
        (Array(repeating: UInt8(0x0b), count: 22), [], [], 42,
         "19ef24a32c717b167f33a91d6f648bdf96596776afdb6377ac434c1c293ccb04",
         "8da4e775a563c18f715f802a063c5a31b8a11f5c5ee1879ec3454e5f3c738d2d9d201395faa4b61a96c8"),
    ] as [([UInt8], [UInt8], [UInt8], Int, String, String)])
    func hkdfKnownAnswers(_ ikm: [UInt8], _ salt: [UInt8], _ info: [UInt8], _ length: Int, _ prk: String, _ okm: String) throws {
        let extracted = HKDF<SHA256>.extract(inputKeyMaterial: ikm, salt: salt)
        #expect(extracted == hex(prk))
        #expect(try HKDF<SHA256>.expand(pseudoRandomKey: extracted, info: info, outputByteCount: length) == hex(okm))
        #expect(try HKDF<SHA256>.deriveKey(inputKeyMaterial: ikm, salt: salt, info: info, outputByteCount: length) == hex(okm))
    }

    @Test func hkdfLengthLimits() throws {
        let prk = [UInt8](repeating: 7, count: 64)
        #expect(try HKDF<SHA256>.expand(pseudoRandomKey: prk, outputByteCount: 255 * 32).count == 255 * 32)
        #expect(try HKDF<SHA512>.expand(pseudoRandomKey: prk, outputByteCount: 255 * 64).count == 255 * 64)
        #expect(try HKDF<SHA256>.expand(pseudoRandomKey: prk, outputByteCount: 0) == [])
        for (length, shortKey) in [(255 * 32 + 1, false), (-1, false), (32, true)] {
            let key = shortKey ? Array(prk.prefix(31)) : prk
            let error = #expect(throws: CryptoError.self) {
                try HKDF<SHA256>.expand(pseudoRandomKey: key, outputByteCount: length)
            }
            #expect(error?.kind == .invalidInput)
        }
        #expect(throws: CryptoError.self) { try HKDF<SHA512>.deriveKey(inputKeyMaterial: prk, outputByteCount: 255 * 64 + 1) }
    }

    /// RFC 7914 §11 PBKDF2-HMAC-SHA256 vectors.
    @Test func pbkdf2SHA256KnownAnswers() throws {
        #expect(try PBKDF2<SHA256>.deriveKey(password: Array("passwd".utf8), salt: Array("salt".utf8), iterations: 1,
                                             outputByteCount: 64)
                == hex("55ac046e56e3089fec1691c22544b605f94185216dde0465e68b9d57c20dacbc49ca9cccf179b645991664b39d77ef317c71b845b1e30bd509112041d3a19783"))
        #expect(try PBKDF2<SHA256>.deriveKey(password: Array("Password".utf8), salt: Array("NaCl".utf8), iterations: 80000,
                                             outputByteCount: 64)
                == hex("4ddcd8f60b98be21830cee5ef22701f9641a4418d04c0414aeff08876b34ab56a1d425a1225833549adb841b51c9b3176a272bdebba1d078478f62b397f33c8d"))
    }

    /// RFC 6070 PBKDF2-HMAC-SHA1 vectors (all but the 16 777 216-iteration one, which is too slow for a unit test).
    @Test(arguments: [
        ("password", "salt", 1, 20, "0c60c80f961f0e71f3a9b524af6012062fe037a6"),
        ("password", "salt", 2, 20, "ea6c014dc72d6f8ccd1ed92ace1d41f0d8de8957"),
        ("password", "salt", 4096, 20, "4b007901b765489abead49d926f721d065a429c1"),
        ("passwordPASSWORDpassword", "saltSALTsaltSALTsaltSALTsaltSALTsalt", 4096, 25,
         "3d2eec4fe41c849b80c8d83662c0e44a8b291a964cf2f07038"),
        ("pass\0word", "sa\0lt", 4096, 16, "56fa6aa75548099dcc37d7f03425e0c3"),
    ])
    func pbkdf2SHA1KnownAnswers(_ password: String, _ salt: String, _ iterations: Int, _ length: Int, _ expected: String) throws {
        #expect(try PBKDF2<Insecure.SHA1>.deriveKey(password: Array(password.utf8), salt: Array(salt.utf8),
                                                    iterations: iterations, outputByteCount: length) == hex(expected))
    }

    @Test func pbkdf2ParameterLimits() {
        for (iterations, length) in [(0, 32), (1, 0), (1, (1 << 20) + 1), (Int(Int32.max) + 1, 32)] {
            let error = #expect(throws: CryptoError.self) {
                try PBKDF2<SHA512>.deriveKey(password: [1], salt: [2], iterations: iterations, outputByteCount: length)
            }
            #expect(error?.kind == .invalidInput)
        }
    }
}
