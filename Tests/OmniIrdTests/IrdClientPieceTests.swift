import Foundation
import Testing
import OmniCodec
import OmniSystem
import OmniTransport
@testable import OmniIrd

@Suite struct IrdOperationIndexTests {
    @Test func kebabCase() {
        #expect(IrdOperationIndex.kebab("listDomainPins") == "list-domain-pins")
        #expect(IrdOperationIndex.kebab("mint_mailbox.Credentials") == "mint-mailbox-credentials")
        #expect(IrdOperationIndex.kebab("getHTTPStatus") == "get-http-status")
        #expect(IrdOperationIndex.kebab("p2pApps") == "p2p-apps")
        #expect(IrdOperationIndex.kebab("API keys") == "api-keys")
    }

    @Test func namesDropTheAreaAndStayUnique() throws {
        let index = IrdOperationIndex(document: try TestDocuments.document(), reservedNames: ["auth": ["status", "logout"]],
                                      reservedAreas: ["api"])
        func names(_ area: String) -> [String] { index.area(named: area)?.entries.map(\.name) ?? [] }
        #expect(names("domains") == ["check", "list", "get"])
        #expect(names("credits") == ["get-balance", "list-ledger"])
        #expect(names("api-keys") == ["list", "create", "delete"])
        #expect(names("dns") == ["list-records", "create-record", "delete-record"], "three-letter areas are not made singular")
        #expect(names("registrations") == ["list", "register-domain", "get-action", "list-actions", "set-auto-renew"])
        #expect(index.areas.map(\.name).first == "auth")
        #expect(index.command(for: "getJobResult")! == ("jobs", "get-result"))
        let all = index.areas.flatMap { area in area.entries.map { "\(area.name) \($0.name)" } }
        #expect(Set(all).count == 41)
    }

    @Test func collisionsFallBackToTheWholeIdThenANumber() throws {
        let document = try OpenAPIReader.read(Array("""
            {"openapi": "3.0.3", "info": {"title": "t", "version": "1"}, "paths": {
              "/a": {"get": {"operationId": "listItems", "tags": ["items"], "responses": {}},
                     "post": {"operationId": "list_items", "tags": ["items"], "responses": {}}},
              "/b": {"get": {"operationId": "status", "tags": ["auth"], "responses": {}},
                     "post": {"tags": ["api"], "responses": {}}},
              "/c/{id}/d": {"get": {"parameters": [{"name": "id", "in": "path", "required": true}], "responses": {}}}}}
            """.utf8))
        let index = IrdOperationIndex(document: document, reservedNames: ["auth": ["status"]], reservedAreas: ["api"])
        #expect(index.area(named: "items")?.entries.map(\.name) == ["list-items", "list-items-2"])
        #expect(index.area(named: "auth")?.entries.map(\.name) == ["status-2"], "omni's own 'auth status' wins")
        #expect(index.area(named: "api-2")?.entries.map(\.name) == ["post-b"], "no operationId: method and literal segments")
        #expect(index.area(named: "other")?.entries.map(\.name) == ["get-c-d"])
    }
}

@Suite struct IrdRequestBuilderTests {
    let document: OpenAPIDocument
    let builder: IrdRequestBuilder

    init() throws {
        document = try TestDocuments.document()
        builder = IrdRequestBuilder(document: document, baseURL: "https://api.example/v1/")
    }

