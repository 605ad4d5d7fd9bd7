/// A parsed text value before typing: number literals stay untyped until a type (or the default) fixes them.
struct TextValue {
    indirect enum Kind {
        /// Digits with an optional leading `-` and `0x` prefix, underscores removed; or `nan`/`inf`/`-inf`.
        case number(String, isFloat: Bool, isHex: Bool)
        case bool(Bool)
        case null
        case text(String)
        case blob([UInt8])
        case opt(TextValue)
        case vec([TextValue])
        /// Sorted by id, ids unique.
        case record([(label: CandidLabel, value: TextValue)])
        case variant(CandidLabel, TextValue)
        case principal(Principal)
        case service(Principal)
        case function(Principal, String)
        case annotated(TextValue, CandidType)
    }

    var kind: Kind
    /// Byte offset in the source, for error positions.
    var offset: Int
}

/// A use of a type name in `.did` text, kept so that an unknown name can be reported where it is written.
struct NamedReference {
    let name: String
    let offset: Int
}

/// A declaration of a `.did` file, in source order.
enum CandidDeclaration {
    /// `references`: the names the definition's body uses, in source order.
    case type(name: String, type: CandidType, offset: Int, references: [NamedReference])
    case importTypes(path: String, offset: Int)
    case importService(path: String, offset: Int)
}

/// The main `service` of a `.did` file as written.
struct CandidActorSyntax {
    /// Constructor (init) arguments, for `service : (args) -> { … }`.
    var initArguments: [CandidArgument]?
    /// `.service(…)` or `.named(…)`.
    var type: CandidType
    var offset: Int
    /// The names the service (and its init arguments) use, in source order.
    var references: [NamedReference]
    /// Where each method of an inline service is named.
    var methodOffsets: [String: Int]
}

/// Recursive-descent parser over the token stream of one text. Every error carries line and column.
struct CandidParser {
    private let source: [UInt8]
    private let tokens: [CandidToken]
    private var index = 0
    private var depth = 0
    private let maxDepth: Int
    private let limits: CandidLimits
    /// Every type name used so far, with its position (declarations take their slice).
    private(set) var references: [NamedReference] = []
    /// Method name positions of the last service type parsed.
    private var lastMethodOffsets: [String: Int] = [:]
    /// Comments on definitions and their members, and on the methods of services (see `CandidDocumentation`).
    private(set) var documentation = CandidDocumentation()
    /// Method comments of services defined by name (`type S = service { … }`) and of the inline main service (nil).
    private(set) var serviceMethodDocumentation: [String?: [String: String]] = [:]
    /// The definition being read and the labels from its type down to the current member.
    private var documentedDefinition: String?
    private var memberPath: [UInt32] = []
    /// Inside a function or nested service type, members are not documented (their paths would be ambiguous).
    private var signatureDepth = 0

    init(_ source: [UInt8], limits: CandidLimits = .default) throws(CandidError) {
        self.source = source
        self.maxDepth = limits.maxDepth
        self.limits = limits
        do throws(CandidError) { tokens = try CandidLexer.tokenize(source, maxTokens: limits.maxTextTokens) } catch {
            throw CandidParser.locate(error, in: source)
        }
    }

    static func locate(_ error: CandidError, in source: [UInt8]) -> CandidError {
        guard let offset = error.offset, error.line == nil else { return error }
        var located = error
        (located.line, located.column) = lineAndColumn(of: offset, in: source)
        located.offset = nil
        return located
    }

    // MARK: Token helpers

    /// The comment documenting an item that starts at `first` and has just been read: the block before it, or
    /// else a comment after its last token on the same line.
    private func comment(startingAt first: CandidToken) -> String? {
        if let leading = first.leadingComment { return leading }
        return index > 0 ? tokens[index - 1].trailingComment : nil
    }

    private var current: CandidToken { tokens[index] }

    private func peek(_ ahead: Int) -> CandidToken { tokens[min(index + ahead, tokens.count - 1)] }

    private mutating func advance() -> CandidToken {
        let token = tokens[index]
        if index < tokens.count - 1 { index += 1 }
        return token
    }

    func error(_ message: String, at offset: Int? = nil) -> CandidError {
        CandidParser.locate(CandidError(.syntax, message, offset: offset ?? current.offset), in: source)
    }

