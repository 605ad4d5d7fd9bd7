import Foundation
import OmniSystem
import Testing

@Suite struct FilesTests {
    let directory = FileManager.default.temporaryDirectory.appendingPathComponent("omni-files-\(UUID())").path

    @Test func readsWholeFilesAndEmptyOnes() throws {
        defer { try? FileManager.default.removeItem(atPath: directory) }
        try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
        let bytes = (0..<200_000).map { UInt8(truncatingIfNeeded: $0 &* 31) }
        FileManager.default.createFile(atPath: directory + "/data", contents: Data(bytes))
        FileManager.default.createFile(atPath: directory + "/empty", contents: Data())
        #expect(try LocalFile.read(directory + "/data", limit: bytes.count).get() == bytes, "exactly at the limit")
        #expect(try LocalFile.read(directory + "/empty", limit: 0).get() == [])
        #expect(throws: LocalFile.Failure.tooLarge(limit: bytes.count - 1)) {
            try LocalFile.read(directory + "/data", limit: bytes.count - 1).get()
        }
    }

    @Test func failuresSayWhy() throws {
        #expect(throws: LocalFile.Failure.notFound) { try LocalFile.read("/nonexistent/omni", limit: 10).get() }
        #expect(throws: LocalFile.Failure.isDirectory) { try LocalFile.read("/", limit: 10).get() }
        // An endless file stops at the limit instead of filling memory.
        #expect(throws: LocalFile.Failure.tooLarge(limit: 1000)) { try LocalFile.read("/dev/zero", limit: 1000).get() }
    }

    /// Same results as the NSString API it replaces.
    @Test(arguments: ["~", "~/", "~/x/", "~//x", "~/a/b.did", "~root/a", "~root", "~nosuchuser-omni/x", "a/~", "/abs/~/x",
                      "", "relative/path/"])
    func expandingTildeMatchesFoundation(path: String) {
        #expect(Paths.expandingTilde(path) == (path as NSString).expandingTildeInPath)
    }

    /// What `localizedDescription` said through full Foundation, now in the OS's words.
    @Test func reasonsForFoundationFileErrors() throws {
        defer { try? FileManager.default.removeItem(atPath: directory) }
        try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
        func reason(_ body: () throws -> Void) -> String? {
            do { try body() } catch { return SystemError.reason(for: error) }
            return nil
        }
        #expect(reason { _ = try String(contentsOf: URL(fileURLWithPath: "/nonexistent/x.did"), encoding: .utf8) }
                == "No such file or directory")
        #expect(reason { _ = try String(contentsOf: URL(fileURLWithPath: directory), encoding: .utf8) } == "Is a directory")
        #expect(reason { try FileManager.default.removeItem(atPath: directory + "/missing") } == "No such file or directory")
        #expect(reason { _ = try FileManager.default.contentsOfDirectory(atPath: directory + "/missing") }
                == "No such file or directory")
        FileManager.default.createFile(atPath: directory + "/latin1", contents: Data([0x66, 0xFF, 0xFE]))
        #expect(reason { _ = try String(contentsOf: URL(fileURLWithPath: directory + "/latin1"), encoding: .utf8) }
                == "the file is not in the expected format")
        #expect(SystemError.reason(for: SystemError(path: "/p", "why")) == "why")
        #expect(SystemError.reason(for: POSIXError(.EACCES)) == "Permission denied")
        struct Other: Error, CustomStringConvertible { var description: String { "other failure" } }
        #expect(SystemError.reason(for: Other()) == "other failure")
    }
}
