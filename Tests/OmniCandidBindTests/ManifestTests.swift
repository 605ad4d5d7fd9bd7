import Foundation
@testable import OmniCandidBind
import OmniTestSupport
import Testing

/// Manifests and interfaces that cannot be generated fail with the manifest's line and, inside a type, its path.
@Suite struct ManifestTests {
    static let did = "service : { get : () -> (nat) query; put : (nat) -> () }"

    /// The error generating `manifest` (in a package that also has `files`) gives, or nil when it generates.
    static func failure(_ manifest: String, files: [String: String] = ["a.did": did]) throws -> CandidBindError? {
        let package = try TemporaryPackage(files: files.merging(["Package.swift": "", "Candid/bindings.toml": manifest]) { $1 })
        do {
            _ = try package.generate("Candid/bindings.toml")
            return nil
        } catch {
            return error
        }
    }

    @Test func theManifestMustBeTOMLWithKnownKeys() throws {
        let syntax = try #require(try Self.failure("[[canister]]\nname = \"A\"\ndid = a.did\n"))
        #expect(syntax.kind == .manifest && syntax.line == 3 && syntax.column != nil)
        #expect(syntax.description.hasPrefix("invalid bindings manifest (Candid/bindings.toml, line 3, column"))
        let topLevel = try #require(try Self.failure("[[canister]]\nname = \"A\"\ndid = \"a.did\"\n\n[output]\nfile = \"x\"\n"))
        #expect(topLevel.line == 5 && topLevel.message.contains("unknown key output"))
        let key = try #require(try Self.failure("[[canister]]\nname = \"A\"\ndid = \"a.did\"\nmethod = [\"get\"]\n"))
        #expect(key.line == 4 && key.message.contains("unknown key method in [[canister]]; the keys are name, did, canister_id, methods"))
        let empty = try #require(try Self.failure("# nothing\n"))
        #expect(empty.message.contains("no [[canister]] entry"))
        let table = try #require(try Self.failure("canister = \"A\"\n"))
        #expect(table.line == 1 && table.message.contains("array of tables"))
    }

    @Test func namesMustBeUsableAndDistinct() throws {
        let missing = try #require(try Self.failure("[[canister]]\ndid = \"a.did\"\n"))
        #expect(missing.line == 1 && missing.message.contains("needs a name"))
        let identifier = try #require(try Self.failure("[[canister]]\nname = \"my-ledger\"\ndid = \"a.did\"\n"))
        #expect(identifier.line == 2 && identifier.message.contains("not a Swift identifier"))
        let keyword = try #require(try Self.failure("[[canister]]\nname = \"protocol\"\ndid = \"a.did\"\n"))
        #expect(keyword.message.contains("Swift keyword"))
        let module = try #require(try Self.failure("[[canister]]\nname = \"OmniIC\"\ndid = \"a.did\"\n"))
        #expect(module.message.contains("module"))
        let twice = try #require(try Self.failure("[[canister]]\nname = \"A\"\ndid = \"a.did\"\n[[canister]]\nname = \"A\"\ndid = \"a.did\"\n"))
        #expect(twice.line == 5 && twice.message.contains("already used by the [[canister]] at line 1"))
    }