    private func isSymbol(_ symbol: CandidToken.Symbol, _ token: CandidToken? = nil) -> Bool {
        (token ?? current).kind == .symbol(symbol)
    }

    private func isKeyword(_ keyword: String, _ token: CandidToken? = nil) -> Bool {
        let token = token ?? current
        return token.kind == .identifier && token.text == keyword
    }

    private mutating func accept(_ symbol: CandidToken.Symbol) -> Bool {
        guard isSymbol(symbol) else { return false }
        _ = advance()
        return true
    }

    private mutating func expect(_ symbol: CandidToken.Symbol, _ context: String) throws(CandidError) {
        guard accept(symbol) else { throw error("expected '\(symbol.rawValue)' \(context), found \(describe(current))") }
    }

    private func describe(_ token: CandidToken) -> String {
        switch token.kind {
        case .identifier: return "'\(token.text)'"
        case .number: return "number \(token.text)"
        case .text: return "a text literal"
        case .symbol(let symbol): return "'\(symbol.rawValue)'"
        case .end: return "the end of the input"
        }
    }

    mutating func expectEnd() throws(CandidError) {
        guard current.kind == .end else { throw error("unexpected \(describe(current)) after the end") }
    }

    private mutating func enter() throws(CandidError) {
        depth += 1
        if depth > maxDepth { throw CandidParser.locate(CandidError(.limitExceeded, "nesting deeper than \(maxDepth)", offset: current.offset), in: source) }
    }

    /// Nesting of parentheses around values, counted apart: `opt (x : t)` nests a value once, as its binary form
    /// does, so the printed text of a value at the depth limit parses back.
    private var parenthesisDepth = 0
    /// Nesting of the type being read, counted apart from the value it annotates (each bounded by `maxDepth`, so
    /// recursion stays within three times it).
    private var typeDepth = 0

    /// Keywords that cannot be used as unquoted names (the lexical keywords of the Candid grammar).
    private static let reservedWords: Set<String> = [
        "null", "vec", "record", "variant", "func", "service", "oneway", "query", "composite_query", "blob", "type",
        "import", "opt", "principal", "true", "false",
    ]

    private func isName(_ token: CandidToken) -> Bool {
        token.kind == .text || (token.kind == .identifier && !CandidParser.reservedWords.contains(token.text))
    }

    private mutating func parseName(_ context: String) throws(CandidError) -> String {
        let token = current
        if token.kind == .identifier && !CandidParser.reservedWords.contains(token.text) {
            _ = advance()
            return token.text
        }
        if token.kind == .text {
            _ = advance()
            return try utf8Text(token)
        }
        throw error("expected \(context), found \(describe(token))")
    }

    private func utf8Text(_ token: CandidToken) throws(CandidError) -> String {
        guard let text = String(validating: token.bytes, as: UTF8.self) else {
            throw error("text literal is not valid UTF-8", at: token.offset)
        }
        return text
    }

    private func isFieldNumber(_ token: CandidToken) -> Bool {
        token.kind == .number && !token.isFloat && !token.text.hasPrefix("-")
    }

    private func fieldNumber(_ token: CandidToken) throws(CandidError) -> UInt32 {
        let value = token.isHex ? UInt32(token.text.dropFirst(2), radix: 16) : UInt32(token.text)
        guard let value else { throw error("field id \(token.text) does not fit in 32 bits", at: token.offset) }
        return value
    }

    /// A record/variant label: a number, an identifier or a quoted name.
    private mutating func parseLabel() throws(CandidError) -> CandidLabel {
        let token = current
        if isFieldNumber(token) {
            _ = advance()
            return CandidLabel(id: try fieldNumber(token))
        }
        return CandidLabel(try parseName("a field name or number"))
    }

    // MARK: Values

    /// `( value, … )` with optional trailing comma.
    mutating func parseArguments() throws(CandidError) -> [TextValue] {
        try expect(.leftParen, "to start the argument list")
        var values: [TextValue] = []
        while !isSymbol(.rightParen) {
            try checkCount(values.count, limits.maxArguments, "arguments")
            values.append(try parseAnnotatedValue())
            if !accept(.comma) { break }
        }
        try expect(.rightParen, "to close the argument list")
        return values
    }

    mutating func parseAnnotatedValue() throws(CandidError) -> TextValue {
        let value = try parseValue()
        guard accept(.colon) else { return value }
        let type = try parseType()
        return TextValue(kind: .annotated(value, type), offset: value.offset)
    }

