import Foundation
import OmniCodec
import OmniTestSupport
import Testing

/// The `omni ic` command line itself, through the real binary: one identity selection for every command, every
/// offline input checked before the network, typed values (data exit 3, choices exit 2), file options, batches that
/// follow --output, key files that must be private, verified session imports, labelled root keys, and identity
/// completion in real shells. The replica (Tests/Peers/ic_replica.py) is this suite's own.
@Suite(.serialized, .offPool)
struct ICCommandLineEndToEndTests {
    static let shared = Result { try PeerProcess.icReplica(for: "the ic command-line tests") }

    static let ledger = "ryjl3-tyaaa-aaaaa-aaaba-cai"

    // MARK: One identity selection

    /// `OMNI_IDENTITY`, `--identity` and the config key `ic.identity` choose the identity for every command that
    /// needs one (account-id used the default identity while sign honoured the variable), flag > env > config >
    /// default; whoami says which and why.
    @Test func everyCommandUsesTheOneIdentitySelection() throws {
        let home = try Home()
        let defaultPrincipal = try #require(try home.json(["ic", "identity", "new", "main", "--use"])["principal"]?.stringValue)
        let k1 = try #require(try home.json(["ic", "identity", "new", "k1", "--type", "secp256k1"])["principal"]?.stringValue)
        let expected = try home.run(["ic", "account-id", k1]).stdoutText
        let encoded = try home.run(["ic", "account", "encode", k1, "--subaccount", "7"]).stdoutText
        let config = try home.write("config.toml", "[ic]\nidentity = \"k1\"\n")
        let ways: [(label: String, arguments: [String], environment: [String: String], source: String)] = [
            ("env", [], ["OMNI_IDENTITY": "k1"], "env"),
            ("flag", ["--identity", "k1"], [:], "flag"),
            ("config", ["--config", config], [:], "config"),
            ("flag over env", ["--identity", "k1"], ["OMNI_IDENTITY": "main"], "flag"),
        ]
        for way in ways {
            let account = try home.run(["ic", "account-id"] + way.arguments, environment: way.environment)
            #expect(account.status == 0 && account.stdoutText == expected, "\(way.label): account-id \(account.stderrText)")
            #expect(account.stderrText.contains("k1"), "\(way.label): says whose account it is: \(account.stderrText)")
            let text = try home.run(["ic", "account", "encode", "--subaccount", "7"] + way.arguments, environment: way.environment)
            #expect(text.stdoutText == encoded, "\(way.label): account encode")
            let principal = try home.run(["ic", "identity", "principal"] + way.arguments, environment: way.environment)
            #expect(principal.stdoutText == k1 + "\n", "\(way.label): identity principal")
            #expect(try home.json(["ic", "identity", "show"] + way.arguments, environment: way.environment)["name"] == "k1",
                    "\(way.label): identity show")
            let whoami = try home.json(["ic", "identity", "whoami"] + way.arguments, environment: way.environment)
            #expect(whoami["name"] == "k1" && whoami["principal"]?.stringValue == k1, "\(way.label): \(whoami)")
            #expect(whoami["source"]?.stringValue == way.source, "\(way.label): \(whoami)")
            let file = home.path("signed-\(way.label.replacingOccurrences(of: " ", with: "-")).json")
            let signed = try home.json(["ic", "sign", Self.ledger, "m", "--query", "--out-file", file] + way.arguments,
                                       environment: way.environment)
            #expect(signed["sender"]?.stringValue == k1, "\(way.label): sign")
        }
        let fallback = try home.json(["ic", "identity", "whoami"])
        #expect(fallback["source"] == "default" && fallback["principal"]?.stringValue == defaultPrincipal)
        let pem = try home.json(["ic", "identity", "whoami", "--pem", home.config.appendingPathComponent("omni/identities/k1.pem").path])
        #expect(pem["source"] == "pem" && pem["principal"]?.stringValue == k1)
        let explicit = try home.json(["ic", "identity", "whoami", "--identity", "anonymous"])
        #expect(explicit["source"] == "flag" && explicit["principal"] == "2vxsx-fae")
        #expect(try home.run(["ic", "account-id", "--identity", "nobody"]).status == 7, "an unknown identity is a configuration error")
        #expect(try home.run(["ic", "identity", "whoami", "--identity", "k1", "--pem", "x.pem"]).status == 2)

