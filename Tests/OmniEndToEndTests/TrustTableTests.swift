import Foundation
import Testing
import OmniCodec
import OmniTestSupport

/// The "Trust decisions" table of docs/security.md, held to the code: every row names tests that exist (and every
/// test here is in a row), the pinned fingerprints are the vendored files', every option that loosens a check is in
/// the table, and the rows without an older test get one here.
@Suite(.serialized, .timeLimit(.minutes(3)), .offPool) struct TrustTableTests {
    struct Row {
        let id: String
        let cells: [String]
        var tests: [String] { Self.backticked(cells.last ?? "") }
        var text: String { cells.joined(separator: " | ") }

        static func backticked(_ text: String) -> [String] {
            text.split(separator: "`", omittingEmptySubsequences: false).enumerated().filter { $0.offset % 2 == 1 }.map { String($0.element) }
        }
    }

    static func document() throws -> String {
        try String(contentsOf: Repository.root.appendingPathComponent("docs/security.md"), encoding: .utf8)
    }

    /// The lines of one `## ` section.
    static func section(_ title: String) throws -> [Substring] {
        let lines = try document().split(separator: "\n", omittingEmptySubsequences: false)
        guard let start = lines.firstIndex(of: "## " + title[...]) else { throw TestSupportError("docs/security.md has no '## \(title)'") }
        let rest = lines[(start + 1)...]
        return Array(rest.prefix { !$0.hasPrefix("## ") })
    }

    /// Cells split at `|` but not at `\|`.
    static func cells(_ line: Substring) -> [String] {
        var cells: [String] = [], current = "", escaped = false
        for character in line.dropFirst() {
            if escaped { current.append(character); escaped = false; continue }
            if character == "\\" { escaped = true; current.append(character); continue }
            if character == "|" { cells.append(current.trimmingCharacters(in: .whitespaces)); current = "" } else { current.append(character) }
        }
        return cells
    }

    static func rows() throws -> [Row] {
        try section("Trust decisions").filter { $0.hasPrefix("| `") }.map { line in
            let cells = Self.cells(line)
            return Row(id: Row.backticked(cells[0]).first ?? cells[0], cells: Array(cells.dropFirst()))
        }
    }

    static func row(_ id: String) throws -> Row {
        guard let row = try rows().first(where: { $0.id == id }) else { throw TestSupportError("no row \(id) in Trust decisions") }
        return row
    }

    /// Every Swift file under Tests/, read once.
    static let testSources: [(path: String, text: String)] = {
        let root = Repository.root.appendingPathComponent("Tests")
        let enumerator = FileManager.default.enumerator(atPath: root.path)
        var files: [(String, String)] = []
        while let relative = enumerator?.nextObject() as? String {
            guard relative.hasSuffix(".swift"), !relative.contains("/Golden/") else { continue }
            if let text = try? String(contentsOf: root.appendingPathComponent(relative), encoding: .utf8) { files.append((relative, text)) }
        }
        return files
    }()

    /// `Suite.function` exists when some file declares or extends Suite and some file declaring or extending it
    /// has `func function(`; `Suite` alone when it is declared.
    static func testExists(_ reference: String) -> Bool {
        let parts = reference.split(separator: ".").map(String.init)
        let declaring = testSources.filter { $0.text.contains("struct \(parts[0]) ") || $0.text.contains("struct \(parts[0]):")
            || $0.text.contains("extension \(parts[0]) ") }
        guard parts.count == 2 else { return parts.count == 1 && !declaring.isEmpty }
        return declaring.contains { $0.text.contains("func \(parts[1])(") }
    }

    @Test func everyRowHasATestAndEveryTestARow() throws {
        let rows = try Self.rows()
        #expect(rows.count >= 20, "the table was not found or lost rows: \(rows.map(\.id))")
        #expect(Set(rows.map(\.id)).count == rows.count, "row ids are unique")
        for row in rows {
            #expect(!row.tests.isEmpty, "row \(row.id) names no test")
            for test in row.tests { #expect(Self.testExists(test), "row \(row.id): no test \(test)") }
        }
        let named = Set(rows.flatMap(\.tests))
        let own = try String(contentsOf: Repository.root.appendingPathComponent("Tests/OmniEndToEndTests/TrustTableTests.swift"), encoding: .utf8)
        let functions = own.split(separator: "\n").filter { $0.trimmingCharacters(in: .whitespaces).hasPrefix("@Test") && $0.contains(" func ") }
            .compactMap { $0.split(separator: " func ").last?.split(separator: "(").first.map(String.init) }
        #expect(functions.count >= 6)
        for function in functions where function != "everyRowHasATestAndEveryTestARow" {
            #expect(named.contains("TrustTableTests." + function) || named.contains { $0.hasSuffix("." + function) },
                    "TrustTableTests.\(function) is in no row of the table")
        }
    }

    /// The fingerprints the table states are those of the files omni embeds (the unit tests named in the same rows
    /// hold the embedded constants to these files).
    @Test func pinnedFingerprintsAreTheVendoredFiles() throws {
        func sha256(ofFile path: String) throws -> String {
            let result = try Subprocess.run("/usr/bin/env", ["sha256sum", path])
            return String(result.stdoutText.prefix(64))
        }
        func certificateFingerprint(_ path: String) throws -> String {
            let result = try Subprocess.run("/usr/bin/env", ["openssl", "x509", "-noout", "-fingerprint", "-sha256", "-in", path])
            try #require(result.status == 0, "\(result.stderrText)")
            return String(result.stdoutText.split(separator: "=").last ?? "").replacingOccurrences(of: ":", with: "")
                .trimmingCharacters(in: .whitespacesAndNewlines).lowercased()
        }
        func hexes(_ row: Row) -> [String] {
            row.text.split(whereSeparator: { !$0.isHexDigit }).map { $0.lowercased() }.filter { $0.count == 64 }
        }
        let vendor = Repository.root.appendingPathComponent("Vendor").path
        #expect(hexes(try Self.row("root-ic")) == [try sha256(ofFile: vendor + "/ic/mainnet_root_key.der")])
        #expect(hexes(try Self.row("root-app-attest")) == [try certificateFingerprint(vendor + "/apple/Apple_App_Attestation_Root_CA.pem")])
        let pins = try JSONValue.parse(Array(try Data(contentsOf: URL(fileURLWithPath: vendor + "/apple/receipt_pins.json"))))
        #expect(hexes(try Self.row("root-receipt")) == [try certificateFingerprint(vendor + "/apple/AppleRootCA-G3.pem"),
                                                         pins["receipt_intermediate_sha256"]?.stringValue ?? "missing"])
    }

    static func tree() throws -> [(path: String, options: [String])] {
        CommandTreeTests.commands(try CommandTreeTests.tree()).map { entry in
            (entry.path, (entry.command["options"]?.arrayValue ?? []).compactMap { $0["name"]?.stringValue })
        }
    }

    @Test func unsafeIsOnlyOnQuery() throws {
        let offering = try Self.tree().filter { $0.options.contains("--unsafe") }.map(\.path)
        #expect(offering == ["omni ic query"], "--unsafe is offered by \(offering)")
        let call = try Omni.run(["ic", "call", "ryjl3-tyaaa-aaaaa-aaaba-cai", "icrc1_name", "--unsafe"])
        #expect(call.status == 2 && call.stdout.isEmpty, "\(call.stderrText)")
    }

    /// Offline: the flag is refused for the mainnet and any non-loopback URL before anything is sent.
    @Test func fetchRootKeyIsRefusedBeyondLoopback() throws {
        for network in ["ic", "https://icp-api.io", "http://192.0.2.1:4943"] {
            let result = try Omni.run(["ic", "query", "ryjl3-tyaaa-aaaaa-aaaba-cai", "icrc1_name", "--fetch-root-key", "--network", network,
                                       "--request-timeout", "2s"])
            #expect(result.status == 7 && result.stdout.isEmpty, "\(network): \(result.stderrText)")
        }
    }

    /// Options whose names say they loosen (or set) a check must be named somewhere in the table, and every option
    /// the table names must exist in the command tree.
    @Test func everyEscapeIsInTheTable() throws {
        let text = try Self.rows().map(\.text).joined(separator: " ")
        let named = Set(text.split(whereSeparator: { !($0.isLetter || $0.isNumber || $0 == "-") }).map(String.init)
            .filter { $0.hasPrefix("--") && $0.count > 2 })
        let tree = try Self.tree()
        let every = Set(tree.flatMap(\.options))
        let loosening = ["unsafe", "fetch-root", "no-validate", "auto-", "trust", "insecure", "skip", "no-verify", "allow-", "deny-",
                         "root", "tolerance", "policy"]
        // Names that match but set no trust: where bindings are written, and how many pings a relay forgives.
        let unrelated: Set<String> = ["--package-root", "--ping-miss-tolerance"]
        var missing: [String] = []
        for (path, options) in tree {
            for option in options where (loosening.contains(where: option.contains) || option == "--token") && !unrelated.contains(option) {
                if !named.contains(option) { missing.append("\(path) \(option)") }
            }
        }
        #expect(missing.isEmpty, "options that loosen or set a check, missing from docs/security.md Trust decisions: \(missing)")
        // --no-validate is on the commands generated from the ird document, which the bare tree does not have.
        let generated: Set<String> = ["--no-validate"]
        let unknown = named.subtracting(every).subtracting(generated)
        #expect(unknown.isEmpty, "the table names options no command has: \(unknown.sorted())")
        #expect(tree.filter { $0.options.contains("--fetch-root-key") }.map(\.path)
                == ["omni ic query", "omni ic call", "omni ic request-status", "omni ic read-state", "omni ic metadata", "omni ic send"],
                "--fetch-root-key is offered where a local replica is reached, and only there")
    }

    @Test func everyLimitNamesCodeThatExists() throws {
        let limits = try Self.section("Limits").joined(separator: "\n")
        let rows = limits.split(separator: "\n").filter { $0.hasPrefix("| ") && !$0.hasPrefix("| Parser") }
        #expect(rows.count >= 20)
        let paths = limits.split(whereSeparator: { $0 == " " || $0 == ";" || $0 == "," || $0 == "|" || $0 == "`" })
            .filter { $0.hasPrefix("Sources/") }.map { String($0).trimmingCharacters(in: CharacterSet(charactersIn: ".)")) }
        #expect(paths.count >= 10)
        for path in paths {
            #expect(FileManager.default.fileExists(atPath: Repository.root.appendingPathComponent(path).path), "Limits names \(path), which is gone")
        }
    }

    /// A field or parameter the document names as a secret, given on argv, draws the warning; from a file it does not.
    @Test func secretNamedFieldsOnTheCommandLineWarn() throws {
        let peer = try PeerProcess(script: "ird_peer.py")
        let home = FileManager.default.temporaryDirectory.appendingPathComponent("omni-trust-ird-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: home, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: home) }
        let environment = ["XDG_CACHE_HOME": home.appendingPathComponent("cache").path, "XDG_CONFIG_HOME": home.appendingPathComponent("config").path,
                           "IRD_API_KEY": try peer.string("api_key")]
        func ird(_ arguments: [String]) throws -> ProcessResult { try Omni.run(["ird"] + arguments, environment: environment) }
        #expect(try ird(["spec", "fetch", "--spec", try peer.string("spec_url")]).status == 0)
        let code = home.appendingPathComponent("auth-code").path
        try Data("EPP-FILE".utf8).write(to: URL(fileURLWithPath: code))
        let body = home.appendingPathComponent("body.json").path
        try Data(#"{"domain": "moving.ro", "auth_code": "EPP-FILE"}"#.utf8).write(to: URL(fileURLWithPath: body))
        let totp = try peer.string("totp")
        let cases: [([String], Bool)] = [
            (["-f", "domain=moving.ro", "-f", "auth_code=EPP-1"], true),
            (["-f", "domain=moving.ro", "-F", "auth_code=EPP-1"], true),
            (["--json", #"{"domain": "moving.ro", "auth_code": "EPP-1"}"#], true),
            (["-f", "domain=moving.ro", "-F", "auth_code=@" + code], false),
            (["--json", "@" + body], false),
        ]
        for (arguments, warns) in cases {
            let result = try ird(["transfers", "start"] + arguments + ["--totp", totp])
            #expect(result.status == 0, "\(arguments): \(result.stderrText)")
            #expect(result.stderrText.contains("looks like a secret") == warns, "\(arguments): \(result.stderrText)")
            if warns { #expect(result.stderrText.contains("auth_code"), "the warning names the field: \(result.stderrText)") }
        }
    }

    /// --auto-sign signs raw requests only for the --allow-domain tags: a raw request under another tag is not signed.
    @Test func autoSignSignsNoRawRequestOutsideItsTags() throws {
        let work = try WorkDirectory()
        let relay = try RelayProcess(["--network-id", ConnectEndToEndTests.network])
        defer { _ = try? relay.stop() }
        let key = try work.accountKey()
        try work.write("msg.bin", Array("not for this tag".utf8))
        let app = try BackgroundOmni(["connect", "app", "--node", relay.url, "--network-id", ConnectEndToEndTests.network, "--output", "jsonl",
                                      "--timeout", "20s", "sign-raw", "--domain-tag", "omni|other", "--data", "@" + work.path("msg.bin")])
        let session = try app.line { $0["event"] == "session" }
        try work.write("uri.txt", Array((session["wallet_uri"]?.stringValue ?? "").utf8), mode: 0o600)
        let wallet = try Omni.run(["connect", "wallet", "--uri", "@" + work.path("uri.txt"), "--account-key-file", key.path, "--approve",
                                   "--auto-sign", "--allow-domain", "omni|e2e", "--output", "jsonl"])
        let status = try app.waitForExit(timeout: 40)
        #expect(status != 0, "the app got no signature: \(app.stdoutText) \(app.stderrText)")
        #expect(try !app.jsonLines().contains { $0["event"] == "result" }, "\(app.stdoutText)")
        #expect(!wallet.stdoutText.contains("\"signed\""), "\(wallet.stdoutText) \(wallet.stderrText)")
        #expect(try app.jsonLines().contains { $0["event"] == "sign_error" && $0["code"] == "UNAUTHORIZED" },
                "the wallet refused it for its tag: \(app.stdoutText)")
    }
}

/// Row ic-certified: a forged certificate (the replica's BLS signature made with the wrong key) is refused by every
/// command that prints certified data, with nothing on stdout. In this suite to share its replica.
extension ICNetworkEndToEndTests {
    @Test func trustForgedCertificatesAreRefusedByEveryCertifiedCommand() throws {
        let submitted = try omni(["call", canister, "greet_update", "(\"f\")", "--async", "-o", "json"])
        #expect(submitted.status == 0, "\(submitted.stderrText)")
        let requestID = try #require(try json(submitted)["request_id"]?.stringValue, "\(submitted.stdoutText)")
        try control(["bad_bls": "certificate"])
        let commands: [[String]] = [
            ["call", canister, "greet_update", "(\"f\")"],
            ["request-status", requestID, canister],
            ["read-state", canister, "/time"],
            ["metadata", canister],
        ]
        for command in commands {
            let result = try omni(command)
            #expect(result.status == 1 && result.stdout.isEmpty, "\(command[0]): \(result.status) \(result.stdoutText) \(result.stderrText)")
            #expect(result.stderrText.contains("verification failed"), "\(command[0]): \(result.stderrText)")
        }
    }
}
