import OmniCodec
import OmniIrd
import OmniSystem

/// The ird tree: its OpenAPI document reader, and what omni builds from a document it read (the command index, the
/// spec diff, schema validation), since a fetched document is untrusted input to all of them.
let irdHarnesses: [Harness] = [openapi, schemaPattern]

/// Tight limits a fuzzer can reach within `-max_len`: an input accepted under them must keep to them, and must be
/// accepted under the default limits too (limits only ever refuse more).
private let tightLimits = OpenAPILimits(maxBytes: 1 << 20, maxDepth: 24, maxSchemas: 64, maxReferenceResolutions: 128, maxOperations: 8)

private let openapi = Harness(
    "openapi",
    "OpenAPIReader.read at the default and at tight limits: a refusal is invalid_document with a JSON path or a line; an accepted document keeps to the limits, has every schema reference in its table, reads the same twice, diffs empty against itself, and indexes and validates its defaults within the work budget",
    seeds: { sources in openapiPeerDocuments() + openapiHostileSeeds() + sources.vectorFiles("ird", suffix: ".json").map { Seed("vector-" + $0.name, $0.bytes) } },
    parse: { bytes in (try? OpenAPIReader.read(bytes)) != nil }
) { bytes in
    let tight = readOrCheckRefusal(bytes, tightLimits)
    guard let document = readOrCheckRefusal(bytes, .default) else {
        FuzzCheck.require(tight == nil, "a document accepted at tight limits is refused at the default limits")
        return
    }
    checkConsistency(document, OpenAPILimits.default)
    if let tight {
        checkConsistency(tight, tightLimits)
        FuzzCheck.require(tight.operations.count == document.operations.count && tight.schemas.count == document.schemas.count,
                          "the limits changed what an accepted document reads as")
    }
    guard let again = try? OpenAPIReader.read(bytes) else { FuzzCheck.fail("an accepted document is refused when read again") }
    FuzzCheck.require(again.operations.map(\.display) == document.operations.map(\.display) && again.schemas.count == document.schemas.count,
                      "reading a document twice gives different results")
    let diff = IrdSpecDiff(from: document, to: again)
    FuzzCheck.require(diff.isEmpty, "a document differs from itself: \(diff.addedOperations.prefix(3)) \(diff.addedFields.prefix(3))")
    let index = IrdOperationIndex(document: document)
    FuzzCheck.require(index.areas.reduce(0) { $0 + $1.entries.count } == document.operations.count, "the command index lost or added operations")
    for area in index.areas {
        FuzzCheck.require(Set(area.entries.map(\.name)).count == area.entries.count, "two commands of area \(area.name) have the same name")
    }
    // Defaults against their own schemas: validation must end within its budget, whatever the schemas' shapes.
    // Each schema once (a schema that 20 references point to was validated 20 times, 420 000 checks: over the
    // 1 s timeout under ASan), and at most 16 of them, so one input costs at most 160 000 checks and 320 000 pattern
    // steps.
    let validator = SchemaValidator(document: document, direction: .response, budget: 10_000, patternBudget: 20_000)
    let refs = document.componentSchemas.map(\.schema) + document.schemas.flatMap { $0.properties.map(\.schema) + ($0.items.map { [$0] } ?? []) }
    var validated = Set<Int>()
    for ref in refs where validated.count < 16 {
        guard let value = document[ref].defaultValue, validated.insert(ref.index).inserted else { continue }
        _ = validator.validate(value, against: ref)
    }
}

/// Reads at `limits`; a refusal must say what kind it is and where.
private func readOrCheckRefusal(_ bytes: [UInt8], _ limits: OpenAPILimits) -> OpenAPIDocument? {
    do throws(IrdError) {
        return try OpenAPIReader.read(bytes, limits: limits)
    } catch {
        FuzzCheck.require(error.kind == .invalidDocument, "a refused document is \(error.kind), not invalid_document: \(error)")
        FuzzCheck.require(error.location != nil || error.line != nil || error.message.contains("exceeds the limit"),
                          "a refusal says neither where nor which limit: \(error)")
        return nil
    }
}

