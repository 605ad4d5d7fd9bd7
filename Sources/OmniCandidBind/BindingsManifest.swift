import OmniCandid
import OmniCodec
import OmniSystem

/// `Candid/bindings.toml`: which interfaces to generate Swift for.
///
/// ```toml
/// [[canister]]
/// name = "Ledger"                           # the Swift namespace: Ledger.Account, Ledger.Client, …
/// did = "Candid/ledger.did"                 # relative to the package root
/// canister_id = "ryjl3-tyaaa-aaaaa-aaaba-cai"   # optional: Ledger.Client's default canister
/// methods = ["icrc1_balance_of", "icrc1_transfer"]   # optional: omitted = every method
/// ```
///
/// The package root is the nearest directory above the manifest that has a `Package.swift` (else the manifest's
/// own directory), unless given. Every `.did` file, and every file it imports, must be inside it.
public struct BindingsManifest: Sendable {
    public struct Canister: Sendable {
        /// The Swift namespace (an identifier).
        public let name: String
        /// The `did` path as written, relative to the package root.
        public let did: String
        /// The `.did` file's absolute path, symbolic links resolved.
        public let didPath: String
        public let canisterID: Principal?
        /// nil: every method of the service.
        public let methods: [String]?
        /// The line of the entry's `[[canister]]` header.
        public let line: Int
        /// Lines of the entry's keys, and of each element of `methods`.
        let keyLines: [String: Int]
        let methodLines: [Int]
    }

    /// The manifest as the user named it (for messages).
    public let displayPath: String
    /// The package root, absolute, symbolic links resolved.
    public let root: String
    public let canisters: [Canister]

    static let allowedKeys = ["name", "did", "canister_id", "methods"]
    /// The modules generated code imports and the namespace members it defines: no namespace may be called so.
    static let reservedNames: Set<String> = ["Swift", "OmniBindings", "OmniCandid", "OmniCodec", "OmniIC"]

    /// The directory a manifest's paths are relative to by default: the nearest one above it with a
    /// `Package.swift`, else the manifest's own directory. `manifestPath` must be absolute.
    public static func packageRoot(forManifestAt manifestPath: String) -> String {
        var directory = Paths.directory(of: manifestPath)
        while true {
            if LocalFile.exists(directory == "/" ? "/Package.swift" : directory + "/Package.swift") { return directory }
            let parent = Paths.directory(of: directory)
            if parent == directory { return Paths.directory(of: manifestPath) }
            directory = parent
        }
    }

