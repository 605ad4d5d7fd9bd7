import OmniCodec
import OmniIrd

extension Benchmark {
    /// `^(a+)+$` searched for in 22 `a`s and a `!`: 2^22 paths for a backtracking engine (Python's `re`, which
    /// openapi-core uses; Swift's `Regex`), about 50 states a character for the automaton.
    static let schemaPatternCatastrophic = Benchmark(name: "schema-pattern-catastrophic", defaultIterations: 2000) {
        let pattern = try SchemaPattern("^(a+)+$")
        let text = String(repeating: "a", count: 22) + "!"
        return {
            var budget = SchemaValidator.defaultPatternBudget
            _ = pattern.search(text, budget: &budget)
        }
    }

    /// One search to the end of a validation's pattern budget: `a{50}b` over a million `a`s, about 50 states a
    /// character, stops after 20 M steps. The most one validation spends on patterns.
    static let schemaPatternBudget = Benchmark(name: "schema-pattern-budget", defaultIterations: 5) {
        let pattern = try SchemaPattern("a{50}b")
        let text = String(repeating: "a", count: 1 << 20)
        var budget = SchemaValidator.defaultPatternBudget
        guard pattern.search(text, budget: &budget) == nil else { throw BenchmarkError("the search ended within its budget") }
        return {
            var budget = SchemaValidator.defaultPatternBudget
            _ = pattern.search(text, budget: &budget)
        }
    }

    /// One validation to the end of its 1 M-check budget: 400 000 numbers, each tried against the two alternatives
    /// of an anyOf (three checks and two trial runs each). The most one validation spends on schemas.
    static let schemaValidationBudget = Benchmark(name: "schema-validation-budget", defaultIterations: 5) {
        let text = """
            {"openapi": "3.1.0", "info": {"title": "t", "version": "1"}, "paths": {},
             "components": {"schemas": {"Numbers": {"type": "array", "items": {"anyOf": [{"type": "string"}, {"type": "integer", "minimum": 0}]}}}}}
            """
        let document = try OpenAPIReader.read(Array(text.utf8))
        guard let schema = document.componentSchemas.first(where: { $0.name == "Numbers" })?.schema else { throw BenchmarkError("no schema") }
        let value = JSONValue.array((0..<400_000).map { .int($0) })
        let validator = SchemaValidator(document: document, direction: .response)
        guard validator.validate(value, against: schema).errors.last?.message.contains("checks (the work budget)") == true else {
            throw BenchmarkError("the validation ended within its budget")
        }
        return { _ = validator.validate(value, against: schema) }
    }
}

struct BenchmarkError: Error, CustomStringConvertible {
    let description: String
    init(_ description: String) { self.description = description }
}
