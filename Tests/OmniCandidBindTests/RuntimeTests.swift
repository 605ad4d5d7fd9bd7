import Foundation
import OmniBindings
import OmniCandid
import OmniCodec
import OmniIC
import OmniTestSupport
import Testing

/// The generated types (Golden/*.swift, compiled into these tests) through the Candid binary format: every value
/// survives a round trip, and replies decode by Candid's subtyping rules, as `CanisterBinding` decodes them.
@Suite(.serialized, .offPool) struct RuntimeTests {
    static let alice = try! Principal(text: "ryjl3-tyaaa-aaaaa-aaaba-cai")

    /// Encodes `value` at the named type of `binding`'s interface and converts it back.
    static func roundTrip<T: CandidConvertible>(_ value: T, as type: String, in binding: CandidBindingInterface) throws -> T {
        let interface = try binding.interface()
        let bytes = try Candid.encode([value.candidValue], types: [.named(type)], environment: interface.environment)
        let decoded = try Candid.decode(bytes, types: [.named(type)], environment: interface.environment)
        return try T(candid: decoded[0])
    }

    /// A reply to `method` encoded at `wireTypes` (Candid text) from `values` (Candid text), decoded as the binding does.
    static func reply<T: CandidConvertible>(_ values: String, wireTypes: String, method: String, in binding: CandidBindingInterface,
                                            as _: T.Type = T.self) throws -> T {
        let interface = try binding.interface()
        let types = try Candid.parseArgumentTypes(wireTypes).map(\.type)
        let bytes = try Candid.encode(try Candid.parseArguments(values, types: types), types: types)
        return try CanisterBinding.result(try interface.decodeResults(bytes, method: method), 0, of: method)
    }

    @Test func everyPrimitiveRoundTripsAtItsExtremes() throws {
        let extremes = Supported.Primitives(
            flag: true, n8: .max, n16: .max, n32: .max, n64: .max, i8: .min, i16: .min, i32: .min, i64: .min,
            big: BigUInt(limbs: [.max, .max, 1]), signed: -BigInt(BigUInt(limbs: [0, 0, 7])), name: "héllo \u{0}\"",
            bytes: [0, 255, 7], id: Self.alice)
        #expect(try Self.roundTrip(extremes, as: "Primitives", in: Supported.candidInterface) == extremes)
        let zeros = Supported.Primitives(flag: false, n8: 0, n16: 0, n32: 0, n64: 0, i8: .max, i16: .max, i32: .max, i64: .max,
                                         big: 0, signed: 0, name: "", bytes: [], id: .anonymous)
        #expect(try Self.roundTrip(zeros, as: "Primitives", in: Supported.candidInterface) == zeros)
    }

    @Test func optionsKeepBothKindsOfAbsence() throws {
        for maybeMaybe: String?? in [nil, .some(nil), .some("x")] {
            let value = Supported.Containers(maybe: 5, maybe_maybe: maybeMaybe, list: [1, .max], matrix: [[], [-1, 2]],
                                             maybe_list: [.anonymous], list_of_maybe: [true, nil, false], blobs: [[], [1, 2]])
            let back = try Self.roundTrip(value, as: "Containers", in: Supported.candidInterface)
            #expect(back == value)
            #expect(back.maybe_maybe == maybeMaybe, "opt opt text: \(String(describing: maybeMaybe))")
        }
        // On the wire: null, opt null and opt opt "x" are three different messages.
        let interface = try Supported.candidInterface.interface()
        let encodings = try [String??.none, .some(nil), .some("x")].map { value in
            try Candid.encode([value.candidValue], types: [.opt(.opt(.text))], environment: interface.environment)
        }
        #expect(Set(encodings).count == 3)
    }

    @Test func numberedFieldsTuplesAndVariantsRoundTrip() throws {
        let numbered = Supported.Numbered(_0: "zero", _7: 7, _4294967295: true)
        #expect(try Self.roundTrip(numbered, as: "Numbered", in: Supported.candidInterface) == numbered)
        #expect(numbered.candidValue[label: CandidLabel(id: 4294967295)] == .bool(true))
        let pair = Supported.Pair("a", 1)
        #expect(pair.candidValue == .tuple([.text("a"), .nat(1)]))
        for shape: Supported.Shape in [.circle(.init(radius: 3)), .square(4), .point, .tagged(.init("t", -1))] {
            #expect(try Self.roundTrip(shape, as: "Shape", in: Supported.candidInterface) == shape)
        }
    }

