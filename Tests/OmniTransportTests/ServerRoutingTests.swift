import Foundation
import OmniTestSupport
import Testing
@testable import OmniTransport

@Suite(.serialized, .offPool) struct ServerRoutingTests {
    /// Exact routes win over prefix routes; among prefixes the longest wins; unmatched paths are 404.
    @Test func exactAndPrefixRoutes() throws {
        let server = try HTTPServer(configuration: HTTPServer.Configuration())
        server.route("GET", "/items/*") { request in .text("any " + request.path) }
        server.route("GET", "/items/special/*") { request in .text("special " + request.path) }
        server.route("GET", "/items/exact") { _ in .text("exact") }
        try server.start()
        defer { server.stop() }
        let client = HTTPClient()
        func get(_ path: String) throws -> (Int, String) {
            let response = try client.perform(HTTPRequest(method: "GET", url: "http://127.0.0.1:\(server.port)\(path)"))
            return (response.status, String(decoding: response.body, as: UTF8.self))
        }
        #expect(try get("/items/exact") == (200, "exact"))
        #expect(try get("/items/42") == (200, "any /items/42"))
        #expect(try get("/items/special/7") == (200, "special /items/special/7"))
        #expect(try get("/items").0 == 404)
        #expect(try get("/other/1").0 == 404)
    }
}
