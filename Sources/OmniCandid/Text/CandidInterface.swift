import FoundationEssentials
import OmniCodec
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
    /// The comments documenting definitions, their members and the service's methods (imports included).
    public var documentation = CandidDocumentation()

    /// Reads an imported file. `path` is the text of the `import`; `importer` identifies the importing file
    /// (nil for the main text). Returns an identifier for the file (used to skip repeated imports and to name it
    /// in errors) and its bytes, which must be UTF-8 (they are validated like the main text). A `CandidError` thrown
    /// here gives its message to the import error; any other error is described.
    public struct ImportResolver: Sendable {
        public let resolve: @Sendable (_ path: String, _ importer: String?) throws -> (identifier: String, bytes: [UInt8])

        public init(_ resolve: @escaping @Sendable (_ path: String, _ importer: String?) throws -> (identifier: String, bytes: [UInt8])) {
            self.resolve = resolve
        }

        /// Resolves relative paths against the importing file's directory (or `base` for the main text) and
        /// reads the files from disk.
        public static func fileSystem(base: URL) -> ImportResolver {
            ImportResolver { path, importer in
                let directory = importer.map { URL(fileURLWithPath: $0).deletingLastPathComponent() } ?? base
                let url = (path.hasPrefix("/") ? URL(fileURLWithPath: path) : directory.appendingPathComponent(path)).standardizedFileURL
                return (url.path, try CandidInterface.readFile(url))
            }
        }
    }

    /// A file's bytes, or an `.importFailed` error that says plainly why not (no platform error dump).
    static func readFile(_ url: URL) throws(CandidError) -> [UInt8] {
        let path = url.path
        switch LocalFile.read(path, limit: 16 << 20) {
        case .success(let bytes): return bytes
        case .failure(.notFound): throw CandidError(.importFailed, "\(path) does not exist")
        case .failure(.isDirectory): throw CandidError(.importFailed, "\(path) is a directory, not a .did file")
        case .failure(.permissionDenied): throw CandidError(.importFailed, "\(path) is not readable (permission denied)")
        case .failure(.tooLarge(let limit)): throw CandidError(.importFailed, "\(path) is larger than \(limit) bytes")
        case .failure(.io(let reason)): throw CandidError(.importFailed, "\(path) could not be read: \(reason)")
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
        try parse(utf8: Array(text.utf8), file: file, resolver: resolver, limits: limits)
    }

    /// Parses and checks `.did` bytes as read from a file or stdin. Invalid UTF-8 is an error at the line and
    /// column of the first bad byte (nothing is decoded lossily). `file` names the text in errors and for relative
    /// imports.
    public static func parse(utf8 bytes: [UInt8], file: String? = nil, resolver: ImportResolver? = nil,
                             limits: CandidLimits = .default) throws(CandidError) -> CandidInterface {
        var loader = InterfaceLoader(resolver: resolver, limits: limits)
        if let file { loader.loaded.insert(file) }
        try loader.load(bytes, identifier: file, depth: 0, includeService: true, isMain: true)
        return try loader.finish()
    }

    /// Reads, parses and checks a `.did` file and its imports from disk.
    public static func load(contentsOf url: URL, limits: CandidLimits = .default) throws(CandidError) -> CandidInterface {
        let path = url.standardizedFileURL.path
        let bytes: [UInt8]
        do throws(CandidError) { bytes = try readFile(url.standardizedFileURL) } catch { throw error.inFile(path) }
        do throws(CandidError) {
            return try parse(utf8: bytes, file: path, resolver: .fileSystem(base: url.deletingLastPathComponent()), limits: limits)
        } catch {
            throw error.inFile(path)
        }
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

    /// Decodes a call's argument message, appending a warning for each value the special opt rule read as null.
    public func decodeArguments(_ bytes: [UInt8], method: String, limits: CandidLimits = .default,
                                warnings: inout [CandidWarning]) throws(CandidError) -> [CandidValue] {
        try Candid.decode(bytes, types: try requireMethod(method).argumentTypes, environment: environment, limits: limits,
                          warnings: &warnings)
    }

    /// Decodes a reply at `method`'s result types.
    public func decodeResults(_ bytes: [UInt8], method: String, limits: CandidLimits = .default) throws(CandidError) -> [CandidValue] {
        try Candid.decode(bytes, types: try requireMethod(method).resultTypes, environment: environment, limits: limits)
    }

    /// Decodes a reply, appending a warning for each value the special opt rule read as null.
    public func decodeResults(_ bytes: [UInt8], method: String, limits: CandidLimits = .default,
                              warnings: inout [CandidWarning]) throws(CandidError) -> [CandidValue] {
        try Candid.decode(bytes, types: try requireMethod(method).resultTypes, environment: environment, limits: limits,
                          warnings: &warnings)
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

/// Collects definitions and service methods across a file and its imports, then checks them. Every error names
/// the file it is in (imported files by identifier) and the line and column of what is wrong.
private struct InterfaceLoader {
    /// Where something is written: the file (nil for the main text, which the caller names) and a byte offset.
    struct Site {
        let file: String?
        let source: [UInt8]
        let offset: Int

        func at(_ offset: Int) -> Site { Site(file: file, source: source, offset: offset) }

        func locate(_ error: CandidError) -> CandidError {
            var located = error
            located.definition = nil
            if located.line == nil {
                located.offset = offset
                located = CandidParser.locate(located, in: source)
            }
            return located.inFile(file)
        }
    }

    struct Definition {
        let name: String
        let site: Site
        let references: [NamedReference]
    }

    let resolver: CandidInterface.ImportResolver?
    let limits: CandidLimits
    var environment = CandidTypeEnvironment()
    var methods: [CandidServiceType.Method] = []
    /// The names in `methods`, so merging services stays linear in their size.
    var methodNames: Set<String> = []
    var initArguments: [CandidArgument]?
    var hasService = false
    var loaded: Set<String> = []
    var definitions: [Definition] = []
    var definitionSites: [String: Site] = [:]
    /// Each service merged into the main one, with the names it uses.
    var services: [(site: Site, references: [NamedReference])] = []
    var mainServiceSite: Site?
    var documentation = CandidDocumentation()
    /// Method comments of `type S = service { … }` definitions, by name.
    var namedServiceDocumentation: [String: [String: String]] = [:]
    /// Method comments of the inline services merged into the main one.
    var inlineMethodDocumentation: [String: String] = [:]
    /// The services merged into the main one that are given by name (`service : S`).
    var methodDocumentationSources: [CandidType] = []

    init(resolver: CandidInterface.ImportResolver?, limits: CandidLimits) {
        self.resolver = resolver
        self.limits = limits
    }

    mutating func load(_ source: [UInt8], identifier: String?, depth: Int, includeService: Bool, isMain: Bool) throws(CandidError) {
        let file = isMain ? nil : identifier
        guard depth <= 32 else { throw CandidError(.limitExceeded, "imports nested deeper than 32", file: identifier) }
        let program: (declarations: [CandidDeclaration], actor: CandidActorSyntax?)
        do throws(CandidError) {
            var parser = try CandidParser(source, limits: limits)
            program = try parser.parseProgram()
            collectDocumentation(of: parser, includeService: includeService)
        } catch {
            throw error.inFile(file)
        }
        func site(_ offset: Int) -> Site { Site(file: file, source: source, offset: offset) }
        for declaration in program.declarations {
            switch declaration {
            case .type(let name, let type, let offset, let references):
                guard definitions.count < limits.maxDefinitions else {
                    throw site(offset).locate(CandidError(.limitExceeded, "more than \(limits.maxDefinitions) type definitions"))
                }
                do throws(CandidError) { try environment.define(name, type) } catch { throw site(offset).locate(error) }
                definitions.append(Definition(name: name, site: site(offset), references: references))
                definitionSites[name] = site(offset)
            case .importTypes(let path, let offset), .importService(let path, let offset):
                guard let resolver else {
                    throw site(offset).locate(CandidError(.importFailed, "cannot import \(CandidLabel.quoted(path)): no import resolver given"))
                }
                let resolved: (identifier: String, bytes: [UInt8])
                do { resolved = try resolver.resolve(path, identifier) } catch {
                    let reason = (error as? CandidError)?.message ?? String(describing: error)
                    throw site(offset).locate(CandidError(.importFailed, "cannot import \(CandidLabel.quoted(path)): \(reason)"))
                }
                var isService = false
                if case .importService = declaration { isService = true }
                guard loaded.insert(resolved.identifier).inserted else { continue }
                try load(resolved.bytes, identifier: resolved.identifier, depth: depth + 1, includeService: isService, isMain: false)
            }
        }
        guard includeService, let actor = program.actor else { return }
        let actorSite = site(actor.offset)
        if !isMain && actor.initArguments != nil {
            throw actorSite.locate(CandidError(.invalidType, "an imported service cannot be a service constructor"))
        }
        if isMain {
            initArguments = actor.initArguments
            mainServiceSite = actorSite
        }
        hasService = true
        let resolved: CandidType
        do throws(CandidError) { resolved = try environment.resolve(actor.type) } catch {
            // Point at the name the service is given by when that is what does not resolve.
            var at = actorSite
            if case .named(let name) = actor.type, let reference = actor.references.last(where: { $0.name == name }) {
                at = actorSite.at(reference.offset)
            }
            throw at.locate(error)
        }
        guard case .service(let service) = resolved else {
            throw actorSite.locate(CandidError(.invalidType, "the main service must be a service type"))
        }
        services.append((actorSite, actor.references))
        if case .named = actor.type { methodDocumentationSources.append(actor.type) }
        for method in service.methods {
            guard methodNames.insert(method.name).inserted else {
                let offset = actor.methodOffsets[method.name] ?? actor.offset
                throw actorSite.at(offset).locate(CandidError(
                    .duplicateLabel, "method \(CandidLabel.quoted(method.name)) is also defined by an imported service"))
            }
            methods.append(method)
        }
    }

    /// Keeps the comments one file documents (the first comment of a name wins, as its first definition does).
    private mutating func collectDocumentation(of parser: CandidParser, includeService: Bool) {
        let found = parser.documentation
        documentation.definitions.merge(found.definitions) { earlier, _ in earlier }
        documentation.members.merge(found.members) { earlier, _ in earlier }
        for case (let name?, let methods) in parser.serviceMethodDocumentation where namedServiceDocumentation[name] == nil {
            namedServiceDocumentation[name] = methods
        }
        if includeService, let inline = parser.serviceMethodDocumentation[nil] {
            inlineMethodDocumentation.merge(inline) { earlier, _ in earlier }
        }
    }

    /// Where an error found while compiling belongs: the definition it names, else the main service.
    private func site(of error: CandidError, default fallback: Site?) -> Site? {
        error.definition.flatMap { definitionSites[$0] } ?? fallback
    }

    private func locate(_ error: CandidError, default fallback: Site?) -> CandidError {
        guard let site = site(of: error, default: fallback) else {
            var copy = error
            copy.definition = nil
            return copy
        }
        return site.locate(error)
    }

    func finish() throws(CandidError) -> CandidInterface {
        // Every name used must be defined; report the first unknown one where it is written.
        for definition in definitions {
            for reference in definition.references where environment[reference.name] == nil {
                throw definition.site.at(reference.offset).locate(CandidError(.invalidType, "unknown type \(CandidLabel.quoted(reference.name))"))
            }
        }
        for service in services {
            for reference in service.references where environment[reference.name] == nil {
                throw service.site.at(reference.offset).locate(CandidError(.invalidType, "unknown type \(CandidLabel.quoted(reference.name))"))
            }
        }
        // Compiling every definition checks cycles, field ids, method types and oneway results.
        var compiler = TypeCompiler(environment: environment, maxDepth: limits.maxDepth)
        for definition in definitions {
            do throws(CandidError) { _ = try compiler.compile(.named(definition.name)) } catch {
                throw locate(error.inDefinition(definition.name), default: definition.site)
            }
        }
        let service = hasService ? CandidServiceType(methods) : nil
        do throws(CandidError) {
            if let service { _ = try compiler.compile(.service(service)) }
            for argument in initArguments ?? [] { _ = try compiler.compile(argument.type) }
            _ = try compiler.finish()
        } catch {
            throw locate(error, default: mainServiceSite)
        }
        var interface = CandidInterface(environment: environment, service: service, initArguments: initArguments)
        interface.documentation = documentation
        for source in methodDocumentationSources {
            // A service given by name: the comments written in that definition, or in the one it aliases.
            var current: CandidType? = source
            var seen: Set<String> = []
            var docs: [String: String]?
            while case .named(let name)? = current, seen.insert(name).inserted {
                if let found = namedServiceDocumentation[name] { docs = found; break }
                current = environment[name]
            }
            for (method, text) in docs ?? [:] where interface.documentation.methods[method] == nil {
                interface.documentation.methods[method] = text
            }
        }
        for (method, text) in inlineMethodDocumentation where interface.documentation.methods[method] == nil {
            interface.documentation.methods[method] = text
        }
        return interface
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
