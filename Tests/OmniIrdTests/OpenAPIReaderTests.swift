import Foundation
import Testing
import OmniCodec
import OmniTestSupport
@testable import OmniIrd

/// The test document written for omni (Tests/Peers/ird) and hostile documents written here.
enum TestDocuments {
    static func bytes(_ name: String = "openapi.json") throws -> [UInt8] {
        Array(try Data(contentsOf: Repository.peer("ird/" + name)))
    }

    static func document(_ name: String = "openapi.json") throws -> OpenAPIDocument {
        try OpenAPIReader.read(try bytes(name))
    }

    /// A minimal document with `schemas` as components and one operation answering `responseSchema`.
    static func minimal(schemas: String = "{}", responseSchema: String = #"{"type": "object"}"#, extraPaths: String = "") -> [UInt8] {
        Array("""
            {"openapi": "3.1.0", "info": {"title": "t", "version": "1"},
             "paths": {"/x": {"get": {"operationId": "getX", "responses": {"200": {"description": "ok",
                "content": {"application/json": {"schema": \(responseSchema)}}}}}}\(extraPaths)},
             "components": {"schemas": \(schemas)}}
            """.utf8)
    }

    static func failure(_ bytes: [UInt8], limits: OpenAPILimits = .default) -> IrdError? {
        do { _ = try OpenAPIReader.read(bytes, limits: limits); return nil } catch { return error }
    }
}

@Suite struct OpenAPIReaderTests {
    @Test func readsTheTestDocument() throws {
        let document = try TestDocuments.document()
        #expect(document.openapiVersion == "3.0.3")
        #expect(document.operations.count == 41)
        #expect(document.servers == ["https://api.ird.ro/v1"])
        #expect(Set(document.operations.flatMap(\.tags)).count == 15)
        let register = try #require(document.operation(id: "registerDomain"))
        #expect(register.method == "POST" && register.path == "/registrations")
        #expect(register.success?.status == "202")
        let link = try #require(register.success?.links.first)
        #expect(link.operationId == "getRegistrationAction")
        #expect(link.parameters.first?.value == "$response.body#/action/id")
        #expect(register.requestBody?.required == true)
        // $ref'd parameters resolve, path parameters merge in document order.
        let records = try #require(document.operation(id: "deleteDnsRecord"))
        #expect(records.parameters.map(\.name) == ["domain", "record_id"])
        #expect(records.parameters.allSatisfy { $0.location == .path && $0.required })
        // Security: the document's default, anonymous device login, optional on checkDomain.
        #expect(document.isAnonymous(try #require(document.operation(id: "startDeviceLogin"))))
        #expect(!document.isAnonymous(try #require(document.operation(id: "getCreditBalance"))))
        #expect(document.credentialIsOptional(try #require(document.operation(id: "checkDomain"))))
        let totp = try #require(document.operation(id: "startTransfer")).parameters.first { $0.location == .header }
        #expect(totp?.name == "X-TOTP")
        // Money is a string schema with a pattern, shared by $ref.
        let balance = try #require(document.componentSchemas.first { $0.name == "Balance" }?.schema)
        let total = try #require(document[balance].property("total"))
        #expect(document[total].types == [.string] && document[total].componentName == "Money")
        // The oneOf has its discriminator mapping resolved.
        let input = try #require(document.componentSchemas.first { $0.name == "DnsRecordInput" }?.schema)
        #expect(document[input].oneOf.count == 3 && document[input].discriminatorMapping["MX"] != nil)
    }

    @Test func matchesConcretePathsToTemplates() throws {
        let document = try TestDocuments.document()
        #expect(document.operation(method: "GET", path: "/domains/check/x.ro")?.operationId == "checkDomain")
        #expect(document.operation(method: "GET", path: "/domains/x.ro")?.operationId == "getDomain")
        #expect(document.operation(method: "DELETE", path: "/domains/x.ro/dns/records/r1")?.operationId == "deleteDnsRecord")
        #expect(document.operation(method: "PATCH", path: "/domains/x.ro") == nil)
    }

