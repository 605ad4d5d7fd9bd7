#if canImport(Glibc)
internal import Glibc
#endif

extension Double {
    /// `String(format: "%.<fractionDigits>f", self)` without Foundation: the C library's own `%f`, so digits and
    /// rounding (to nearest, ties to even on the exact binary value) are printf's. `fractionDigits` is clamped to
    /// 0…17; NaN and infinities print as "nan", "inf" and "-inf".
    public func fixedPointText(fractionDigits: Int) -> String {
        let digits = Int32(min(max(fractionDigits, 0), 17))
        // %f of the largest double has 309 integer digits; 17 decimals, sign and NUL fit in 350 bytes.
        var buffer = [CChar](repeating: 0, count: 350)
        let written = withVaList([digits, self]) { arguments in
            buffer.withUnsafeMutableBufferPointer { vsnprintf($0.baseAddress, $0.count, "%.*f", arguments) }
        }
        guard written > 0 else { return "" }
        return String(decoding: buffer.prefix(Int(written)).map { UInt8(bitPattern: $0) }, as: UTF8.self)
    }
}
