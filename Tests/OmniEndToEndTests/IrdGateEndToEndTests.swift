import Foundation
import Testing
import OmniCodec
import OmniTestSupport

/// The domain gate end to end: refusals happen before anything is sent (the peer saw no request of the operation),
/// exit 6 naming the domain, the pattern and the operation; what passes reaches the peer without a violation.
extension IrdEndToEndTests {
    func writeConfig(_ text: String) throws {
        let directory = home.appendingPathComponent("config/omni")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        try Data(text.utf8).write(to: directory.appendingPathComponent("config.toml"))
    }

    func requestLines() throws -> [String] {
        try operationRequests().map { "\($0["method"]?.stringValue ?? "") \($0["path"]?.stringValue ?? "")" }
    }

    @Test func theGateRefusesADeniedDomainBeforeSending() throws {
        try fetch()
        let refused = try ird(["registrations", "register-domain", "-F", "domain=Shop.X.ro.", "-F", "years=1", "--deny-domain", "*.x.ro"])
        #expect(refused.status == 6, "\(refused.stderrText)")
        #expect(refused.stdoutText.isEmpty)
        #expect(refused.stderrText.contains("shop.x.ro") && refused.stderrText.contains("'*.x.ro'") && refused.stderrText.contains("POST /registrations"),
                "\(refused.stderrText)")
        #expect(try requestLines().isEmpty, "nothing may reach the service")

        let json = try ird(["tunnels", "create", "-f", "hostname=x.ro", "--deny-domain", "*.x.ro", "-o", "json"])
        #expect(json.status == 6)
        let report = try JSONValue.parse(json.stderrText)
        #expect(report["error"]?["kind"] == "domain_gate_refused", "\(json.stderrText)")
        #expect(try requestLines().isEmpty)

