import Foundation
import Testing
import OmniTestSupport

/// Issue 10: OpenSSL, libsodium and SQLite are opened on first use (Sources/COmniShims/lazy_libraries.c), not
/// linked: a start that needs none of them maps none of them. The loader's trace (LD_DEBUG=files) names every
/// object a run loaded, dlopen'ed ones included.
@Suite(.serialized, .offPool) struct LazyLibrariesEndToEndTests {
    private static let lazyLibraries = ["libcrypto.so", "libssl.so", "libsodium.so", "libsqlite3.so", "libcurl.so"]

    private func run(_ arguments: [String]) throws -> (result: ProcessResult, trace: String) {
        let traced = try Omni.run(arguments, environment: ["LD_DEBUG": "files"])
        return (traced, traced.stderrText)
    }

    @Test func startsWithoutTheCryptoAndDatabaseLibraries() throws {
        for arguments in [["--version"], ["version"], ["--help"], ["help", "exit-codes"]] {
            let (result, trace) = try run(arguments)
            #expect(result.status == 0, "\(arguments)")
            #expect(trace.contains("file=libc.so.6"), "the trace works: \(arguments)")
            for library in Self.lazyLibraries {
                #expect(!trace.contains("file=\(library)"), "\(arguments) loaded \(library)")
            }
        }
    }

    @Test func versionWithLibrariesOpensTheLibrariesItReports() throws {
        let (result, trace) = try run(["version", "--libraries"])
        #expect(result.status == 0)
        for library in ["libcrypto.so.3", "libsodium.so.23", "libcurl.so.4", "libsqlite3.so.0"] {
            #expect(trace.contains("file=\(library)"), "omni version --libraries reads \(library)'s version from the library")
        }
        let plain = try Omni.run(["version", "--libraries"])
        #expect(plain.stdoutText.contains("OpenSSL:   OpenSSL 3"))
        #expect(plain.stdoutText.contains("libsodium: 1."))
        #expect(plain.stdoutText.contains("SQLite:    3."))
        let bare = try Omni.run(["version"])
        #expect(!bare.stdoutText.contains("OpenSSL"), "plain omni version reports no library")
    }
}
