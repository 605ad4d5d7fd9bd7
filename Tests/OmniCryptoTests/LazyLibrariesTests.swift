import Foundation
import Testing
import OmniTestSupport
#if canImport(Glibc)
import Glibc
#endif

/// Issue 10: omni opens OpenSSL, libsodium and SQLite on first use through the trampolines generated from
/// Sources/COmniShims/lazy_symbols.h. A function listed under the wrong library (or one the library lacks) would
/// link but end omni at its first call, so every entry is looked up here in the library it names.
@Suite struct LazyLibrariesTests {
    /// lazy_symbols.h's entries, `X(OMNI_LAZY_CRYPTO, EVP_sha256)` → ("CRYPTO", "EVP_sha256").
    private static func entries() throws -> [(library: String, function: String)] {
        let header = Repository.root.appendingPathComponent("Sources/COmniShims/lazy_symbols.h")
        let text = try String(contentsOf: header, encoding: .utf8)
        return text.split(separator: "\n").compactMap { line in
            guard let open = line.range(of: "X(OMNI_LAZY_"), let close = line.range(of: ")", range: open.upperBound..<line.endIndex)
            else { return nil }
            let parts = line[open.upperBound..<close.lowerBound].split(separator: ",").map { $0.trimmingCharacters(in: .whitespaces) }
            return parts.count == 2 ? (parts[0], parts[1]) : nil
        }
    }

    @Test func everyListedFunctionIsInItsLibrary() throws {
        #if os(Linux)
        let sonames = ["CRYPTO": "libcrypto.so.3", "SSL": "libssl.so.3", "SODIUM": "libsodium.so.23", "SQLITE": "libsqlite3.so.0"]
        let entries = try Self.entries()
        #expect(entries.count > 100, "lazy_symbols.h lists \(entries.count) functions")
        #expect(Set(entries.map(\.library)) == Set(sonames.keys))
        var missing: [String] = []
        for (library, function) in entries {
            guard let soname = sonames[library] else {
                missing.append("\(function): unknown library \(library)")
                continue
            }
            guard let handle = dlopen(soname, RTLD_NOW | RTLD_LOCAL) else {
                missing.append("\(function): cannot open \(soname)")
                continue
            }
            // RTLD_LOCAL handle: dlsym searches that library and its dependencies only, as the trampolines do.
            if dlsym(handle, function) == nil { missing.append("\(function) is not in \(soname)") }
        }
        #expect(missing.isEmpty, "\(missing.joined(separator: "\n"))")
        #endif
    }

    @Test func theListHasNoDuplicates() throws {
        let functions = try Self.entries().map(\.function)
        #expect(Set(functions).count == functions.count)
    }
}
