import Foundation
import OmniCandid
import Testing

/// `.did` files: definitions, services, comments, imports, recursion, method-typed encoding, upgrade checks.
@Suite struct InterfaceTests {
    static let ledger = """
        // A ledger-like interface.
        /* block comments /* nest */ properly */
        type Account = record { owner : principal; subaccount : opt blob };
        type TransferArg = record {
          to : Account;
          amount : nat;
          fee : opt nat;
          memo : opt blob;
          created_at_time : opt nat64;
        };
        type TransferError = variant {
          BadFee : record { expected_fee : nat };
          InsufficientFunds : record { balance : nat };
          TooOld;
          GenericError : record { error_code : nat; message : text };
        };
        type Tree = variant { leaf : int; node : record { left : Tree; right : Tree } };
        type Callback = func (nat) -> ();
        service : (init : record { minting_account : Account }) -> {
          icrc1_balance_of : (Account) -> (nat) query;
          icrc1_transfer : (TransferArg) -> (variant { Ok : nat; Err : TransferError });
          "weird name" : (to : principal, amount : nat) -> () oneway;
          depth : (Tree) -> (nat) composite_query;
          subscribe : Callback;
        }
        """

    @Test func parsesServiceWithAnnotationsAndNamedArguments() throws {
        let interface = try CandidInterface.parse(Self.ledger)
        #expect(interface.environment.names == ["Account", "TransferArg", "TransferError", "Tree", "Callback"])
        #expect(interface.initArguments?.first?.name == "init")
        let methods = try #require(interface.service).methods.map(\.name)
        #expect(methods == ["icrc1_balance_of", "icrc1_transfer", "weird name", "depth", "subscribe"])
        #expect(try interface.method("icrc1_balance_of")?.modes == [.query])
        #expect(try interface.method("depth")?.modes == [.compositeQuery])
        let weird = try #require(try interface.method("weird name"))
        #expect(weird.isOneway && weird.arguments.map(\.name) == ["to", "amount"])
        #expect(try interface.method("subscribe")?.argumentTypes == [.nat])
        #expect(try interface.method("missing") == nil)
    }

    /// A method's types drive encoding and decoding, with field names from the interface.
    @Test func methodTypesDriveEncodingAndDecoding() throws {
        let interface = try CandidInterface.parse(Self.ledger)
        let transfer = try #require(try interface.method("icrc1_transfer"))
        let arguments = try Candid.parseArguments(
            "(record { to = record { owner = principal \"aaaaa-aa\" }; amount = 5 })",
            types: transfer.argumentTypes, environment: interface.environment)
        let encoded = try Candid.encode(arguments, types: transfer.argumentTypes, environment: interface.environment)
        let decoder = try CandidDecoder(types: transfer.argumentTypes, environment: interface.environment)
        #expect(try decoder.decode(encoded) == arguments)
        let reply = try Candid.encode([.variant("Err", .variant("InsufficientFunds", .record(["balance": .nat(7)])))],
                                      types: transfer.resultTypes, environment: interface.environment)
        let decoded = try Candid.decode(reply, types: transfer.resultTypes, environment: interface.environment)
        #expect(Candid.print(arguments: decoded) == "(variant { Err = variant { InsufficientFunds = record { balance = 7 : nat } } })")
        // Recursive Tree values.
        let depth = try #require(try interface.method("depth"))
        let tree = try Candid.parseArguments("(variant { node = record { left = variant { leaf = 1 }; right = variant { node = record { left = variant { leaf = -2 }; right = variant { leaf = 3 } } } } })",
                                             types: depth.argumentTypes, environment: interface.environment)
        let treeBytes = try Candid.encode(tree, types: depth.argumentTypes, environment: interface.environment)
        #expect(try Candid.decode(treeBytes, types: depth.argumentTypes, environment: interface.environment) == tree)
    }

    @Test func methodHelpersAreThinCalls() throws {
        let interface = try CandidInterface.parse(Self.ledger)
        let arguments = try interface.parseArguments("(record { owner = principal \"aaaaa-aa\" })", method: "icrc1_balance_of")
        let bytes = try interface.encodeArguments(arguments, method: "icrc1_balance_of")
        #expect(try interface.decodeArguments(bytes, method: "icrc1_balance_of") == arguments)
        let reply = try Candid.encode([.nat(42)])
        #expect(try interface.decodeResults(reply, method: "icrc1_balance_of") == [.nat(42)])
        let unknown = try #require(throws: CandidError.self) { try interface.encodeArguments([], method: "nope") }
        #expect(unknown.message.contains("no method \"nope\"") && unknown.message.contains("\"icrc1_transfer\""))
        #expect(try interface.isEquivalent(to: try CandidInterface.parse(interface.printed())))
    }

    @Test func printsBackToEquivalentText() throws {
        let interface = try CandidInterface.parse(Self.ledger)
        let printed = interface.printed()
        #expect(printed.contains("type Account = record { owner : principal; subaccount : opt blob };"))
        #expect(printed.contains("service : (init : record { minting_account : Account }) -> {"))
        #expect(printed.contains("  \"weird name\" : (to : principal, amount : nat) -> () oneway;"))
        let reparsed = try CandidInterface.parse(printed)
        #expect(reparsed.environment == interface.environment)
        #expect(reparsed.service == interface.service)
        #expect(try reparsed.isCompatibleUpgrade(of: interface) && interface.isCompatibleUpgrade(of: reparsed))
    }