    func operation(_ id: String) throws -> OmniIrd.Operation { try #require(document.operation(id: id)) }

    @Test func pathsQueriesAndBodies() throws {
        let delete = try builder.build(try operation("deleteDnsRecord"), IrdCallInput(path: ["domain": "a b/c.ro", "record_id": "r?1"]))
        #expect(delete.url == "https://api.example/v1/domains/a%20b%2Fc.ro/dns/records/r%3F1", "a value cannot add a segment")
        let list = try builder.build(try operation("listDomains"), IrdCallInput(query: ["status": ["taken", "premium"], "limit": ["5"]]))
        #expect(list.url == "https://api.example/v1/domains?limit=5&status=taken&status=premium")
        let ledger = try builder.build(try operation("listCreditLedger"), IrdCallInput(query: ["limit": ["1e1"]]))
        #expect(ledger.url.hasSuffix("limit=1e1"), "numbers travel as typed")
        let body: JSONValue = .object(["domain": "a.ro", "years": .number("2")])
        let register = try builder.build(try operation("registerDomain"), IrdCallInput(body: body))
        #expect(register.method == "POST" && register.headers["Content-Type"] == "application/json")
        #expect(register.body.map { String(decoding: $0, as: UTF8.self) } == #"{"domain":"a.ro","years":2}"#)
    }

    @Test func nothingIsBuiltFromInvalidInput() throws {
        func failure(_ id: String, _ input: IrdCallInput) throws -> IrdError? {
            do { _ = try builder.build(try operation(id), input); return nil } catch let error as IrdError { return error }
        }
        #expect(try failure("listCreditLedger", IrdCallInput(query: ["limit": ["many"]]))?.message == "query parameter 'limit': expected an integer, got 'many'")
        #expect(try failure("listCreditLedger", IrdCallInput(query: ["limit": ["500"]]))?.message.contains("maximum") == true)
        #expect(try failure("listCreditLedger", IrdCallInput(query: ["kind": ["gift"]]))?.kind == .invalidParameter)
        #expect(try failure("getDomain", IrdCallInput())?.message == "path parameter 'domain' is required")
        #expect(try failure("registerDomain", IrdCallInput())?.kind == .invalidBody)
        let body = try failure("registerDomain", IrdCallInput(body: .object(["domain": "a.ro"])))
        #expect(body?.kind == .invalidBody && body?.location == "$.years", "\(String(describing: body))")
        #expect(try failure("getCreditBalance", IrdCallInput(body: .object([:])))?.message.contains("takes no request body") == true)
        let unchecked = IrdRequestBuilder(document: document, baseURL: "https://x", validates: false)
        #expect(throws: Never.self) { try unchecked.build(try operation("registerDomain"), IrdCallInput(body: .object(["domain": "a.ro"]))) }
    }

    @Test func totpGoesWhereTheDocumentSays() throws {
        let transfer = try operation("startTransfer")
        let placement = IrdTOTPPlacement.of(transfer, in: document)
        #expect(placement == IrdTOTPPlacement.parameter(name: "X-TOTP", location: ParameterLocation.header))
        let input = placement!.applying("123456", to: IrdCallInput(body: .object(["domain": "a.ro", "auth_code": "x"])))
        let request = try builder.build(transfer, input)
        #expect(request.headers["X-TOTP"] == "123456")
        #expect(IrdTOTPPlacement.of(try operation("getCreditBalance"), in: document) == nil)
    }
}

@Suite struct IrdErrorTableTests {
    func error(_ status: Int, _ body: String, headers: HTTPHeaders = [:]) -> IrdError {
        IrdErrorTable.error(status: status, headers: headers, body: Array(body.utf8), operation: "POST /x")
    }

    @Test func oneTableForEveryOperation() {
        #expect(error(401, #"{"code": "unauthorized", "message": "no"}"#).kind == .unauthorized)
        #expect(error(403, "").kind == .unauthorized)
        #expect(error(402, #"{"code": "insufficient-credits", "message": "needs 9.00"}"#).message
            == "POST /x: insufficient credits (HTTP 402, insufficient-credits): needs 9.00")
        let limited = error(429, #"{"code": "rate-limited"}"#, headers: ["Retry-After": "30"])
        #expect(limited.kind == .rateLimited && limited.retryAfter == "30" && limited.message.contains("retry after 30 s"))
        #expect(error(404, "no such thing").message.hasSuffix(": no such thing"))
        #expect(error(409, #"{"error": {"code": "conflict", "message": "exists", "errors": [{"field": "name", "message": "taken"}]}}"#).message
            .contains("exists — name: taken"))
        #expect(error(503, "").kind == .serviceError)
        #expect(error(401, #"{"code": "totp-required"}"#).kind == .totpRequired)
        #expect(error(401, #"{"error": "invalid-totp"}"#).kind == .invalidTotp)
        #expect(error(403, #"{"type": "https://ird.ro/problems/sensitive-domain-api-key-blocked", "title": "Sensitive"}"#).kind == .accountSessionRequired)
    }
}

