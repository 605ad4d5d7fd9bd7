/// A `.test.did` conformance file of the official Candid test suite: type definitions, then assertions
/// (`assert <input> : (types)`, `!:`, `==`, `!=`), as described in the suite's README.
public struct CandidTestFile: Sendable {
    public let environment: CandidTypeEnvironment
    public let assertions: [CandidTestAssertion]

    public static func parse(_ text: String, limits: CandidLimits = .default) throws(CandidError) -> CandidTestFile {
        try parse(utf8: Array(text.utf8), limits: limits)
    }

    /// Parses a test file's bytes (strict UTF-8, like every Candid text input).
    public static func parse(utf8 bytes: [UInt8], limits: CandidLimits = .default) throws(CandidError) -> CandidTestFile {
        var parser = try CandidParser(bytes, limits: limits)
        let (declarations, assertions) = try parser.parseTestFile()
        var environment = CandidTypeEnvironment()
        for declaration in declarations {
            guard case .type(let name, let type, _, _) = declaration else {
                throw CandidError(.invalidType, "imports are not supported in test files")
            }
            try environment.define(name, type)
        }
        var compiler = TypeCompiler(environment: environment, maxDepth: limits.maxDepth)
        for name in environment.names { _ = try compiler.compile(.named(name)) }
        _ = try compiler.finish()
        return CandidTestFile(environment: environment, assertions: assertions)
    }
}

/// One assertion of a `.test.did` file.
public struct CandidTestAssertion: Sendable {
    public enum Input: Sendable, Equatable {
        /// Candid text of an argument list, e.g. `(42, "x")`.
        case text(String)
        /// A binary message.
        case blob([UInt8])
    }

    public enum Kind: Sendable, Equatable {
        /// `assert input : types` — decodes/parses at the types.
        case accepts
        /// `assert input !: types` — must be rejected at the types.
        case rejects
        /// `assert a == b : types` — both decode and are equal.
        case equal(Input)
        /// `assert a != b : types` — both decode and differ.
        case notEqual(Input)
    }

    public let input: Input
    public let kind: Kind
    public let types: [CandidType]
    public let description: String?
    /// 1-based source line of the `assert`.
    public let line: Int
}