/// Every reference of the document points into its schema table, and the table keeps to the limits.
private func checkConsistency(_ document: OpenAPIDocument, _ limits: OpenAPILimits) {
    let count = document.schemas.count
    FuzzCheck.require(count <= limits.maxSchemas, "\(count) schemas exceed the limit of \(limits.maxSchemas)")
    FuzzCheck.require(document.operations.count <= limits.maxOperations, "\(document.operations.count) operations exceed the limit of \(limits.maxOperations)")
    func inTable(_ ref: SchemaRef?, _ what: @autoclosure () -> String) {
        guard let ref else { return }
        FuzzCheck.require(ref.index >= 0 && ref.index < count, "\(what()) points outside the schema table (\(ref.index) of \(count))")
    }
    for schema in document.schemas {
        let where_ = schema.path.description
        for property in schema.properties { inTable(property.schema, "property \(property.name) of \(where_)") }
        for branch in schema.allOf + schema.anyOf + schema.oneOf { inTable(branch, "a branch of \(where_)") }
        inTable(schema.items, "items of \(where_)")
        inTable(schema.not, "not of \(where_)")
        if case .schema(let additional) = schema.additionalProperties { inTable(additional, "additionalProperties of \(where_)") }
        for target in schema.discriminatorMapping.values { inTable(target, "a discriminator mapping of \(where_)") }
    }
    for (name, ref) in document.componentSchemas { inTable(ref, "component \(name)") }
    for operation in document.operations {
        for parameter in operation.parameters { inTable(parameter.schema, "parameter \(parameter.name) of \(operation.display)") }
        for media in operation.requestBody?.content ?? [] { inTable(media.schema, "the \(media.type) body of \(operation.display)") }
        for response in operation.responses {
            for media in response.content { inTable(media.schema, "the \(response.status) \(media.type) answer of \(operation.display)") }
            for header in response.headers { inTable(header.schema, "header \(header.name) of \(operation.display)") }
        }
    }
}

/// The test ird documents of Tests/Peers/ird (read from the repository at seeding time; `make fuzz` and the test
/// suite run from its root).
private func openapiPeerDocuments() -> [Seed] {
    let directory = "Tests/Peers/ird"
    guard let paths = Directory.files(in: directory) else { return [] }
    return paths.filter { $0.hasPrefix(directory + "/openapi") && $0.hasSuffix(".json") }.compactMap { path in
        guard case .success(let bytes) = LocalFile.read(path, limit: 8 << 20) else { return nil }
        return Seed("peer-" + String(path.dropFirst(directory.count + 1)), bytes)
    }
}

/// A document around `paths` and `components` members (JSON text).
private func document(paths: String = "{}", components: String = "{}", extra: String = "") -> String {
    ##"{"openapi":"3.1.0","info":{"title":"t","version":"1"},"paths":\##(paths),"components":\##(components)\##(extra)}"##
}

private func repeated(_ piece: String, _ count: Int) -> String { String(repeating: piece, count: max(0, count)) }

