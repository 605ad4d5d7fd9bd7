internal import CBLS12381

/// The compiled-in constants of the C layer, for tests that compare them with the published values
/// (internal: tests reach it with `@testable import`).
enum CompiledConstants {
    enum Name: Int32, CaseIterable {
        case sswuA = 0, sswuB, sswuZ, isoXNum, isoXDen, isoYNum, isoYDen, g1Beta, psiCx, psiCy
        case montgomeryR, montgomeryR2, modulus
    }

    /// Element `index` of a constant as a 48-byte big-endian integer, nil past the end.
    static func bytes(_ name: Name, _ index: Int) -> [UInt8]? {
        var out = [UInt8](repeating: 0, count: 48)
        let found = out.withUnsafeMutableBufferPointer {
            bls_constant_bytes(bls_constant(rawValue: UInt32(name.rawValue)), index, $0.baseAddress)
        }
        return found != 0 ? out : nil
    }

    /// Every element of a constant table.
    static func all(_ name: Name) -> [[UInt8]] {
        var values: [[UInt8]] = []
        while let value = bytes(name, values.count) { values.append(value) }
        return values
    }

    static var n0: UInt64 { bls_constant_n0() }
    static var xAbs: UInt64 { bls_constant_x_abs() }
    static var hEff: UInt64 { bls_constant_h_eff() }

    /// Switches between the MULX/ADX assembly field kernels (used automatically when the CPU has them) and the
    /// portable C kernels; returns whether the assembly kernels are now active.
    @discardableResult
    static func useAssemblyKernels(_ enable: Bool) -> Bool { bls_use_assembly_kernels(enable ? 1 : 0) != 0 }

    /// Runs the C layer's internal identity checks (Frobenius, cyclotomic squaring, inverses, roots);
    /// 0 on success, else the number of the first failing check.
    static func selfTest() -> Int { Int(bls_self_test()) }
}