        // With no identity anywhere: anonymous, said so; account-id has no owner to take.
        let empty = try Home()
        let anonymous = try empty.json(["ic", "identity", "whoami"])
        #expect(anonymous["source"] == "anonymous" && anonymous["principal"] == "2vxsx-fae" && anonymous["name"] == .null)
        #expect(try empty.run(["ic", "account-id"]).status == 7)
    }

    /// Removing the default identity says which identity is the default afterwards, or that none is.
    @Test func removingTheDefaultSaysWhatTheDefaultIsNow() throws {
        let home = try Home()
        for name in ["a", "b"] { _ = try home.json(["ic", "identity", "new", name] + (name == "a" ? ["--use"] : [])) }
        let other = try home.json(["ic", "identity", "remove", "b", "--yes"])
        #expect(other["was_default"] == .bool(false) && other["default"] == "a")
        let text = try home.run(["ic", "identity", "remove", "a", "--yes"])
        #expect(text.status == 0 && text.stdoutText.contains("none: requests are anonymous"), "\(text.stdoutText)")
        _ = try home.json(["ic", "identity", "new", "c", "--use"])
        let json = try home.json(["ic", "identity", "remove", "c", "--yes"])
        #expect(json["was_default"] == .bool(true) && json["default"] == .null)
    }

    /// `identity list` piped is tab-separated with one fact per field: a session's kind and expiry are separate
    /// fields, so awk and cut see the same columns on every line.
    @Test func identityListIsATable() throws {
        let home = try Home()
        _ = try home.json(["ic", "identity", "new", "root", "--use"])
        _ = try home.json(["ic", "identity", "new", "other", "--type", "p256"])
        let session = try home.json(["ic", "identity", "delegate", "--save", "ci", "--lifetime", "1h"])
        let expiration = try #require(session["expiration_rfc3339"]?.stringValue)
        let result = try home.run(["ic", "identity", "list"])
        #expect(result.status == 0)
        let rows = result.stdoutText.split(separator: "\n").map { $0.split(separator: "\t", omittingEmptySubsequences: false) }
        #expect(rows.count == 3, "no header when piped: \(result.stdoutText)")
        for row in rows {
            #expect(row.count == 6, "\(row)")
            #expect(row.allSatisfy { !$0.isEmpty && !$0.contains(" ") }, "one fact per field, no spaces: \(row)")
        }
        try #require(rows.allSatisfy { $0.count == 6 })
        let ci = try #require(rows.first { $0[1] == "ci" })
        #expect(ci[0] == "-" && ci[2] == "delegated" && ci[3] == Substring(expiration) && ci[4] == "ok", "\(ci)")
        let root = try #require(rows.first { $0[1] == "root" })
        #expect(root[0] == "*" && root[2] == "ed25519" && root[3] == "-")
    }

    /// `read-state` text is a table too: path, lookup, value (one field each; lists joined without spaces), with how
    /// it was verified on stderr.
    @Test func readStateIsATable() throws {
        let replica = try Self.shared.get()
        let url = try replica.string("url"), rootKey = try replica.string("root_key"), canister = try replica.string("canister_id")
        let home = try Home()
        let result = try home.run(["ic", "read-state", canister, "/time", "/canister/\(canister)/controllers",
                                   "/canister/\(canister)/metadata/none", "--network", url, "--root-key", rootKey])
        #expect(result.status == 1, "one path is absent: \(result.stderrText)")
        let rows = result.stdoutText.split(separator: "\n").map { $0.split(separator: "\t", omittingEmptySubsequences: false) }
        try #require(rows.count == 3 && rows.allSatisfy { $0.count == 3 }, "\(result.stdoutText)")
        #expect(rows.map { $0[1] } == ["found", "found", "absent"])
        #expect(rows[0][2].hasSuffix("Z") && !rows[0][2].contains(" "), "certified time in RFC 3339: \(rows[0])")
        #expect(rows[1][2] == "2vxsx-fae" && rows[2][2] == "-")
        #expect(result.stderrText.contains("verified: certificate of subnet"), "\(result.stderrText)")
    }

    // MARK: Offline inputs first

    /// Arguments, files, Candid text, keys, the root key and the identity are all checked before the first byte goes
    /// on the network: a replica sees no request at all, and an address nothing listens on is never tried.
    @Test func offlineInputsAreCheckedBeforeTheNetwork() throws {
        let replica = try Self.shared.get()
        let url = try replica.string("url"), rootKey = try replica.string("root_key"), canister = try replica.string("canister_id")
        let home = try Home()
        let exposed = try home.write("exposed.pem", try Self.ed25519PEM(), mode: 0o644)
        let cases: [(arguments: [String], status: Int32, words: String)] = [
            (["query", canister, "symbol", "(bad"], 3, "Candid syntax error"),
            (["call", canister, "symbol", "(bad"], 3, "Candid syntax error"),
            (["query", canister, "symbol", "zz", "--input-format", "hex"], 3, "hex"),
            (["query", canister, "symbol", "{", "--input-format", "json"], 3, "JSON"),
            (["query", canister, "symbol", "@" + home.path("missing.did")], 3, "no such file"),
            (["query", canister, "symbol", "--did", home.path("missing.did")], 3, "no such file"),
            (["query", canister, "greet", "(5)", "--did", try home.write("g.did", "service : { greet : (text) -> (text) query }")], 3,
             "type mismatch"),
            (["query", canister, "nope", "--did", home.path("g.did")], 2, "no method"),
            (["query", "aaaaa-ab", "greet"], 3, "<canister>"),
            (["query", canister, "greet", "--effective-canister-id", "nope"], 3, "--effective-canister-id"),
            (["query", canister, "greet", "--pem", home.path("missing.pem")], 3, "no such file"),
            (["query", canister, "greet", "--pem", exposed], 7, "chmod 600"),
            (["query", canister, "greet", "--identity", "nobody"], 7, "nobody"),
            (["call", canister, "greet", "--root-key", "abcd"], 3, "--root-key"),
            (["read-state", canister, "time"], 3, "paths start with /"),
            (["request-status", "zz", canister], 3, "<request_id>"),
            (["metadata", canister, "--root-key", "@" + home.path("missing.hex")], 3, "no such file"),
        ]
        for item in cases {
            try replica.requestJSON("/_control", method: "POST", body: ["action": "reset_stats"])
            let trust = item.arguments.contains("--root-key") ? [] : ["--root-key", rootKey]
            let result = try home.run(["ic"] + item.arguments + ["--network", url] + trust)
            #expect(result.status == item.status, "\(item.arguments): \(result.stderrText)")
            #expect(result.stderrText.contains(item.words), "\(item.arguments): \(result.stderrText)")
            let stats = try replica.requestJSON("/_control")["stats"]?.objectValue ?? JSONObject()
            let requests = stats.reduce(0) { $0 + Int($1.value.int64Value ?? 0) }
            #expect(requests == 0, "\(item.arguments): the replica saw \(stats)")
        }
        // Nothing listens on port 9: a connection attempt would end in exit 5; a refused input never gets there.
        for arguments in [["query", Self.ledger, "symbol", "(bad"], ["call", Self.ledger, "symbol", "(bad"]] {
            for trust in [[], ["--root-key", rootKey]] {
                let result = try home.run(["ic"] + arguments + ["--network", "http://127.0.0.1:9"] + trust)
                #expect(result.status == 3, "\(arguments) \(trust): \(result.stderrText)")
            }
        }
    }

    // MARK: Files

    /// `sign` writes `--out-file FILE` (0600) or, with `-`, stdout (no file named '-'); `send` reads `@FILE` like every
    /// file argument; the old `--file`, `--canister`/`--method` options and `--candid`/`--args-format` are gone.
    @Test func signWritesOutFileAndSendReadsAtFile() throws {
        let home = try Home()
        let stdout = try home.run(["ic", "sign", Self.ledger, "icrc1_name", "--query", "--out-file", "-"])
        #expect(stdout.status == 0, "\(stdout.stderrText)")
        let signed = try JSONValue.parse(stdout.stdoutText)
        #expect(signed["format"] == "omni-ic-signed-request" && signed["request_type"] == "query")
        #expect(stdout.stderrText.contains("request id"), "the summary goes to stderr: \(stdout.stderrText)")
        #expect(!FileManager.default.fileExists(atPath: home.home.appendingPathComponent("-").path), "no file named '-'")

        let file = home.path("q.json")
        let summary = try home.json(["ic", "sign", Self.ledger, "icrc1_name", "--query", "--out-file", file])
        #expect(try summary["file"]?.stringValue == file && Self.permissions(file) == 0o600)
        #expect(try home.run(["ic", "sign", Self.ledger, "icrc1_name", "--query", "--out-file", file]).status == 2,
                "an existing file needs --force")
        #expect(try home.run(["ic", "sign", Self.ledger, "icrc1_name", "--query", "--out-file", file, "--force"]).status == 0)

        let review = try home.run(["ic", "send", "--review", "@" + file])
        #expect(review.status == 0 && review.stdoutText.contains("signature: valid"), "\(review.stderrText)")
        let piped = try home.run(["ic", "send", "--review", "-"], stdin: stdout.stdout)
        #expect(piped.status == 0, "\(piped.stderrText)")

        for old in [["ic", "sign", "--canister", Self.ledger, "--method", "m", "--query", "--out-file", home.path("x.json")],
                    ["ic", "sign", Self.ledger, "m", "--query", "--file", home.path("x.json")],
                    ["ic", "query", Self.ledger, "m", "--candid", "x.did"],
                    ["ic", "query", Self.ledger, "m", "--args-format", "hex"],
                    ["ic", "certificate", "verify", "00", "--input", "binary", "--subnet", "aaaaa-aa"],
                    ["ic", "identity", "delegate", "--to-session", home.path("s.json")]] {
            let result = try home.run(old)
            #expect(result.status == 2 && result.stderrText.contains("unknown option"), "\(old): \(result.stderrText)")
        }
    }

    // MARK: Typed values

    /// `--at` is Unix seconds or RFC 3339 everywhere (it read nanoseconds: 1763796900 was 1970); a nanosecond count
    /// is refused with the likely unit mistake named.
    @Test(.vectors("ic")) func certificateAtIsUnixSeconds() throws {
        let vectors = try JSONValue.parse(try Vectors.text("ic/certificates.json"))
        let certificate = try #require(vectors["certificates"]?.arrayValue?.first { $0["id"] == "agent-rs/ivg37_time" })
        let hex = try #require(certificate["certificate_cbor_hex"]?.stringValue)
        let scope = ["--canister", "ivg37-qiaaa-aaaab-aaaga-cai"]
        let seconds = try Omni.run(["ic", "certificate", "verify", hex, "--at", "1763796900", "-o", "json"] + scope)
        #expect(seconds.status == 0, "\(seconds.stdoutText) \(seconds.stderrText)")
        #expect(try JSONValue.parse(seconds.stdoutText)["reference_time"] == "1763796900000000000")
        let nanoseconds = try Omni.run(["ic", "certificate", "verify", hex, "--at", "1763796900000000000"] + scope)
        #expect(nanoseconds.status == 3 && nanoseconds.stderrText.contains("milliseconds or nanoseconds"), "\(nanoseconds.stderrText)")
        let rfc3339 = try Omni.run(["ic", "certificate", "verify", hex, "--at", "2025-11-22T07:35:00Z", "--time-tolerance", "10s"] + scope)
        #expect(rfc3339.status == 0, "\(rfc3339.stderrText)")
    }

    /// Data that does not parse is malformed input (3); a value outside a list of choices is a usage error (2).
    @Test func dataIsExitThreeChoicesAreExitTwo() throws {
        let home = try Home()
        let data: [[String]] = [
            ["ic", "account-id", Self.ledger, "--subaccount", "0xzz"],
            ["ic", "account-id", Self.ledger, "--subaccount-principal", "nope"],
            ["ic", "account-id", "aaaaa-ab"],
            ["ic", "account", "encode", Self.ledger, "--subaccount", "1" + String(repeating: "0", count: 70)],
            ["ic", "principal", "from-bytes", "xyz"],
            ["ic", "request-status", "abcd", Self.ledger],
            ["ic", "read-state", Self.ledger, "/canister/", "--network", "http://127.0.0.1:9", "--root-key", "mainnet"],
            ["ic", "certificate", "verify", "00", "--subnet", "aaaaa-aa", "--at", "yesterday"],
            ["ic", "certificate", "verify", "00", "--subnet", "aaaaa-aa", "--lookup", "time"],
            ["ic", "identity", "delegate", "--save", "s", "--target", "not-a-principal"],
            ["ic", "identity", "verify-delegation", "{}", "--canister", "nope"],
            ["ic", "sign", Self.ledger, "m", "--query", "--nonce", "0xzz", "--out-file", home.path("n.json")],
            ["ic", "sign", Self.ledger, "m", "--query", "--expires-at", "1893456030000", "--out-file", home.path("e.json")],
            ["ic", "bls", "verify", "--public-key", "zz", "--signature", "00", "--message", "00"],
        ]
        for arguments in data {
            let result = try home.run(arguments)
            #expect(result.status == 3, "\(arguments): \(result.stderrText)")
        }
        let choices: [[String]] = [
            ["ic", "identity", "new", "x", "--type", "rsa"],
            ["ic", "query", Self.ledger, "m", "--input-format", "xml"],
            ["ic", "certificate", "verify", "00", "--subnet", "aaaaa-aa", "--input-format", "base64"],
            ["ic", "principal", "from-key", "--der", "00", "--input-format", "pem"],
            ["ic", "query", Self.ledger, "m", "--network", "ftp://example.org"],
            ["ic", "status", "--network", "nowhere"],
            ["ic", "query", Self.ledger, "m", "--time-tolerance", "soon"],
        ]
        for arguments in choices {
            let result = try home.run(arguments)
            #expect(result.status == 2, "\(arguments): \(result.stderrText)")
        }
    }

    // MARK: Batches

    /// `bls verify --batch` runs through the framework's batch loop: text, one JSON array, or JSON lines as --output
    /// says, in input order across chunks of 1024, exit 3 when a line is unusable.
    @Test(.vectors("bls")) func blsBatchFollowsTheOutputFormat() throws {
        let cases = try JSONValue.parseLines(Vectors.text("bls/ic_bls_generated_seed20260101_n10.jsonl"))
        var lines: [String] = []
        var expected: [Bool] = []
        var wrongLength: Set<Int> = []
        // More than two chunks, so results must stay in order across chunk boundaries.
        while lines.count < 2_500 {
            for item in cases {
                if item["case"] == "wrong_length" { wrongLength.insert(lines.count) }
                let object: JSONValue = ["public_key": item["pk"] ?? .null, "signature": item["sig"] ?? .null,
                                         "message": item["msg"] ?? .null, "id": .int(lines.count)]
                lines.append(object.serialized())
                expected.append(item["valid"]?.boolValue ?? false)
            }
        }
        let input = Data((lines.joined(separator: "\n") + "\n").utf8)
        let jsonl = try Omni.run(["ic", "bls", "verify", "--batch", "-", "-o", "jsonl"], stdin: input)
        #expect(jsonl.status == 3, "the wrong-length cases are unusable lines: \(jsonl.stderrText)")
        let verdicts = try JSONValue.parseLines(jsonl.stdoutText)
        #expect(verdicts.count == lines.count)
        var mismatches: [Int] = []
        var unusable = 0
        for (index, verdict) in verdicts.enumerated() {
            if verdict["line"] != .int(index + 1) { mismatches.append(index) }
            if wrongLength.contains(index) {
                unusable += 1
                if verdict["error"]?["kind"] != "malformed_input" { mismatches.append(index) }
            } else if verdict["id"] != .int(index) || verdict["valid"] != .bool(expected[index]) {
                mismatches.append(index)
            }
        }
        #expect(mismatches.isEmpty, "lines \(mismatches.prefix(10))")
        #expect(unusable == 12 * 10, "10 wrong-length cases in each copy of the 209")

        let valid = lines.indices.filter { expected[$0] }.prefix(3).map { lines[$0] }
        #expect(try Omni.run(["ic", "bls", "verify", "--batch", "-", "-o", "jsonl"], stdin: Data((valid.joined(separator: "\n") + "\n").utf8)).status == 0)
        let few = Data((lines.prefix(3).joined(separator: "\n") + "\nnot json\n").utf8)
        let json = try Omni.run(["ic", "bls", "verify", "--batch", "-", "-o", "json"], stdin: few)
        #expect(json.status == 3, "a line is unusable")
        let array = try #require(try JSONValue.parse(json.stdoutText).arrayValue, "one JSON array: \(json.stdoutText)")
        #expect(array.count == 4 && array[3]["error"]?["kind"] == "malformed_input")
        let text = try Omni.run(["ic", "bls", "verify", "--batch", "-"], stdin: few)
        let textLines = text.stdoutText.split(separator: "\n")
        #expect(textLines.count == 4 && textLines.allSatisfy { $0.hasPrefix("line ") }, "\(text.stdoutText)")
        #expect(textLines[3].contains("unusable"))
        #expect(try Omni.run(["ic", "bls", "verify", "--batch", "-", "--signature", "00"], stdin: few).status == 2)
    }

    // MARK: Key files

    /// `--pem`, `identity import --pem` and `--session`, and session files given to verify-delegation are refused when
    /// others may read them (exit 7, with the chmod to run); 0600 files are read.
    @Test func keyFilesMustBeReadableByTheirOwnerOnly() throws {
        let home = try Home()
        _ = try home.json(["ic", "identity", "new", "root", "--use"])
        let pem = try Self.ed25519PEM()
        let open = try home.write("open.pem", pem, mode: 0o644)
        let group = try home.write("group.pem", pem, mode: 0o640)
        let closed = try home.write("closed.pem", pem, mode: 0o600)
        let session = home.path("s.session.json")
        _ = try home.json(["ic", "identity", "delegate", "--out-file", session])
        let openSession = try home.write("open.session.json", try String(contentsOfFile: session, encoding: .utf8), mode: 0o644)
        for file in [open, group] {
            for arguments in [["ic", "sign", Self.ledger, "m", "--query", "--pem", file, "--out-file", home.path("x.json")],
                              ["ic", "identity", "import", "k", "--pem", file],
                              ["ic", "identity", "whoami", "--pem", file]] {
                let result = try home.run(arguments)
                #expect(result.status == 7 && result.stderrText.contains("chmod 600 \(file)"), "\(arguments): \(result.stderrText)")
            }
        }
        for arguments in [["ic", "identity", "import", "s", "--session", openSession],
                          ["ic", "identity", "verify-delegation", "@" + openSession]] {
            let result = try home.run(arguments)
            #expect(result.status == 7 && result.stderrText.contains("chmod 600"), "\(arguments): \(result.stderrText)")
        }
        #expect(try home.run(["ic", "identity", "import", "k", "--pem", closed]).status == 0)
        #expect(try home.run(["ic", "identity", "import", "s", "--session", session]).status == 0)
        #expect(try home.run(["ic", "identity", "verify-delegation", "@" + session]).status == 0)
    }

    /// A session file from outside is verified before it is stored: a forged or expired chain is a failed
    /// verification (exit 1, with the reason), a malformed file malformed input (3); `--root-key` goes with --session.
    @Test func sessionImportVerifiesTheChain() throws {
        let home = try Home()
        _ = try home.json(["ic", "identity", "new", "root", "--use"])
        let session = home.path("good.session.json")
        _ = try home.json(["ic", "identity", "delegate", "--out-file", session, "--lifetime", "1h"])
        var object = try #require(try JSONValue.parse(try String(contentsOfFile: session, encoding: .utf8)).objectValue)
        var chain = try #require(object["delegation_chain"]?.objectValue)
        var links = try #require(chain["delegations"]?.arrayValue)
        var link = try #require(links[0].objectValue)
        let signature = try #require(link["signature"]?.stringValue)
        link["signature"] = .string((signature.first == "0" ? "1" : "0") + signature.dropFirst())
        links[0] = .object(link)
        chain["delegations"] = .array(links)
        object["delegation_chain"] = .object(chain)
        let forged = try home.write("forged.session.json", JSONValue.object(object).serialized())

        // Expired: the same session re-signed by the root key with an expiry in 2023 (by Python, not by omni).
        let rootPEM = try home.write("root.pem", try home.run(["ic", "identity", "export", "root", "--show-private-key"]).stdoutText)
        let script = """
            import json, sys
            sys.path.insert(0, sys.argv[1])
            from ic_peer import rih, domain
            from cryptography.hazmat.primitives import serialization
            root = serialization.load_pem_private_key(open(sys.argv[2], "rb").read(), None)
            session = json.load(open(sys.argv[3]))
            link = session["delegation_chain"]["delegations"][0]
            expiration = 1_700_000_000 * 10**9
            link["delegation"]["expiration"] = format(expiration, "x")
            fields = {"pubkey": bytes.fromhex(link["delegation"]["pubkey"]), "expiration": expiration}
            link["signature"] = root.sign(domain("ic-request-auth-delegation") + rih(fields)).hex()
            print(json.dumps(session))
            """
        let peers = Repository.root.appendingPathComponent("Tests/Peers").path
        let python = try Subprocess.run("/usr/bin/env", ["python3", "-c", script, peers, rootPEM, session])
        try #require(python.status == 0, "\(python.stderrText)")
        let expired = try home.write("expired.session.json", python.stdoutText)
        #expect(try home.json(["ic", "identity", "verify-delegation", "@" + expired, "--at", "2023-01-01T00:00:00Z"])["valid"] == true,
                "the re-signed chain is genuine; only its expiry is past")

        for (file, reason) in [(forged, "delegation_chain"), (expired, "expired")] {
            let result = try home.run(["ic", "identity", "import", "x", "--session", file, "-o", "json"])
            #expect(result.status == 1, "\(reason): \(result.stderrText)")
            let error = try Self.errorJSON(result)
            #expect(error["kind"] == "verification_failed", "\(error)")
            #expect(error["message"]?.stringValue?.hasPrefix("verification failed (\(reason))") == true, "\(error)")
        }
        #expect(try home.run(["ic", "identity", "list", "-o", "json"]).stdoutText.contains("\"x\"") == false, "nothing was stored")
        let malformed = try home.write("bad.session.json", "{\"kind\": \"delegated-session\"")
        #expect(try home.run(["ic", "identity", "import", "x", "--session", malformed]).status == 3)
        #expect(try home.run(["ic", "identity", "import", "x", "--session", session, "--root-key", "mainnet"]).status == 0)
        #expect(try home.run(["ic", "identity", "import", "y", "--pem", rootPEM, "--root-key", "mainnet"]).status == 2,
                "--root-key belongs to --session")
    }

    // MARK: Network facts

    /// `ic status` labels the replica's self-reported root key: unverified without a key to compare, matches_trusted
    /// with the right --root-key, mismatch with another.
    @Test func statusLabelsTheReportedRootKey() throws {
        let replica = try Self.shared.get()
        let url = try replica.string("url"), rootKey = try replica.string("root_key")
        for (trust, label) in [([String](), "unverified"), (["--root-key", rootKey], "matches_trusted"), (["--root-key", "mainnet"], "mismatch")] {
            let result = try Omni.run(["ic", "status", "--network", url, "-o", "json"] + trust)
            #expect(result.status == 0, "\(result.stderrText)")
            let status = try JSONValue.parse(result.stdoutText)
            #expect(status["root_key"]?.stringValue == rootKey)
            #expect(status["root_key_trust"]?.stringValue == label, "\(trust)")
            if label == "mismatch" { #expect(result.stderrText.contains("will not verify"), "\(result.stderrText)") }
        }
        let text = try Omni.run(["ic", "status", "--network", url])
        #expect(text.stdoutText.contains(rootKey + " (unverified: reported by the replica itself"), "\(text.stdoutText)")
    }

    /// A clock 10 minutes off is a configuration problem of this machine (exit 7) with no identity hint; a
    /// correction within the tolerance is a note in ClockSkew's words.
    @Test func clockSkewIsNamedInTheClocksWords() throws {
        let replica = try Self.shared.get()
        let url = try replica.string("url"), rootKey = try replica.string("root_key"), canister = try replica.string("canister_id")
        defer { _ = try? replica.requestJSON("/_control", method: "POST", body: ["action": "reset_config"]) }
        let cache = FileManager.default.temporaryDirectory.appendingPathComponent("omni-e2e-cache-\(UUID().uuidString)").path
        func call() throws -> ProcessResult {
            try Omni.run(["ic", "call", canister, "greet_update", "(\"clock\")", "--network", url, "--root-key", rootKey],
                         environment: ["XDG_CACHE_HOME": cache, "OMNI_IC_POLL_INTERVAL": "50ms"])
        }
        try replica.requestJSON("/_control", method: "POST", body: ["action": "reset_config", "clock_skew_s": 600])
        let refused = try call()
        #expect(refused.status == 7, "\(refused.stderrText)")
        #expect(refused.stderrText.contains("s behind the network") && !refused.stderrText.contains("identity list"), "\(refused.stderrText)")
        try replica.requestJSON("/_control", method: "POST", body: ["action": "reset_config", "clock_skew_s": 200])
        let corrected = try call()
        #expect(corrected.status == 0, "\(corrected.stderrText)")
        #expect(["199", "200", "201"].contains { corrected.stderrText.contains("note: local clock is \($0) s behind the network") },
                "\(corrected.stderrText)")
    }

    // MARK: Completion

    /// `--identity <Tab>` offers the stored identities (and anonymous) in bash, zsh and fish, through the generated
    /// completion scripts and `omni __complete identities`.
    @Test func identityNamesCompleteInRealShells() throws {
        let home = try Home()
        for name in ["alice", "bob"] { _ = try home.json(["ic", "identity", "new", name]) }
        let bin = URL(fileURLWithPath: Omni.executable).deletingLastPathComponent().path
        let environment = ["PATH": bin + ":/usr/bin:/bin", "HOME": home.home.path, "XDG_CONFIG_HOME": home.config.path,
                           "LANG": "C.UTF-8"]
        var checked = 0
        let bash = """
            source <(omni completions bash)
            COMP_WORDS=(omni ic sign --identity ""); COMP_CWORD=4; _omni
            printf '%s\\n' "${COMPREPLY[@]}"
            COMP_WORDS=(omni ic identity whoami --identity a); COMP_CWORD=5; _omni
            printf 'prefix:%s\\n' "${COMPREPLY[@]}"
            """
        // zsh's completion builtins exist only inside the line editor: compadd is stood in for by a function that
        // prints what it is given; the generated _omni runs as is.
        let zsh = """
            compdef() { :; }
            compadd() { [[ $1 == -a ]] && print -l -- ${(P)2}; }
            source <(omni completions zsh)
            words=(omni ic sign --identity ""); CURRENT=5; _omni
            """
        let fish = """
            omni completions fish | source
            complete -C 'omni ic sign --identity '
            """
        for (shell, script) in [("bash", bash), ("zsh", zsh), ("fish", fish)] {
            guard FileManager.default.isExecutableFile(atPath: "/usr/bin/" + shell) else {
                Issue.record("\(shell) is not installed at /usr/bin/\(shell)")
                continue
            }
            let result = try Subprocess.run("/usr/bin/" + shell, ["-c", script], environment: environment)
            #expect(result.status == 0, "\(shell): \(result.stderrText)")
            let words = Set(result.stdoutText.split(separator: "\n").map { String($0.split(separator: "\t").first ?? "") })
            let offered = { #expect(words.isSuperset(of: ["alice", "bob", "anonymous"]), "\(shell): \(result.stdoutText) \(result.stderrText)") }
            // zsh once failed here: its function's `local path=…` is tied to PATH, so `omni __complete` was not found.
            offered()
            if shell == "bash" { #expect(words.contains("prefix:alice") && !words.contains("prefix:bob"), "\(result.stdoutText)") }
            checked += 1
        }
        #expect(checked == 3)
    }

    // MARK: Helpers

    static func ed25519PEM() throws -> String {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("omni-e2e-key-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: directory) }
        let file = directory.appendingPathComponent("key.pem").path
        let generated = try Subprocess.run("/usr/bin/env", ["openssl", "genpkey", "-algorithm", "ed25519", "-out", file])
        guard generated.status == 0 else { throw TestSupportError("openssl genpkey: \(generated.stderrText)") }
        return try String(contentsOfFile: file, encoding: .utf8)
    }

    static func permissions(_ path: String) throws -> Int {
        (try FileManager.default.attributesOfItem(atPath: path)[.posixPermissions] as? NSNumber)?.intValue ?? -1
    }

    static func errorJSON(_ result: ProcessResult) throws -> JSONValue {
        guard let line = result.stderrText.split(separator: "\n").last(where: { $0.hasPrefix("{") }),
              let error = try JSONValue.parse(String(line))["error"] else {
            throw TestSupportError("no JSON error on stderr: \(result.stderrText)")
        }
        return error
    }

    /// A private HOME and XDG_CONFIG_HOME (identities, config), removed when the value goes away.
    final class Home {
        let directory: URL
        var home: URL { directory.appendingPathComponent("home") }
        var config: URL { directory.appendingPathComponent("config") }

        init() throws {
            directory = FileManager.default.temporaryDirectory.appendingPathComponent("omni-ic-cli-\(UUID().uuidString)")
            try FileManager.default.createDirectory(at: home, withIntermediateDirectories: true)
        }

        deinit { try? FileManager.default.removeItem(at: directory) }

        func path(_ name: String) -> String { home.appendingPathComponent(name).path }

        func run(_ arguments: [String], stdin: Data? = nil, environment: [String: String] = [:]) throws -> ProcessResult {
            let base = ["HOME": home.path, "XDG_CONFIG_HOME": config.path, "XDG_CACHE_HOME": directory.appendingPathComponent("cache").path]
            return try Subprocess.run(Omni.executable, arguments, stdin: stdin ?? Data(),
                                      environment: Omni.environment(base.merging(environment) { $1 }), currentDirectory: home)
        }

        func json(_ arguments: [String], environment: [String: String] = [:]) throws -> JSONValue {
            let result = try run(arguments + ["-o", "json"], environment: environment)
            guard result.status == 0 else {
                throw TestSupportError("omni \(arguments.joined(separator: " ")) exited \(result.status): \(result.stderrText)")
            }
            return try JSONValue.parse(Array(result.stdout))
        }

        @discardableResult
        func write(_ name: String, _ text: String, mode: Int = 0o600) throws -> String {
            let file = home.appendingPathComponent(name)
            try text.write(to: file, atomically: true, encoding: .utf8)
            try FileManager.default.setAttributes([.posixPermissions: mode], ofItemAtPath: file.path)
            return file.path
        }
    }
}