    @Test func recursiveTypesRoundTrip() throws {
        let tree = Supported.Tree(label: "root", children: [.init(label: "a", children: []), .init(label: "b", children: [.init(label: "c", children: [])])])
        #expect(try Self.roundTrip(tree, as: "Tree", in: Supported.candidInterface) == tree)
        let expression = Supported.Expression.sum(.init(.literal(1), .negate(.sum(.init(.literal(-2), .literal(3))))))
        #expect(try Self.roundTrip(expression, as: "Expression", in: Supported.candidInterface) == expression)

        let rejected = FormerlyRejected.candidInterface
        let list = FormerlyRejected.List(.init(head: 1, tail: FormerlyRejected.List(.init(head: 2, tail: FormerlyRejected.List(nil)))))
        #expect(try Self.roundTrip(list, as: "List", in: rejected) == list)
        let nest = FormerlyRejected.Nest([nil, FormerlyRejected.Nest([]), FormerlyRejected.Nest([FormerlyRejected.Nest([nil])])])
        #expect(try Self.roundTrip(nest, as: "Nest", in: rejected) == nest)
        let root = FormerlyRejected.TreeNode(value: 1, children: [], parent: nil)
        let node = FormerlyRejected.TreeNode(value: 2, children: [root, root], parent: root)
        #expect(try Self.roundTrip(node, as: "TreeNode", in: rejected) == node)
        let transform = FormerlyRejected.Transform(principal: Self.alice, method: "transform")
        let statement = FormerlyRejected.Statement.conditional(.init(
            test: .call(.init(callee: transform, arguments: [.number(1.5), .lambda(.block([]))])),
            then_branch: .expression(.number(-0.0)), else_branch: .block([.expression(.number(.infinity))])))
        #expect(try Self.roundTrip(statement, as: "Statement", in: rejected) == statement)
        let ping = FormerlyRejected.Ping(next: FormerlyRejected.Pong(next: FormerlyRejected.Ping(next: nil), count: 3))
        #expect(try Self.roundTrip(ping, as: "Ping", in: rejected) == ping)
        #expect(ping != FormerlyRejected.Ping(next: FormerlyRejected.Pong(next: nil, count: 3)), "classes compare by value")
    }

    @Test func floatsMarkersAndReferencesRoundTrip() throws {
        let rejected = FormerlyRejected.candidInterface
        let measurements = FormerlyRejected.Measurements(ratio: .leastNonzeroMagnitude, precise: -.greatestFiniteMagnitude,
                                                         samples: [0, -0.0, .infinity, 1e-300])
        #expect(try Self.roundTrip(measurements, as: "Measurements", in: rejected) == measurements)
        let markers = FormerlyRejected.Markers(ignored: CandidReserved(), never: nil)
        #expect(try Self.roundTrip(markers, as: "Markers", in: rejected) == markers)
        let hooks = FormerlyRejected.Hooks(
            transform: .init(principal: Self.alice, method: "transform"), on_change: .init(principal: .anonymous, method: "notify"),
            registry: .init(principal: Self.alice), plain_service: .init(principal: .managementCanister),
            inline_callback: .init(principal: Self.alice, method: "count"))
        #expect(try Self.roundTrip(hooks, as: "Hooks", in: rejected) == hooks)
        #expect(hooks.transform.candidValue == .function(Self.alice, method: "transform"))
        #expect(hooks.registry.candidValue == .service(Self.alice))
        // No value has type empty: `none` of Impossible cannot arrive.
        #expect(throws: CandidBindingError.self) { try FormerlyRejected.Impossible(candid: .variant("none", .null)) }
        #expect(try FormerlyRejected.Impossible(candid: .variant("some", .nat(4))) == .some(4))
        // reserved takes whatever is sent.
        #expect(try CandidReserved(candid: .text("anything")) == CandidReserved())
    }

    // MARK: Replies and Candid subtyping

