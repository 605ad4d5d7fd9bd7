import FoundationEssentials
import OmniSystem

/// A parsed and checked `.did` interface: type definitions and the main service, if any.
///
/// `import "x.did"` includes the imported file's type definitions; `import service "x.did"` also merges its
/// main service's methods. Files are obtained through an `ImportResolver`, so the library itself does no I/O
/// unless you choose `ImportResolver.fileSystem`.
public struct CandidInterface: Sendable {
    public private(set) var environment: CandidTypeEnvironment
    /// The main service's methods: those merged by `import service` first (in import order), then the file's own.
    public private(set) var service: CandidServiceType?
    /// Constructor arguments of `service : (args) -> { … }`.
    public private(set) var initArguments: [CandidArgument]?

    /// Reads an imported file. `path` is the text of the `import`; `importer` identifies the importing file
    /// (nil for the main text). Returns an identifier for the file (used to skip repeated imports and to name it
    /// in errors) and its text.
    public struct ImportResolver: Sendable {
        public let resolve: @Sendable (_ path: String, _ importer: String?) throws -> (identifier: String, text: String)

        public init(_ resolve: @escaping @Sendable (_ path: String, _ importer: String?) throws -> (identifier: String, text: String)) {
            self.resolve = resolve
        }

        /// Resolves relative paths against the importing file's directory (or `base` for the main text) and
        /// reads the files from disk.
        public static func fileSystem(base: URL) -> ImportResolver {
            ImportResolver { path, importer in
                let directory = importer.map { URL(fileURLWithPath: $0).deletingLastPathComponent() } ?? base
                let url = path.hasPrefix("/") ? URL(fileURLWithPath: path) : directory.appendingPathComponent(path)
                let standardized = url.standardizedFileURL
                return (standardized.path, try String(contentsOf: standardized, encoding: .utf8))
            }
        }
    }

    public init(environment: CandidTypeEnvironment, service: CandidServiceType?, initArguments: [CandidArgument]? = nil) {
        self.environment = environment
        self.service = service
        self.initArguments = initArguments
    }

    /// Parses and checks `.did` text. `file` names the text in errors and for relative imports.
    public static func parse(_ text: String, file: String? = nil, resolver: ImportResolver? = nil,
                             limits: CandidLimits = .default) throws(CandidError) -> CandidInterface {
        var loader = InterfaceLoader(resolver: resolver, limits: limits)
        try loader.load(text, identifier: file, depth: 0, includeService: true, isMain: true)
        return try loader.finish()
    }

    /// Reads, parses and checks a `.did` file and its imports from disk.
    public static func load(contentsOf url: URL, limits: CandidLimits = .default) throws(CandidError) -> CandidInterface {
        let path = url.standardizedFileURL.path
        let text: String
        do { text = try String(contentsOf: url, encoding: .utf8) } catch {
            throw CandidError(.importFailed, "cannot read \(path): \(SystemError.reason(for: error))", file: path)
        }
        return try parse(text, file: path, resolver: .fileSystem(base: url.deletingLastPathComponent()), limits: limits)
    }

    /// A method's function type with named function types resolved.
    public func method(_ name: String) throws(CandidError) -> CandidFunctionType? {
        guard let type = service?[name] else { return nil }
        guard case .function(let function) = try environment.resolve(type) else {
            throw CandidError(.invalidType, "method \(CandidLabel.quoted(name)) is not a function type")
        }
        return function
    }

    /// Whether this interface can replace `previous` without breaking clients: the new service must be a subtype
    /// of the old one (methods may be added, arguments generalised, results specialised).
    public func isCompatibleUpgrade(of previous: CandidInterface, limits: CandidLimits = .default) throws(CandidError) -> Bool {
        guard let old = previous.service else { return true }
        guard let new = service else { return old.methods.isEmpty }
        return try Candid.isSubtype(.service(new), in: environment, of: .service(old), in: previous.environment, limits: limits)
    }

    /// Whether both interfaces can replace each other (`didc check --strict`).
    public func isEquivalent(to other: CandidInterface, limits: CandidLimits = .default) throws(CandidError) -> Bool {
        let forward = try isCompatibleUpgrade(of: other, limits: limits)
        let backward = try other.isCompatibleUpgrade(of: self, limits: limits)
        return forward && backward
    }

    /// A method's type, or an error naming the available methods.
    public func requireMethod(_ name: String) throws(CandidError) -> CandidFunctionType {
        guard let function = try method(name) else {
            let available = (service?.methods.map { CandidLabel.quoted($0.name) } ?? []).joined(separator: ", ")
            throw CandidError(.invalidType, "the service has no method \(CandidLabel.quoted(name))"
                              + (available.isEmpty ? "" : " (methods: \(available))"))
        }
        return function
    }

    /// Parses Candid text arguments for `method`.
    public func parseArguments(_ text: String, method: String, limits: CandidLimits = .default) throws(CandidError) -> [CandidValue] {
        try Candid.parseArguments(text, types: try requireMethod(method).argumentTypes, environment: environment, limits: limits)
    }

    /// Encodes arguments for `method`.
    public func encodeArguments(_ values: [CandidValue], method: String) throws(CandidError) -> [UInt8] {
        try Candid.encode(values, types: try requireMethod(method).argumentTypes, environment: environment)
    }

    /// Decodes a call's argument message at `method`'s argument types (field names come from the interface).
    public func decodeArguments(_ bytes: [UInt8], method: String, limits: CandidLimits = .default) throws(CandidError) -> [CandidValue] {
        try Candid.decode(bytes, types: try requireMethod(method).argumentTypes, environment: environment, limits: limits)
    }

