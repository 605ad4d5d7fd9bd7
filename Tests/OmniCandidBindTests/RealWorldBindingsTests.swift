import Foundation
@testable import OmniCandidBind
import OmniCandid
import OmniTestSupport
import Testing

/// Every interface of the real-world corpus (`../shared/realworld/candid/did`, 37 files) generates Swift with a
/// client method for each of its methods, and all of it compiles: one `swiftc -typecheck` of the combined output
/// against the modules this test run was built with.
@Suite(.realWorld("candid/did"), .serialized, .offPool) struct RealWorldBindingsTests {
    static let corpus = Vectors.realWorldURL("candid/did")

    /// The corpus's .did files relative to it, sorted.
    static func files() throws -> [String] {
        let enumerator = try #require(FileManager.default.enumerator(at: corpus, includingPropertiesForKeys: nil))
        return enumerator.compactMap { $0 as? URL }.filter { $0.pathExtension == "did" }
            .map { String($0.standardizedFileURL.path.dropFirst(corpus.standardizedFileURL.path.count + 1)) }.sorted()
    }

    /// `openchat/backend/canisters/user_index/api/can.did` → `OpenchatBackendCanistersUserIndexApiCan`.
    static func namespace(_ file: String) -> String {
        SwiftNames.pascal(String(file.dropLast(4)))
    }

    @Test func everyInterfaceGeneratesEveryMethodAndTheSwiftCompiles() async throws {
        let files = try Self.files()
        #expect(files.count == 37, "\(files)")
        // The corpus is read in place: the manifest lives in a temporary directory and names it as the package root.
        let work = try TemporaryPackage(files: [:])
        let manifest = files.map { "[[canister]]\nname = \"\(Self.namespace($0))\"\ndid = \"\($0)\"\n" }.joined(separator: "\n")
        try work.write("bindings.toml", manifest)
        let output = try CandidBindings.generate(manifest: Array(manifest.utf8), manifestPath: work.url("bindings.toml").path,
                                                 displayPath: "bindings.toml", packageRoot: Self.corpus.path)
        #expect(output.canisters.count == 37)
        for (file, canister) in zip(files, output.canisters) {
            let interface = try CandidInterface.load(contentsOf: Self.corpus.appendingPathComponent(file))
            let methods = interface.service?.methods.map(\.name) ?? []
            #expect(canister.methods == methods, "\(file): every method")
            #expect(canister.definitions == interface.environment.names.count, "\(file): every definition")
            // Each method is a function of the client, under the name the naming rules give it.
            let model = try SwiftBindingsBuilder(namespace: canister.name, interface: interface,
                                                 definitionNames: interface.environment.names, methodNames: methods)
            #expect(model.methods.count == methods.count, "\(file)")
            for method in model.methods {
                #expect(output.source.contains("public func \(SwiftNames.escaped(method.name))("), "\(file): \(method.candidName)")
            }
        }
        try work.write("Bindings.swift", output.source)
        // Minutes of compiling: off the concurrency pool, which the other suites' async tests need meanwhile.
        let bindings = work.url("Bindings.swift").path
        let result = try await offPool { try SwiftCompiler.typecheck([bindings]) }
        #expect(result.status == 0, "swiftc -typecheck:\n\(result.stderrText.prefix(20_000))")
        #expect(!result.stderrText.contains("warning:"), "\(result.stderrText.prefix(5_000))")
    }
}

/// The Swift compiler, with the module search paths of the build this test runs from.
enum SwiftCompiler {
    /// The build directory: beside the test bundle when it holds the modules, else .build/debug.
    static let buildDirectory: URL = {
        let bundle = URL(fileURLWithPath: CommandLine.arguments[0]).deletingLastPathComponent()
        for candidate in [bundle, bundle.deletingLastPathComponent(), Repository.root.appendingPathComponent(".build/debug")]
        where FileManager.default.fileExists(atPath: candidate.appendingPathComponent("Modules/OmniBindings.swiftmodule").path) {
            return candidate
        }
        return Repository.root.appendingPathComponent(".build/debug")
    }()

    /// `-I Modules` and the module maps of the C targets (generated ones in the build, system ones in Sources).
    static func moduleFlags() throws -> [String] {
        var flags = ["-I", buildDirectory.appendingPathComponent("Modules").path]
        let built = try FileManager.default.contentsOfDirectory(atPath: buildDirectory.path)
            // Not the copies built for host tools (`-tool.build`), which define the same modules.
            .filter { $0.hasSuffix(".build") && !$0.hasSuffix("-tool.build") }.sorted()
            .map { buildDirectory.appendingPathComponent($0).appendingPathComponent("module.modulemap") }
        let sources = Repository.root.appendingPathComponent("Sources")
        let system = try FileManager.default.contentsOfDirectory(atPath: sources.path).sorted()
            .map { sources.appendingPathComponent($0).appendingPathComponent("module.modulemap") }
        for map in built + system where FileManager.default.fileExists(atPath: map.path) {
            flags += ["-Xcc", "-fmodule-map-file=" + map.path]
        }
        return flags
    }

    static func typecheck(_ files: [String]) throws -> ProcessResult {
        try Subprocess.run("/usr/bin/env", ["swiftc", "-typecheck", "-swift-version", "6"] + (try moduleFlags()) + files)
    }
}
