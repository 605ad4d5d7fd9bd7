import Foundation
import Testing
import OmniCodec
@testable import OmniIrd

@Suite struct IrdDomainRulesTests {
    /// (deny, allow, domain, expected): every rule of the gate, one row each.
    static let table: [([String], [String]?, String?, IrdDomainRules.Decision)] = [
        ([], nil, "x.ro", .allowed),
        ([], nil, nil, .allowed),
        (["x.ro"], nil, "x.ro", .denied(pattern: "x.ro")),
        (["x.ro"], nil, "X.RO.", .denied(pattern: "x.ro")),
        (["X.Ro.."], nil, "x.ro", .denied(pattern: "x.ro")),
        (["x.ro"], nil, "a.x.ro", .allowed),
        (["x.ro"], nil, "y.ro", .allowed),
        (["*.x.ro"], nil, "x.ro", .denied(pattern: "*.x.ro")),
        (["*.x.ro"], nil, "a.b.x.ro", .denied(pattern: "*.x.ro")),
        (["*.x.ro"], nil, "ax.ro", .allowed),
        (["*.x.ro"], nil, "x.ro.evil", .allowed),
        (["x.ro"], nil, nil, .allowed),
        ([], ["x.ro"], "x.ro", .allowed),
        ([], ["x.ro"], "y.ro", .notAllowed),
        ([], ["x.ro"], "a.x.ro", .notAllowed),
        ([], ["*.x.ro"], "a.x.ro", .allowed),
        ([], ["*.x.ro"], "X.ro.", .allowed),
        ([], ["x.ro"], nil, .unresolved),
        ([], [], "x.ro", .notAllowed),
        ([], [], nil, .unresolved),
        (["a.x.ro"], ["*.x.ro"], "a.x.ro", .denied(pattern: "a.x.ro")),
        (["*.x.ro"], ["a.x.ro"], "a.x.ro", .denied(pattern: "*.x.ro")),
        (["a.x.ro"], ["*.x.ro"], "b.x.ro", .allowed),
    ]

    @Test(arguments: table.indices)
    func decision(_ row: Int) throws {
        let (deny, allow, domain, expected) = Self.table[row]
        let rules = try IrdDomainRules(deny: deny, allow: allow)
        #expect(rules.decide(domain) == expected, "deny \(deny) allow \(String(describing: allow)) on \(domain ?? "nil")")
    }

    @Test func noAllowListDiffersFromAnEmptyOne() throws {
        #expect(try IrdDomainRules(deny: [], allow: nil).isEmpty)
        #expect(try !IrdDomainRules(deny: [], allow: []).isEmpty)
    }

    @Test(arguments: ["", "*", "*.", "a*.ro", "*.*.ro", ".x.ro", "x..ro", "x.ro/y", "a b.ro"])
    func badPatternsAreRefused(_ pattern: String) {
        #expect(throws: IrdError.self) { try IrdDomainRules(deny: [pattern], allow: nil) }
        #expect(throws: IrdError.self) { try IrdDomainRules(deny: [], allow: [pattern]) }
    }
}

@Suite struct IrdDomainGatePlanTests {
    func plans(_ document: OpenAPIDocument) -> [String: [IrdGatePlan.Source]] {
        Dictionary(uniqueKeysWithValues: IrdDomainGate.plans(in: document).map { ($0.operation, $0.sources) })
    }

    @Test func theTestDocumentsGatedOperations() throws {
        let gated = plans(try TestDocuments.document())
        #expect(gated == [
            "POST /registrations": [.bodyField("domain")],
            "PUT /registrations/{registration_id}/auto-renew": [.registrationIndex(parameter: "registration_id", listing: "/registrations")],
            "POST /domains/{domain}/dns/records": [.pathParameter("domain")],
            "DELETE /domains/{domain}/dns/records/{record_id}": [.pathParameter("domain")],
            "POST /tunnels": [.bodyField("hostname")],
            "DELETE /tunnels/{tunnel_id}": [.lookup(parameter: "tunnel_id", listing: "/tunnels", field: "hostname")],
            "POST /sharing/grants": [.bodyField("domain")],
            "POST /transfers": [.bodyField("domain")],
        ])
    }

    @Test func readsAreNeverGated() throws {
        let document = try TestDocuments.document()
        for operation in document.operations where operation.method == "GET" {
            #expect(IrdDomainGate.plan(operation, in: document) == nil, "\(operation.display)")
        }
    }

    /// The plan comes from what the document says, not from operationIds or tags: renamed and re-tagged operations
    /// keep it, and a path that moves keeps its override when its shape does.
    @Test func renamedOperationsAreGatedTheSame() throws {
        let original = try TestDocuments.document()
        // Rename every operation (and the links naming them) and move the tunnels to another tag, through
        // Foundation's JSON (the test's own tool, independent of the reader under test).
        func renamed(_ value: Any, tunnels: Bool = false) -> Any {
            if let array = value as? [Any] { return array.map { renamed($0, tunnels: tunnels) } }
            guard var object = value as? [String: Any] else { return value }
            for (key, inner) in object {
                if key == "operationId", let id = inner as? String { object[key] = "renamed_" + id; continue }
                if key == "tags", tunnels { object[key] = ["edge"]; continue }
                object[key] = renamed(inner, tunnels: tunnels || key.hasPrefix("/tunnels"))
            }
            return object
        }
        let root = renamed(try JSONSerialization.jsonObject(with: Data(try TestDocuments.bytes())))
        let text = String(decoding: try JSONSerialization.data(withJSONObject: root), as: UTF8.self)
        let variant = try OpenAPIReader.read(Array(text.utf8))
        #expect(variant.operation(id: "renamed_createTunnel")?.tags == ["edge"])
        #expect(variant.operation(id: "registerDomain") == nil)
        #expect(plans(variant) == plans(original))
    }

    @Test func theOverrideTableIsKeyedByShape() {
        #expect(IrdDomainGate.shape("/tunnels/{tunnel_id}") == "/tunnels/{}")
        #expect(IrdDomainGate.shape("/tunnels/{id}") == "/tunnels/{}")
        #expect(IrdDomainGate.shape("/a/{b}/c") == "/a/{}/c")
    }

    @Test func directNamesComeFromPathAndBody() throws {
        let document = try TestDocuments.document()
        let register = try #require(document.operation(id: "registerDomain"))
        let plan = try #require(IrdDomainGate.plan(register, in: document))
        let direct = IrdDomainGate.direct(plan, IrdCallInput(body: ["domain": "x.ro", "years": 1]))
        #expect(direct.names == ["x.ro"] && direct.pending.isEmpty && !direct.missing)
        let renew = try #require(document.operation(id: "setAutoRenew"))
        let pending = IrdDomainGate.direct(try #require(IrdDomainGate.plan(renew, in: document)), IrdCallInput(path: ["registration_id": "reg-1"]))
        #expect(pending.names.isEmpty && pending.pending.map(\.1) == ["reg-1"])
    }

    @Test func itemsOfAListing() throws {
        #expect(IrdDomainGate.items(of: try JSONValue.parse(#"{"tunnels": [{"id": "t1"}], "next": null}"#)).count == 1)
        #expect(IrdDomainGate.items(of: try JSONValue.parse(#"[{"id": "t1"}, {"id": "t2"}]"#)).count == 2)
        #expect(IrdDomainGate.items(of: try JSONValue.parse(#"{"n": 1}"#)).isEmpty)
    }
}