    /// Depth counts what the binary decoder counts (an option holding a value, a vector, a record, a variant), so
    /// the printed text of any value that decodes parses back; numbers, text, `null` and references are leaves.
    mutating func parseValue() throws(CandidError) -> TextValue {
        let token = current
        let offset = token.offset
        switch token.kind {
        case .number:
            _ = advance()
            return TextValue(kind: .number(token.text, isFloat: token.isFloat, isHex: token.isHex), offset: offset)
        case .text:
            _ = advance()
            guard let text = String(validating: token.bytes, as: UTF8.self) else {
                throw error("text is not valid Unicode (use blob \"…\" for bytes)", at: offset)
            }
            return TextValue(kind: .text(text), offset: offset)
        case .symbol(.leftParen):
            _ = advance()
            parenthesisDepth += 1
            guard parenthesisDepth <= maxDepth else {
                throw CandidParser.locate(CandidError(.limitExceeded, "parentheses nested deeper than \(maxDepth)", offset: offset), in: source)
            }
            defer { parenthesisDepth -= 1 }
            let value = try parseAnnotatedValue()
            try expect(.rightParen, "to close the parenthesised value")
            return value
        case .identifier:
            _ = advance()
            switch token.text {
            case "true": return TextValue(kind: .bool(true), offset: offset)
            case "false": return TextValue(kind: .bool(false), offset: offset)
            case "null": return TextValue(kind: .null, offset: offset)
            case "nan", "NaN", "inf", "infinity":
                return TextValue(kind: .number(token.text.lowercased().hasPrefix("n") ? "nan" : "inf", isFloat: true, isHex: false), offset: offset)
            case "opt":
                try enter()
                defer { depth -= 1 }
                return TextValue(kind: .opt(try parseValue()), offset: offset)
            case "vec":
                try enter()
                defer { depth -= 1 }
                try expect(.leftBrace, "after 'vec'")
                var elements: [TextValue] = []
                while !isSymbol(.rightBrace) {
                    elements.append(try parseAnnotatedValue())
                    if !accept(.semicolon) { break }
                }
                try expect(.rightBrace, "to close the vector")
                return TextValue(kind: .vec(elements), offset: offset)
            case "record":
                try enter()
                defer { depth -= 1 }
                return TextValue(kind: .record(try parseRecordFields()), offset: offset)
            case "variant":
                try enter()
                defer { depth -= 1 }
                try expect(.leftBrace, "after 'variant'")
                guard !isSymbol(.rightBrace) else { throw error("a variant value needs exactly one case") }
                let label = try parseLabel()
                let value = accept(.equals) ? try parseAnnotatedValue() : TextValue(kind: .null, offset: current.offset)
                _ = accept(.semicolon)
                try expect(.rightBrace, "to close the variant (a variant value has exactly one case)")
                return TextValue(kind: .variant(label, value), offset: offset)
            case "blob":
                guard current.kind == .text else { throw error("expected a text literal after 'blob'") }
                return TextValue(kind: .blob(advance().bytes), offset: offset)
            case "principal":
                return TextValue(kind: .principal(try parsePrincipalLiteral()), offset: offset)
            case "service":
                return TextValue(kind: .service(try parsePrincipalLiteral()), offset: offset)
            case "func":
                let principal = try parsePrincipalLiteral()
                try expect(.dot, "between the function's principal and method name")
                let method = try parseName("a method name")
                return TextValue(kind: .function(principal, method), offset: offset)
            default:
                throw error("unexpected '\(token.text)' where a value was expected", at: offset)
            }
        default:
            throw error("expected a value, found \(describe(token))")
        }
    }

    private mutating func parsePrincipalLiteral() throws(CandidError) -> Principal {
        let token = current
        guard token.kind == .text else { throw error("expected a principal in quotes, found \(describe(token))") }
        _ = advance()
        do throws(CandidError) { return try Principal(text: try utf8Text(token)) } catch {
            throw self.error(error.message, at: token.offset)
        }
    }

