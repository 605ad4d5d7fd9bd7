extension Candid {
    /// Parses Candid argument text `(v1, v2, …)`.
    ///
    /// With `types`, each value is typed as `didc` does (numbers take the expected type, missing trailing
    /// arguments of null, option or reserved type become null, extra values are ignored). Without, integers
    /// become `int` and other numbers `float64` unless annotated (`(42 : nat)`).
    public static func parseArguments(_ text: String, types: [CandidType]? = nil,
                                      environment: CandidTypeEnvironment = CandidTypeEnvironment(),
                                      limits: CandidLimits = .default) throws(CandidError) -> [CandidValue] {
        try parseArguments(utf8: Array(text.utf8), types: types, environment: environment, limits: limits)
    }

    /// Parses Candid argument text given as bytes (from a file or stdin), like `parseArguments(_:…)`. The bytes must
    /// be UTF-8: an invalid sequence is an error at its line and column, never replaced.
    public static func parseArguments(utf8 source: [UInt8], types: [CandidType]? = nil,
                                      environment: CandidTypeEnvironment = CandidTypeEnvironment(),
                                      limits: CandidLimits = .default) throws(CandidError) -> [CandidValue] {
        var parser = try CandidParser(source, limits: limits)
        let parsed = try parser.parseArguments()
        try parser.expectEnd()
        guard let types else {
            var typer = ValueTyper(graph: TypeGraph(nodes: []), environment: environment, source: source, limits: limits)
            var values: [CandidValue] = []
            for (index, value) in parsed.enumerated() {
                do throws(CandidError) { values.append(try typer.infer(value)) } catch { throw error.inside(.argument(index)) }
            }
            return values
        }
        let (graph, references) = try TypeCompiler.compile(types, in: environment, maxDepth: limits.maxDepth)
        var typer = ValueTyper(graph: graph, environment: environment, source: source, limits: limits)
        var values: [CandidValue] = []
        for (index, reference) in references.enumerated() {
            do throws(CandidError) {
                if index < parsed.count {
                    values.append(try typer.annotate(parsed[index], reference))
                } else if reference == Opcode.null {
                    values.append(.null)
                } else if reference == Opcode.reserved {
                    values.append(.reserved)
                } else if reference >= 0, case .opt = graph.nodes[reference] {
                    values.append(.opt(nil))
                } else {
                    throw CandidError(.typeMismatch, "missing argument of type \(describe(reference, in: graph))")
                }
            } catch {
                throw error.inside(.argument(index))
            }
        }
        return values
    }

    /// Parses one Candid text value, typed like `parseArguments` does.
    public static func parseValue(_ text: String, type: CandidType? = nil,
                                  environment: CandidTypeEnvironment = CandidTypeEnvironment(),
                                  limits: CandidLimits = .default) throws(CandidError) -> CandidValue {
        try parseValue(utf8: Array(text.utf8), type: type, environment: environment, limits: limits)
    }

    /// Parses one Candid text value given as (strict UTF-8) bytes.
    public static func parseValue(utf8 source: [UInt8], type: CandidType? = nil,
                                  environment: CandidTypeEnvironment = CandidTypeEnvironment(),
                                  limits: CandidLimits = .default) throws(CandidError) -> CandidValue {
        var parser = try CandidParser(source, limits: limits)
        let parsed = try parser.parseAnnotatedValue()
        try parser.expectEnd()
        guard let type else {
            var typer = ValueTyper(graph: TypeGraph(nodes: []), environment: environment, source: source, limits: limits)
            return try typer.infer(parsed)
        }
        let (graph, references) = try TypeCompiler.compile([type], in: environment, maxDepth: limits.maxDepth)
        var typer = ValueTyper(graph: graph, environment: environment, source: source, limits: limits)
        return try typer.annotate(parsed, references[0])
    }

    /// Parses a type (`record { owner : principal; amount : nat }`); names stay `.named` references.
    public static func parseType(_ text: String, limits: CandidLimits = .default) throws(CandidError) -> CandidType {
        try parseType(utf8: Array(text.utf8), limits: limits)
    }

    /// Parses a type given as (strict UTF-8) bytes.
    public static func parseType(utf8 source: [UInt8], limits: CandidLimits = .default) throws(CandidError) -> CandidType {
        var parser = try CandidParser(source, limits: limits)
        let type = try parser.parseType()
        try parser.expectEnd()
        return type
    }

    /// Parses an argument type list `(nat, to : principal)`.
    public static func parseArgumentTypes(_ text: String, limits: CandidLimits = .default) throws(CandidError) -> [CandidArgument] {
        try parseArgumentTypes(utf8: Array(text.utf8), limits: limits)
    }

    /// Parses an argument type list given as (strict UTF-8) bytes.
    public static func parseArgumentTypes(utf8 source: [UInt8], limits: CandidLimits = .default) throws(CandidError) -> [CandidArgument] {
        var parser = try CandidParser(source, limits: limits)
        let arguments = try parser.parseTupleType()
        try parser.expectEnd()
        return arguments
    }

    /// Coerces a typed value to `type` with the text-annotation rules (e.g. to reuse a value at a supertype).
    public static func coerce(_ value: CandidValue, to type: CandidType,
                              environment: CandidTypeEnvironment = CandidTypeEnvironment(),
                              limits: CandidLimits = .default) throws(CandidError) -> CandidValue {
        let (graph, references) = try TypeCompiler.compile([type], in: environment, maxDepth: limits.maxDepth)
        var typer = ValueTyper(graph: graph, environment: environment, source: [], limits: limits)
        return try typer.coerce(value, references[0], at: nil)
    }
}
