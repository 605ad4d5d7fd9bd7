import OmniCandid
import OmniCodec
import Testing

/// Binary encoding and decoding: the documented example, round trips, coercion, error positions, limits.
@Suite struct BinaryTests {
    @Test func documentedExample() throws {
        let values = try Candid.parseArguments("(42 : nat, \"hi\")")
        let encoded = try Candid.encode(values)
        #expect(hexString(encoded) == "4449444c00027d712a026869")
        let decoded = try Candid.decode(bytes("4449444c00027d712a026869"))
        #expect(Candid.print(arguments: decoded) == "(42 : nat, \"hi\")")
    }

    static let account = CandidType.record([
        CandidField("owner", .principal),
        CandidField("subaccount", .opt(.blob)),
    ])
    static let transfer = CandidType.record([
        CandidField("to", account),
        CandidField("amount", .nat),
        CandidField("fee", .opt(.nat)),
        CandidField("memo", .opt(.blob)),
        CandidField("created_at_time", .opt(.nat64)),
    ])

    @Test func typedRoundTripKeepsFieldNames() throws {
        let text = """
            (record { to = record { owner = principal "w7x7r-cok77-xa"; subaccount = null }; amount = 1_000_000;
              fee = opt 10_000; memo = opt blob "\\de\\ad"; created_at_time = opt 1_700_000_000_000_000_000 })
            """
        let values = try Candid.parseArguments(text, types: [Self.transfer])
        let encoded = try Candid.encode(values, types: [Self.transfer])
        let decoded = try Candid.decode(encoded, types: [Self.transfer])
        #expect(decoded == values)
        #expect(decoded[0][field: "amount"] == .nat(1_000_000))
        #expect(decoded[0][field: "to"]?[field: "owner"] == .principal(try Principal(text: "w7x7r-cok77-xa")))
        // Without a type the same bytes decode with numeric field ids only.
        let untyped = try Candid.decode(encoded)
        guard case .record(let fields) = untyped[0] else { Issue.record("expected a record"); return }
        #expect(fields.allSatisfy { $0.label.name == nil })
        #expect(untyped == decoded)  // labels compare by id
        #expect(Candid.print(arguments: untyped, style: .compact).contains("3_573_748_184 = 1_000_000 : nat") == false)
        #expect(Candid.print(arguments: untyped, style: .compact).contains("= 1000000 : nat"))
    }

    @Test func recordExtensionAndOptionRules() throws {
        // A newer sender adds a field and makes one optional value absent; an older reader still decodes.
        let newer = CandidType.record([CandidField("name", .text), CandidField("age", .nat8), CandidField("email", .opt(.text))])
        let older = CandidType.record([CandidField("name", .text), CandidField("nickname", .opt(.text))])
        let bytes = try Candid.encode([.record(["name": .text("ada"), "age": .nat8(36), "email": .opt(.text("a@b"))])], types: [newer])
        let decoded = try Candid.decode(bytes, types: [older])
        #expect(decoded == [.record(["name": .text("ada"), "nickname": .opt(nil)])])
        // opt of a mismatching type decodes as null instead of failing.
        let mismatched = try Candid.decode(try Candid.encode([.opt(.text("x"))], types: [.opt(.text)]), types: [.opt(.nat)])
        #expect(mismatched == [.opt(nil)])
        // nat is read at int, and a bare value is read at an option of it.
        #expect(try Candid.decode(try Candid.encode([.nat(5)]), types: [.opt(.int)]) == [.opt(.int(5))])
    }

    @Test func recursiveTypes() throws {
        let environment = try CandidTypeEnvironment([
            ("List", .opt(.record([CandidField("head", .int), CandidField("tail", .named("List"))]))),
        ])
        var list = CandidValue.opt(nil)
        for value in (1...50).reversed() { list = .opt(.record(["head": .int(BigInt(Int64(value))), "tail": list])) }
        let encoded = try Candid.encode([list], types: [.named("List")], environment: environment)
        #expect(try Candid.decode(encoded, types: [.named("List")], environment: environment) == [list])
        // The wire table has exactly two entries (opt and record) for the whole list.
        #expect(encoded[4] == 2)
    }

