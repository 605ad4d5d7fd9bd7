import Foundation
import Testing
import OmniTestSupport

/// Issue 10: one `import Foundation` anywhere under Sources/ links all of Foundation and ICU into omni (the
/// stripped binary went from 22.7 MB to 66.9 MB that way once). Shipped code imports FoundationEssentials only;
/// the scan of the sources is the test, so no release build is needed to catch a regression.
@Suite struct FoundationImportGuardTests {
    /// Modules that pull Foundation (and with it ICU, or libcurl and libxml2) into whatever links them.
    private static let forbidden: Set<String> = ["Foundation", "FoundationNetworking", "FoundationXML"]

    /// The module an import declaration names, for every `import` line in `source` (attributes such as
    /// `@_exported` or `@preconcurrency`, access levels and `import struct Foundation.Date` forms included).
    static func importedModules(_ source: String) -> [(line: Int, module: String)] {
        let modifiers: Set<String> = ["public", "package", "internal", "fileprivate", "private", "@_exported",
                                      "@preconcurrency", "@testable", "@_implementationOnly", "@_spi"]
        let kinds: Set<String> = ["struct", "class", "enum", "protocol", "typealias", "func", "let", "var"]
        var found: [(Int, String)] = []
        for (index, line) in source.split(separator: "\n", omittingEmptySubsequences: false).enumerated() {
            var words = line.split(whereSeparator: { $0 == " " || $0 == "\t" }).map(String.init)[...]
            while let first = words.first, modifiers.contains(first) || first.hasPrefix("@_spi(") { words = words.dropFirst() }
            guard words.first == "import", words.count >= 2 else { continue }
            words = words.dropFirst()
            if let kind = words.first, kinds.contains(kind) { words = words.dropFirst() }
            guard let path = words.first else { continue }
            let module = path.split(separator: ".").first.map(String.init) ?? path
            found.append((index + 1, module.trimmingCharacters(in: CharacterSet(charactersIn: ";"))))
        }
        return found
    }

    @Test func theScannerSeesEveryImportForm() {
        let sample = """
            import Foundation
            @_exported import FoundationNetworking
            @preconcurrency import FoundationXML
            import struct Foundation.Date
            internal import Foundation;
            import FoundationEssentials
            // import Foundation (a comment is not an import)
            """
        let modules = Self.importedModules(sample).map(\.module)
        #expect(modules == ["Foundation", "FoundationNetworking", "FoundationXML", "Foundation", "Foundation",
                            "FoundationEssentials"])
    }

    @Test func noShippedSourceImportsFoundation() throws {
        let sources = Repository.root.appendingPathComponent("Sources")
        guard let walker = FileManager.default.enumerator(atPath: sources.path) else {
            Issue.record("cannot list \(sources.path)")
            return
        }
        var scanned = 0
        var essentials = 0
        var offenders: [String] = []
        for case let relative as String in walker where relative.hasSuffix(".swift") {
            let text = try String(contentsOfFile: sources.appendingPathComponent(relative).path, encoding: .utf8)
            scanned += 1
            for (line, module) in Self.importedModules(text) {
                if module == "FoundationEssentials" { essentials += 1 }
                if Self.forbidden.contains(module) { offenders.append("Sources/\(relative):\(line): import \(module)") }
            }
        }
        // The walk found the tree: hundreds of files, many of which use FoundationEssentials.
        #expect(scanned > 100, "only \(scanned) Swift files under \(sources.path)")
        #expect(essentials > 10)
        #expect(offenders.isEmpty, """
            these import full Foundation, which links Foundation and ICU into omni; import FoundationEssentials \
            (or OmniSystem for files and processes) instead:
            \(offenders.joined(separator: "\n"))
            """)
    }
}