        let other = try ird(["tunnels", "create", "-f", "hostname=ax.ro", "--deny-domain", "*.x.ro"])
        #expect(other.status == 0, "\(other.stderrText)")
        #expect(try requestLines() == ["POST /v1/tunnels"])
        try expectNoViolations()
    }

    @Test func anAllowListAllowsOnlyItsDomainsAndDenyWins() throws {
        try fetch()
        try writeSession()   // shares are account-only
        let outside = try ird(["sharing", "create-share", "-f", "domain=y.ro", "-f", "email=a@b.ro", "-f", "role=viewer", "--allow-domain", "*.x.ro"], removing: ["IRD_API_KEY"])
        #expect(outside.status == 6 && outside.stderrText.contains("no allow pattern matches"), "\(outside.stderrText)")
        let denied = try ird(["sharing", "create-share", "-f", "domain=a.x.ro", "-f", "email=a@b.ro", "-f", "role=viewer",
                              "--allow-domain", "*.x.ro", "--deny-domain", "a.x.ro"], removing: ["IRD_API_KEY"])
        #expect(denied.status == 6 && denied.stderrText.contains("'a.x.ro'"), "\(denied.stderrText)")
        #expect(try requestLines().isEmpty)
        let inside = try ird(["sharing", "create-share", "-f", "domain=b.x.ro", "-f", "email=a@b.ro", "-f", "role=viewer", "--allow-domain", "*.x.ro"], removing: ["IRD_API_KEY"])
        #expect(inside.status == 0, "\(inside.stderrText)")
        #expect(try requestLines() == ["POST /v1/sharing/grants"])
        try expectNoViolations()
    }

    @Test func configRulesApplyToMutationsAndNeverToReads() throws {
        try fetch()
        try writeConfig("[ird.gate]\ndeny = [\"site1.ro\"]\nallow = []\n")
        let read = try ird(["domains", "get", "site1.ro"])
        #expect(read.status == 0, "reads are never gated: \(read.stderrText)")
        let empty = try ird(["dns", "create-record", "site2.ro", "-f", "type=A", "-f", "name=www", "-f", "value=192.0.2.1", "-F", "ttl=300"])
        #expect(empty.status == 6 && empty.stderrText.contains("allowed: none"), "an empty allow-list allows nothing: \(empty.stderrText)")
        let flag = try ird(["dns", "create-record", "site2.ro", "-f", "type=A", "-f", "name=www", "-f", "value=192.0.2.1", "-F", "ttl=300",
                            "--allow-domain", "site2.ro"])
        #expect(flag.status == 0, "a flag replaces the config's list: \(flag.stderrText)")
        let denied = try ird(["dns", "delete-record", "site1.ro", "rec-1", "--allow-domain", "site1.ro"])
        #expect(denied.status == 6 && denied.stderrText.contains("'site1.ro'"), "the config's deny list still applies: \(denied.stderrText)")
        #expect(try requestLines() == ["GET /v1/domains/site1.ro", "POST /v1/domains/site2.ro/dns/records"])
        try expectNoViolations()
    }

    @Test func aRegistrationIdIsResolvedThroughTheCachedIndex() throws {
        try fetch()
        let refused = try ird(["registrations", "set-auto-renew", "reg-1", "-F", "auto_renew=false", "--deny-domain", "site1.ro"])
        #expect(refused.status == 6 && refused.stderrText.contains("site1.ro") && refused.stderrText.contains("PUT /registrations/{registration_id}/auto-renew"),
                "\(refused.stderrText)")
        #expect(try requestLines() == ["GET /v1/registrations"], "only the index's listing was read")
        let allowed = try ird(["registrations", "set-auto-renew", "reg-2", "-F", "auto_renew=false", "--deny-domain", "site1.ro"])
        #expect(allowed.status == 0, "\(allowed.stderrText)")
        #expect(try requestLines() == ["GET /v1/registrations", "PUT /v1/registrations/reg-2/auto-renew"], "the index was cached")
        let unknown = try ird(["registrations", "set-auto-renew", "reg-99", "-F", "auto_renew=true", "--allow-domain", "*.ro"])
        #expect(unknown.status == 6 && unknown.stderrText.contains("cannot be resolved"), "an allow-list fails closed: \(unknown.stderrText)")
        let passes = try ird(["registrations", "set-auto-renew", "reg-99", "-F", "auto_renew=true", "--deny-domain", "site1.ro"])
        #expect(passes.status == 4, "a pure deny-list lets it through to the service's 404: \(passes.stderrText)")
        let refresh = try ird(["gate", "refresh", "-o", "json"])
        #expect(refresh.status == 0, "\(refresh.stderrText)")
        #expect(try json(refresh)["registrations"] == 5)
        try expectNoViolations()
    }

    @Test func aTunnelIdIsResolvedWithOneRead() throws {
        try fetch()
        let created = try ird(["tunnels", "create", "-f", "hostname=demo.x.ro", "-o", "json"])
        let id = try #require(try json(created)["id"]?.stringValue)
        try peer.requestJSON("/_control/reset", method: "POST")
        let refused = try ird(["tunnels", "delete", id, "--deny-domain", "*.x.ro"])
        #expect(refused.status == 6 && refused.stderrText.contains("demo.x.ro") && refused.stderrText.contains("DELETE /tunnels/{tunnel_id}"),
                "\(refused.stderrText)")
        #expect(try requestLines() == ["GET /v1/tunnels"])
        let deleted = try ird(["tunnels", "delete", id, "--deny-domain", "other.ro"])
        #expect(deleted.status == 0, "\(deleted.stderrText)")
        try expectNoViolations()
    }

    @Test func theGateAppliesToApiAndExplainsItself() throws {
        try fetch()
        let refused = try ird(["api", "POST", "/tunnels", "-f", "hostname=a.x.ro", "--deny-domain", "*.x.ro"])
        #expect(refused.status == 6 && refused.stderrText.contains("POST /tunnels"), "\(refused.stderrText)")
        let path = try ird(["api", "DELETE", "/domains/a.x.ro/dns/records/rec-1", "--deny-domain", "*.x.ro"])
        #expect(path.status == 6 && path.stderrText.contains("a.x.ro"), "\(path.stderrText)")
        let unknown = try ird(["api", "POST", "/nowhere", "--allow-domain", "x.ro"])
        #expect(unknown.status == 6, "an operation the document lacks fails closed under an allow-list: \(unknown.stderrText)")
        #expect(try requestLines().isEmpty)

        let tunnel = try json(try ird(["gate", "explain", "POST", "/tunnels", "-o", "json"]))
        #expect(tunnel["gated"] == true && tunnel["why"] == ["the body field 'hostname' names the domain"])
        let read = try json(try ird(["gate", "explain", "domains", "get", "-o", "json"]))
        #expect(read["gated"] == false)
        let byId = try json(try ird(["gate", "explain", "setAutoRenew", "-o", "json"]))
        #expect(byId["why"]?.arrayValue?.first?.stringValue?.contains("registration id") == true)
        let all = try json(try ird(["gate", "explain", "-o", "json"]))
        #expect(all.arrayValue?.count == 8)
        try expectNoViolations()
    }
}