@Suite struct IrdStoreTests {
    let directory = FileManager.default.temporaryDirectory.appendingPathComponent("omni-ird-store-\(UUID().uuidString)").path

    @Test func sessionsAreWrittenPrivatelyAndRefusedWhenExposed() throws {
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let store = IrdSessionStore(path: directory + "/ird/session.json")
        #expect(try store.read() == nil)
        let session = IrdSession(accessToken: "eyJ.secret", expiresAt: "2030-01-01T00:00:00Z")
        try store.write(session)
        #expect(try store.read() == session)
        let attributes = try FileManager.default.attributesOfItem(atPath: store.path)
        #expect((attributes[.posixPermissions] as? NSNumber)?.intValue == 0o600)
        let folder = try FileManager.default.attributesOfItem(atPath: directory + "/ird")
        #expect((folder[.posixPermissions] as? NSNumber)?.intValue == 0o700)
        chmod(store.path, 0o644)
        #expect(throws: IrdError.self) { try store.read() }
        #expect(try store.remove() && !(try store.remove()))
    }

    @Test func credentialsAreMaskedAndSingleTokens() throws {
        let key = IrdCredential.apiKeyOrSession("ird_live_0123456789abcdef", source: .environment("IRD_API_KEY"))
        #expect(key.kind == .apiKey && key.masked == "ird_…cdef" && !key.masked.contains("0123"))
        #expect(IrdCredential.apiKeyOrSession("eyJabc", source: .environment("X")).kind == .session)
        #expect(try IrdCredential.token(from: "  ird_x\n", label: "k") == "ird_x")
        #expect(throws: IrdError.self) { try IrdCredential.token(from: "ird_a ird_b", label: "k") }
    }

    @Test func theSpecCacheKeepsSourceAndETag() throws {
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let cache = IrdSpecCache(directory: directory)
        #expect(try cache.load() == nil)
        let metadata = IrdSpecCache.Metadata(source: "https://x/openapi.json", etag: "\"v1\"", lastModified: nil, fetchedAt: "2026-01-01T00:00:00Z", bytes: 2)
        try cache.store(Array("{}".utf8), metadata: metadata)
        let loaded = try #require(try cache.load())
        #expect(loaded.bytes == Array("{}".utf8) && loaded.metadata == metadata)
    }
}

@Suite struct IrdSpecDiffTests {
    @Test func operationsAndFieldsAddedAndRemoved() throws {
        let diff = IrdSpecDiff(from: try TestDocuments.document(), to: try TestDocuments.document("openapi-v2.json"))
        #expect(diff.addedOperations == ["renewRegistration (POST /registrations/{registration_id}/renew)"])
        #expect(diff.removedOperations == ["listP2pApps (GET /p2p/apps)"])
        #expect(diff.addedFields.contains("Instance.ipv6") && diff.addedFields.contains("Balance.reserved"))
        #expect(diff.addedFields.contains("renewRegistration request.years"))
        #expect(diff.removedFields.isEmpty)
        #expect(IrdSpecDiff(from: try TestDocuments.document(), to: try TestDocuments.document()).isEmpty)
    }
}

@Suite struct IrdLinksTests {
    @Test func aQueuedActionLeadsToTheOperationThatPollsIt() throws {
        let document = try TestDocuments.document()
        let register = try #require(document.operation(id: "registerDomain"))
        let link = try #require(register.success?.links.first)
        let answer = IrdAnswer(status: 202, headers: [:], body: [], json: try JSONValue.parse(#"{"action": {"id": "act-7", "state": "queued", "kind": "register"}}"#),
                               drift: [], operation: register)
        let (target, input) = try IrdLinks.follow(link, from: answer, request: IrdCallInput(), in: document)
        #expect(target.operationId == "getRegistrationAction")
        #expect(input.path == ["action_id": "act-7"])
        let request = try IrdRequestBuilder(document: document, baseURL: "https://x/v1").build(target, input)
        #expect(request.url == "https://x/v1/registrations/actions/act-7")
        let empty = IrdAnswer(status: 202, headers: [:], body: [], json: .object([:]), drift: [], operation: register)
        #expect(throws: IrdError.self) { try IrdLinks.follow(link, from: empty, request: IrdCallInput(), in: document) }
    }
}
