#if canImport(Glibc)
import Glibc
#endif

#if OMNI_FUZZ
// The libFuzzer build (`make fuzz`): libFuzzer owns `main`, calls `LLVMFuzzerInitialize` once and
// `LLVMFuzzerTestOneInput` per input. The harness comes from OMNI_FUZZ_TARGET.

nonisolated(unsafe) private var selectedHarness: Harness?

@_cdecl("LLVMFuzzerInitialize")
public func fuzzerInitialize(_ argc: UnsafeMutablePointer<Int32>?,
                             _ argv: UnsafeMutablePointer<UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>?>?) -> Int32 {
    guard let variable = getenv("OMNI_FUZZ_TARGET") else {
        FuzzOutput.error("OMNI_FUZZ_TARGET is not set; targets: " + Harnesses.names.joined(separator: " "))
        exit(2)
    }
    let name = String(cString: variable)
    guard let harness = Harnesses.named(name) else {
        FuzzOutput.error("unknown target \(name); targets: " + Harnesses.names.joined(separator: " "))
        exit(2)
    }
    harness.prepare()
    selectedHarness = harness
    return 0
}

@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzerTestOneInput(_ data: UnsafePointer<UInt8>?, _ size: Int) -> Int32 {
    guard let harness = selectedHarness else { return 0 }
    harness.run(size == 0 || data == nil ? [] : Array(UnsafeBufferPointer(start: data, count: size)))
    return 0
}

@_silgen_name("LLVMFuzzerRunDriver")
private func runFuzzerDriver(
    _ argc: UnsafeMutablePointer<Int32>, _ argv: UnsafeMutablePointer<UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>?>,
    _ callback: @convention(c) (UnsafePointer<UInt8>?, Int) -> Int32) -> Int32

// SwiftPM links executables with `main` aliased to `<module>_main`; here that entry hands over to libFuzzer's
// driver (which then calls `LLVMFuzzerInitialize`), so the fuzz build needs no second `main`.
@_cdecl("omni_fuzz_main")
public func fuzzMain(_ argc: Int32, _ argv: UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>?) -> Int32 {
    var count = argc
    var vector = argv
    return runFuzzerDriver(&count, &vector) { data, size in fuzzerTestOneInput(data, size) }
}
#else
/// The normal build: a replayer of saved inputs (`make test` replays Tests/Fuzz/regressions through it) and the
/// seeder `make fuzz` uses.
@main
struct OmniFuzzTool {
    static func main() {
        exit(Replayer.run(Array(CommandLine.arguments.dropFirst())))
    }
}
#endif
