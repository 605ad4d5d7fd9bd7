import Foundation
import Testing
import OmniTestSupport

/// Issue 10: OpenSSL, libsodium and SQLite are opened on first use (Sources/COmniShims/lazy_libraries.c), not
/// linked: a start that needs none of them maps none of them. The loader's trace (LD_DEBUG=files) names every
/// object a run loaded, dlopen'ed ones included.
@Suite struct LazyLibrariesEndToEndTests {
    private static let lazyLibraries = ["libcrypto.so", "libssl.so", "libsodium.so", "libsqlite3.so", "libcurl.so"]

    private func run(_ arguments: [String]) throws -> (result: ProcessResult, trace: String) {
        let traced = try Omni.run(arguments, environment: ["LD_DEBUG": "files"])
        return (traced, traced.stderrText)
    }

    @Test func startsWithoutTheCryptoAndDatabaseLibraries() throws {
        for arguments in [["--version"], ["--help"], ["help", "exit-codes"]] {
            let (result, trace) = try run(arguments)
            #expect(result.status == 0, "\(arguments)")
            #expect(trace.contains("file=libc.so.6"), "the trace works: \(arguments)")
            for library in Self.lazyLibraries {
                #expect(!trace.contains("file=\(library)"), "\(arguments) loaded \(library)")
            }
        }
    }

    @Test func versionOpensTheLibrariesItReports() throws {
        let (result, trace) = try run(["version"])
        #expect(result.status == 0)
        for library in ["libcrypto.so.3", "libsodium.so.23"] {
            #expect(trace.contains("file=\(library)"), "omni version reads \(library)'s version from the library")
        }
        #expect(!trace.contains("file=libsqlite3.so"), "omni version does not report SQLite")
        let plain = try Omni.run(["version"])
        #expect(plain.stdoutText.contains("OpenSSL:   OpenSSL 3"))
        #expect(plain.stdoutText.contains("libsodium: 1."))
    }
}
