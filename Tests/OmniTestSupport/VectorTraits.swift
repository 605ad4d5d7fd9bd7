import Foundation
import Testing

/// A test or suite trait for tests that read the shared vectors (`.vectors("candid")`) or the real-world corpus
/// (`.realWorld("candid")`). When a named directory or file is absent the test is skipped and the skip is written
/// to `.build/omni-test-skips/`, which `make test` summarises at the end (Swift Testing has no global teardown).
/// With `OMNI_REQUIRE_VECTORS=1` nothing is skipped: the test runs and fails on the missing file.
public struct VectorDataTrait: TestTrait, SuiteTrait {
    /// Absolute paths that must exist.
    let required: [URL]

    public var isRecursive: Bool { true }

    public func prepare(for test: Test) async throws {
        // Applied to a suite, the trait reaches every test in it (recursive); each test records its own skip.
        guard !test.isSuite, !Vectors.areRequired else { return }
        let missing = required.filter { !FileManager.default.fileExists(atPath: $0.path) }
        guard !missing.isEmpty else { return }
        VectorSkips.record(test, missing: missing)
        let reason = "test data missing: \(missing.map(\.path).joined(separator: ", ")) (\(VectorSkips.howToProvide))"
        try await ConditionTrait.disabled(Comment(rawValue: reason)).prepare(for: test)
    }
}

extension Trait where Self == VectorDataTrait {
    /// The test reads these files or directories under the vectors directory, e.g. `.vectors("candid")`.
    public static func vectors(_ relativePaths: String...) -> Self {
        VectorDataTrait(required: relativePaths.map(Vectors.url))
    }

    /// The test reads these files or directories under the real-world corpus, e.g. `.realWorld("candid")`.
    public static func realWorld(_ relativePaths: String...) -> Self {
        VectorDataTrait(required: relativePaths.map(Vectors.realWorldURL))
    }
}

/// Records skipped tests, one file per test, as `target<TAB>suite<TAB>test<TAB>missing paths`.
public enum VectorSkips {
    public static let directory = Repository.root.appendingPathComponent(".build/omni-test-skips", isDirectory: true)

    static let howToProvide = "put the shared data beside the repository as ../shared/vectors and ../shared/realworld, "
        + "or set OMNI_VECTORS=/path/to/vectors (the real-world corpus is then read from $OMNI_VECTORS/../realworld)"

    static func record(_ test: Test, missing: [URL]) {
        let id = test.id.description
        // `Module.Suite/Inner/function(…)/File.swift:12:5`: the suite is everything before the function.
        // A test outside any suite is listed under its target.
        let components = id.split(separator: "/").map(String.init)
        let target = String(test.sourceLocation.fileID.prefix { $0 != "/" })
        let suite = components.count > 2 ? components.dropLast(2).joined(separator: "/") : target
        let line = [target, suite, test.name, missing.map(\.path).joined(separator: " ")].joined(separator: "\t") + "\n"
        let fileName = String(id.map { $0.isLetter || $0.isNumber || $0 == "." || $0 == "-" ? $0 : "_" }.prefix(200)) + ".skip"
        try? FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        try? Data(line.utf8).write(to: directory.appendingPathComponent(fileName), options: .atomic)
    }
}