    /// Reads and checks a manifest; `root` is the package root (it must exist). Interfaces are read later, by the
    /// generator, which checks the methods named here against them.
    public static func parse(_ bytes: [UInt8], displayPath: String, root: String) throws(CandidBindError) -> BindingsManifest {
        func fail(_ message: String, line: Int? = nil, column: Int? = nil) -> CandidBindError {
            CandidBindError(.manifest, message, file: displayPath, line: line, column: column)
        }
        guard let realRoot = Paths.resolved(root), Paths.isDirectory(realRoot) else {
            throw fail("the package root \(root) is not a directory")
        }
        let table: TOMLTable
        let positions: TOMLPositions
        do throws(CodecError) {
            (table, positions) = try TOMLTable.parseWithPositions(bytes)
        } catch {
            throw fail(error.message, line: error.line, column: error.column)
        }
        func line(_ path: TOMLPathComponent...) -> Int? { positions.nearestPosition(of: path)?.line }

        for key in table.keys where key != "canister" {
            throw fail("unknown key \(TOMLPathComponent.key(key)); a bindings manifest has [[canister]] tables only",
                       line: line(.key(key)))
        }
        guard let entries = table["canister"] else {
            throw fail("no [[canister]] entry: add one with name and did")
        }
        guard let array = entries.arrayValue, array.allSatisfy({ $0.tableValue != nil }) else {
            throw fail("canister must be an array of tables, written [[canister]]", line: line(.key("canister")))
        }
        var canisters: [Canister] = []
        var names: [String: Int] = [:]
        for (index, element) in array.enumerated() {
            let entry = element.tableValue ?? TOMLTable()
            let base: [TOMLPathComponent] = [.key("canister"), .index(index)]
            let entryLine = positions.nearestPosition(of: base)?.line ?? 1
            func keyLine(_ key: String) -> Int { positions.position(of: base + [.key(key)])?.line ?? entryLine }
            var keyLines: [String: Int] = [:]
            for key in entry.keys {
                guard allowedKeys.contains(key) else {
                    throw fail("unknown key \(TOMLPathComponent.key(key)) in [[canister]]; the keys are "
                               + allowedKeys.joined(separator: ", "), line: keyLine(key))
                }
                keyLines[key] = keyLine(key)
            }
            // name
            guard let nameValue = entry["name"] else { throw fail("[[canister]] needs a name (the Swift namespace)", line: entryLine) }
            guard let name = nameValue.stringValue else { throw fail("name must be a string", line: keyLine("name")) }
            if let problem = namespaceProblem(name) { throw fail("name \"\(name)\" \(problem)", line: keyLine("name")) }
            if let earlier = names[name] {
                throw fail("name \"\(name)\" is already used by the [[canister]] at line \(earlier)", line: keyLine("name"))
            }
            names[name] = entryLine
            // did
            guard let didValue = entry["did"] else { throw fail("[[canister]] \"\(name)\" needs did (the .did file)", line: entryLine) }
            guard let did = didValue.stringValue else { throw fail("did must be a string", line: keyLine("did")) }
            let didPath: String
            do throws(CandidBindError) { didPath = try resolve(did, root: realRoot, what: "did") } catch {
                throw fail(error.message, line: keyLine("did"))
            }
            // canister_id
            var canisterID: Principal?
            if let idValue = entry["canister_id"] {
                guard let text = idValue.stringValue else { throw fail("canister_id must be a string", line: keyLine("canister_id")) }
                if let problem = Principal.textProblem(text) {
                    throw fail("canister_id \"\(text)\" is not a principal: it \(problem)", line: keyLine("canister_id"))
                }
                canisterID = try? Principal(text: text)
            }
            // methods
            var methods: [String]?
            var methodLines: [Int] = []
            if let methodsValue = entry["methods"] {
                guard let items = methodsValue.arrayValue else {
                    throw fail("methods must be an array of method names", line: keyLine("methods"))
                }
                guard !items.isEmpty else {
                    throw fail("methods is empty; omit it to generate every method", line: keyLine("methods"))
                }
                var seen: Set<String> = []
                var list: [String] = []
                for (position, item) in items.enumerated() {
                    let itemLine = positions.position(of: base + [.key("methods"), .index(position)])?.line ?? keyLine("methods")
                    guard let method = item.stringValue else { throw fail("methods must be strings", line: itemLine) }
                    guard seen.insert(method).inserted else { throw fail("method \"\(method)\" is listed twice", line: itemLine) }
                    list.append(method)
                    methodLines.append(itemLine)
                }
                methods = list
            }
            canisters.append(Canister(name: name, did: did, didPath: didPath, canisterID: canisterID, methods: methods,
                                      line: entryLine, keyLines: keyLines, methodLines: methodLines))
        }
        guard !canisters.isEmpty else { throw fail("no [[canister]] entry: add one with name and did") }
        return BindingsManifest(displayPath: displayPath, root: realRoot, canisters: canisters)
    }

    /// Why `name` cannot be a namespace, or nil.
    static func namespaceProblem(_ name: String) -> String? {
        guard SwiftNames.isIdentifier(name) else { return "is not a Swift identifier (letters, digits and _, not starting with a digit)" }
        if SwiftNames.keywords.contains(name) || SwiftNames.unusable.contains(name) { return "is a Swift keyword" }
        if reservedNames.contains(name) { return "is the name of a module the generated code imports" }
        return nil
    }

    /// An existing file inside `root` named by a path relative to it; `root` is resolved already.
    static func resolve(_ path: String, root: String, what: String) throws(CandidBindError) -> String {
        guard !path.isEmpty else { throw CandidBindError(.manifest, "\(what) is empty") }
        guard !path.hasPrefix("/") && !path.hasPrefix("~") else {
            throw CandidBindError(.manifest, "\(what) \"\(path)\" must be relative to the package root \(root)")
        }
        let joined = Paths.normalized(root + "/" + path)
        guard isInside(joined, root: root) else {
            throw CandidBindError(.manifest, "\(what) \"\(path)\" is outside the package root \(root)")
        }
        guard let real = Paths.resolved(joined) else {
            throw CandidBindError(.manifest, "\(what) \"\(path)\" does not exist (looked for \(joined))")
        }
        // A symbolic link may lead out of the package even when the path does not.
        guard isInside(real, root: root) else {
            throw CandidBindError(.manifest, "\(what) \"\(path)\" leads outside the package root \(root) (to \(real))")
        }
        guard !Paths.isDirectory(real) else { throw CandidBindError(.manifest, "\(what) \"\(path)\" is a directory") }
        return real
    }

    static func isInside(_ path: String, root: String) -> Bool {
        root == "/" ? path.hasPrefix("/") : path.hasPrefix(root + "/")
    }

    /// `path` relative to the root, for messages and the generated header (never an absolute path: the output must
    /// not depend on where the package is).
    func relative(_ path: String) -> String {
        BindingsManifest.isInside(path, root: root) ? String(path.dropFirst(root == "/" ? 1 : root.count + 1)) : path
    }
}