    @Test func pathsAreRelativeToThePackageRootAndStayInsideIt() throws {
        let absolute = try #require(try Self.failure("[[canister]]\nname = \"A\"\ndid = \"/etc/passwd\"\n"))
        #expect(absolute.line == 3 && absolute.message.contains("must be relative to the package root"))
        let outside = try #require(try Self.failure("[[canister]]\nname = \"A\"\ndid = \"../a.did\"\n"))
        #expect(outside.line == 3 && outside.message.contains("outside the package root"))
        let absent = try #require(try Self.failure("[[canister]]\nname = \"A\"\ndid = \"Candid/a.did\"\n"))
        #expect(absent.line == 3 && absent.message.contains("does not exist"), "paths start at the package root, not the manifest")
        #expect(try Self.failure("[[canister]]\nname = \"A\"\ndid = \"./Candid/../a.did\"\n") == nil)

        // A symbolic link inside the package that leads out of it.
        let elsewhere = try TemporaryPackage(files: ["x.did": Self.did])
        let package = try TemporaryPackage(files: ["Package.swift": "", "Candid/bindings.toml": "[[canister]]\nname = \"A\"\ndid = \"link.did\"\n"])
        try FileManager.default.createSymbolicLink(at: package.url("link.did"), withDestinationURL: elsewhere.url("x.did"))
        do {
            _ = try package.generate("Candid/bindings.toml")
            Issue.record("a link out of the package was followed")
        } catch {
            #expect(error.line == 3 && error.message.contains("leads outside the package root"))
        }
        // Imports too.
        let importing = try #require(try Self.failure("[[canister]]\nname = \"A\"\ndid = \"a.did\"\n",
                                                      files: ["a.did": "import \"../outside.did\";\nservice : {}"]))
        #expect(importing.kind == .interface && importing.line == 3 && importing.message.contains("outside the package root"))
    }

    @Test func thePackageRootIsTheNearestDirectoryWithAPackageManifestUnlessGiven() throws {
        let package = try TemporaryPackage(files: [
            "Package.swift": "",
            "Sources/App/Candid/bindings.toml": "[[canister]]\nname = \"A\"\ndid = \"Sources/App/Candid/a.did\"\n",
            "Sources/App/Candid/local.toml": "[[canister]]\nname = \"A\"\ndid = \"Candid/a.did\"\n",
            "Sources/App/Candid/a.did": Self.did,
        ])
        let found = try package.generate("Sources/App/Candid/bindings.toml")
        #expect(found.inputs == ["Sources/App/Candid/bindings.toml", "Sources/App/Candid/a.did"])
        let given = try package.generate("Sources/App/Candid/local.toml", packageRoot: package.url("Sources/App").path)
        #expect(given.inputs == ["Candid/local.toml", "Candid/a.did"])
        #expect(throws: CandidBindError.self) { try package.generate("Sources/App/Candid/local.toml") }
        // Without any Package.swift above it, the manifest's own directory.
        let loose = try TemporaryPackage(files: ["m.toml": "[[canister]]\nname = \"A\"\ndid = \"a.did\"\n", "a.did": Self.did])
        var expected = loose.root.path
        var ancestor = loose.root.deletingLastPathComponent()
        while ancestor.path != "/" {
            if FileManager.default.fileExists(atPath: ancestor.appendingPathComponent("Package.swift").path) { expected = ancestor.path; break }
            ancestor = ancestor.deletingLastPathComponent()
        }
        #expect(BindingsManifest.packageRoot(forManifestAt: loose.url("m.toml").path) == expected)
    }

    @Test func canisterIDsAndMethodsAreChecked() throws {
        let id = try #require(try Self.failure("[[canister]]\nname = \"A\"\ndid = \"a.did\"\ncanister_id = \"ryjl3-tyaaa-aaaaa-aaaba-caa\"\n"))
        #expect(id.line == 4 && id.message.contains("is not a principal: it has a wrong checksum"))
        let notText = try #require(try Self.failure("[[canister]]\nname = \"A\"\ndid = \"a.did\"\ncanister_id = 5\n"))
        #expect(notText.line == 4 && notText.message.contains("must be a string"))
        let unknown = try #require(try Self.failure("[[canister]]\nname = \"A\"\ndid = \"a.did\"\nmethods = [\n  \"get\",\n  \"gett\",\n]\n"))
        #expect(unknown.kind == .manifest && unknown.line == 6)
        #expect(unknown.message == "canister \"A\": a.did has no method \"gett\" (its methods: get, put)")
        let twice = try #require(try Self.failure("[[canister]]\nname = \"A\"\ndid = \"a.did\"\nmethods = [\"get\", \"get\"]\n"))
        #expect(twice.line == 4 && twice.message.contains("listed twice"))
        let none = try #require(try Self.failure("[[canister]]\nname = \"A\"\ndid = \"a.did\"\nmethods = []\n"))
        #expect(none.message.contains("omit it to generate every method"))
        let noService = try #require(try Self.failure("[[canister]]\nname = \"A\"\ndid = \"a.did\"\nmethods = [\"get\"]\n",
                                                      files: ["a.did": "type T = nat;"]))
        #expect(noService.message.contains("it has no service"))
    }

    @Test func anInterfaceThatDoesNotCheckFailsAtItsLineAndTheManifests() throws {
        let broken = try #require(try Self.failure("[[canister]]\nname = \"A\"\ndid = \"a.did\"\n",
                                                   files: ["a.did": "type T = record {\n  x : Unknown;\n};\nservice : {}"]))
        #expect(broken.kind == .interface && broken.line == 3)
        #expect(broken.message.contains("a.did: invalid Candid type (line 2, column 7): unknown type \"Unknown\""), "\(broken.message)")
    }

    @Test func aTypeNestedTooDeeplyIsUnsupportedWithItsPath() throws {
        let depth = SwiftBindingsBuilder.maxNesting + 1
        let type = String(repeating: "record { inner : ", count: depth) + "nat" + String(repeating: " }", count: depth)
        let error = try #require(try Self.failure("[[canister]]\nname = \"A\"\ndid = \"a.did\"\n",
                                                  files: ["a.did": "type Deep = \(type);\nservice : { f : (Deep) -> () }"]))
        #expect(error.kind == .unsupported && error.line == 1)
        let path = try #require(error.typePath)
        #expect(path.hasPrefix("type Deep . record field \"inner\" . record field \"inner\""))
        #expect(error.description.contains("unsupported Candid type (Candid/bindings.toml, line 1, at type Deep . record field"))
        // One level less is fine.
        let fine = String(repeating: "record { inner : ", count: depth - 1) + "nat" + String(repeating: " }", count: depth - 1)
        #expect(try Self.failure("[[canister]]\nname = \"A\"\ndid = \"a.did\"\n", files: ["a.did": "type Deep = \(fine);\nservice : { f : (Deep) -> () }"]) == nil)
    }
}