    /// `{ label = value; value; … }`: positional fields take the previous id + 1 (starting at 0).
    private mutating func parseRecordFields() throws(CandidError) -> [(label: CandidLabel, value: TextValue)] {
        try expect(.leftBrace, "after 'record'")
        var fields: [(label: CandidLabel, value: TextValue)] = []
        var offsets: [Int] = []
        var nextId: UInt64 = 0
        while !isSymbol(.rightBrace) {
            try checkCount(fields.count, limits.maxFieldsPerType, "record fields")
            let token = current
            offsets.append(token.offset)
            if (isFieldNumber(token) || isName(token)) && isSymbol(.equals, peek(1)) {
                let label = try parseLabel()
                _ = advance()
                fields.append((label, try parseAnnotatedValue()))
                nextId = UInt64(label.id) + 1
            } else {
                guard nextId <= UInt64(UInt32.max) else { throw error("positional field id exceeds 32 bits") }
                fields.append((CandidLabel(id: UInt32(nextId)), try parseAnnotatedValue()))
                nextId += 1
            }
            if !accept(.semicolon) { break }
        }
        try expect(.rightBrace, "to close the record")
        try checkUniqueLabels(fields.map(\.label), offsets: offsets, what: "field", in: "record")
        return fields.sorted { $0.label.id < $1.label.id }
    }

    /// Refuses a label (or a label's hash) that occurs twice, at the second occurrence.
    /// Refuses the next member of a list already holding `count` (the binary decoder's limits, so text cannot
    /// build what no message may carry).
    private func checkCount(_ count: Int, _ limit: Int, _ what: String) throws(CandidError) {
        guard count < limit else {
            throw CandidParser.locate(CandidError(.limitExceeded, "more than \(limit) \(what)", offset: current.offset), in: source)
        }
    }

    private func checkUniqueLabels(_ labels: [CandidLabel], offsets: [Int], what: String, in container: String) throws(CandidError) {
        var seen: [UInt32: CandidLabel] = [:]
        seen.reserveCapacity(labels.count)
        for (label, offset) in zip(labels, offsets) {
            guard let first = seen.updateValue(label, forKey: label.id) else { continue }
            let names = [first, label].map(\.quotedDescription)
            let message = names[0] == names[1]
                ? "duplicate \(what) \(names[0]) in the \(container)"
                : "\(what)s \(names[0]) and \(names[1]) of the \(container) have the same hash \(label.id)"
            throw CandidParser.locate(CandidError(.duplicateLabel, message, offset: offset), in: source)
        }
    }

    // MARK: Types

    mutating func parseType() throws(CandidError) -> CandidType {
        // A type starts its own count: the annotation of a deeply nested value is not deeper for it.
        let valueDepth = depth
        depth = typeDepth
        try enter()
        typeDepth = depth
        defer { typeDepth -= 1; depth = valueDepth }
        let token = current
        guard token.kind == .identifier else { throw error("expected a type, found \(describe(token))") }
        _ = advance()
        if let primitive = CandidType.primitives[token.text] { return primitive }
        switch token.text {
        case "opt": return .opt(try parseType())
        case "vec": return .vec(try parseType())
        case "blob": return .blob
        case "record": return .record(try parseFieldTypes(isRecord: true))
        case "variant": return .variant(try parseFieldTypes(isRecord: false))
        case "func": return .function(try parseFunctionType())
        case "service": return .service(try parseActorType())
        default:
            guard !CandidParser.reservedWords.contains(token.text) else {
                throw error("unexpected '\(token.text)' where a type was expected", at: token.offset)
            }
            references.append(NamedReference(name: token.text, offset: token.offset))
            return .named(token.text)
        }
    }

    private mutating func parseFieldTypes(isRecord: Bool) throws(CandidError) -> [CandidField] {
        try expect(.leftBrace, isRecord ? "after 'record'" : "after 'variant'")
        var fields: [(label: CandidLabel, value: CandidType)] = []
        var offsets: [Int] = []
        var nextId: UInt64 = 0
        while !isSymbol(.rightBrace) {
            try checkCount(fields.count, limits.maxFieldsPerType, isRecord ? "record fields" : "variant cases")
            let token = current
            offsets.append(token.offset)
            if (isFieldNumber(token) || isName(token)) && isSymbol(.colon, peek(1)) {
                let label = try parseLabel()
                _ = advance()
                memberPath.append(label.id)
                fields.append((label, try parseType()))
                nextId = UInt64(label.id) + 1
            } else if !isRecord {
                let label = try parseLabel()
                memberPath.append(label.id)
                fields.append((label, .null))
            } else {
                guard nextId <= UInt64(UInt32.max) else { throw error("positional field id exceeds 32 bits") }
                memberPath.append(UInt32(nextId))
                fields.append((CandidLabel(id: UInt32(nextId)), try parseType()))
                nextId += 1
            }
            let more = accept(.semicolon)
            if let definition = documentedDefinition, signatureDepth == 0, let text = comment(startingAt: token) {
                documentation.members[definition, default: [:]][memberPath] = text
            }
            memberPath.removeLast()
            if !more { break }
        }
        try expect(.rightBrace, isRecord ? "to close the record type" : "to close the variant type")
        try checkUniqueLabels(fields.map(\.label), offsets: offsets, what: isRecord ? "field" : "case",
                              in: isRecord ? "record type" : "variant type")
        return fields.map { CandidField($0.label, $0.value) }
    }