    @Test func aReplyWithAnExtendedRecordDecodesIntoTheNarrowerType() throws {
        let account: Supported.Account = try Self.reply(
            #"(record { owner = principal "ryjl3-tyaaa-aaaaa-aaaba-cai"; subaccount = opt blob "\01"; nickname = "new"; level = 3 : nat })"#,
            wireTypes: "(record { owner : principal; subaccount : opt blob; nickname : text; level : nat })",
            method: "whoami", in: Supported.candidInterface)
        #expect(account == Supported.Account(owner: Self.alice, subaccount: [1]))
    }

    @Test func anAbsentOptionalFieldIsNilAndAnOptionOfAnotherTypeToo() throws {
        let absent: Supported.Account = try Self.reply(#"(record { owner = principal "aaaaa-aa" })"#,
                                                       wireTypes: "(record { owner : principal })", method: "whoami",
                                                       in: Supported.candidInterface)
        #expect(absent == Supported.Account(owner: .managementCanister, subaccount: nil))
        // The special opt rule: an option whose payload does not fit reads as null.
        let mismatched: Supported.Account = try Self.reply(#"(record { owner = principal "aaaaa-aa"; subaccount = opt "text" })"#,
                                                           wireTypes: "(record { owner : principal; subaccount : opt text })",
                                                           method: "whoami", in: Supported.candidInterface)
        #expect(mismatched.subaccount == nil)
    }

    @Test func natReadsAsIntButFixedWidthNumbersAreNotWidened() throws {
        let number: BigInt = try Self.reply("(42 : nat)", wireTypes: "(nat)", method: "evaluate", in: Supported.candidInterface)
        #expect(number == 42)
        // nat8 where the interface says nat16 (inside Primitives): refused, with the field named.
        let wire = "(record { flag : bool; n8 : nat8; n16 : nat8; n32 : nat32; n64 : nat64; i8 : int8; i16 : int16; i32 : int32; "
            + "i64 : int64; big : nat; signed : int; name : text; bytes : blob; id : principal })"
        let values = #"(record { flag = true; n8 = 1; n16 = 2; n32 = 3; n64 = 4; i8 = 5; i16 = 6; i32 = 7; i64 = 8; big = 9; "#
            + #"signed = 10; name = "n"; bytes = blob ""; id = principal "aaaaa-aa" })"#
        do {
            let _: Supported.Primitives = try Self.reply(values, wireTypes: wire, method: "get_primitives", in: Supported.candidInterface)
            Issue.record("nat8 was widened to nat16")
        } catch let error as CandidError {
            #expect(error.kind == .typeMismatch)
            #expect(error.pathDescription.contains("\"n16\""), "\(error)")
        }
        // The same message with the right width decodes.
        let right = wire.replacingOccurrences(of: "n16 : nat8", with: "n16 : nat16")
        let decoded: Supported.Primitives = try Self.reply(values, wireTypes: right, method: "get_primitives", in: Supported.candidInterface)
        #expect(decoded.n16 == 2 && decoded.signed == 10)
    }

    @Test func variantsAreStrict() throws {
        let known: Supported.GrowResult = try Self.reply(#"(variant { err = "no" })"#, wireTypes: "(variant { ok : record { label : text; children : vec record {} }; err : text })",
                                                          method: "grow", in: Supported.candidInterface)
        #expect(known == .err("no"))
        do {
            let _: Supported.GrowResult = try Self.reply(#"(variant { postponed = 3 : nat })"#,
                                                         wireTypes: "(variant { ok : nat; err : text; postponed : nat })",
                                                         method: "grow", in: Supported.candidInterface)
            Issue.record("an unknown case was accepted")
        } catch let error as CandidError {
            #expect(error.kind == .typeMismatch)
            #expect(error.message.contains("\(Candid.hash("postponed"))"), "the error names the case by its id: \(error)")
        }
        // A value built by hand with a case the type does not have.
        #expect(throws: CandidBindingError.self) { try Supported.Shape(candid: .variant("hexagon", .null)) }
    }