    @Test func referencesRoundTrip() throws {
        let function = CandidType.function(CandidFunctionType([.text], [.nat], modes: [.query]))
        let service = CandidType.service(CandidServiceType([.init("get", function)]))
        let canister = try Principal(text: "ryjl3-tyaaa-aaaaa-aaaba-cai")
        let values: [CandidValue] = [.function(canister, method: "get"), .service(canister), .principal(.anonymous)]
        let encoded = try Candid.encode(values, types: [function, service, .principal])
        #expect(try Candid.decode(encoded, types: [function, service, .principal]) == values)
        // service <: principal
        #expect(try Candid.decode(encoded, types: [function, .principal]) == [values[0], .principal(canister)])
        #expect(Candid.print(arguments: values) == """
            (
              func "ryjl3-tyaaa-aaaaa-aaaba-cai".get,
              service "ryjl3-tyaaa-aaaaa-aaaba-cai",
              principal "2vxsx-fae",
            )
            """)
    }

    @Test func encodingIsMinimalAndSorted() throws {
        let bytes = try Candid.encode([.record(["b": .nat(0), "a": .int(-1)])],
                                      types: [.record([CandidField("b", .nat), CandidField("a", .int)])])
        // Fields in id order: hash("a") = 97 < hash("b") = 98.
        #expect(hexString(bytes) == "4449444c016c02617c627d01007f00")
    }

    // MARK: Errors say where

    @Test func errorsCarryOffsetAndNamedPath() throws {
        let item = CandidType.variant([CandidField("ok", .nat), CandidField("err", .text)])
        let wireType = CandidType.record([CandidField("owner", .principal), CandidField("items", .vec(item))])
        let expected = CandidType.record([CandidField("owner", .principal), CandidField("items", .vec(.variant([CandidField("ok", .nat)])))])
        let value = CandidValue.record(["owner": .principal(.anonymous),
                                        "items": .vec([.variant("ok", .nat(1)), .variant("ok", .nat(2)), .variant("ok", .nat(3)), .variant("err", .text("no"))])])
        let encoded = try Candid.encode([value], types: [wireType])
        let error = try #require(throws: CandidError.self) { try Candid.decode(encoded, types: [expected]) }
        #expect(error.kind == .typeMismatch)
        #expect(error.pathDescription == "argument 1 . record field \"items\" . vec[3]")
        #expect(error.offset != nil)
        #expect(error.description.hasPrefix("Candid type mismatch (byte "))
        #expect(error.description.contains("at argument 1 . record field \"items\" . vec[3]"))

        let truncated = Array(encoded.dropLast())
        let malformed = try #require(throws: CandidError.self) { try Candid.decode(truncated, types: [wireType]) }
        #expect(malformed.kind == .malformed)
        #expect(malformed.offset == truncated.count - 2)
        #expect(malformed.pathDescription == "argument 1 . record field \"items\" . vec[3] . variant case \"err\"")
    }

    @Test func encodingErrorsCarryPaths() throws {
        let type = CandidType.record([CandidField("owner", .principal), CandidField("amount", .nat)])
        let missing = try #require(throws: CandidError.self) { try Candid.encode([.record(["owner": .principal(.anonymous)])], types: [type]) }
        #expect(missing.pathDescription == "argument 1 . record field \"amount\"")
        let wrong = try #require(throws: CandidError.self) {
            try Candid.encode([.record(["owner": .principal(.anonymous), "amount": .text("1")])], types: [type])
        }
        #expect(wrong.pathDescription == "argument 1 . record field \"amount\"")
        #expect(wrong.message.contains("text"))
    }

    // MARK: Limits: hostile input fails fast, never crashes

    @Test func hugeVectorOfNullIsRefused() throws {
        // vec null of length 2^60: no bytes per element, so only the work budget and length limit stop it.
        var message: [UInt8] = Array("DIDL".utf8) + [0x01, 0x6D, 0x7F, 0x01, 0x00]
        message += LEB128.encoded(UInt64(1) << 60)
        for types in [nil, [CandidType.vec(.null)], [CandidType.vec(.reserved)], [CandidType.opt(.nat)], []] as [[CandidType]?] {
            let error = try #require(throws: CandidError.self) { try Candid.decode(message, types: types) }
            #expect(error.kind == .limitExceeded)
        }
        var budgetOnly = CandidLimits.default
        budgetOnly.maxVectorLength = Int.max
        let error = try #require(throws: CandidError.self) { try Candid.decode(message, types: [.vec(.null)], limits: budgetOnly) }
        #expect(error.kind == .limitExceeded && error.message.contains("work budget"))
    }

    @Test func vectorsOfEmptyRecordsAndReservedAreMetered() throws {
        // vec record { record {}; null; reserved } of 900,000 elements: each element is free on the wire.
        var message: [UInt8] = Array("DIDL".utf8) + [0x03, 0x6C, 0x00, 0x6C, 0x03, 0x00, 0x00, 0x01, 0x7F, 0x02, 0x70, 0x6D, 0x01, 0x01, 0x02]
        message += LEB128.encoded(UInt64(900_000))
        for types in [nil, [], [CandidType.vec(.record([]))]] as [[CandidType]?] {
            let error = try #require(throws: CandidError.self) { try Candid.decode(message, types: types) }
            #expect(error.kind == .limitExceeded)
        }
        // The same message is fine with a budget sized for it: limits are configurable.
        var generous = CandidLimits.default
        generous.workBudget = 50_000_000
        #expect(try Candid.decode(message, types: [], limits: generous) == [])
    }

    @Test func uninhabitedRecursionIsDetectedNotFollowed() throws {
        // type t = record { t }, claimed as a value.
        let message: [UInt8] = Array("DIDL".utf8) + [0x01, 0x6C, 0x01, 0x00, 0x00, 0x01, 0x00] + [UInt8](repeating: 0, count: 64)
        let error = try #require(throws: CandidError.self) { try Candid.decode(message) }
        #expect(error.kind == .malformed && error.message.contains("has no values"))
        // As an extra argument (skipped) it is refused too.
        #expect(throws: CandidError.self) { try Candid.decode(message, types: []) }
    }

    @Test func deepNestingHitsTheDepthLimit() throws {
        // opt opt opt … 100,000 levels deep, each present.
        let depth = 100_000
        var message: [UInt8] = Array("DIDL".utf8) + [0x01, 0x6E, 0x00, 0x01, 0x00]
        message += [UInt8](repeating: 1, count: depth) + [0]
        let error = try #require(throws: CandidError.self) { try Candid.decode(message) }
        #expect(error.kind == .limitExceeded && error.message.contains("deeper"))
        let skipped = try #require(throws: CandidError.self) { try Candid.decode(message, types: []) }
        #expect(skipped.kind == .limitExceeded)
    }

    /// Linked lists nest one record and one option per element; the default depth allows about 127 elements,
    /// and reaching the limit is an error, not a stack overflow (also in debug builds on secondary threads).
    @Test func longLinkedListsStopAtTheDepthLimit() throws {
        let environment = try CandidTypeEnvironment([
            ("List", .opt(.record([CandidField("head", .nat), CandidField("tail", .named("List"))]))),
        ])
        func list(_ count: Int) -> CandidValue {
            var value = CandidValue.opt(nil)
            for index in 0..<count { value = .opt(.record(["head": .nat(BigUInt(UInt64(index))), "tail": value])) }
            return value
        }
        let fits = try Candid.encode([list(120)], types: [.named("List")], environment: environment)
        let decoded = try Candid.decode(fits, types: [.named("List")], environment: environment)
        #expect(decoded == [list(120)])
        #expect(Candid.print(arguments: decoded).count > 1000)
        #expect(try Candid.parseArguments(Candid.print(arguments: decoded), types: [.named("List")], environment: environment) == decoded)
        // 2,000 elements, written by hand (the encoder itself refuses values deeper than its limit).
        let (first, second) = Candid.hash("head") < Candid.hash("tail") ? ("head", "tail") : ("tail", "head")
        var tooDeep: [UInt8] = Array("DIDL".utf8) + [0x02, 0x6E, 0x01, 0x6C, 0x02]
        tooDeep += LEB128.encoded(UInt64(Candid.hash(first))) + [first == "head" ? 0x7D : 0x00]
        tooDeep += LEB128.encoded(UInt64(Candid.hash(second))) + [second == "head" ? 0x7D : 0x00]
        tooDeep += [0x01, 0x00]
        for _ in 0..<2_000 { tooDeep += [0x01, 0x07] }
        tooDeep += [0x00]
        #expect(throws: CandidError.self) { try Candid.encode([list(2_000)], types: [.named("List")], environment: environment) }
        for types in [[CandidType.named("List")], nil, []] as [[CandidType]?] {
            let error = try #require(throws: CandidError.self) { try Candid.decode(tooDeep, types: types, environment: environment) }
            #expect(error.kind == .limitExceeded)
        }
    }

    @Test func tableSizeAndNumberLengthLimits() throws {
        var tooManyEntries: [UInt8] = Array("DIDL".utf8) + LEB128.encoded(UInt64(20_000))
        for _ in 0..<20_000 { tooManyEntries += [0x6E, 0x7F] }
        tooManyEntries += [0x00]
        let tableError = try #require(throws: CandidError.self) { try Candid.decode(tooManyEntries) }
        #expect(tableError.kind == .limitExceeded && tableError.message.contains("type table"))

        let hugeNat: [UInt8] = Array("DIDL".utf8) + [0x00, 0x01, 0x7D] + [UInt8](repeating: 0xFF, count: 5000) + [0x01]
        let numberError = try #require(throws: CandidError.self) { try Candid.decode(hugeNat) }
        #expect(numberError.kind == .limitExceeded)
        var roomy = CandidLimits.default
        roomy.maxNumberBytes = 8192
        guard case .nat(let value) = try Candid.decode(hugeNat, limits: roomy)[0] else { Issue.record("expected a nat"); return }
        #expect(value.bitWidth == 5000 * 7 + 1)
    }

    /// What is encoded here decodes here: a nat or int longer than `maxNumberBytes` encoded is refused by the
    /// encoder, as the decoder would refuse it (found by fuzzing `candid-text`: a 2 338-digit literal parsed, encoded
    /// to 1 111 bytes and did not decode). The longest accepted number round-trips.
    @Test func encoderRefusesNumbersTheDecoderWould() throws {
        let limit = CandidLimits.default.maxNumberBytes
        let longestNat = BigUInt(limbs: [UInt64](repeating: .max, count: limit * 7 / 64)), tooLongNat = BigUInt(limbs: [UInt64](repeating: .max, count: limit * 7 / 64 + 1))
        #expect(LEB128.encoded(longestNat).count <= limit && LEB128.encoded(tooLongNat).count > limit)
        let longInt = BigInt(isNegative: true, magnitude: BigUInt(limbs: [UInt64](repeating: .max, count: limit * 7 / 64 - 1)))
        for value in [CandidValue.nat(longestNat), .int(longInt)] {
            #expect(try Candid.decode(Candid.encode([value])) == [value])
        }
        // At int, the longest nat needs one bit more for the sign: one byte over.
        let cases: [(CandidValue, CandidType?)] = [(.nat(tooLongNat), nil), (.int(BigInt(isNegative: false, magnitude: tooLongNat)), nil),
                                                    (.nat(longestNat), .int)]
        for (value, type) in cases {
            let error = try #require(throws: CandidError.self) { try Candid.encode([value], types: type.map { [$0] }) }
            #expect(error.kind == .limitExceeded && error.message.contains("exceeds the limit of \(limit)"), "\(error)")
        }
        let literal = "(" + String(repeating: "9", count: 2_338) + ")"
        let parsed = try Candid.parseArguments(literal)
        #expect(throws: CandidError.self) { try Candid.encode(parsed) }
    }

    @Test func smallBudgetRefusesOrdinaryMessages() throws {
        let message = try Candid.encode([.vec((0..<100).map { .nat(BigUInt(UInt64($0))) })])
        #expect(try Candid.decode(message).count == 1)
        var tiny = CandidLimits.default
        tiny.workBudget = 50
        let error = try #require(throws: CandidError.self) { try Candid.decode(message, limits: tiny) }
        #expect(error.kind == .limitExceeded)
    }

    /// A record that takes no bytes is charged for its whole tree wherever it stands, as vectors of them are: here
    /// behind `opt` tags (found by the candid-binary fuzz target: five one-byte tags stood for 327,677 values) and
    /// in a record field. Small trees still decode.
    @Test func zeroSizedRecordTreesAreChargedWhereverTheyStand() throws {
        /// Types 0…depth: record { null; null }, then records of two copies of the one before; then `opt`, `vec`
        /// and `record { nat8; tree }` of the deepest; `argument` picks one of those three.
        func message(depth: Int, argument: Int, values: [UInt8]) -> [UInt8] {
            var bytes: [UInt8] = Array("DIDL".utf8) + LEB128.encoded(UInt64(depth + 4)) + [0x6C, 0x02, 0x00, 0x7F, 0x01, 0x7F]
            for level in 1...depth { bytes += [0x6C, 0x02, 0x00] + LEB128.encoded(UInt64(level - 1)) + [0x01] + LEB128.encoded(UInt64(level - 1)) }
            bytes += [0x6E] + LEB128.encoded(UInt64(depth))
            bytes += [0x6D] + LEB128.encoded(UInt64(depth + 1))
            bytes += [0x6C, 0x02, 0x00, 0x7B, 0x01] + LEB128.encoded(UInt64(depth))
            return bytes + [0x01] + LEB128.encoded(UInt64(depth + argument)) + values
        }
        func nodes(_ value: CandidValue) -> Int {
            switch value {
            case .vec(let items): return 1 + items.map(nodes).reduce(0, +)
            case .opt(let inner?): return 1 + nodes(inner)
            case .record(let fields): return 1 + fields.map { nodes($0.value) }.reduce(0, +)
            default: return 1
            }
        }
        let small = try Candid.decode(message(depth: 3, argument: 2, values: [0x02, 0x01, 0x01]))
        #expect(nodes(small[0]) == 1 + 2 * (1 + 31), "two options, each holding a tree of 15 records and 16 nulls")
        for (argument, values, position) in [(2, [0x05, 0x01, 0x01, 0x01, 0x01, 0x01] as [UInt8], "vec[0]"),
                                             (3, [0x07], "record field 1")] {
            let bomb = message(depth: 17, argument: argument, values: values)
            let error = try #require(throws: CandidError.self) { try Candid.decode(bomb) }
            #expect(error.kind == .limitExceeded && error.message.contains("work budget"), "\(error)")
            #expect(error.pathDescription.contains(position), "\(error.pathDescription)")
        }
    }

    @Test func futureValueLengthCountsAfterItsReferenceCount() throws {
        // future type (opcode -25) then text; the future value claims exactly the bytes left after its length.
        let message: [UInt8] = Array("DIDL".utf8) + [0x01, 0x67, 0x00, 0x02, 0x00, 0x71, 0x02, 0x00, 0x00]
        let error = try #require(throws: CandidError.self) { try Candid.decode(message, types: [.opt(.empty), .text]) }
        #expect(error.kind == .malformed && error.offset == 10)
        let valid: [UInt8] = Array("DIDL".utf8) + [0x01, 0x67, 0x00, 0x02, 0x00, 0x71, 0x01, 0x00, 0xAA, 0x00]
        #expect(try Candid.decode(valid, types: [.opt(.empty), .text]) == [.opt(nil), .text("")])
    }

    @Test func randomBytesNeverCrash() throws {
        var random = SystemRandomNumberGenerator()
        let function = CandidType.function(CandidFunctionType([.text], [.nat], modes: [.query]))
        let seeds: [[UInt8]] = [
            try Candid.encode(try Candid.parseArguments("(record { a = vec { opt 1; null }; b = variant { x = \"y\" } }, principal \"aaaaa-aa\")")),
            Array("DIDL".utf8) + [0x02, 0x6E, 0x01, 0x6C, 0x02, 0x00, 0x7C, 0x01, 0x00, 0x01, 0x00, 0x01, 0x01, 0x01, 0x02, 0x00],
            try Candid.encode([.function(.anonymous, method: "m"), .service(.anonymous), .blob([1, 2, 3]), .float64(1.5), .int(-300)],
                              types: [function, .service(CandidServiceType([.init("m", function)])), .blob, .float64, .int]),
            Array("DIDL".utf8) + [0x01, 0x67, 0x03, 0x41, 0x42, 0x43, 0x02, 0x00, 0x7E, 0x05, 0x00, 0x68, 0x65, 0x6C, 0x6C, 0x6F, 0x01],
        ]
        let expectations: [[CandidType]?] = [nil, [], [.opt(.nat), .principal], [function, .principal, .opt(.blob)], [.reserved, .opt(.bool)]]
        for _ in 0..<4_000 {
            var message = seeds[Int.random(in: 0..<seeds.count, using: &random)]
            for _ in 0..<Int.random(in: 1...4, using: &random) {
                let index = Int.random(in: 4..<message.count, using: &random)
                switch Int.random(in: 0..<6, using: &random) {
                case 0: message.insert(UInt8.random(in: 0...255, using: &random), at: index)
                case 1 where message.count > 5: message.remove(at: index)
                default: message[index] = UInt8.random(in: 0...255, using: &random)
                }
            }
            for types in expectations { _ = try? Candid.decode(message, types: types) }
            _ = try? Candid.messageTypes(message)
        }
    }
}

@Suite struct MessageTypesTests {
    @Test func untypedMessagesShowTheirTypes() throws {
        let environment = try CandidTypeEnvironment([
            ("List", .opt(.record([CandidField("head", .int), CandidField("tail", .named("List"))]))),
        ])
        let list = CandidValue.opt(.record(["head": .int(1), "tail": .opt(nil)]))
        let bytes = try Candid.encode([list, .record(["a": .vec([.text("x")])])],
                                      types: [.named("List"), .record([CandidField("a", .vec(.text))])], environment: environment)
        let (types, definitions) = try Candid.messageTypes(bytes)
        #expect(Candid.print(argumentTypes: types.map { CandidArgument($0) }) == "(t0, record { 97 : vec text })")
        #expect(definitions.names == ["t0"])
        let head = Candid.hash("head"), tail = Candid.hash("tail")
        #expect(Candid.print(try #require(definitions["t0"])) == "opt record { \(head) : int; \(tail) : t0 }")
        // The recovered types decode the message to the same values.
        #expect(try Candid.decode(bytes, types: types, environment: definitions) == (try Candid.decode(bytes)))
    }
}

@Suite struct ValueAccessorTests {
    @Test func accessorsReadAcrossIntegerWidths() throws {
        #expect(CandidValue.nat64(7).natValue == BigUInt(7))
        #expect(CandidValue.int8(-3).intValue == BigInt(-3))
        #expect(CandidValue.int(5).natValue == BigUInt(5))
        #expect(CandidValue.int(-5).natValue == nil)
        #expect(CandidValue.nat16(9).intValue == BigInt(9))
        #expect(CandidValue.vec([.nat8(1), .nat8(2)]).blobValue == [1, 2])
        #expect(CandidValue.blob([3]).vecValue == [.nat8(3)])
        #expect(CandidValue.service(.anonymous).principalValue == .anonymous)
        #expect(CandidValue.text("x").textValue == "x" && CandidValue.bool(true).boolValue == true)
        #expect(CandidValue.text("x").natValue == nil)
    }
}

/// Values given without types: a vector's elements share their least common type (before, the first element's
/// type was used and later elements were cut down to it, or failed to encode, as with didc).
@Suite struct UntypedEncodingTests {
    private func roundTrip(_ text: String) throws -> (type: String, decoded: [CandidValue]) {
        let values = try Candid.parseArguments(text)
        let types = try CandidValue.inferredTypes(of: values)
        let bytes = try Candid.encode(values)
        return (Candid.print(argumentTypes: types.map { CandidArgument($0) }, style: .compact), try Candid.decode(bytes, types: types))
    }

    private func refusal(_ text: String) throws -> CandidError {
        let values = try Candid.parseArguments(text)
        do throws(CandidError) {
            _ = try Candid.encode(values)
        } catch {
            #expect(throws: CandidError.self) { try CandidValue.inferredTypes(of: values) }
            return error
        }
        Issue.record("\(text) encoded without a common type")
        return CandidError(.malformed, "")
    }

    @Test func elementsShareTheLeastCommonType() throws {
        let nullFirst = try roundTrip("(vec { null; opt (1 : nat) })")
        #expect(nullFirst.type == "(vec opt nat)")
        #expect(nullFirst.decoded == [.vec([.opt(nil), .opt(.nat(1))])])
        // An unannotated number is an int, as in didc.
        #expect(try roundTrip("(vec { 1 : nat; -2 })").decoded == [.vec([.int(1), .int(-2)])])
        let cases = try roundTrip("(vec { variant { a }; variant { b = 1 : nat }; variant { a } })")
        #expect(cases.type == "(vec variant { a; b : nat })")
        #expect(cases.decoded == [.vec([.variant(CandidFieldValue(CandidLabel("a"), .null)), .variant(CandidFieldValue(CandidLabel("b"), .nat(1))),
                                        .variant(CandidFieldValue(CandidLabel("a"), .null))])])
        #expect(try roundTrip("(vec { vec {}; vec { \"x\" } })").type == "(vec vec text)")
        #expect(try roundTrip("(vec { opt vec {}; null; opt vec { record { 1 : nat; -1 } }; opt vec { record { 2 : nat; 3 : nat } } })").type
                == "(vec opt vec record { nat; int })")
        #expect(try roundTrip("(vec { record { a = null; b = 1 }; record { b = 2; a = opt \"x\" } })").type
                == "(vec record { a : opt text; b : int })")
        // Uniform vectors are as before, and an empty vector is `vec empty`.
        #expect(try roundTrip("(vec { 1; 2 }, vec {})").type == "(vec int, vec empty)")
    }

    @Test func elementsWithoutOneAreRefusedNamingTwo() throws {
        let mixed = try refusal("(1, vec { 1; \"a\" })")
        #expect(mixed.kind == .typeMismatch)
        #expect(mixed.pathDescription == "argument 2")
        #expect(mixed.message.contains("vec[0] is int and vec[1] is text"), "\(mixed.message)")
        let fields = try refusal("(vec { record { a = 1 }; record { a = 2; b = 3 } })")
        #expect(fields.message.contains("records in one vector need the same fields"), "\(fields.message)")
        let nested = try refusal("(record { x = vec { record { a = 1 }; record { a = \"x\" } } })")
        #expect(nested.pathDescription == "argument 1 . record field \"x\"")
        #expect(nested.message.contains("record field \"a\" is int in vec[0] and text in vec[1]"), "\(nested.message)")
        let deeper = try refusal("(vec { opt vec { 1 }; null; opt vec { 1.5 } })")
        #expect(deeper.message.contains("an inner vector's element in the option's value is int in vec[0] and float64 in vec[2]"), "\(deeper.message)")
        // `reserved` would drop the other element's value, so it joins nothing (the fuzz regression's input).
        #expect(try refusal("(vec { 0 : reserved; 0 : int64 })").message.contains("vec[0] is reserved and vec[1] is int64"))
        // Widths are not widened: `nat8` is no subtype of `nat`.
        #expect(try refusal("(vec { 1 : nat8; 2 : nat })").message.contains("vec[0] is nat8 and vec[1] is nat"))
    }
}
