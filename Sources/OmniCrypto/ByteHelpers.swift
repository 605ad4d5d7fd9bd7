/// Calls `body` with the bytes of `bytes` laid out contiguously, copying only when the collection has no
/// contiguous storage of its own (arrays, slices and `Data` never copy).
@inline(__always)
func withContiguousBytes<C: Collection<UInt8>, R, E: Error>(
    _ bytes: C, _ body: (UnsafeRawBufferPointer) throws(E) -> R
) throws(E) -> R {
    if let result = bytes.withContiguousStorageIfAvailable({ buffer in
        Result { () throws(E) -> R in try body(UnsafeRawBufferPointer(buffer)) }
    }) {
        return try result.get()
    }
    return try Array(bytes).withUnsafeBytes { buffer in
        Result { () throws(E) -> R in try body(buffer) }
    }.get()
}

/// Overwrites an array's bytes before it is released. Best effort: copies made earlier by the caller are not
/// reached, but the buffers this layer creates for secrets are wiped.
public func wipe(_ bytes: inout [UInt8]) {
    bytes.withUnsafeMutableBytes { secureZero($0) }
}

/// Big-endian unsigned comparison of two equal-length byte strings (public values only: not constant time).
func compareBigEndian(_ lhs: [UInt8], _ rhs: [UInt8]) -> Int {
    for (left, right) in zip(lhs, rhs) where left != right {
        return left < right ? -1 : 1
    }
    return 0
}

/// `lhs - rhs` for equal-length big-endian unsigned integers with `lhs >= rhs`.
func subtractBigEndian(_ lhs: [UInt8], _ rhs: [UInt8]) -> [UInt8] {
    var result = [UInt8](repeating: 0, count: lhs.count)
    var borrow = 0
    for index in stride(from: lhs.count - 1, through: 0, by: -1) {
        var difference = Int(lhs[index]) - Int(rhs[index]) - borrow
        borrow = difference < 0 ? 1 : 0
        if difference < 0 { difference += 256 }
        result[index] = UInt8(difference)
    }
    return result
}
