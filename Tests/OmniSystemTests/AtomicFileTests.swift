import Foundation
import Testing
import OmniSystem

@Suite struct AtomicFileTests {
    let directory = FileManager.default.temporaryDirectory.appendingPathComponent("omni-atomic-\(UUID())").path

    @Test func writesWithModeAndReplacesAtomically() throws {
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let path = directory + "/nested/secret.pem"
        try AtomicFile.write("first", to: path, mode: 0o600, createDirectories: true, directoryMode: 0o700)
        try AtomicFile.write("second", to: path, mode: 0o600)
        #expect(try String(contentsOfFile: path, encoding: .utf8) == "second")
        let attributes = try FileManager.default.attributesOfItem(atPath: path)
        #expect((attributes[.posixPermissions] as? Int) == 0o600)
        let leftovers = try FileManager.default.contentsOfDirectory(atPath: directory + "/nested")
        #expect(leftovers == ["secret.pem"], "no temporary files remain")
    }

    @Test func failedWriteKeepsThePreviousFile() throws {
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let path = directory + "/keep.txt"
        try AtomicFile.write("precious", to: path, createDirectories: true)
        // Make the directory read-only so creating the temporary file fails (root bypasses permissions, so
        // replace the directory entry's target with a directory to force rename to fail instead).
        let blocker = directory + "/blocker"
        try FileManager.default.createDirectory(atPath: blocker + "/child", withIntermediateDirectories: true)
        #expect(throws: SystemError.self) { try AtomicFile.write("clobber", to: blocker) }
        #expect(try String(contentsOfFile: path, encoding: .utf8) == "precious")
        #expect(FileManager.default.fileExists(atPath: blocker + "/child"))
        let names = try FileManager.default.contentsOfDirectory(atPath: directory).sorted()
        #expect(names == ["blocker", "keep.txt"], "the temporary file was removed")
    }

    @Test func directoriesFollowXDG() {
        let dirs = Directories(environment: ["HOME": "/home/u", "XDG_CONFIG_HOME": "/x/config", "XDG_CACHE_HOME": "relative"])
        #expect(dirs.config == "/x/config/omni")
        #expect(dirs.cache == "/home/u/.cache/omni", "relative XDG values are ignored")
        #expect(dirs.state == "/home/u/.local/state/omni")
        #expect(Directories(environment: ["HOME": "/h", "OMNI_CONFIG_DIR": "/o"]).configFile == "/o/config.toml")
    }
}