    @Test func conversionErrorsSayWhere() throws {
        let wrong = CandidValue.record(["owner": .text("not a principal"), "subaccount": .opt(nil)])
        do {
            _ = try Supported.Account(candid: wrong)
            Issue.record("a text was taken for a principal")
        } catch {
            #expect(error.kind == .typeMismatch)
            #expect(error.path == ["record field \"owner\""])
            #expect(error.description.contains("expected principal, found text"))
        }
        let nested = CandidValue.record(["label": .text("r"), "children": .vec([.record(["label": .nat(1), "children": .vec([])])])])
        do {
            _ = try Supported.Tree(candid: nested)
            Issue.record("a nat was taken for a text")
        } catch {
            #expect(error.path == ["record field \"children\"", "vec[0]", "record field \"label\""])
        }
        // An absent required field is an error; an absent optional one is nil.
        #expect(throws: CandidBindingError.self) { try Supported.Account(candid: .record(["subaccount": .opt(nil)])) }
        #expect(try Supported.Account(candid: .record(["owner": .principal(.anonymous)])).subaccount == nil)
        do {
            let _: BigUInt = try CanisterBinding.result([.text("x")], 0, of: "balance")
            Issue.record("accepted")
        } catch {
            #expect(error.method == "balance" && error.path == ["result 1"])
        }
    }

    @Test func repliesEncodedByAnotherImplementationDecodeIntoGeneratedTypes() throws {
        // ic-py (Tests/Peers/candid_icpy.py) encodes an account with an extra field and a ledger transfer result.
        let cases: [[String: Any]] = [
            ["types": [["k": "record", "fields": [["owner", ["k": "principal"]], ["subaccount", ["k": "opt", "t": ["k": "vec", "t": ["k": "nat8"]]]],
                                                  ["memo", ["k": "text"]]]]],
             "values": [["owner": "ryjl3-tyaaa-aaaaa-aaaba-cai", "subaccount": [["1", "2"]], "memo": "extra"]], "hex": "4449444c0000"],
            ["types": [["k": "variant", "fields": [["Ok", ["k": "nat"]], ["Err", ["k": "variant", "fields": [
                ["BadFee", ["k": "record", "fields": [["expected_fee", ["k": "nat"]]]]], ["TooOld", ["k": "null"]]]]]]]],
             "values": [["Err": ["BadFee": ["expected_fee": "10000"]]]], "hex": "4449444c0000"],
        ]
        let input = try JSONSerialization.data(withJSONObject: ["cases": cases])
        let result = try Subprocess.python("candid_icpy.py", stdin: input)
        try #require(result.status == 0, "candid_icpy.py: \(result.stderrText)")
        let lines = result.stdoutText.split(separator: "\n").map { try? JSONSerialization.jsonObject(with: Data($0.utf8)) as? [String: Any] }
        let hex = lines.map { $0?["encoded"] as? String }
        try #require(hex.count == 2 && hex.allSatisfy { $0 != nil }, "\(result.stdoutText)")
        let interface = try Supported.candidInterface.interface()
        let account: Supported.Account = try CanisterBinding.result(
            try interface.decodeResults(try Hex.decode(hex[0]!), method: "whoami"), 0, of: "whoami")
        #expect(account == Supported.Account(owner: Self.alice, subaccount: [1, 2]))
        let ledger = try Ledger.candidInterface.interface()
        let transfer: Ledger.Icrc1TransferResult = try CanisterBinding.result(
            try ledger.decodeResults(try Hex.decode(hex[1]!), method: "icrc1_transfer"), 0, of: "icrc1_transfer")
        #expect(transfer == .Err(.BadFee(.init(expected_fee: 10_000))))
    }

    @Test func theEmbeddedInterfaceHasTheMethodsOfTheClient() throws {
        let ledger = try Ledger.candidInterface.interface()
        #expect(ledger.service?.methods.map(\.name) == ["icrc1_balance_of", "icrc1_transfer"])
        #expect(ledger.environment["Archive"] == nil, "a definition the chosen methods do not use is left out")
        #expect(Ledger.canisterIDText == "ryjl3-tyaaa-aaaaa-aaaba-cai")
        let broken = CandidBindingInterface(text: "service : { f : (Undefined) -> () }")
        #expect(throws: CandidBindingError.self) { try broken.interface() }
    }
}
