import Foundation

/// Locates the shared upstream test vectors. They are never copied into this repository:
/// `$OMNI_VECTORS` wins, otherwise `../shared/vectors` beside the repository root.
public enum Vectors {
    public static let directory: URL = {
        if let custom = ProcessInfo.processInfo.environment["OMNI_VECTORS"], !custom.isEmpty {
            return URL(fileURLWithPath: custom, isDirectory: true)
        }
        return Repository.root.deletingLastPathComponent().appendingPathComponent("shared/vectors", isDirectory: true)
    }()

    /// A file under the vectors directory, e.g. `Vectors.url("candid/prim.test.did")`.
    public static func url(_ relativePath: String) -> URL {
        directory.appendingPathComponent(relativePath)
    }

    /// The bytes of a vector file; a missing file is a test failure, never a skip.
    public static func data(_ relativePath: String) throws -> Data {
        let url = url(relativePath)
        guard let data = FileManager.default.contents(atPath: url.path) else {
            throw TestSupportError("vector file missing: \(url.path) (set OMNI_VECTORS to the vectors directory)")
        }
        return data
    }

    public static func text(_ relativePath: String) throws -> String {
        String(decoding: try data(relativePath), as: UTF8.self)
    }

    /// A JSON vector file decoded with Foundation's JSONSerialization.
    public static func json(_ relativePath: String) throws -> Any {
        try JSONSerialization.jsonObject(with: try data(relativePath), options: [.fragmentsAllowed])
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
