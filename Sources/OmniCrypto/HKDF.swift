/// HKDF (RFC 5869) over `HMAC<H>`, e.g. `HKDF<SHA256>.deriveKey(inputKeyMaterial:salt:info:outputByteCount:)`.
public enum HKDF<H: HashFunction> {
    /// RFC 5869 §2.3: at most 255 blocks of output.
    public static var maximumOutputByteCount: Int { 255 * H.algorithm.byteCount }

    /// HKDF-Extract: PRK = HMAC(salt, IKM). An empty salt means HashLen zero bytes (same HMAC result).
    public static func extract(
        inputKeyMaterial: some Collection<UInt8>, salt: some Collection<UInt8> = [UInt8]()
    ) -> [UInt8] {
        HMAC<H>.authenticationCode(for: inputKeyMaterial, key: salt)
    }

    /// HKDF-Expand: `outputByteCount` (0…255·HashLen) bytes from a pseudorandom key of at least HashLen bytes.
    public static func expand(
        pseudoRandomKey: some Collection<UInt8>, info: some Collection<UInt8> = [UInt8](), outputByteCount: Int
    ) throws(CryptoError) -> [UInt8] {
        let hashLength = H.algorithm.byteCount
        guard outputByteCount >= 0, outputByteCount <= maximumOutputByteCount else {
            throw CryptoError(.invalidInput,
                              "HKDF-\(H.algorithm.rawValue) output length must be 0…\(maximumOutputByteCount) bytes, got \(outputByteCount)")
        }
        guard pseudoRandomKey.count >= hashLength else {
            throw CryptoError(.invalidInput,
                              "HKDF-\(H.algorithm.rawValue) pseudorandom key must be at least \(hashLength) bytes, got \(pseudoRandomKey.count)")
        }
        // The keyed state is set up once and copied for each block.
        let keyed = HMAC<H>(key: pseudoRandomKey)
        var output: [UInt8] = []
        output.reserveCapacity(outputByteCount)
        var previous: [UInt8] = []
        var counter: UInt8 = 1
        while output.count < outputByteCount {
            var block = keyed
            block.update(previous)
            block.update(info)
            block.update(CollectionOfOne(counter))
            wipe(&previous)
            previous = block.finalize()
            output.append(contentsOf: previous.prefix(outputByteCount - output.count))
            counter &+= 1
        }
        wipe(&previous)
        return output
    }

    /// Extract then expand.
    public static func deriveKey(
        inputKeyMaterial: some Collection<UInt8>, salt: some Collection<UInt8> = [UInt8](),
        info: some Collection<UInt8> = [UInt8](), outputByteCount: Int
    ) throws(CryptoError) -> [UInt8] {
        var pseudoRandomKey = extract(inputKeyMaterial: inputKeyMaterial, salt: salt)
        defer { wipe(&pseudoRandomKey) }
        return try expand(pseudoRandomKey: pseudoRandomKey, info: info, outputByteCount: outputByteCount)
    }
}
