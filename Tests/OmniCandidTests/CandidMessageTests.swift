import Foundation
import OmniCandid
import OmniCodec
import Testing

/// What Candid errors, explanations and warnings say: strict UTF-8 from bytes, structure behind type names,
/// arguments named as arguments, special-opt warnings as data, `.did` check errors with line and column, clean
/// import failures, duplicate labels as their own kind, and one location style per input kind.
@Suite struct CandidMessageTests {
    static func bytes(_ parts: Any...) -> [UInt8] {
        parts.flatMap { part -> [UInt8] in
            if let text = part as? String { return Array(text.utf8) }
            if let bytes = part as? [UInt8] { return bytes }
            return [part as! UInt8]
        }
    }

    // MARK: Strict UTF-8 from bytes

    @Test func invalidUTF8InTextValuesIsAnErrorAtItsRealPosition() throws {
        // `("\xff")`: the byte used to become U+FFFD and the text parsed.
        let error = try #require(throws: CandidError.self) { try Candid.parseArguments(utf8: Self.bytes("(\"", UInt8(0xFF), "\")")) }
        #expect(error.kind == .syntax && error.line == 1 && error.column == 3, "\(error)")
        #expect(error.message == "invalid UTF-8 sequence 0xFF")
        // After multi-byte characters the column still counts characters; the sequence shows its claimed bytes.
        let later = try #require(throws: CandidError.self) {
            try Candid.parseArguments(utf8: Self.bytes("(\"é\",\n  \"a", UInt8(0xE2), UInt8(0x82), "\")"))
        }
        #expect(later.line == 2 && later.column == 5 && later.message == "invalid UTF-8 sequence 0xE2 0x82", "\(later)")
        let truncated = try #require(throws: CandidError.self) { try Candid.parseValue(utf8: Self.bytes("\"", UInt8(0xF0), UInt8(0x9F))) }
        #expect(truncated.line == 1 && truncated.column == 2 && truncated.message == "invalid UTF-8 sequence 0xF0 0x9F")
        // An encoded surrogate (ED A0 80) is not UTF-8 either.
        #expect(throws: CandidError.self) { try Candid.parseType(utf8: Self.bytes("record { \"", UInt8(0xED), UInt8(0xA0), UInt8(0x80), "\" : nat }")) }
        // Valid bytes parse exactly like the text.
        #expect(try Candid.parseArguments(utf8: Array("(\"héllo ✓\", 5 : nat)".utf8)) == [.text("héllo ✓"), .nat(5)])
        #expect(try Candid.parseArgumentTypes(utf8: Array("(nat, text)".utf8)).map(\.type) == [.nat, .text])
    }

    @Test func invalidUTF8InADidFileIsNamedAsSuch() throws {
        // Decoded lossily, 0xFF became U+FFFD and the error named "byte 0xef", a byte that is not in the file.
        let error = try #require(throws: CandidError.self) { try CandidInterface.parse(utf8: Self.bytes("type A = ", UInt8(0xFF), ";")) }
        #expect(error.kind == .syntax && error.line == 1 && error.column == 10)
        #expect(error.message == "invalid UTF-8 sequence 0xFF")
        #expect(!error.description.contains("byte"), "text positions are line and column only: \(error)")
        let comment = try #require(throws: CandidError.self) {
            try CandidInterface.parse(utf8: Self.bytes("/* é */ type A = nat;\n// ", UInt8(0xC0), UInt8(0xAF), "\n"))
        }
        #expect(comment.line == 2 && comment.column == 4 && comment.message == "invalid UTF-8 sequence 0xC0 0xAF", "\(comment)")
        #expect(throws: CandidError.self) { try CandidTestFile.parse(utf8: Self.bytes("assert \"", UInt8(0xFF), "\" : ();")) }
    }

    @Test func anUnexpectedCharacterIsNamedByItsCodePoint() throws {
        let error = try #require(throws: CandidError.self) { try CandidInterface.parse("service : {}\u{200E}") }
        #expect(error.kind == .syntax && error.line == 1 && error.column == 13)
        #expect(error.message == "unexpected character U+200E (LEFT-TO-RIGHT MARK)")
        let ascii = try #require(throws: CandidError.self) { try CandidInterface.parse("type A = nat %") }
        #expect(ascii.message == "unexpected character '%'" && ascii.column == 14)
        let control = try #require(throws: CandidError.self) { try Candid.parseType("\u{7}") }
        #expect(control.message.hasPrefix("unexpected character U+0007"), "\(control)")
    }

    @Test func importedFilesAreReadAsBytesToo() throws {
        let resolver = CandidInterface.ImportResolver { path, _ in
            ("/lib/" + path, path == "bad.did" ? Self.bytes("type A = nat;\ntype B = ", UInt8(0xFE), ";") : Array("type C = nat;".utf8))
        }
        let error = try #require(throws: CandidError.self) { try CandidInterface.parse("import \"ok.did\";\nimport \"bad.did\";", resolver: resolver) }
        #expect(error.file == "/lib/bad.did" && error.line == 2 && error.column == 10 && error.message == "invalid UTF-8 sequence 0xFE", "\(error)")
        #expect(error.description == "Candid syntax error (/lib/bad.did, line 2, column 10): invalid UTF-8 sequence 0xFE")
    }

    // MARK: Explanations show structure

    static func upgrade(_ new: String, from old: String) throws -> CandidCompatibility {
        try CandidInterface.parse(new).checkUpgrade(from: try CandidInterface.parse(old))
    }

    @Test func aTypeThatKeepsItsNameIsExplainedInsideDownToTheCase() throws {
        let old = """
            type Tree = record { children : vec Tree; value : Value };
            type Value = variant { ok : nat; failed : record { code : nat } };
            service : { get : () -> (Tree) query }
            """
        // Through the recursion to the new case.
        let newCase = try Self.upgrade(old.replacingOccurrences(of: "failed : record { code : nat } }", with: "failed : record { code : nat }; lost }"), from: old)
        #expect(newCase.mismatch?.description == "method \"get\" . result 1 . record field \"value\" . variant case \"lost\": the case is only in the new version")
        // Down to the field whose type changed (nat → int), not "Value is not a subtype of Value".
        let widened = try Self.upgrade(old.replacingOccurrences(of: "code : nat", with: "code : int"), from: old)
        #expect(widened.mismatch?.description
                == "method \"get\" . result 1 . record field \"value\" . variant case \"failed\" . record field \"code\": int (new) is not a subtype of nat (old)")
        // The recursive field comes first; the explanation still finds the real difference, not "Tree is not a subtype of Tree".
        let recursive = try Self.upgrade(old.replacingOccurrences(of: "value : Value", with: "value : nat8"), from: old)
        let found = try #require(recursive.mismatch)
        #expect(found.path == ["method \"get\"", "result 1", "record field \"value\""], "\(found)")
        #expect(found.reason == "nat8 (new) is not a subtype of Value (old)")
    }

    @Test func aNameWhoseKindChangesShowsBothStructures() throws {
        let found = try #require(try Self.upgrade("type E = record { code : nat }; service : { f : () -> (E) }",
                                                  from: "type E = variant { code : nat }; service : { f : () -> (E) }").mismatch)
        #expect(found.description == "method \"f\" . result 1: E = record { code : nat } (new) is not a subtype of E = variant { code : nat } (old)")
        // Plain subtype questions name no sides.
        let environment = try CandidInterface.parse("type A = vec nat; type B = record { x : A }").environment
        let other = try CandidInterface.parse("type A = vec text; type B = record { x : A }").environment
        #expect(try Candid.subtypeMismatch(.named("B"), in: environment, of: .named("B"), in: other)?.description
                == "record field \"x\" . vec element: nat is not a subtype of text")
    }

    // MARK: Arguments are arguments

    @Test func argumentListsAreNamedAsArguments() throws {
        let lists = try Candid.checkSubtype(arguments: [.nat, .text], of: [.nat, .nat])
        #expect(lists.mismatches.map(\.description) == ["argument 2: text is not a subtype of nat"])
        let missing = try Candid.checkSubtype(arguments: [.nat], of: [.nat, .text, .opt(.text)])
        #expect(missing.mismatches.map(\.description) == ["argument 2: the argument is missing and its type text is not optional"])
        #expect(try Candid.checkSubtype(arguments: [.nat, .text, .bool], of: [.int, .text]).isCompatible, "extra values are ignored")
        let transfer = try Self.upgrade("service : { transfer : (nat, text) -> () }", from: "service : { transfer : (nat, nat) -> () }")
        #expect(transfer.mismatch?.path == ["method \"transfer\"", "argument 2"])
        #expect(transfer.mismatch?.reason == "nat (old) is not a subtype of text (new)")
        // Decoding and text errors count arguments from 1 too.
        let decoded = try #require(throws: CandidError.self) { try Candid.decode(try Candid.encode([.nat(1), .text("x")]), types: [.nat, .nat]) }
        #expect(decoded.pathDescription == "argument 2" && decoded.description.contains("(byte 9, at argument 2)"), "\(decoded)")
    }

    @Test func everyBrokenMethodIsListedWithItsSide() throws {
        let old = "service : { a : (nat) -> (); b : () -> (nat); c : () -> () query; d : () -> () }"
        let new = "service : { a : (nat8) -> (); b : () -> (int); c : () -> () }"
        let verdict = try Self.upgrade(new, from: old)
        #expect(verdict.mismatches.map(\.description) == [
            "method \"a\" . argument 1: nat (old) is not a subtype of nat8 (new)",
            "method \"b\" . result 1: int (new) is not a subtype of nat (old)",
            "method \"c\": the annotations differ: an update in the new version, a query in the old version",
            "method \"d\": the method is missing in the new version",
        ])
        #expect(verdict.mismatch == verdict.mismatches.first)
    }

    // MARK: The special opt rule warns, as data

    @Test func typesThatPassOnlyByTheSpecialOptRuleWarn() throws {
        let special = try Candid.checkSubtype(.opt(.text), of: .opt(.nat))
        #expect(special.isCompatible && special.warnings.count == 1)
        #expect(special.warnings.first?.kind == .specialOptRule && special.warnings.first?.path == ["opt"])
        #expect(special.warnings.first?.description == "opt: text is not a subtype of nat; inside the opt such values read as null (the special opt subtyping rule)")
        let bare = try Candid.checkSubtype(try Candid.parseType("record { a : text }"), of: try Candid.parseType("opt record { a : nat }"))
        #expect(bare.warnings.map(\.path) == [["opt", "record field \"a\""]])
        // The ordinary opt rules warn about nothing.
        for (sub, sup) in [("nat", "opt nat"), ("null", "opt nat"), ("reserved", "opt text"), ("opt nat", "opt int"), ("record {}", "record { x : opt nat }")] {
            #expect(try Candid.checkSubtype(try Candid.parseType(sub), of: try Candid.parseType(sup)).warnings.isEmpty, "\(sub) <: \(sup)")
        }
        // In an upgrade: a result whose optional record lost a required field.
        let upgrade = try Self.upgrade("type R = record { b : nat }; service : { get : () -> (opt R) }",
                                       from: "type R = record { a : nat; b : nat }; service : { get : () -> (opt R) }")
        #expect(upgrade.isCompatible)
        #expect(upgrade.warnings.map(\.description) == ["method \"get\" . result 1 . opt . record field \"a\": missing in the new version, and its type "
                                                       + "nat in the old version is not optional; inside the opt such values read as null (the special opt subtyping rule)"])
    }

    @Test func decodedValuesReadAsNullByTheSpecialOptRuleWarn() throws {
        // (opt "x") read at (opt nat): the value is dropped to null.
        let message = try Candid.encode([.opt(.text("x"))])
        var warnings: [CandidWarning] = []
        let values = try Candid.decode(message, types: [.opt(.nat)], warnings: &warnings)
        #expect(values == [.opt(nil)])
        let warning = try #require(warnings.first)
        #expect(warnings.count == 1 && warning.kind == .optionalValueDropped && warning.path == ["argument 1"])
        // DIDL (0–3), one table entry `opt text` (4–6), one argument of type 0 (7–8), the opt's tag (9): the text starts at 10.
        #expect(warning.offset == 10)
        #expect(warning.message.contains("a text value does not fit nat") && warning.message.contains("reads as null"), "\(warning)")
        #expect(warning.description.hasPrefix("byte 10, at argument 1: "))
        // The same decode without warnings gives the same values.
        #expect(try Candid.decode(message, types: [.opt(.nat)]) == values)
        // Paths go through fields and elements; a bare value at an option type counts too.
        let nested = try Candid.encode([.record(["a": .text("x"), "b": .nat(5)]), .vec([.text("y"), .text("z")])],
                                       types: [try Candid.parseType("record { a : text; b : nat }"), .vec(.text)])
        warnings = []
        _ = try Candid.decode(nested, types: [try Candid.parseType("record { a : opt nat; b : nat }"), .vec(.opt(.nat))], warnings: &warnings)
        #expect(warnings.map(\.pathDescription) == ["argument 1 . record field \"a\"", "argument 2 . vec[0]", "argument 2 . vec[1]"])
        // When an outer option drops the whole value, what was found inside it is not reported again.
        let outer = try Candid.encode([.opt(.record(["a": .opt(.text("x")), "b": .text("y")]))],
                                      types: [try Candid.parseType("opt record { a : opt text; b : text }")])
        warnings = []
        #expect(try Candid.decode(outer, types: [try Candid.parseType("opt record { a : opt nat; b : nat }")], warnings: &warnings) == [.opt(nil)])
        #expect(warnings.map(\.pathDescription) == ["argument 1"], "\(warnings)")
        // Values that fit warn about nothing.
        warnings = []
        _ = try Candid.decode(try Candid.encode([.opt(.nat(1))]), types: [.opt(.int)], warnings: &warnings)
        #expect(warnings.isEmpty)
        let interface = try CandidInterface.parse("service : { f : (opt nat) -> () }")
        warnings = []
        _ = try interface.decodeArguments(message, method: "f", warnings: &warnings)
        #expect(warnings.count == 1)
    }

    // MARK: .did checks: line and column, imports, duplicates

    static func error(_ text: String) throws -> CandidError {
        try #require(throws: CandidError.self) { try CandidInterface.parse(text) }
    }

    @Test func checkErrorsCarryLineAndColumn() throws {
        let unknown = try Self.error("type A = record {\n  x : Missing };")
        #expect(unknown.kind == .invalidType && unknown.message == "unknown type \"Missing\"" && unknown.line == 2 && unknown.column == 7)
        let inService = try Self.error("type A = nat;\nservice : {\n  m : (A, Nope) -> () }")
        #expect(inService.message == "unknown type \"Nope\"" && inService.line == 3 && inService.column == 11, "\(inService)")
        let cycle = try Self.error("type A = nat;\ntype B = C;\ntype C = B;")
        #expect(cycle.message.contains("only in terms of itself") && cycle.line == 2 && cycle.column == 1, "\(cycle)")
        let oneway = try Self.error("type A = nat;\ntype F = func () -> (nat) oneway;")
        #expect(oneway.message.contains("oneway") && oneway.line == 2 && oneway.column == 1, "\(oneway)")
        let notFunction = try Self.error("type F = nat;\nservice : { m : F }")
        #expect(notFunction.message.contains("not a function type") && notFunction.line == 2 && notFunction.column == 1, "\(notFunction)")
        let namedService = try Self.error("type S = service { m : F };\ntype F = nat;")
        #expect(namedService.message.contains("of type \"S\" is not a function type") && namedService.line == 1, "\(namedService)")
        let actor = try Self.error("service : Missing")
        #expect(actor.message == "unknown type \"Missing\"" && actor.line == 1 && actor.column == 11, "\(actor)")
        for error in [unknown, inService, cycle, oneway, notFunction, namedService, actor] {
            #expect(error.description.contains("line ") && !error.description.contains("byte"), "\(error)")
        }
    }

    @Test func aMissingImportNamesTheFileAndTheImportingPlace() throws {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("omni-candid-\(UInt64.random(in: 0...UInt64.max))")
        try FileManager.default.createDirectory(at: directory.appendingPathComponent("lib"), withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: directory) }
        try "type A = nat;\nimport \"gone.did\";".write(to: directory.appendingPathComponent("lib/a.did"), atomically: true, encoding: .utf8)
        try "import \"lib/a.did\";\nservice : {}".write(to: directory.appendingPathComponent("main.did"), atomically: true, encoding: .utf8)
        let error = try #require(throws: CandidError.self) { try CandidInterface.load(contentsOf: directory.appendingPathComponent("main.did")) }
        let gone = directory.appendingPathComponent("lib/gone.did").standardizedFileURL.path
        let importer = directory.appendingPathComponent("lib/a.did").standardizedFileURL.path
        #expect(error.kind == .importFailed && error.file == importer && error.line == 2 && error.column == 1, "\(error)")
        #expect(error.message == "cannot import \"gone.did\": \(gone) does not exist")
        #expect(!error.description.contains("NSCocoaErrorDomain") && !error.description.contains("UserInfo"), "\(error)")
        let directoryImport = try #require(throws: CandidError.self) {
            try CandidInterface.parse("import \"lib\";", resolver: .fileSystem(base: directory))
        }
        #expect(directoryImport.message.hasSuffix("is a directory, not a .did file") && directoryImport.line == 1)
        let main = try #require(throws: CandidError.self) { try CandidInterface.load(contentsOf: directory.appendingPathComponent("none.did")) }
        #expect(main.kind == .importFailed && main.message.hasSuffix("none.did does not exist"), "\(main)")
    }

    @Test func duplicateLabelsAreTheirOwnKind() throws {
        let field = try Self.error("type A = record {\n  a : nat;\n  a : text };")
        #expect(field.kind == .duplicateLabel && field.line == 3 && field.column == 3)
        #expect(field.message == "duplicate field \"a\" in the record type")
        #expect(field.description.hasPrefix("duplicate Candid label ("), "not a syntax error: \(field)")
        let variantCase = try Self.error("type V = variant { ok; err : text; ok }")
        #expect(variantCase.kind == .duplicateLabel && variantCase.message == "duplicate case \"ok\" in the variant type" && variantCase.column == 36)
        let hash = try Self.error("type R = record { a : nat; 97 : text };")
        #expect(hash.kind == .duplicateLabel && hash.message == "fields \"a\" and 97 of the record type have the same hash 97" && hash.column == 28)
        let method = try Self.error("service : { m : () -> (); m : () -> () }")
        #expect(method.kind == .duplicateLabel && method.message == "duplicate method \"m\" in the service" && method.column == 27)
        let argument = try Self.error("service : { m : (a : nat, a : text) -> () }")
        #expect(argument.kind == .duplicateLabel && argument.message == "duplicate argument name \"a\"" && argument.column == 27)
        let value = try #require(throws: CandidError.self) { try Candid.parseArguments("(record { x = 1; y = 2; x = 3 })") }
        #expect(value.kind == .duplicateLabel && value.message == "duplicate field \"x\" in the record" && value.column == 25)
        // Types built in code are checked the same way.
        let built = try #require(throws: CandidError.self) {
            try Candid.encode([], types: [.record([CandidField("a", .nat), CandidField("a", .int)])])
        }
        #expect(built.kind == .duplicateLabel)
        // A method defined by the file and by an imported service.
        let resolver = CandidInterface.ImportResolver { path, _ in (path, Array("service : { m : () -> () }".utf8)) }
        let merged = try #require(throws: CandidError.self) {
            try CandidInterface.parse("import service \"other.did\";\nservice : { m : () -> () }", resolver: resolver)
        }
        #expect(merged.kind == .duplicateLabel && merged.line == 2 && merged.column == 13, "\(merged)")
        // Duplicate type definitions are not labels: they stay invalid types.
        #expect(try Self.error("type A = nat;\ntype A = int;").kind == .invalidType)
    }

    // MARK: One location style

    @Test func eachInputKindHasOneLocationStyle() throws {
        // Binary: `byte N`, never a line.
        let binary = try #require(throws: CandidError.self) { try Candid.decode([0x44, 0x49, 0x44, 0x4C, 0x00, 0x01, 0x71, 0x05, 0x61], types: [.text]) }
        #expect(binary.description == "malformed Candid (byte 7, at argument 1): length 5 exceeds the 1 remaining bytes")
        // Text: `line L, column C`, never a byte offset, and stated once.
        let text = try #require(throws: CandidError.self) { try Candid.parseArguments("(1, \"x\")", types: [.nat, .nat]) }
        #expect(text.description == "Candid type mismatch (line 1, column 5, at argument 2): a text cannot be of type nat")
        // An error in an imported file is located in that file only.
        let resolver = CandidInterface.ImportResolver { path, _ in (path, Array("type B =\n  record { x : nat ;; };".utf8)) }
        let imported = try #require(throws: CandidError.self) { try CandidInterface.parse("import \"b.did\";", resolver: resolver) }
        #expect(imported.file == "b.did" && imported.line == 2)
        #expect(imported.description.components(separatedBy: "line ").count == 2, "one location: \(imported)")
        let missing = try #require(throws: CandidError.self) {
            try CandidInterface.parse("\nimport \"nope.did\";", resolver: CandidInterface.ImportResolver { path, _ in
                throw CandidError(.importFailed, "no \(path) here", line: 9, column: 9)
            })
        }
        #expect(missing.description == "Candid import failed (line 2, column 1): cannot import \"nope.did\": no nope.did here")
    }
}
