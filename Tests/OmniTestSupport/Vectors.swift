import Foundation

/// Locates the shared upstream test vectors and the real-world corpus. They are never copied into this repository:
/// `$OMNI_VECTORS` names the vectors directory, otherwise `../shared/vectors` beside the repository root. The
/// real-world corpus sits beside the vectors: `$OMNI_VECTORS/../realworld`, otherwise `../shared/realworld`.
///
/// Tests that read them declare it with the `.vectors(…)` or `.realWorld(…)` trait: when the data is absent the
/// test is skipped and the skip is recorded for `make test`'s summary, unless `OMNI_REQUIRE_VECTORS=1` (CI), which
/// makes the test run and fail on the missing file.
public enum Vectors {
    public static let directory: URL = {
        if let custom = ProcessInfo.processInfo.environment["OMNI_VECTORS"], !custom.isEmpty {
            return URL(fileURLWithPath: custom, isDirectory: true).standardizedFileURL
        }
        return Repository.root.deletingLastPathComponent().appendingPathComponent("shared/vectors", isDirectory: true)
    }()

    /// The real-world corpus: `realworld` beside the vectors directory.
    public static let realWorldDirectory: URL = directory.deletingLastPathComponent()
        .appendingPathComponent("realworld", isDirectory: true).standardizedFileURL

    /// `OMNI_REQUIRE_VECTORS=1`: missing vector files fail the tests that need them instead of skipping them.
    public static var areRequired: Bool { ProcessInfo.processInfo.environment["OMNI_REQUIRE_VECTORS"] == "1" }

    /// A file under the vectors directory, e.g. `Vectors.url("candid/prim.test.did")`.
    public static func url(_ relativePath: String) -> URL {
        directory.appendingPathComponent(relativePath)
    }

    /// A file or directory under the real-world corpus, e.g. `Vectors.realWorldURL("candid/did")`.
    public static func realWorldURL(_ relativePath: String) -> URL {
        realWorldDirectory.appendingPathComponent(relativePath)
    }

    /// The bytes of a vector file; a missing file is a test failure (the trait decides about skipping first).
    public static func data(_ relativePath: String) throws -> Data {
        try contents(of: url(relativePath))
    }

    public static func text(_ relativePath: String) throws -> String {
        String(decoding: try data(relativePath), as: UTF8.self)
    }

    /// A JSON vector file decoded with Foundation's JSONSerialization.
    public static func json(_ relativePath: String) throws -> Any {
        try JSONSerialization.jsonObject(with: try data(relativePath), options: [.fragmentsAllowed])
    }

    /// The bytes of a real-world corpus file (missing: a test failure).
    public static func realWorldData(_ relativePath: String) throws -> [UInt8] {
        Array(try contents(of: realWorldURL(relativePath)))
    }

    private static func contents(of url: URL) throws -> Data {
        guard let data = FileManager.default.contents(atPath: url.path) else {
            throw TestSupportError("vector file missing: \(url.path) (\(VectorSkips.howToProvide))")
        }
        return data
    }
}

/// The repository root, found from this source file's location (Tests/OmniTestSupport/Vectors.swift).
public enum Repository {
    public static let root: URL = URL(fileURLWithPath: #filePath)
        .deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()

    /// A Python peer script under Tests/Peers.
    public static func peer(_ name: String) -> URL {
        root.appendingPathComponent("Tests/Peers").appendingPathComponent(name)
    }
}

public struct TestSupportError: Error, CustomStringConvertible {
    public let description: String
    public init(_ description: String) { self.description = description }
}