    /// Decodes a reply at `method`'s result types.
    public func decodeResults(_ bytes: [UInt8], method: String, limits: CandidLimits = .default) throws(CandidError) -> [CandidValue] {
        try Candid.decode(bytes, types: try requireMethod(method).resultTypes, environment: environment, limits: limits)
    }

    /// The interface as `.did` text: definitions, then the service.
    public func printed(style: CandidPrintStyle = .pretty) -> String {
        var lines: [String] = []
        for (name, type) in environment.all {
            let document = PrettyDocument.text("type \(CandidLabel.isPlainIdentifier(name) ? name : CandidLabel.quoted(name)) = ")
                + CandidPrinter.type(type) + .text(";")
            lines.append(document.render(width: style.width))
        }
        if let service {
            var document = PrettyDocument.text("service : ")
            if let initArguments { document = document + CandidPrinter.arguments(initArguments) + .text(" -> ") }
            document = document + CandidPrinter.service(service) + .text(";")
            lines.append(document.render(width: style.width))
        }
        return lines.joined(separator: "\n") + (lines.isEmpty ? "" : "\n")
    }
}

/// Collects definitions and service methods across a file and its imports, then checks them.
private struct InterfaceLoader {
    let resolver: CandidInterface.ImportResolver?
    let limits: CandidLimits
    var environment = CandidTypeEnvironment()
    var methods: [CandidServiceType.Method] = []
    var initArguments: [CandidArgument]?
    var hasService = false
    var loaded: Set<String> = []

    init(resolver: CandidInterface.ImportResolver?, limits: CandidLimits) {
        self.resolver = resolver
        self.limits = limits
    }

    mutating func load(_ text: String, identifier: String?, depth: Int, includeService: Bool, isMain: Bool) throws(CandidError) {
        guard depth <= 32 else { throw CandidError(.limitExceeded, "imports nested deeper than 32", file: identifier) }
        let source = Array(text.utf8)
        var parser: CandidParser
        let program: (declarations: [CandidDeclaration], actor: CandidActorSyntax?)
        do throws(CandidError) {
            parser = try CandidParser(source, maxDepth: limits.maxDepth)
            program = try parser.parseProgram()
        } catch {
            throw error.inFile(isMain ? nil : identifier)
        }
        for declaration in program.declarations {
            switch declaration {
            case .type(let name, let type, let offset):
                do throws(CandidError) { try environment.define(name, type) } catch {
                    throw CandidParser.locate(CandidError(.invalidType, error.message, offset: offset), in: source).inFile(isMain ? nil : identifier)
                }
            case .importTypes(let path, let offset), .importService(let path, let offset):
                guard let resolver else {
                    throw CandidParser.locate(CandidError(.importFailed, "cannot import \(CandidLabel.quoted(path)): no import resolver given",
                                                          offset: offset), in: source).inFile(isMain ? nil : identifier)
                }
                let resolved: (identifier: String, text: String)
                do { resolved = try resolver.resolve(path, identifier) } catch {
                    throw CandidParser.locate(CandidError(.importFailed, "cannot import \(CandidLabel.quoted(path)): \(error)", offset: offset),
                                              in: source).inFile(isMain ? nil : identifier)
                }
                var isService = false
                if case .importService = declaration { isService = true }
                guard loaded.insert(resolved.identifier).inserted else { continue }
                try load(resolved.text, identifier: resolved.identifier, depth: depth + 1, includeService: isService, isMain: false)
            }
        }
        guard includeService, let actor = program.actor else { return }
        if !isMain && actor.initArguments != nil {
            throw CandidError(.invalidType, "an imported service cannot be a service constructor", file: identifier)
        }
        if isMain { initArguments = actor.initArguments }
        hasService = true
        let resolved: CandidType
        do throws(CandidError) { resolved = try environment.resolve(actor.type) } catch {
            throw CandidParser.locate(CandidError(.invalidType, error.message, offset: actor.offset), in: source).inFile(isMain ? nil : identifier)
        }
        guard case .service(let service) = resolved else {
            throw CandidParser.locate(CandidError(.invalidType, "the main service must be a service type", offset: actor.offset), in: source)
                .inFile(isMain ? nil : identifier)
        }
        for method in service.methods {
            guard !methods.contains(where: { $0.name == method.name }) else {
                throw CandidError(.invalidType, "method \(CandidLabel.quoted(method.name)) is defined twice (imported service)", file: identifier)
            }
            methods.append(method)
        }
    }

    func finish() throws(CandidError) -> CandidInterface {
        // Compiling every definition checks names, cycles, field ids and method types.
        var compiler = TypeCompiler(environment: environment, maxDepth: limits.maxDepth)
        for name in environment.names {
            do throws(CandidError) { _ = try compiler.compile(.named(name)) } catch {
                throw CandidError(error.kind, "in type \(CandidLabel.quoted(name)): \(error.message)")
            }
        }
        let service = hasService ? CandidServiceType(methods) : nil
        if let service {
            do throws(CandidError) { _ = try compiler.compile(.service(service)) } catch {
                throw CandidError(error.kind, "in the main service: \(error.message)")
            }
        }
        for argument in initArguments ?? [] { _ = try compiler.compile(argument.type) }
        _ = try compiler.finish()
        return CandidInterface(environment: environment, service: service, initArguments: initArguments)
    }
}

extension CandidError {
    func inFile(_ file: String?) -> CandidError {
        guard let file, self.file == nil else { return self }
        var copy = self
        copy.file = file
        return copy
    }
}
