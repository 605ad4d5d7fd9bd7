import Foundation
import OmniTestSupport

/// Runs the built `omni` executable (built beside this test bundle by `swift build --build-tests`).
enum Omni {
    static let executable: String = {
        let bundleDirectory = URL(fileURLWithPath: CommandLine.arguments[0]).deletingLastPathComponent()
        let candidates = [bundleDirectory.appendingPathComponent("omni").path,
                          Repository.root.appendingPathComponent(".build/debug/omni").path]
        return candidates.first { FileManager.default.isExecutableFile(atPath: $0) } ?? candidates[1]
    }()

    /// An environment without the developer's config, colour or output preferences leaking in.
    static func environment(_ extra: [String: String] = [:]) -> [String: String] {
        var env = ["PATH": "/usr/bin:/bin", "HOME": FileManager.default.temporaryDirectory.path + "/omni-e2e-home",
                   "LANG": "C.UTF-8"]
        env.merge(extra) { $1 }
        return env
    }

    static func run(_ arguments: [String], stdin: Data? = nil, environment: [String: String] = [:]) throws -> ProcessResult {
        try Subprocess.run(executable, arguments, stdin: stdin ?? Data(), environment: Self.environment(environment))
    }
}
