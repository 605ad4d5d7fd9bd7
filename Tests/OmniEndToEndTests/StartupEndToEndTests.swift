import Foundation
import Testing
import OmniTestSupport

/// Issue 10: commands that never touch the network start without libcurl and its dependencies; the ones that
/// need it open it then. The dynamic loader's own trace (LD_DEBUG=files) says which objects a run loaded.
@Suite(.serialized, .offPool) struct StartupEndToEndTests {
    private func loadedObjects(_ arguments: [String]) throws -> (status: Int32, trace: String) {
        let result = try Omni.run(arguments, environment: ["LD_DEBUG": "files"])
        return (result.status, result.stderrText)
    }

    @Test func offlineCommandsNeverLoadLibcurl() throws {
        for arguments in [["--version"], ["--help"], ["candid", "encode", "(42 : nat)"]] {
            let run = try loadedObjects(arguments)
            #expect(run.status == 0, "\(arguments)")
            #expect(run.trace.contains("file=libc.so.6"), "the trace works: \(arguments)")
            #expect(!run.trace.contains("libcurl"), "\(arguments) loaded libcurl")
        }
    }

    @Test func versionOpensLibcurlOnlyToReportIt() throws {
        let plain = try loadedObjects(["version"])
        #expect(plain.status == 0)
        #expect(!plain.trace.contains("libcurl"), "plain omni version loaded libcurl")
        let run = try loadedObjects(["version", "--libraries"])
        #expect(run.status == 0)
        #expect(run.trace.contains("file=libcurl.so.4"), "omni version --libraries reads libcurl's version from the library")
    }
}