    /// `( [name :] type, … )`.
    mutating func parseTupleType() throws(CandidError) -> [CandidArgument] {
        try expect(.leftParen, "to start the argument types")
        var arguments: [CandidArgument] = []
        var seenNames: Set<String> = []
        while !isSymbol(.rightParen) {
            try checkCount(arguments.count, limits.maxFieldsPerType, "function arguments")
            if isName(current) && isSymbol(.colon, peek(1)) {
                let offset = current.offset
                let name = try parseName("an argument name")
                guard seenNames.insert(name).inserted else {
                    throw CandidParser.locate(CandidError(.duplicateLabel, "duplicate argument name \(CandidLabel.quoted(name))", offset: offset),
                                              in: source)
                }
                _ = advance()
                arguments.append(CandidArgument(try parseType(), name: name))
            } else {
                arguments.append(CandidArgument(try parseType()))
            }
            if !accept(.comma) { break }
        }
        try expect(.rightParen, "to close the argument types")
        return arguments
    }

    mutating func parseFunctionType() throws(CandidError) -> CandidFunctionType {
        signatureDepth += 1
        defer { signatureDepth -= 1 }
        let arguments = try parseTupleType()
        try expect(.arrow, "between argument and result types")
        let results = try parseTupleType()
        var modes: [CandidFunctionType.Mode] = []
        while current.kind == .identifier, let mode = CandidFunctionType.Mode(rawValue: current.text) {
            _ = advance()
            modes.append(mode)
        }
        return CandidFunctionType(arguments: arguments, results: results, modes: modes)
    }

    mutating func parseActorType() throws(CandidError) -> CandidServiceType {
        try expect(.leftBrace, "to start the service's methods")
        // The methods of a service that is a definition's whole type (or the main service) are documented.
        let documentsMethods = signatureDepth == 0 && memberPath.isEmpty
        let owner = documentedDefinition
        signatureDepth += 1
        defer { signatureDepth -= 1 }
        var methods: [CandidServiceType.Method] = []
        var offsets: [String: Int] = [:]
        var methodDocumentation: [String: String] = [:]
        while !isSymbol(.rightBrace) {
            let first = current
            try checkCount(methods.count, limits.maxFieldsPerType, "service methods")
            let offset = current.offset
            let name = try parseName("a method name")
            guard offsets.updateValue(offset, forKey: name) == nil else {
                throw CandidParser.locate(CandidError(.duplicateLabel, "duplicate method \(CandidLabel.quoted(name)) in the service", offset: offset),
                                          in: source)
            }
            try expect(.colon, "after the method name")
            if isSymbol(.leftParen) {
                methods.append(.init(name, .function(try parseFunctionType())))
            } else {
                let reference = current
                guard reference.kind == .identifier, !CandidParser.reservedWords.contains(reference.text) else {
                    throw error("expected a function type or the name of one, found \(describe(reference))")
                }
                _ = advance()
                references.append(NamedReference(name: reference.text, offset: reference.offset))
                methods.append(.init(name, .named(reference.text)))
            }
            let more = accept(.semicolon)
            if documentsMethods, let text = comment(startingAt: first) { methodDocumentation[name] = text }
            if !more { break }
        }
        try expect(.rightBrace, "to close the service")
        if documentsMethods { serviceMethodDocumentation[owner] = methodDocumentation }
        lastMethodOffsets = offsets
        return CandidServiceType(methods)
    }

    // MARK: Programs