/// Shapes that have hurt OpenAPI readers: reference cycles, applicator cycles, deep and wide schemas, shared
/// subtrees reached many ways, links and security naming nothing, and everything at and over the limits.
func openapiHostileSeeds() -> [Seed] {
    let operation = ##"{"get":{"operationId":"op","responses":{"200":{"description":"ok","content":{"application/json":{"schema":{"$ref":"#/components/schemas/A"}}}}}}}"##
    // A chain of shared inline schemas, each with two properties naming the next: 2^n paths through n schemas.
    let shared = (0..<24).map { ##""s\##($0)":{"type":"object","properties":{"a":{"$ref":"#/x/s\##($0 + 1)"},"b":{"$ref":"#/x/s\##($0 + 1)"}}}"## }.joined(separator: ",")
    return [
        Seed("minimal", text: document()),
        Seed("operation", text: document(paths: ##"{"/a/{id}":{"parameters":[{"name":"id","in":"path","required":true,"schema":{"type":"string"}}],"##
            + ##""post":{"operationId":"make","tags":["things"],"requestBody":{"content":{"application/json":{"schema":{"$ref":"#/components/schemas/A"}}}},"##
            + ##""responses":{"202":{"description":"queued","links":{"poll":{"operationId":"make","parameters":{"id":"$response.body#/id"}}}}}}}}"##,
            components: ##"{"schemas":{"A":{"type":"object","required":["id"],"properties":{"id":{"type":"string","default":"x","enum":["x","y"]},"n":{"type":["integer","null"],"minimum":0,"exclusiveMaximum":10}}}}}"##)),
        Seed("ref-cycle", text: document(paths: "{\"/a\":" + operation + "}", components: ##"{"schemas":{"A":{"$ref":"#/components/schemas/B"},"B":{"$ref":"#/components/schemas/A"}}}"##)),
        Seed("ref-self", text: document(components: ##"{"schemas":{"A":{"$ref":"#/components/schemas/A"}}}"##)),
        Seed("allof-cycle", text: document(components: ##"{"schemas":{"A":{"allOf":[{"$ref":"#/components/schemas/B"}]},"B":{"oneOf":[{"not":{"$ref":"#/components/schemas/A"}}]}}}"##)),
        Seed("recursive-properties", text: document(paths: "{\"/a\":" + operation + "}", components: ##"{"schemas":{"A":{"type":"object","properties":{"child":{"$ref":"#/components/schemas/A"},"list":{"type":"array","items":{"$ref":"#/components/schemas/A"}}},"default":{"child":{"child":{}}}}}}"##)),
        Seed("parameter-ref-cycle", text: document(paths: ##"{"/a":{"get":{"parameters":[{"$ref":"#/components/parameters/P"}],"responses":{}}}}"##, components: ##"{"parameters":{"P":{"$ref":"#/components/parameters/Q"},"Q":{"$ref":"#/components/parameters/P"}}}"##)),
        Seed("path-item-ref", text: document(paths: ##"{"/a":{"$ref":"#/paths/~1b"},"/b":{"$ref":"#/paths/~1a"}}"##)),
        Seed("shared-subtrees-24", text: document(paths: "{\"/a\":" + operation + "}", components: ##"{"schemas":{"A":{"$ref":"#/x/s0"}}}"##, extra: ",\"x\":{" + shared + ##","s24":{"type":"string"}}"##)),
        Seed("depth-over", text: document(components: ##"{"schemas":{"A":"## + repeated(##"{"properties":{"p":"##, 70) + "{}" + repeated("}}", 70) + "}}")),
        Seed("wide-oneof", text: document(components: ##"{"schemas":{"A":{"default":[[[[[[1]]]]]],"oneOf":["## + repeated(##"{"items":{"oneOf":[{"items":{"$ref":"#/components/schemas/A"}},true]}},"##, 40) + "true]}}}")),
        Seed("operations-over", text: document(paths: "{" + (0..<12).map { ##""/p\##($0)":{"get":{"responses":{}},"put":{"responses":{}}}"## }.joined(separator: ",") + "}")),
        Seed("duplicate-operation-id", text: document(paths: ##"{"/a":{"get":{"operationId":"x","responses":{}},"put":{"operationId":"x","responses":{}}}}"##)),
        Seed("dangling-link", text: document(paths: ##"{"/a":{"get":{"responses":{"200":{"links":{"l":{"operationId":"nobody"}}}}}}}"##)),
        Seed("undefined-security", text: document(extra: ##","security":[{"nobody":[]}]"##)),
        Seed("discriminator", text: document(components: ##"{"schemas":{"A":{"oneOf":[{"$ref":"#/components/schemas/B"}],"discriminator":{"propertyName":"kind","mapping":{"b":"B","c":"#/nowhere"}}},"B":{"type":"object"}}}"##)),
        Seed("template-unbalanced", text: document(paths: ##"{"/a/{id":{"get":{"responses":{}}}}"##)),
        Seed("external-ref", text: document(components: ##"{"schemas":{"A":{"$ref":"other.json#/A"}}}"##)),
        Seed("pointer-escapes", text: document(components: ##"{"schemas":{"a/b~c":{"type":"string"},"A":{"$ref":"#/components/schemas/a~1b~0c"},"B":{"$ref":"#/components/schemas/a%2Fb"}}}"##)),
        Seed("swagger-2", text: ##"{"swagger":"2.0","info":{"title":"t","version":"1"},"paths":{}}"##),
        Seed("not-json", text: ##"{"openapi":"3.0.0","info":{"title":"t","##),
    ]
}

/// Budget for one search: under ASan a step costs some 50 ns, and an input makes up to seven searches.
private let patternSearchBudget = 20_000

/// Tight limits a fuzzer reaches with short inputs, and automata small enough to build seven times an input.
private let patternLimits: SchemaPattern.Limits = {
    var limits = SchemaPattern.Limits()
    limits.maxSourceLength = 1024
    limits.maxProgramSize = 2000
    limits.maxNesting = 16
    return limits
}()

private let schemaPattern = Harness(
    "schema-pattern",
    "SchemaPattern (a schema's ECMA-262 `pattern`, matched by an automaton; limits: 1024 characters, 2000 states, 16 groups deep) on `[pattern] 0x00 [text]`: a refusal says where; a search stays within (text length + 1) × 2 × the automaton's size steps; (?:P), P|[], []|P and (?:P){1} find what P finds; a smaller budget, in a reused search space, gives the same answer or none",
    seeds: { _ in
        [
            Seed("domain", text: "^[a-z0-9.-]+\\.[a-z]{2,}$\u{0}mx.example.ro"), Seed("money", text: "^-?[0-9]+(\\.[0-9]+)?$\u{0}-509.72"),
            Seed("code", text: "^[A-Z0-9-]{4,12}$\u{0}AB-12"), Seed("catastrophic", text: "^(a+)+$\u{0}aaaaaaaaaaaaaaaaaaaaaaaaaaaaaa!"),
            Seed("nested", text: "^((a*)*b|(a|aa)*c)$\u{0}aaaaaaaaaaaaaaaac"),
            Seed("unicode", text: "^\\p{Lu}[\\p{Ll}\\u{1F600}\\uD83D\\uDE00]*\\b\\S?$\u{0}Émile😀"),
            Seed("classes", text: "[^\\d\\s\\w-][\\b\\-a-c]{0,3}?.|(?:x|y)+?(?<n>z)\\B\u{0}_ a-b\\n"),
            Seed("unsupported", text: "(a)\\1(?=b)\u{0}aab"),
        ]
    },
    parse: { bytes in
        // As the validator searches: with a whole validation's budget.
        let (pattern, text) = splitPatternInput(bytes)
        guard let compiled = try? SchemaPattern(pattern) else { return false }
        var budget = SchemaValidator.defaultPatternBudget
        return compiled.search(text, budget: &budget) != nil
    }
) { bytes in
    let (pattern, text) = splitPatternInput(bytes)
    let compiled: SchemaPattern
    do throws(SchemaPattern.Refusal) {
        compiled = try SchemaPattern(pattern, limits: patternLimits)
    } catch {
        FuzzCheck.require(!error.message.isEmpty && error.offset >= 0 && error.offset <= pattern.unicodeScalars.count,
                          "a refusal without a message or outside the pattern: \(error)")
        return
    }
    var budget = patternSearchBudget
    let found = compiled.search(text, budget: &budget)
    if found != nil {
        let bound = (text.unicodeScalars.count + 1) * 2 * compiled.automatonSize
        FuzzCheck.require(patternSearchBudget - budget <= bound, "a search took \(patternSearchBudget - budget) steps, over \(bound)")
    }
    // Again in one reused search space (as the validator searches), after a search of another text in it.
    var space = compiled.makeSearchSpace()
    var other = patternSearchBudget / 8
    _ = compiled.search(String(text.reversed()), budget: &other, in: &space)
    var smaller = patternSearchBudget / 8
    let again = compiled.search(text, budget: &smaller, in: &space)
    FuzzCheck.require(again == nil || again == found, "a smaller budget, or a reused search space, changed the answer")
    guard let found else { return }
    for equivalent in ["(?:\(pattern))", "\(pattern)|[]", "[]|\(pattern)", "(?:\(pattern)){1}"] {
        guard let other = try? SchemaPattern(equivalent, limits: patternLimits) else { continue }  // the wrapping can pass a limit
        var budget = patternSearchBudget * 2
        let answer = other.search(text, budget: &budget)
        FuzzCheck.require(answer == nil || answer == found, "\(equivalent) finds \(String(describing: answer)) where the pattern finds \(found)")
    }
}

/// The pattern is everything before the first NUL byte, the text everything after (a dictionary-friendly split).
private func splitPatternInput(_ bytes: [UInt8]) -> (pattern: String, text: String) {
    guard let separator = bytes.firstIndex(of: 0) else { return (String(decoding: bytes, as: UTF8.self), "") }
    return (String(decoding: bytes[..<separator], as: UTF8.self), String(decoding: bytes[(separator + 1)...], as: UTF8.self))
}
