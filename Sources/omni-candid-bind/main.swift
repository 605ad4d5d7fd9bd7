// omni-candid-bind: the generator CandidBindPlugin runs at build time, `omni candid bind` without the rest of omni.
//   omni-candid-bind --manifest FILE --out-file FILE [--package-root DIR] [--build-info]
// Errors go to stderr in the form `omni candid bind` prints them; the exit status is 0, 2 (usage) or 3 (a manifest
// or interface that cannot be generated).
import OmniCandidBind
import OmniSystem

#if canImport(Glibc)
import Glibc
#endif

func fail(_ message: String, status: Int32) -> Never {
    var text = "omni-candid-bind: " + message + "\n"
    text.withUTF8 { _ = write(2, $0.baseAddress, $0.count) }
    exit(status)
}

var manifestPath: String?
var outputPath: String?
var packageRoot: String?
var buildInfo = false
var arguments = CommandLine.arguments.dropFirst()
while let argument = arguments.popFirst() {
    switch argument {
    case "--manifest": manifestPath = arguments.popFirst()
    case "--out-file": outputPath = arguments.popFirst()
    case "--package-root": packageRoot = arguments.popFirst()
    case "--build-info": buildInfo = true
    default: fail("unknown argument '\(argument)' (usage: --manifest FILE --out-file FILE [--package-root DIR] [--build-info])", status: 2)
    }
}
guard let manifestPath, let outputPath else { fail("--manifest FILE and --out-file FILE are required", status: 2) }

let bytes: [UInt8]
switch LocalFile.read(manifestPath, limit: 16 << 20) {
case .success(let read): bytes = read
case .failure(.notFound): fail("--manifest: no such file '\(manifestPath)'", status: 3)
case .failure(let failure): fail("--manifest: cannot read '\(manifestPath)': \(failure)", status: 3)
}
do {
    let output = try CandidBindings.generate(manifest: bytes, manifestPath: manifestPath, displayPath: manifestPath,
                                             packageRoot: packageRoot, buildInfo: buildInfo)
    try AtomicFile.write(Array(output.source.utf8), to: outputPath, mode: 0o644)
} catch let error as CandidBindError {
    fail(error.description, status: 3)
} catch {
    fail("cannot write '\(outputPath)': \(error)", status: 3)
}