    /// `<def>;* <actor>?` of a `.did` file.
    mutating func parseProgram() throws(CandidError) -> (declarations: [CandidDeclaration], actor: CandidActorSyntax?) {
        let declarations = try parseDeclarations()
        var actor: CandidActorSyntax?
        if isKeyword("service") {
            let offset = current.offset
            let firstReference = references.count
            lastMethodOffsets = [:]
            _ = advance()
            if current.kind == .identifier && !isSymbol(.colon) { _ = advance() }
            try expect(.colon, "after 'service'")
            var initArguments: [CandidArgument]?
            if isSymbol(.leftParen) {
                initArguments = try parseTupleType()
                try expect(.arrow, "after the service's init arguments")
            }
            let type: CandidType
            if isSymbol(.leftBrace) {
                type = .service(try parseActorType())
            } else {
                let reference = current
                guard reference.kind == .identifier, !CandidParser.reservedWords.contains(reference.text) else {
                    throw error("expected a service type or the name of one, found \(describe(reference))")
                }
                _ = advance()
                references.append(NamedReference(name: reference.text, offset: reference.offset))
                type = .named(reference.text)
            }
            _ = accept(.semicolon)
            actor = CandidActorSyntax(initArguments: initArguments, type: type, offset: offset,
                                      references: Array(references[firstReference...]), methodOffsets: lastMethodOffsets)
        }
        try expectEnd()
        return (declarations, actor)
    }

    private mutating func parseDeclarations() throws(CandidError) -> [CandidDeclaration] {
        var declarations: [CandidDeclaration] = []
        while true {
            let offset = current.offset
            let first = current
            if isKeyword("type") {
                _ = advance()
                let name = current
                guard name.kind == .identifier, !CandidParser.reservedWords.contains(name.text),
                      CandidType.primitives[name.text] == nil else {
                    throw error("expected a type name, found \(describe(name))")
                }
                _ = advance()
                try expect(.equals, "after the type name")
                let firstReference = references.count
                documentedDefinition = name.text
                memberPath = []
                let type: CandidType
                do throws(CandidError) { type = try parseType() } catch {
                    documentedDefinition = nil
                    throw error
                }
                documentedDefinition = nil
                declarations.append(.type(name: name.text, type: type, offset: offset, references: Array(references[firstReference...])))
                let more = accept(.semicolon)
                if let text = comment(startingAt: first) { documentation.definitions[name.text] = text }
                if !more { return declarations }
                continue
            } else if isKeyword("import") {
                _ = advance()
                let isService = isKeyword("service")
                if isService { _ = advance() }
                let path = current
                guard path.kind == .text else { throw error("expected the imported file in quotes") }
                _ = advance()
                let text = try utf8Text(path)
                declarations.append(isService ? .importService(path: text, offset: offset) : .importTypes(path: text, offset: offset))
            } else {
                return declarations
            }
            if !accept(.semicolon) { return declarations }
        }
    }

    /// A `.test.did` file: definitions, then `assert …;` lines.
    mutating func parseTestFile() throws(CandidError) -> (declarations: [CandidDeclaration], assertions: [CandidTestAssertion]) {
        let declarations = try parseDeclarations()
        var assertions: [CandidTestAssertion] = []
        while isKeyword("assert") {
            let line = lineAndColumn(of: current.offset, in: source).line
            _ = advance()
            let input = try parseTestInput()
            let kind: CandidTestAssertion.Kind
            if accept(.colon) {
                kind = .accepts
            } else if accept(.notColon) {
                kind = .rejects
            } else if accept(.equalEqual) {
                kind = .equal(try parseTestInput())
                try expect(.colon, "before the assertion's types")
            } else if accept(.notEqual) {
                kind = .notEqual(try parseTestInput())
                try expect(.colon, "before the assertion's types")
            } else {
                throw error("expected ':', '!:', '==' or '!=' in the assertion")
            }
            let types = try parseTupleType().map(\.type)
            var description: String?
            if current.kind == .text { description = try utf8Text(advance()) }
            assertions.append(CandidTestAssertion(input: input, kind: kind, types: types, description: description, line: line))
            if !accept(.semicolon) { break }
        }
        try expectEnd()
        return (declarations, assertions)
    }

    private mutating func parseTestInput() throws(CandidError) -> CandidTestAssertion.Input {
        if isKeyword("blob") {
            _ = advance()
            guard current.kind == .text else { throw error("expected a text literal after 'blob'") }
            return .blob(advance().bytes)
        }
        guard current.kind == .text else { throw error("expected a text or blob input") }
        return .text(try utf8Text(advance()))
    }
}
