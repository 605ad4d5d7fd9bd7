import Testing
import OmniCodec
@testable import OmniIrd

@Suite struct SchemaValidatorTests {
    let document: OpenAPIDocument

    init() throws { document = try TestDocuments.document() }

    func schema(_ name: String) throws -> SchemaRef {
        try #require(document.componentSchemas.first { $0.name == name }?.schema)
    }

    func check(_ json: String, _ name: String, _ direction: SchemaValidator.Direction = .request) throws -> ValidationResult {
        SchemaValidator(document: document, direction: direction).validate(try JSONValue.parse(json), against: try schema(name))
    }

    @Test func requiredFieldsTypesAndBoundsNameTheFieldPath() throws {
        #expect(try check(#"{"domain": "a.ro", "years": 2}"#, "RegisterRequest").isValid)
        let missing = try check(#"{"domain": "a.ro"}"#, "RegisterRequest")
        #expect(missing.errors.map(\.description) == ["$.years: is required"])
        let type = try check(#"{"domain": "a.ro", "years": "2"}"#, "RegisterRequest")
        #expect(type.errors.first?.description == #"$.years: expected an integer, got the string "2""#)
        #expect(try check(#"{"domain": "a.ro", "years": 11}"#, "RegisterRequest").errors.first?.message.contains("maximum") == true)
        #expect(try check(#"{"domain": "a.ro", "years": 2.0}"#, "RegisterRequest").isValid, "2.0 is an integer")
        #expect(try check(#"{"domain": "a.ro", "years": 2.5}"#, "RegisterRequest").errors.count == 1)
        let extra = try check(#"{"domain": "a.ro", "years": 1, "color": "red"}"#, "RegisterRequest")
        #expect(extra.errors.first?.description.hasPrefix("$.color: is not a field") == true)
        #expect(try check(#"{"domain": "NOT A NAME", "years": 1}"#, "RegisterRequest").errors.first?.message.contains("pattern") == true)
    }

    @Test func oneOfPicksTheDiscriminatedShape() throws {
        #expect(try check(#"{"type": "MX", "name": "@", "value": "mx.ro", "priority": 10}"#, "DnsRecordInput").isValid)
        let noPriority = try check(#"{"type": "MX", "name": "@", "value": "mx.ro"}"#, "DnsRecordInput")
        #expect(noPriority.errors.map(\.description) == ["$.priority: is required"])
        #expect(try check(#"{"type": "A", "name": "www", "value": "192.0.2.1", "ttl": 30}"#, "DnsRecordInput").errors.first?.path == "$.ttl")
        let unknown = try check(#"{"type": "SRV", "name": "x", "value": "y"}"#, "DnsRecordInput")
        #expect(unknown.errors.first?.message.contains("none of the 3 oneOf alternatives") == true, "\(unknown.errors)")
        let long = String(repeating: "x", count: 256)
        #expect(try check(#"{"type": "TXT", "name": "@", "value": "\#(long)"}"#, "DnsRecordInput").errors.first?.message.contains("at most 255") == true)
    }

    @Test func enumsAreClosedForRequestsAndOpenInAnswers() throws {
        let request = try check(#"{"kind": "quantum", "input": {}}"#, "CreateJob")
        #expect(request.errors.first?.description.hasPrefix("$.kind: \"quantum\" is not one of") == true)
        let answer = try check(#"{"domain": "x.ro", "status": "pending-delete"}"#, "DomainCheck", .response)
        #expect(answer.isValid)
        #expect(answer.drift.map(\.path) == ["$.status"])
        #expect(try check(#"{"domain": "x.ro", "status": 3}"#, "DomainCheck", .response).errors.count == 1, "open, but still a string")
    }

    @Test func unknownAnswerFieldsAreDriftNotErrors() throws {
        let result = try check(#"{"instances": [{"name": "a", "state": "running", "ipv6": "::1", "extra": {"deep": 1}}]}"#, "InstanceList", .response)
        #expect(result.isValid)
        #expect(result.drift.map(\.path) == ["$.instances[0].ipv6", "$.instances[0].extra"])
        // Free-form objects (additionalProperties: true) have no drift; allOf merges the known fields.
        #expect(try check(#"{"id": "j", "result": {"anything": 1}}"#, "JobResult", .response).drift.isEmpty)
        #expect(try check(#"{"id": "k", "name": "n", "prefix": "p", "created_at": "t", "key": "ird_x"}"#, "CreatedApiKey", .response).drift.isEmpty)
        #expect(try check(#"{"id": "k", "name": "n", "prefix": "p", "created_at": "t"}"#, "CreatedApiKey", .response).errors.map(\.path) == ["$.key"])
    }

    @Test func readOnlyAndWriteOnlyFollowTheDirection() throws {
        let write = try check(#"{"type": "A", "name": "a", "value": "v", "id": "r1"}"#, "DnsRecord")
        #expect(write.errors.map(\.description) == ["$.id: is read-only: the service sets it"])
        #expect(try check(#"{"type": "A", "name": "a", "value": "v", "id": "r1"}"#, "DnsRecord", .response).isValid)
        #expect(try check(#"{"id": "t", "domain": "d", "state": "pending"}"#, "Transfer", .response).isValid)
        #expect(try check(#"{"domain": "d"}"#, "StartTransfer", .response).isValid, "a write-only field is never in an answer")
    }

    @Test func nullAndMoneyStrings() throws {
        #expect(try check(#"{"domains": [], "next_cursor": null}"#, "DomainPage", .response).isValid)
        #expect(try check(#"{"total": null, "currency": "RON"}"#, "Balance", .response).errors.first?.message.contains("must not be null") == true)
        #expect(try check(#"{"total": "509.72", "currency": "RON"}"#, "Balance", .response).isValid)
        let float = try check(#"{"total": 509.72, "currency": "RON"}"#, "Balance", .response)
        #expect(float.errors.first?.description == "$.total: expected a string, got the number 509.72", "money is never a number")
        #expect(try check(#"{"total": "5e2", "currency": "RON"}"#, "Balance", .response).errors.first?.message.contains("pattern") == true)
    }

    @Test func theWorkBudgetEndsHostileValidation() throws {
        let items = Array(repeating: #"{"type": "MX", "name": "@", "value": "v", "priority": 1, "id": "r"}"#, count: 200).joined(separator: ",")
        let validator = SchemaValidator(document: document, direction: .response, budget: 100)
        let result = validator.validate(try JSONValue.parse(#"{"records": [\#(items)]}"#), against: try schema("DnsRecordList"))
        #expect(result.errors.last?.message.contains("work budget") == true)
    }

    /// A document's pattern is matched by an automaton, not by backtracking: `^(a+)+$` on 5,000 characters took
    /// Swift's Regex (used before) hours; what it cannot match is said, not guessed; its steps have a budget.
    @Test func documentPatternsCannotHangValidation() throws {
        let schemas = #"{"Hostile": {"type": "string", "pattern": "^(a+)+$"}, "Backref": {"type": "string", "pattern": "^(a)\\1$"},"#
            + #" "Wide": {"type": "array", "items": {"type": "string", "pattern": "a{50}b"}}}"#
        let document = try OpenAPIReader.read(TestDocuments.minimal(schemas: schemas))
        func named(_ name: String) throws -> SchemaRef { try #require(document.componentSchemas.first { $0.name == name }?.schema) }
        let validator = SchemaValidator(document: document, direction: .response)
        let hostile = validator.validate(.string(String(repeating: "a", count: 5000) + "!"), against: try named("Hostile"))
        #expect(hostile.errors.count == 1 && hostile.errors[0].message.contains("does not match the pattern ^(a+)+$"))
        #expect(validator.validate(.string(String(repeating: "a", count: 5000)), against: try named("Hostile")).isValid)

        let unchecked = validator.validate(.string("ab"), against: try named("Backref"))
        #expect(unchecked.isValid)
        #expect(unchecked.drift.map(\.message) == [#"the document's pattern ^(a)\1$ was not checked: back-references are not supported (at character 5)"#])

        let items = JSONValue.array(Array(repeating: .string(String(repeating: "a", count: 1000)), count: 40))
        let tight = SchemaValidator(document: document, direction: .response, patternBudget: 500_000)
        let exhausted = tight.validate(items, against: try named("Wide"))
        #expect(exhausted.errors.count < 40)
        #expect(exhausted.errors.last?.message == "matching the document's patterns needed more than 500000 steps (the work budget)")
        #expect(validator.validate(items, against: try named("Wide")).errors.count == 40, "within the default budget every item is checked")
    }

    /// Work a wide answer or a wide schema makes is charged: every member and field looked at, and the walk through
    /// allOf/anyOf/oneOf that finds an object's known fields (done once a validation, not once a member). Before,
    /// each object cost one check whatever its width, and the walk was repeated for every unknown member.
    @Test func wideObjectsAndSchemaGraphsAreCharged() throws {
        let wideProperties = (0..<600).map { #""p\#($0)": {"type": "integer"}"# }.joined(separator: ", ")
        let chain = (0..<60).map { index in
            #""S\#(index)": {"type": "object", "properties": {"f\#(index)": {"type": "integer"}}"#
                + (index < 59 ? ##", "allOf": [{"$ref": "#/components/schemas/S\##(index + 1)"}]"## : "") + "}"
        }.joined(separator: ", ")
        let schemas = #"{"Wide": {"type": "array", "items": {"type": "object", "properties": {\#(wideProperties)}}}, \#(chain)}"#
        let document = try OpenAPIReader.read(TestDocuments.minimal(schemas: schemas))
        func named(_ name: String) throws -> SchemaRef { try #require(document.componentSchemas.first { $0.name == name }?.schema) }

        var member = JSONObject()
        for index in 0..<600 { member.append("x\(index)", .int(index)) }
        let wide = JSONValue.array(Array(repeating: .object(member), count: 20))
        let charged = SchemaValidator(document: document, direction: .response, budget: 10_000).validate(wide, against: try named("Wide"))
        #expect(charged.errors.last?.message == "validation needed more than 10000 checks (the work budget)")
        let enough = SchemaValidator(document: document, direction: .response).validate(wide, against: try named("Wide"))
        #expect(enough.isValid && enough.drift.count == 1001, "12 000 unknown members: the first 1000 and a count")
        #expect(enough.drift.last?.message == "and 11000 more (the first 1000 are listed)")

        var unknown = JSONObject()
        for index in 0..<50 { unknown.append("u\(index)", .int(index)) }
        let walked = SchemaValidator(document: document, direction: .response, budget: 100).validate(.object(unknown), against: try named("S0"))
        #expect(walked.errors.last?.message == "validation needed more than 100 checks (the work budget)")
        let known = SchemaValidator(document: document, direction: .response).validate(.object(unknown), against: try named("S0"))
        #expect(known.isValid && known.drift.count == 50)
    }

    /// A million wrong items give the first thousand errors and a count, not a million messages.
    @Test func issuesAreListedUpToALimit() throws {
        let document = try OpenAPIReader.read(TestDocuments.minimal(schemas: #"{"Numbers": {"type": "array", "items": {"type": "integer"}}}"#))
        let schema = try #require(document.componentSchemas.first { $0.name == "Numbers" }?.schema)
        let result = SchemaValidator(document: document, direction: .response).validate(.array(Array(repeating: .string("x"), count: 5000)), against: schema)
        #expect(result.errors.count == 1000 && result.errorCount == 5000)
        #expect(result.errors.first?.description == #"$[0]: expected an integer, got the string "x""#)
    }

    /// Compiling is work a document can make an answer do: 300 distinct patterns of 10 000 states each cost their
    /// size once each, so the budget ends it; one large pattern over many strings is compiled once.
    @Test func compilingPatternsIsChargedOnceAValidation() throws {
        let properties = (0..<300).map { #""p\#($0)": {"type": "string", "pattern": "a{\#(9_000 + $0)}b"}"# }.joined(separator: ", ")
        let schemas = #"{"Many": {"type": "object", "properties": {\#(properties)}}, "One": {"type": "array", "items": {"type": "string", "pattern": "a{9999}b"}}}"#
        let document = try OpenAPIReader.read(TestDocuments.minimal(schemas: schemas))
        func named(_ name: String) throws -> SchemaRef { try #require(document.componentSchemas.first { $0.name == name }?.schema) }
        let validator = SchemaValidator(document: document, direction: .response, patternBudget: 200_000)
        var answer = JSONObject()
        for index in 0..<300 { answer.append("p\(index)", .string("a")) }
        let many = validator.validate(.object(answer), against: try named("Many"))
        #expect(many.errors.count < 30, "each compile costs its 9000 states and more")
        #expect(many.errors.last?.message.contains("patterns needed more than 200000 steps") == true)

        let strings = JSONValue.array(Array(repeating: .string("a"), count: 10_000))
        let one = validator.validate(strings, against: try named("One"))
        #expect(one.errorCount == 10_000 && one.errors.last?.message.contains("work budget") == false,
                "10 000 states compiled once, then a few steps a string, so no budget error: \(one.errors.last?.message ?? "")")
    }
}

@Suite struct DecimalTextTests {
    @Test func comparesExactly() {
        #expect(DecimalText.compare("0.1", "0.10") == 0)
        #expect(DecimalText.compare("509.72", "509.7") == 1)
        #expect(DecimalText.compare("-1", "0") == -1)
        #expect(DecimalText.compare("1e2", "99.999999999999999999") == 1)
        #expect(DecimalText.compare("-0.0", "0") == 0)
        #expect(DecimalText.compare("-5", "-50") == 1)
        #expect(DecimalText.compare("12345678901234567890123", "12345678901234567890122") == 1, "beyond any Double")
        #expect(DecimalText.compare("x", "1") == nil)
        #expect(DecimalText.isIntegral("3.000") && DecimalText.isIntegral("3e2") && !DecimalText.isIntegral("3.5") && !DecimalText.isIntegral("35e-1"))
    }
}