    @Test func recursiveSchemasStayFinite() throws {
        let bytes = TestDocuments.minimal(schemas: ##"{"Node": {"type": "object", "properties": {"children": {"type": "array", "items": {"$ref": "#/components/schemas/Node"}}}}}"##,
                                          responseSchema: ##"{"$ref": "#/components/schemas/Node"}"##)
        let document = try OpenAPIReader.read(bytes)
        let response = try #require(document.operations[0].success?.json?.schema)
        let children = try #require(document[response].property("children"))
        let items = try #require(document[children].items)
        #expect(items == response, "the $ref is the same table entry, not a copy")
        let deep = try JSONValue.parse(#"{"children": [{"children": [{"children": []}]}]}"#)
        #expect(SchemaValidator(document: document, direction: .response).validate(deep, against: response).isValid)
    }

    @Test func referenceCyclesAreRefusedWithTheirPathAndLine() throws {
        let cycle = TestDocuments.minimal(schemas: """
            {"A": {"$ref": "#/components/schemas/B"},
             "B": {"$ref": "#/components/schemas/A"}}
            """)
        let error = try #require(TestDocuments.failure(cycle))
        #expect(error.kind == .invalidDocument)
        #expect(error.message.contains("$ref cycle"), "\(error)")
        #expect(error.location?.contains("components.schemas") == true)
        #expect(error.line == 4 && error.column != nil, "\(error)")
        let applicators = TestDocuments.minimal(schemas: ##"{"A": {"allOf": [{"$ref": "#/components/schemas/B"}]}, "B": {"anyOf": [{"$ref": "#/components/schemas/A"}, {"type": "string"}]}}"##)
        #expect(TestDocuments.failure(applicators)?.message.contains("schema cycle through allOf") == true)
    }

    @Test func badReferencesNameWhatIsWrong() throws {
        let external = TestDocuments.minimal(responseSchema: #"{"$ref": "other.json#/X"}"#)
        #expect(TestDocuments.failure(external)?.message.contains("only local references") == true)
        let dangling = TestDocuments.minimal(responseSchema: ##"{"$ref": "#/components/schemas/Missing"}"##)
        let error = try #require(TestDocuments.failure(dangling))
        #expect(error.message.contains("points to nothing"), "\(error)")
        #expect(error.location == #"$.paths["/x"].get.responses.200.content["application/json"].schema["$ref"]"#, "\(error)")
        let link = TestDocuments.minimal().replacingLinks()
        #expect(TestDocuments.failure(link)?.message.contains("no operation has") == true)
    }

    @Test func structuralMistakesAreRefused() throws {
        func document(_ paths: String) -> [UInt8] {
            Array(#"{"openapi": "3.0.3", "info": {"title": "t", "version": "1"}, "paths": \#(paths)}"#.utf8)
        }
        #expect(TestDocuments.failure(document(#"{"/a/{id}": {"get": {"responses": {"200": {"description": "x"}}}}}"#))?
            .message.contains("no path parameter 'id'") == true)
        #expect(TestDocuments.failure(document(#"{"/a": {"get": {"operationId": "x", "responses": {}}}, "/b": {"get": {"operationId": "x", "responses": {}}}}"#))?
            .message.contains("used twice") == true)
        #expect(TestDocuments.failure(document(#"{"/a": {"get": {"responses": {"299x": {"description": "x"}}}}}"#))?
            .message.contains("not a response status") == true)
        #expect(TestDocuments.failure(Array(#"{"swagger": "2.0", "info": {}, "paths": {}}"#.utf8))?.message.contains("Swagger 2.0") == true)
        #expect(TestDocuments.failure(Array(#"{"openapi": "4.0.0"}"#.utf8))?.message.contains("not supported") == true)
        let syntax = try #require(TestDocuments.failure(Array("{\"openapi\": \"3.0.0\",\n  \"info\": [,]}".utf8)))
        #expect(syntax.kind == .invalidDocument && syntax.line == 2, "\(syntax)")
    }

    /// Wide documents read in linear time. Before, a `$ref` found its target by a linear search through the members
    /// of each object on its path (49 000 references into 49 000 schemas: 2.4 billion comparisons), and an
    /// operation's parameters were checked pairwise (100 000 parameters: 5 billion). Either took minutes.
    @Test(.timeLimit(.minutes(1))) func wideDocumentsReadInLinearTime() throws {
        let count = 49_000  // under the schema limit, with the answer and Refs
        let targets = (0..<count).map { #""S\#($0)": {"type": "string"}"# }.joined(separator: ", ")
        let references = (0..<count).map { ##""p\##($0)": {"$ref": "#/components/schemas/S\##(count - 1 - $0 % 100)"}"## }.joined(separator: ", ")
        let schemas = "{" + targets + #", "Refs": {"type": "object", "properties": {"# + references + "}}}"
        let document = try OpenAPIReader.read(TestDocuments.minimal(schemas: schemas))
        let refs = try #require(document.componentSchemas.first { $0.name == "Refs" }?.schema)
        #expect(document[refs].properties.count == count)
        #expect(document[document[refs].properties[0].schema].path.description == "$.components.schemas.S\(count - 1)")

        let parameters = (0..<100_000).map { #"{"name": "q\#($0)", "in": "query"}"# }.joined(separator: ", ")
        let paths = #", "/wide/{id}": {"parameters": [{"name": "id", "in": "path", "required": true}, {"name": "q7", "in": "query"}], "get": {"operationId": "wide", "parameters": ["# + parameters + #"], "responses": {"200": {"description": "ok"}}}}"#
        let wide = try OpenAPIReader.read(TestDocuments.minimal(extraPaths: paths))
        let operation = try #require(wide.operations.first { $0.operationId == "wide" })
        #expect(operation.parameters.count == 100_001, "the path item's q7 is replaced by the operation's, its id kept")
        #expect(operation.parameters.first?.name == "id")
    }

    @Test func hostileDocumentsHitALimitNotTheStack() throws {
        let depth = 10_000
        let deep = Array(("{\"openapi\": \"3.0.0\", \"x\": " + String(repeating: "[", count: depth) + String(repeating: "]", count: depth) + "}").utf8)
        #expect(TestDocuments.failure(deep)?.message.contains("nesting deeper") == true)
        let huge = TestDocuments.minimal()
        #expect(TestDocuments.failure(huge, limits: OpenAPILimits(maxBytes: 100))?.message.contains("exceeds the limit") == true)
        // Many references to one schema cost one entry each time they are followed: the budget ends it.
        let fanOut = (0..<400).map { "\"p\($0)\": {\"$ref\": \"#/components/schemas/Leaf\"}" }.joined(separator: ",")
        let wide = TestDocuments.minimal(schemas: #"{"Leaf": {"type": "string"}, "Wide": {"type": "object", "properties": {\#(fanOut)}}}"#)
        #expect(try OpenAPIReader.read(wide).schemas.count < 10, "shared, not expanded")
        #expect(TestDocuments.failure(wide, limits: OpenAPILimits(maxReferenceResolutions: 100))?.message.contains("reference budget") == true)
        #expect(TestDocuments.failure(wide, limits: OpenAPILimits(maxSchemas: 2))?.message.contains("schema limit") == true)
        // Boolean schemas count too (found by fuzzing `openapi`: 65 `true` schemas passed a limit of 64).
        // The answer's schema is read first, then its ten boolean properties: at a limit of 2 the old check, which
        // stood in the object case only, let all ten in.
        let booleans = (0..<10).map { "\"p\($0)\": true" }.joined(separator: ",")
        let flags = TestDocuments.minimal(responseSchema: #"{"type": "object", "properties": {\#(booleans)}}"#)
        #expect(try OpenAPIReader.read(flags, limits: OpenAPILimits(maxSchemas: 11)).schemas.count == 11)
        #expect(TestDocuments.failure(flags, limits: OpenAPILimits(maxSchemas: 10))?.message.contains("schema limit") == true)
        #expect(TestDocuments.failure(flags, limits: OpenAPILimits(maxSchemas: 2))?.message.contains("schema limit") == true)
        // A chain of $refs nests the reading as JSON nesting does, while its paths stay short: counted against the
        // same depth limit (two levels a link: the allOf entry and the schema it points to). Before, a chain of
        // 300 overflowed a test thread's stack and one of 50 000 (4 MiB) the main thread's.
        func chain(_ length: Int) -> [UInt8] {
            let links = (0..<length).map { index in
                #""S\#(index)": {"type": "object""# + (index < length - 1 ? ##", "allOf": [{"$ref": "#/components/schemas/S\##(index + 1)"}]"## : "") + "}"
            }
            return TestDocuments.minimal(schemas: "{" + links.joined(separator: ", ") + "}")
        }
        #expect(try OpenAPIReader.read(chain(60)).schemas.count >= 60)
        for length in [70, 50_000] {
            let refused = TestDocuments.failure(chain(length))
            #expect(refused?.message.contains("schemas nested deeper than 128, counting the $refs followed") == true, "\(length): \(String(describing: refused))")
        }
    }
}

private extension Array where Element == UInt8 {
    /// The minimal document with a link to an operation that does not exist.
    func replacingLinks() -> [UInt8] {
        let text = String(decoding: self, as: UTF8.self)
            .replacing(#""description": "ok","#, with: #""description": "ok", "links": {"next": {"operationId": "nothing"}},"#)
        return Array(text.utf8)
    }
}
