import OmniCrypto

extension BLS {
    /// RFC 9380 §5.3.1 expand_message_xmd with SHA-256. DSTs longer than 255 bytes are first hashed as
    /// SHA-256("H2C-OVERSIZE-DST-" ‖ DST) (§5.3.3). `length` must be 0…8160 (at most 255 hash blocks).
    public static func expandMessageXMD(_ message: [UInt8], dst: [UInt8], length: Int) throws(BLSError) -> [UInt8] {
        guard length >= 0, length <= 255 * 32 else {
            throw BLSError(.invalidParameter, .parameter, detail: "expand_message_xmd length \(length), limit 8160")
        }
        return expandXMD(message, dstPrime: dstPrime(dst), length: length)
    }

    /// DST ‖ I2OSP(len(DST), 1), with the oversize rule applied.
    static func dstPrime(_ dst: [UInt8]) -> [UInt8] {
        var tag = dst
        if tag.count > 255 { tag = SHA256.hash(Array("H2C-OVERSIZE-DST-".utf8) + dst) }
        tag.append(UInt8(tag.count))
        return tag
    }

    /// expand_message_xmd for a precomputed DST_prime and a length already checked by the caller.
    static func expandXMD(_ message: [UInt8], dstPrime: [UInt8], length: Int) -> [UInt8] {
        let blockCount = (length + 31) / 32
        var messagePrime = [UInt8](repeating: 0, count: 64)
        messagePrime.reserveCapacity(64 + message.count + 3 + dstPrime.count)
        messagePrime += message
        messagePrime += [UInt8(truncatingIfNeeded: length >> 8), UInt8(truncatingIfNeeded: length), 0]
        messagePrime += dstPrime
        let b0 = SHA256.hash(messagePrime)
        var output: [UInt8] = []
        output.reserveCapacity(blockCount * 32)
        var block = [UInt8](repeating: 0, count: 33 + dstPrime.count)
        block.replaceSubrange(33..., with: dstPrime)
        var previous = [UInt8](repeating: 0, count: 32)  // b_1 hashes b_0 itself (b_0 ⊕ 0)
        var index = 1
        while index <= blockCount {
            for i in 0..<32 { block[i] = b0[i] ^ previous[i] }
            block[32] = UInt8(truncatingIfNeeded: index)
            previous = SHA256.hash(block)
            output += previous
            index += 1
        }
        return Array(output.prefix(length))
    }
}
