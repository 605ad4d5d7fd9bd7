// The Candid bindings build-tool plugin: for a target with one `Candid/bindings.toml` in its directory tree,
// generates `<Target>CandidBindings.swift` into the plugin's work directory (never into the target's sources) with
// omni-candid-bind, the generator behind `omni candid bind`. See docs/bindings.md.
import Foundation
import PackagePlugin

@main
struct CandidBindPlugin: BuildToolPlugin {
    func createBuildCommands(context: PluginContext, target: Target) throws -> [Command] {
        guard let target = target as? SourceModuleTarget else {
            throw PluginFailure("CandidBindPlugin applies to source targets; \(target.name) is not one")
        }
        let manifests = Self.files(under: target.directoryURL) { $0.lastPathComponent == "bindings.toml"
            && $0.deletingLastPathComponent().lastPathComponent == "Candid" }
        guard manifests.count == 1, let manifest = manifests.first else {
            let found = manifests.isEmpty ? "none" : manifests.map(\.path).joined(separator: ", ")
            throw PluginFailure("target \(target.name) must have exactly one Candid/bindings.toml (found: \(found))")
        }
        let packageRoot = context.package.directoryURL
        let output = context.pluginWorkDirectoryURL.appending(path: "\(target.name)CandidBindings.swift")
        // Every .did file in the package may be read (the manifest's paths and their imports stay inside it): all of
        // them are inputs, so editing any one regenerates.
        let interfaces = Self.files(under: packageRoot) { $0.pathExtension == "did" }
        return [
            .buildCommand(
                displayName: "Generating Candid bindings for \(target.name) from \(manifest.lastPathComponent)",
                executable: try context.tool(named: "omni-candid-bind").url,
                arguments: ["--manifest", manifest.path, "--out-file", output.path, "--package-root", packageRoot.path,
                            "--build-info"],
                inputFiles: [manifest] + interfaces,
                outputFiles: [output]),
        ]
    }

    /// Files below `directory` that `matches` accepts, sorted; hidden directories (`.build`, `.git`, …) are skipped.
    static func files(under directory: URL, where matches: (URL) -> Bool) -> [URL] {
        guard let enumerator = FileManager.default.enumerator(at: directory, includingPropertiesForKeys: [.isRegularFileKey],
                                                              options: [.skipsHiddenFiles]) else { return [] }
        var found: [URL] = []
        for case let url as URL in enumerator where matches(url) {
            if (try? url.resourceValues(forKeys: [.isRegularFileKey]).isRegularFile) == true { found.append(url) }
        }
        return found.sorted { $0.path < $1.path }
    }
}

struct PluginFailure: Error, CustomStringConvertible {
    let description: String
    init(_ description: String) { self.description = description }
}
