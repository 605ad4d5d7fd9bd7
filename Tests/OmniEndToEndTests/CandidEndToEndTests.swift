import Foundation
import Testing
import OmniCodec
import OmniTestSupport

/// `omni candid …` through the real binary: the issue's examples, round trips of random values, JSON in and out,
/// .did files, upgrade and subtype checks, spec hashes, binary and blob input, and the error contract.
@Suite(.serialized, .offPool) struct CandidEndToEndTests {
    static let ledger = """
        // A ledger-like interface.
        type Account = record { owner : principal; subaccount : opt blob };
        type TransferArg = record { to : Account; amount : nat; fee : opt nat; memo : opt blob };
        type TransferError = variant {
          BadFee : record { expected_fee : nat };
          InsufficientFunds : record { balance : nat };
          TooOld;
        };
        service : {
          icrc1_balance_of : (Account) -> (nat) query;
          icrc1_transfer : (TransferArg) -> (variant { Ok : nat; Err : TransferError });
        }
        """

    /// A temporary directory with named files, removed when the test ends.
    final class Files {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("omni-candid-e2e-\(UUID())")

        init(_ files: [String: String]) throws {
            try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
            for (name, text) in files { try text.write(to: path(name), atomically: true, encoding: .utf8) }
        }

        func path(_ name: String) -> URL { directory.appendingPathComponent(name) }
        func callAsFunction(_ name: String) -> String { path(name).path }

        deinit { try? FileManager.default.removeItem(at: directory) }
    }

    static func candid(_ arguments: [String], stdin: Data? = nil) throws -> ProcessResult {
        try Omni.run(["candid"] + arguments, stdin: stdin)
    }

    // MARK: The issue's examples