    @Test func importsThroughAResolver() throws {
        let files = [
            "/did/common.did": "type Account = record { owner : principal }; import \"units.did\";",
            "/did/units.did": "type Amount = nat; service : { version : () -> (text) query }",
            "/did/extra.did": "import \"common.did\"; service : { extra : (Account) -> () }",
            "/did/cycle.did": "import \"cycle.did\"; type C = nat;",
        ]
        let resolver = CandidInterface.ImportResolver { path, importer in
            let directory = importer.map { String($0[..<($0.lastIndex(of: "/") ?? $0.startIndex)]) } ?? "/did"
            let full = directory + "/" + path
            guard let text = files[full] else { throw CandidError(.importFailed, "no such file \(full)") }
            return (full, Array(text.utf8))
        }
        let main = """
            import "common.did";
            import service "extra.did";
            import "cycle.did";
            service : { pay : (Account, Amount) -> (C) }
            """
        let interface = try CandidInterface.parse(main, resolver: resolver)
        #expect(interface.environment.names == ["Account", "Amount", "C"])
        // `import service` merges methods; a plain import ignores the imported main service.
        #expect(interface.service?.methods.map(\.name) == ["extra", "pay"])
        let missing = try #require(throws: CandidError.self) { try CandidInterface.parse("import \"nope.did\";", resolver: resolver) }
        #expect(missing.kind == .importFailed && missing.line == 1)
        let noResolver = try #require(throws: CandidError.self) { try CandidInterface.parse("import \"common.did\";") }
        #expect(noResolver.kind == .importFailed)
    }

    @Test func importsFromTheFileSystem() throws {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("omni-candid-\(UInt64.random(in: 0...UInt64.max))")
        try FileManager.default.createDirectory(at: directory.appendingPathComponent("lib"), withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: directory) }
        try "type Id = nat64;".write(to: directory.appendingPathComponent("lib/types.did"), atomically: true, encoding: .utf8)
        try "import \"lib/types.did\"; service : { get : (Id) -> (text) }".write(to: directory.appendingPathComponent("main.did"),
                                                                                   atomically: true, encoding: .utf8)
        let interface = try CandidInterface.load(contentsOf: directory.appendingPathComponent("main.did"))
        #expect(try interface.method("get")?.argumentTypes == [.named("Id")])
        #expect(try interface.environment.resolve(.named("Id")) == .nat64)
    }

    @Test func invalidInterfacesAreRejectedWithLocations() throws {
        func error(_ text: String) throws -> CandidError {
            try #require(throws: CandidError.self) { try CandidInterface.parse(text) }
        }
        #expect(try error("type A = B; type B = A;").message.contains("only in terms of itself"))
        #expect(try error("type A = record { x : Missing };").message.contains("unknown type \"Missing\""))
        let duplicate = try error("type A = nat;\ntype A = int;")
        #expect(duplicate.kind == .invalidType && duplicate.line == 2)
        #expect(try error("type F = nat; service : { m : F }").message.contains("not a function"))
        #expect(try error("service : { m : () -> (nat) oneway }").message.contains("oneway"))
        #expect(try error("service : { m : (a : nat, a : text) -> () }").message.contains("duplicate argument"))
        #expect(try error("service : { m : () -> (); m : () -> () }").message.contains("duplicate method"))
        let syntax = try error("type A = record {\n  x : nat\n  y : text };")
        #expect(syntax.kind == .syntax && syntax.line == 3 && syntax.column == 3)
        // Hash collisions between field names are rejected (these two names share a hash).
        #expect(try error("type R = record { a : nat; 97 : text };").message.contains("same hash 97"))
    }

    @Test func upgradeCompatibility() throws {
        let old = try CandidInterface.parse("""
            type T = record { x : nat };
            service : { produce : () -> (T); consume : (T) -> (); query_it : () -> (nat) query }
            """)
        let compatible = try CandidInterface.parse("""
            type T = record { x : nat; y : opt nat };
            service : { produce : () -> (T); consume : (T, opt text) -> (); query_it : () -> (nat) query; added : () -> () }
            """)
        #expect(try compatible.isCompatibleUpgrade(of: old))
        let removedMethod = try CandidInterface.parse("type T = record { x : nat }; service : { produce : () -> (T); consume : (T) -> () }")
        #expect(try !removedMethod.isCompatibleUpgrade(of: old))
        let requiredField = try CandidInterface.parse("""
            type T = record { x : nat; y : nat };
            service : { produce : () -> (T); consume : (T) -> (); query_it : () -> (nat) query }
            """)
        #expect(try !requiredField.isCompatibleUpgrade(of: old))  // consume now requires y
        let changedMode = try CandidInterface.parse("""
            type T = record { x : nat };
            service : { produce : () -> (T); consume : (T) -> (); query_it : () -> (nat) }
            """)
        #expect(try !changedMode.isCompatibleUpgrade(of: old))
    }
}