    /// `printf '("\xff")' | omni candid encode` printed `…03efbfbd` (a replacement character) and exited 0.
    @Test func invalidUTF8IsRefusedAtItsRealByteOnEveryPath() throws {
        let bytes = Data([0x28, 0x22, 0xFF, 0x22, 0x29])
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("omni-utf8-\(UUID())")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: directory) }
        let file = directory.appendingPathComponent("values.txt")
        try bytes.write(to: file)
        for result in [try Self.candid(["encode"], stdin: bytes), try Self.candid(["encode", "-"], stdin: bytes),
                       try Self.candid(["encode", "@" + file.path])] {
            #expect(result.status == 3, "\(result.stderrText)")
            #expect(result.stdout.isEmpty)
            #expect(result.stderrText.contains("0xFF") || result.stderrText.contains("0xff"), "\(result.stderrText)")
            #expect(!result.stderrText.contains("0xef") && !result.stderrText.contains("0xEF"), "names the replacement, not the byte")
        }
        let json = Data([0x5B, 0x22, 0xFF, 0x22, 0x5D])
        let fromJSON = try Self.candid(["encode", "-t", "(text)", "--input-format", "json", "-"], stdin: json)
        #expect(fromJSON.status == 3, "\(fromJSON.stderrText)")
        #expect(fromJSON.stderrText.contains("UTF-8"), "\(fromJSON.stderrText)")
        let did = directory.appendingPathComponent("bad.did")
        try Data(Array("service : { m : (text) -> (); };\n// caf".utf8) + [0xE9] + Array("\n".utf8)).write(to: did)
        let checked = try Self.candid(["check", did.path])
        #expect(checked.status == 3, "\(checked.stderrText)")
        #expect(checked.stderrText.contains("line 2"), "\(checked.stderrText)")
        #expect(checked.stderrText.lowercased().contains("0xe9"), "\(checked.stderrText)")
    }

    @Test func encodeAndDecodeTheIssueExample() throws {
        let encoded = try Self.candid(["encode", "(42 : nat, \"hi\")"])
        #expect(encoded.status == 0, "\(encoded.stderrText)")
        #expect(encoded.stdoutText == "4449444c00027d712a026869\n")
        for output in [[], ["--output", "candid"], ["-o", "text"]] {
            let decoded = try Self.candid(["decode", "4449444c00027d712a026869"] + output)
            #expect(decoded.status == 0, "\(output): \(decoded.stderrText)")
            #expect(decoded.stdoutText == "(42 : nat, \"hi\")\n", "\(output)")
        }
        let json = try Self.candid(["decode", "4449444c00027d712a026869", "--output", "json"])
        #expect(try JSONValue.parse(Array(json.stdout)) == ["42", "hi"])
        // didc's hex input habits: 0x prefix, whitespace and line breaks (xxd -p) are fine.
        let spaced = try Self.candid(["decode", " 0x4449444c0002\n7d712a026869\n"])
        #expect(spaced.stdoutText == "(42 : nat, \"hi\")\n", "\(spaced.stderrText)")
    }

    @Test func messagesFromStdinAndFiles() throws {
        let fromStdin = try Self.candid(["encode"], stdin: Data("(42 : nat, \"hi\")".utf8))
        #expect(fromStdin.stdoutText == "4449444c00027d712a026869\n", "\(fromStdin.stderrText)")
        let decoded = try Self.candid(["decode", "-"], stdin: Data("4449444c00027d712a026869\n".utf8))
        #expect(decoded.stdoutText == "(42 : nat, \"hi\")\n", "\(decoded.stderrText)")
        let files = try Files(["values.txt": "(record { a = 1 : nat8 })"])
        let fromFile = try Self.candid(["encode", "@" + files("values.txt")])
        #expect(fromFile.stdoutText == "4449444c016c01617b010001\n", "\(fromFile.stderrText)")
    }

    @Test func binaryOutputAndBinaryInput() throws {
        let binary = try Self.candid(["encode", "(42 : nat, \"hi\")", "--format", "binary"])
        #expect(binary.status == 0, "\(binary.stderrText)")
        #expect(Array(binary.stdout) == (try Hex.decode("4449444c00027d712a026869")))
        let fromStdin = try Self.candid(["decode", "--input-format", "binary", "-"], stdin: binary.stdout)
        #expect(fromStdin.stdoutText == "(42 : nat, \"hi\")\n", "\(fromStdin.stderrText)")
        let omitted = try Self.candid(["decode", "-i", "binary"], stdin: binary.stdout)
        #expect(omitted.stdoutText == "(42 : nat, \"hi\")\n", "MESSAGE defaults to stdin: \(omitted.stderrText)")
        let files = try Files([:])
        try binary.stdout.write(to: files.path("message.bin"))
        let fromFile = try Self.candid(["decode", "--input-format", "binary", "@" + files("message.bin"), "-o", "json"])
        #expect(try JSONValue.parse(Array(fromFile.stdout)) == ["42", "hi"])
        let forgotten = try Self.candid(["decode", "@" + files("message.bin")])
        #expect(forgotten.status == 3 && forgotten.stderrText.contains("add --input-format binary"), "\(forgotten.stderrText)")
        let literal = try Self.candid(["decode", "--input-format", "binary", "4449"])
        #expect(literal.status == 2 && literal.stderrText.contains("give MESSAGE as @FILE or -"))
        let asJSON = try Self.candid(["encode", "(1)", "--format", "binary", "-o", "json"])
        #expect(asJSON.status == 2)
    }

    @Test func blobLiteralsInAndOut() throws {
        let blob = try Self.candid(["encode", "(42 : nat, \"hi\")", "--format", "blob"])
        #expect(blob.stdoutText == "blob \"\\44\\49\\44\\4c\\00\\02\\7d\\71\\2a\\02\\68\\69\"\n")
        let decoded = try Self.candid(["decode", "--input-format", "blob", "-"], stdin: blob.stdout)
        #expect(decoded.stdoutText == "(42 : nat, \"hi\")\n", "\(decoded.stderrText)")
        let forgotten = try Self.candid(["decode", "-"], stdin: blob.stdout)
        #expect(forgotten.status == 3 && forgotten.stderrText.contains("add --input-format blob"), "\(forgotten.stderrText)")
        let bare = try Self.candid(["decode", "-i", "blob", "\"DIDL\\00\\01\\71\\02hi\""])
        #expect(bare.stdoutText == "(\"hi\")\n", "the blob keyword may be left out: \(bare.stderrText)")
        let json = try Self.candid(["encode", "(\"x\")", "-f", "blob", "-o", "json"])
        #expect(try JSONValue.parse(Array(json.stdout)) == ["hex": "4449444c0001710178", "length": 9,
                                                            "blob": "blob \"\\44\\49\\44\\4c\\00\\01\\71\\01\\78\""])
    }

    // MARK: Round trips of random values

    static let roundTripTypes = [
        "(nat, int, text, bool, null)",
        "(nat8, nat16, nat32, nat64, int8, int16, int32, int64)",
        "(float32, float64, principal, blob)",
        "(opt text, vec nat32, record { id : nat64; name : text; owner : opt principal })",
        "(variant { ok : nat; err : text; none }, vec record { nat; text }, reserved)",
        "(func (nat) -> (text) query, service { m : () -> () }, vec opt int16)",
    ]

    /// random → encode → decode for each type list: the hex of `random` equals `encode` of its text, decoding that
    /// hex prints the same text, and the JSON mapping encodes back to the same bytes.
    @Test(arguments: roundTripTypes)
    func randomValuesRoundTrip(types: String) throws {
        let seed = SeededGenerator.freshSeed()
        let random = try Self.candid(["random", "--types", types, "--seed", String(seed), "--count", "6", "-o", "jsonl"])
        let document = try Self.candid(["random", "--types", types, "--seed", String(seed), "--count", "6", "-o", "json"])
        #expect(try JSONValue.parse(document.stdoutText).arrayValue?.count == 6, "--output json is one array of the same items")
        try #require(random.status == 0, "seed \(seed): \(random.stderrText)")
        let lines = random.stdoutText.split(separator: "\n")
        try #require(lines.count == 6, "seed \(seed)")
        for line in lines {
            let item = try JSONValue.parse(String(line))
            let text = try #require(item["candid"]?.stringValue), hex = try #require(item["hex"]?.stringValue)
            let values = try #require(item["values"])
            let context = "seed \(seed), types \(types), values \(text)"
            let encoded = try Self.candid(["encode", "--types", types, text])
            #expect(encoded.status == 0 && encoded.stdoutText == hex + "\n", "\(context): \(encoded.stderrText)")
            let decoded = try Self.candid(["decode", "--types", types, "--compact", hex])
            #expect(decoded.stdoutText == text + "\n", "\(context): \(decoded.stderrText)")
            let fromJSON = try Self.candid(["encode", "--types", types, "--input-format", "json", values.serialized()])
            #expect(fromJSON.stdoutText == hex + "\n", "\(context) via JSON: \(fromJSON.stderrText)")
            let toJSON = try Self.candid(["decode", "--types", types, "-o", "json", hex])
            #expect(try JSONValue.parse(Array(toJSON.stdout)) == values, "\(context)")
        }
    }

    @Test func randomIsReproducibleAndCounts() throws {
        let first = try Self.candid(["random", "-t", "(nat, opt text, vec int8)", "--seed", "42", "--count", "3"])
        let again = try Self.candid(["random", "-t", "(nat, opt text, vec int8)", "--seed", "42", "--count", "3"])
        #expect(first.status == 0 && first.stdout == again.stdout, "\(first.stderrText)")
        #expect(first.stdoutText.split(separator: "\n").count == 3)
        let third = try Self.candid(["random", "-t", "(nat, opt text, vec int8)", "--seed", "44"])
        #expect(third.stdoutText.split(separator: "\n").last == first.stdoutText.split(separator: "\n").last,
                "value i uses seed + i")
        let flat = try Self.candid(["random", "-t", "vec vec nat", "--max-depth", "0", "--seed", "1"])
        #expect(flat.stdoutText == "(vec {})\n", "\(flat.stderrText)")
        #expect(try Self.candid(["random", "--seed", "1"]).status == 2, "types are required")
        #expect(try Self.candid(["random", "-t", "(nat)", "--count", "0"]).status == 2)
        let empty = try Self.candid(["random", "-t", "(empty)"])
        #expect(empty.status == 3 && empty.stderrText.contains("no finite values"), "\(empty.stderrText)")
    }

    // MARK: .did files

    @Test func methodTypesGiveNamesBothWays() throws {
        let files = try Files(["ledger.did": Self.ledger])
        let did = files("ledger.did")
        let arguments = "(record { to = record { owner = principal \"aaaaa-aa\" }; amount = 5 })"
        let encoded = try Self.candid(["encode", "--did", did, "--method", "icrc1_transfer", arguments])
        try #require(encoded.status == 0, "\(encoded.stderrText)")
        let hex = encoded.stdoutText.trimmingCharacters(in: .whitespacesAndNewlines)
        let typed = try Self.candid(["decode", "--did", did, "--method", "icrc1_transfer", "--compact", hex])
        #expect(typed.stdoutText == "(record { to = record { owner = principal \"aaaaa-aa\"; subaccount = null }; fee = null; memo = null; amount = 5 : nat })\n",
                "\(typed.stderrText)")
        #expect(typed.stderrText.isEmpty)
        // Without types the same message can only show hashes, and says how to get names.
        let untyped = try Self.candid(["decode", hex])
        #expect(untyped.stdoutText.contains("3_573_748_184") || untyped.stdoutText.contains("3573748184"), "\(untyped.stdoutText)")
        #expect(untyped.stderrText.contains("--did FILE --method NAME"))
        #expect(try Self.candid(["decode", hex, "--quiet"]).stderrText.isEmpty)
        // JSON arguments for the method, and the JSON mapping of the result with names.
        let fromJSON = try Self.candid(["encode", "-d", did, "-m", "icrc1_transfer", "-i", "json",
                                        "[{\"to\": {\"owner\": \"aaaaa-aa\"}, \"amount\": \"5\"}]"])
        #expect(fromJSON.stdoutText == encoded.stdoutText, "\(fromJSON.stderrText)")
        let reply = try Self.candid(["encode", "-d", did, "-m", "icrc1_transfer", "--returns",
                                     "(variant { Err = variant { InsufficientFunds = record { balance = 7 } } })"])
        #expect(reply.status == 2, "encode has no --returns")
        let replyHex = try Self.candid(["encode", "-t", "(variant { Ok : nat; Err : variant { InsufficientFunds : record { balance : nat } } })",
                                        "(variant { Err = variant { InsufficientFunds = record { balance = 7 } } })"])
        let result = try Self.candid(["decode", "-d", did, "-m", "icrc1_transfer", "--returns", "-o", "json",
                                      replyHex.stdoutText.trimmingCharacters(in: .whitespacesAndNewlines)])
        #expect(try JSONValue.parse(Array(result.stdout)) == [["Err": ["InsufficientFunds": ["balance": "7"]]]], "\(result.stderrText)")
        let balance = try Self.candid(["decode", "-d", did, "-m", "icrc1_balance_of", "-r", "4449444c00017d2a"])
        #expect(balance.stdoutText == "(42 : nat)\n", "\(balance.stderrText)")
    }

    @Test func typeDefinitionsFromADidFileServeTypesAndRandom() throws {
        let files = try Files(["ledger.did": Self.ledger])
        let encoded = try Self.candid(["encode", "--did", files("ledger.did"), "--types", "(Account)",
                                       "(record { owner = principal \"2vxsx-fae\" })"])
        #expect(encoded.status == 0, "\(encoded.stderrText)")
        let random = try Self.candid(["random", "--did", files("ledger.did"), "--method", "icrc1_transfer", "--seed", "3"])
        try #require(random.status == 0, "\(random.stderrText)")
        let back = try Self.candid(["encode", "--did", files("ledger.did"), "--method", "icrc1_transfer", random.stdoutText])
        #expect(back.status == 0, "\(back.stderrText)")
        let unknown = try Self.candid(["encode", "--did", files("ledger.did"), "--method", "nope", "()"])
        #expect(unknown.status == 3 && unknown.stderrText.contains("no method \"nope\""), "\(unknown.stderrText)")
        let withoutMethod = try Self.candid(["encode", "--did", files("ledger.did"), "()"])
        #expect(withoutMethod.status == 2 && withoutMethod.stderrText.contains("methods: icrc1_balance_of, icrc1_transfer"))
        #expect(try Self.candid(["encode", "--method", "m", "()"]).status == 2, "--method needs --did")
        #expect(try Self.candid(["encode", "-t", "(nat)", "-d", files("ledger.did"), "-m", "icrc1_transfer", "()"]).status == 2)
        #expect(try Self.candid(["decode", "--returns", "4449444c0000"]).status == 2, "--returns needs a method")
    }

    // MARK: check

    @Test func checkValidatesAndComparesVersions() throws {
        let files = try Files([
            "old.did": "type T = record { x : nat };\nservice : { produce : () -> (T); consume : (T) -> (); peek : () -> (nat) query }",
            "compatible.did": "type T = record { x : nat; y : opt nat };\n"
                + "service : { produce : () -> (T); consume : (T, opt text) -> (); peek : () -> (nat) query; added : () -> () }",
            "required.did": "type T = record { x : nat; y : nat };\nservice : { produce : () -> (T); consume : (T) -> (); peek : () -> (nat) query }",
            "mode.did": "type T = record { x : nat };\nservice : { produce : () -> (T); consume : (T) -> (); peek : () -> (nat) }",
            "removed.did": "type T = record { x : nat };\nservice : { produce : () -> (T); consume : (T) -> () }",
            "broken.did": "type A = record {\n  x : nat\n  y : text };",
            "unknown.did": "type A = record { x : Missing };",
        ])
        let valid = try Self.candid(["check", files("old.did")])
        #expect(valid.status == 0 && valid.stdoutText.hasPrefix("valid: "), "\(valid.stderrText)")
        let validJSON = try Self.candid(["check", files("old.did"), "-o", "json"])
        #expect(try JSONValue.parse(Array(validJSON.stdout))["methods"] == ["produce", "consume", "peek"])

        let yes = try Self.candid(["check", files("compatible.did"), files("old.did")])
        #expect(yes.status == 0 && yes.stdoutText.hasPrefix("compatible: "), "\(yes.stdoutText)\(yes.stderrText)")
        let noStrict = try Self.candid(["check", files("compatible.did"), files("old.did"), "--strict"])
        #expect(noStrict.status == 1 && noStrict.stdoutText.contains("not equivalent"), "\(noStrict.stdoutText)")
        let same = try Self.candid(["check", files("old.did"), files("old.did"), "--strict"])
        #expect(same.status == 0 && same.stdoutText.hasPrefix("equivalent: "))

        let required = try Self.candid(["check", files("required.did"), files("old.did")])
        #expect(required.status == 1)
        #expect(required.stdoutText == "incompatible: method \"consume\" . argument 1 . record field \"y\": missing in the old version, and its type nat in the new version is not optional\n")
        let requiredJSON = try Self.candid(["check", files("required.did"), files("old.did"), "-o", "json"])
        let verdict = try JSONValue.parse(Array(requiredJSON.stdout))
        #expect(verdict["compatible"] == false && verdict["path"] == "method \"consume\" . argument 1 . record field \"y\"")
        let mode = try Self.candid(["check", files("mode.did"), files("old.did")])
        #expect(mode.status == 1 && mode.stdoutText.contains("method \"peek\": the annotations differ: an update in the new version, a query in the old version"),
                "\(mode.stdoutText)")
        let removed = try Self.candid(["check", files("removed.did"), files("old.did")])
        #expect(removed.status == 1 && removed.stdoutText.contains("method \"peek\": the method is missing in the new version"), "\(removed.stdoutText)")

        let broken = try Self.candid(["check", files("broken.did")])
        #expect(broken.status == 3)
        #expect(broken.stderrText.contains("broken.did, line 3, column 3"), "\(broken.stderrText)")
        let brokenJSON = try Self.candid(["check", files("broken.did"), "-o", "json"])
        #expect(try JSONValue.parse(Array(brokenJSON.stderr))["error"]?["kind"] == "malformed_input")
        let unknown = try Self.candid(["check", files("unknown.did"), "-o", "json"])
        #expect(unknown.status == 3)
        #expect(try JSONValue.parse(Array(unknown.stderr))["error"]?["kind"] == "invalid_type")
        let missing = try Self.candid(["check", files("nope.did")])
        #expect(missing.status == 3 && missing.stderrText.contains("no such file"))
        #expect(try Self.candid(["check", files("old.did"), "--strict"]).status == 2, "--strict needs OLD")
        let piped = try Self.candid(["check", "-"], stdin: Data(Self.ledger.utf8))
        #expect(piped.status == 0, "\(piped.stderrText)")
    }

    // MARK: subtype and hash

    @Test func subtypeAnswersWithExitStatusAndReason() throws {
        let yes = try Self.candid(["subtype", "nat", "int"])
        #expect(yes.status == 0 && yes.stdoutText == "yes: nat <: int\n")
        let no = try Self.candid(["subtype", "int", "nat"])
        #expect(no.status == 1 && no.stdoutText == "no: int is not a subtype of nat\n")
        let field = try Self.candid(["subtype", "record { a : nat }", "record { a : nat; b : nat }", "-o", "json"])
        #expect(field.status == 1)
        #expect(try JSONValue.parse(Array(field.stdout)) == ["subtype": false, "path": "record field \"b\"",
                                                              "reason": "the field is missing and its type nat is not optional"])
        let nested = try Self.candid(["subtype", "vec variant { a : nat8; b }", "vec variant { a : nat; b }"])
        #expect(nested.stdoutText == "no: vec element . variant case \"a\": nat8 is not a subtype of nat\n")
        #expect(try Self.candid(["subtype", "(nat, text, bool)", "(int, text)"]).status == 0, "argument lists")
        #expect(try Self.candid(["subtype", "(nat)", "(nat, text)"]).status == 1)
        #expect(try Self.candid(["subtype", "(nat)", "(nat, opt text)"]).status == 0)
        let files = try Files(["defs.did": """
            type List = opt record { head : nat; tail : List };
            type IntList = opt record { head : int; tail : IntList };
            type Stream = record { head : nat; next : func () -> (Stream) };
            type IntStream = record { head : int; next : func () -> (IntStream) };
            """])
        #expect(try Self.candid(["subtype", "--did", files("defs.did"), "Stream", "IntStream"]).status == 0)
        let recursive = try Self.candid(["subtype", "--did", files("defs.did"), "IntStream", "Stream"])
        #expect(recursive.status == 1 && recursive.stdoutText.contains("record field \"head\": int is not a subtype of nat"),
                "\(recursive.stdoutText)")
        let bad = try Self.candid(["subtype", "nat", "record {"])
        #expect(bad.status == 3 && bad.stderrText.contains("(T2, line 1, column 9)"), "\(bad.stderrText)")
        let unknown = try Self.candid(["subtype", "Nope", "nat"])
        #expect(unknown.status == 3 && unknown.stderrText.contains("(T1): unknown type \"Nope\""), "\(unknown.stderrText)")
    }

    /// The spec suite's named-field vectors carry the hashes on the wire: decoding them without types shows the
    /// ids, and `omni candid hash` must produce the same ids from the names.
    @Test(.vectors("candid")) func hashesMatchTheSpecVectors() throws {
        let suite = try Vectors.text("candid/construct.test.did")
        func blob(before description: String) throws -> String {
            let lines = suite.split(separator: "\n")
            let index = try #require(lines.firstIndex { $0.contains("\"\(description)\"") }, "\(description) in construct.test.did")
            let text = lines[max(0, index - 1)...index].joined(separator: "\n")
            let start = try #require(text.range(of: "blob \""))
            let end = try #require(text[start.upperBound...].firstIndex(of: "\""))
            return String(text[start.lowerBound...end])
        }
        let named = try Self.candid(["decode", "--input-format", "blob", "--compact", try blob(before: "record: named fields")])
        #expect(named.stdoutText == "(record { 4_895_187 = true; 5_097_222 = 42 : int })\n"
                || named.stdoutText == "(record { 4895187 = true; 5097222 = 42 : int })\n", "\(named.stdoutText)\(named.stderrText)")
        let hashes = try Self.candid(["hash", "bar", "foo"])
        #expect(hashes.stdoutText == "4895187 bar\n5097222 foo\n")
        let snowman = try Self.candid(["decode", "--input-format", "blob", "--compact", try blob(before: "record: unicode field")])
        let single = try Self.candid(["hash", "☃"])
        #expect(single.stdoutText == "11272781\n")
        #expect(snowman.stdoutText.replacingOccurrences(of: "_", with: "").contains("11272781 = null"), "\(snowman.stdoutText)")
        let json = try Self.candid(["hash", "foo", "-o", "json"])
        #expect(try JSONValue.parse(Array(json.stdout)) == [["name": "foo", "id": 5097222]])
        #expect(try Self.candid(["hash"]).status == 2)
    }

    // MARK: Errors

    @Test func malformedInputExitsThreeWithWhere() throws {
        let truncated = try Self.candid(["decode", "4449444c00027d712a0268"])
        #expect(truncated.status == 3)
        #expect(truncated.stderrText == "omni: malformed Candid (byte 9, at argument 2): length 2 exceeds the 1 remaining bytes\n")
        let magic = try Self.candid(["decode", "4449444d0000"])
        #expect(magic.status == 3 && magic.stderrText.contains("byte 0") && magic.stderrText.contains("DIDL"))
        let hex = try Self.candid(["decode", "4449444c00027d712a02686g"])
        #expect(hex.status == 3 && hex.stderrText.contains("byte 23"), "\(hex.stderrText)")
        let mismatch = try Self.candid(["decode", "-t", "(nat, nat)", "4449444c00027d712a026869"])
        #expect(mismatch.status == 3 && mismatch.stderrText.contains("(byte 9, at argument 2): expected nat, found text"))
        let nats = try Self.candid(["encode", "-t", "(record { owner : vec nat })", "(record { owner = vec { 1; 2 } })"])
        let path = try Self.candid(["decode", "-t", "(record { owner : vec nat8 })", nats.stdoutText])
        #expect(path.status == 3)
        #expect(path.stderrText.contains("at argument 1 . record field \"owner\" . vec[0]): expected nat8, found nat"), "\(path.stderrText)")
        let syntax = try Self.candid(["encode", "(42 : nat, \"hi\""])
        #expect(syntax.stderrText == "omni: Candid syntax error (line 1, column 16): expected ')' to close the argument list, found the end of the input\n")
        let range = try Self.candid(["encode", "-t", "(nat8)", "(300)"])
        #expect(range.status == 3 && range.stderrText.contains("line 1, column 2, at argument 1") && range.stderrText.contains("out of range"))
        let typesSyntax = try Self.candid(["encode", "-t", "(nat, rec)", "(1, 2)"])
        #expect(typesSyntax.stderrText == "omni: invalid Candid type (--types): unknown type \"rec\" (give --did FILE for its definition)\n")
        let typesPosition = try Self.candid(["encode", "-t", "(nat, record {)", "(1, 2)"])
        #expect(typesPosition.status == 3 && typesPosition.stderrText.contains("(--types, line 1, column 15)"), "\(typesPosition.stderrText)")
        let json = try Self.candid(["decode", "4449444c00027d712a0268", "-o", "json"])
        let error = try JSONValue.parse(Array(json.stderr))["error"]
        #expect(error?["kind"] == "malformed_input" && error?["exit_code"] == 3 && json.stdout.isEmpty)
        let badJSON = try Self.candid(["encode", "-t", "(nat)", "-i", "json", "[1,"])
        #expect(badJSON.status == 3)
        let typedJSON = try Self.candid(["encode", "-t", "(record { a : nat8 })", "-i", "json", "[{\"a\": 256}]", "-o", "json"])
        let typedError = try JSONValue.parse(Array(typedJSON.stderr))["error"]
        #expect(typedJSON.status == 3 && typedError?["kind"] == "type_mismatch", "\(typedJSON.stderrText)")
    }

    @Test func usageErrorsExitTwo() throws {
        for arguments in [["encode", "-i", "json", "[1]"], ["decode", "--output", "yaml", "4449444c0000"],
                          ["encode", "--output", "candid", "(1)"], ["decode", "-i", "base64", "00"],
                          ["subtype", "nat"], ["decode", "--work-budget", "0", "4449444c0000"]] {
            let result = try Self.candid(arguments)
            #expect(result.status == 2, "\(arguments): \(result.stderrText)")
            #expect(result.stderrText.contains("see 'omni candid"), "\(arguments): \(result.stderrText)")
        }
    }

    @Test func theWorkBudgetIsEnforcedAndAdjustable() throws {
        // `vec opt nat8` of absent options: one byte per element on the wire, two work units each in decoding.
        var message: [UInt8] = Array("DIDL".utf8) + [0x02, 0x6d, 0x01, 0x6e, 0x7b, 0x01, 0x00]
        let count = 600_000
        var length = count
        while length >= 0x80 { message.append(UInt8(length & 0x7F) | 0x80); length >>= 7 }
        message.append(UInt8(length))
        message += [UInt8](repeating: 0, count: count)
        let hex = Data(Hex.encode(message).utf8)
        let refused = try Self.candid(["decode", "--compact", "-"], stdin: hex)
        #expect(refused.status == 3, "\(refused.stderrText.prefix(300))")
        #expect(refused.stderrText.contains("work budget") && refused.stderrText.contains("--work-budget"))
        let allowed = try Self.candid(["decode", "--compact", "--work-budget", "5000000", "-o", "json", "-"], stdin: hex)
        #expect(allowed.status == 0, "\(allowed.stderrText)")
        let values = try JSONValue.parse(Array(allowed.stdout))
        #expect(values.arrayValue?.first?.arrayValue?.count == count)
    }
}
