import OmniCandid
import OmniCodec

/// Candid: binary messages (at their wire types and at expected types), text values, types and `.did` interfaces.
let candidHarnesses: [Harness] = [candidBinary, candidBinaryTyped, candidText, candidType, candidInterface]

/// The expected types the typed harnesses decode at: one interface touching every kind of type (recursion,
/// references, options at every depth, nested variants, numbers of every width).
private let expectedInterfaceText = """
    type Tree = variant { leaf : int; node : record { left : Tree; right : Tree; label : opt text } };
    type List = opt record { head : nat; tail : List };
    type Account = record { owner : principal; subaccount : opt blob };
    type Callback = func (nat64) -> (opt vec Account) query;
    type Value = variant { Nat : nat; Int : int; Text : text; Blob : blob; Array : vec Value; Map : vec record { text; Value } };
    service : {
      transfer : (record { to : Account; amount : nat; fee : opt nat; memo : opt blob; created_at_time : opt nat64 })
                 -> (variant { Ok : nat; Err : variant { BadFee : record { expected_fee : nat }; TooOld; GenericError : record { error_code : nat; message : text } } });
      tree : (Tree, List) -> (Tree) query;
      numbers : (nat8, nat16, nat32, nat64, int8, int16, int32, int64, float32, float64, bool, null, reserved) -> ();
      refs : (Callback, service { get : () -> (Value) query }, principal) -> (opt opt Value);
      values : (vec Value, vec record { nat; text }, opt variant { a; b : empty }) -> (record {});
    }
    """

/// Decoders at each method's argument and result types, compiled once.
nonisolated(unsafe) private var expectedDecoders: [(name: String, types: [CandidType], decoder: CandidDecoder)] = []
nonisolated(unsafe) private var expectedInterface: CandidInterface?

private func prepareExpectedTypes() {
    guard expectedInterface == nil else { return }
    do {
        let interface = try CandidInterface.parse(expectedInterfaceText)
        expectedInterface = interface
        for method in interface.service?.methods ?? [] {
            let function = try interface.requireMethod(method.name)
            for (direction, types) in [("arguments", function.argumentTypes), ("results", function.resultTypes)] {
                expectedDecoders.append((method.name + " " + direction, types,
                                         try CandidDecoder(types: types, environment: interface.environment)))
            }
        }
    } catch {
        FuzzCheck.fail("the typed harness's interface does not load: \(error)")
    }
}

/// Messages to start from: the spec suite's binary examples (`blob "DIDL…"` in the .test.did files) and random
/// values of the expected types.
private func candidMessageSeeds(_ sources: SeedSources) -> [Seed] {
    var seeds: [Seed] = [Seed("empty-args", Array("DIDL\u{0}\u{0}".utf8))]
    for (index, bytes) in suiteInputs(sources).blobs.enumerated() { seeds.append(Seed("suite-\(index)", bytes)) }
    for (index, entry) in expectedDecoders.enumerated() {
        for seed in 0..<4 {
            guard let values = try? Candid.randomArguments(types: entry.types, environment: expectedInterface!.environment, seed: UInt64(seed)),
                  let bytes = try? Candid.encode(values, types: entry.types, environment: expectedInterface!.environment)
            else { continue }
            seeds.append(Seed("random-\(index)-\(seed)", bytes))
        }
    }
    return seeds
}

/// The inputs of the spec suite's assertions (`assert blob "DIDL…" : …`, `assert "(…)" : …`) in the shared vectors.
private func suiteInputs(_ sources: SeedSources) -> (blobs: [[UInt8]], texts: [String]) {
    var blobs: [[UInt8]] = [], texts: [String] = []
    for file in sources.vectorFiles("candid", suffix: ".test.did") {
        guard let suite = try? CandidTestFile.parse(utf8: file.bytes) else { continue }
        for assertion in suite.assertions {
            var inputs = [assertion.input]
            if case .equal(let other) = assertion.kind { inputs.append(other) }
            if case .notEqual(let other) = assertion.kind { inputs.append(other) }
            for input in inputs {
                switch input {
                case .blob(let bytes): blobs.append(bytes)
                case .text(let text): texts.append(text)
                }
            }
        }
    }
    return (blobs, texts)
}

private let candidBinary = Harness(
    "candid-binary",
    "CandidDecoder at the wire types, with warnings, and Candid.messageTypes; values re-encoded at the message's own types decode to the same values",
    prepare: prepareExpectedTypes, seeds: candidMessageSeeds,
    parse: { bytes in (try? Candid.decode(bytes)) != nil }
) { bytes in
    guard let values = try? Candid.decode(bytes) else { return }
    var warnings: [CandidWarning] = []
    FuzzCheck.require((try? Candid.decode(bytes, warnings: &warnings)) == values, "decoding with warnings read other values")
    _ = Candid.print(arguments: values, style: .compact)
    guard let (types, environment) = try? Candid.messageTypes(bytes) else {
        FuzzCheck.fail("a message that decodes has no readable types")
    }
    FuzzCheck.require(types.count == values.count, "messageTypes found \(types.count) arguments, the decoder \(values.count)")
    _ = Candid.print(argumentTypes: types.map { CandidArgument($0) })
    // Future types decompile to reserved, so only messages without them re-encode at their own types.
    guard let encoded = try? Candid.encode(values, types: types, environment: environment) else { return }
    FuzzCheck.require((try? Candid.decode(encoded)) == values, "values re-encoded at the message's types decode differently")
}

private let candidBinaryTyped = Harness(
    "candid-binary-typed",
    "CandidDecoder at expected types (first byte picks one of the fixed interface's argument or result lists); decoded values encode at those types and decode back to themselves",
    prepare: prepareExpectedTypes,
    seeds: { sources in
        // Random messages under their own types; the suite's messages spread over all of them (most do not fit,
        // which exercises the subtyping and skipping paths).
        candidMessageSeeds(sources).enumerated().map { index, message in
            let selector = message.name.hasPrefix("random-")
                ? Int(message.name.split(separator: "-")[1]) ?? 0 : index % max(1, expectedDecoders.count)
            return Seed(message.name, [UInt8(selector)] + message.bytes)
        }
    }
) { bytes in
    var input = FuzzInput(bytes)
    let entry = expectedDecoders[Int(input.byte()) % expectedDecoders.count]
    let message = input.rest()
    guard let values = try? entry.decoder.decode(message) else { return }
    let environment = expectedInterface!.environment
    guard let encoded = try? Candid.encode(values, types: entry.types, environment: environment) else {
        FuzzCheck.fail("values decoded at \(entry.name) do not encode at those types")
    }
    FuzzCheck.require((try? entry.decoder.decode(encoded)) == values, "\(entry.name): decode → encode → decode changed the values")
}

private let candidText = Harness(
    "candid-text",
    "Candid.parseArguments without and with expected types; untyped values print (pretty and compact) and parse back equal, and encode and decode at their inferred types",
    prepare: prepareExpectedTypes,
    seeds: { sources in
        var seeds = [
            Seed("ledger", text: "(record { to = record { owner = principal \"ryjl3-tyaaa-aaaaa-aaaba-cai\"; subaccount = null }; amount = 1_000_000 : nat; fee = opt (10_000 : nat); memo = opt blob \"\\de\\ad\"; created_at_time = null })"),
            Seed("numbers", text: "(1 : nat8, -2 : int16, 3_000 : nat32, 0x7fff_ffff : int64, 1.5 : float32, -0.0 : float64, nan : float64, true, null)"),
            Seed("refs", text: "(func \"aaaaa-aa\".create_canister, service \"2vxsx-fae\", principal \"aaaaa-aa\", vec { 1; 2; 3 }, variant { Ok = \"\\u{1F600}\\t\" })"),
        ]
        for (index, text) in suiteInputs(sources).texts.enumerated() { seeds.append(Seed("suite-\(index)", text: text)) }
        return seeds
    },
    parse: { bytes in (try? Candid.parseArguments(utf8: bytes)) != nil }
) { bytes in
    if let values = try? Candid.parseArguments(utf8: bytes) {
        for style in [CandidPrintStyle.pretty, .compact] {
            let text = Candid.print(arguments: values, style: style)
            do throws(CandidError) {
                let parsed = try Candid.parseArguments(text)
                FuzzCheck.require(parsed == values, "printed values (\(style)) parse back differently: \(text.prefix(300))")
            } catch {
                FuzzCheck.fail("printed values (\(style)) do not parse back: \(error); \(text.prefix(300))")
            }
        }
        checkUntypedEncoding(values)
    }
    let environment = expectedInterface!.environment
    for entry in expectedDecoders.prefix(4) {
        guard let values = try? Candid.parseArguments(utf8: bytes, types: entry.types, environment: environment) else { continue }
        guard let encoded = try? Candid.encode(values, types: entry.types, environment: environment) else {
            FuzzCheck.fail("text typed at \(entry.name) does not encode at those types")
        }
        FuzzCheck.require((try? entry.decoder.decode(encoded)) == values, "\(entry.name): text values do not round-trip through binary")
    }
}

private let candidType = Harness(
    "candid-type",
    "Candid.parseType and parseArgumentTypes; a printed type parses back to the same type",
    seeds: { sources in
        var seeds = [
            Seed("record", text: "record { owner : principal; subaccount : opt vec nat8; \"quoted name\" : variant { a; b : reserved; 42 : empty } }"),
            Seed("func", text: "func (nat, to : principal) -> (opt text) composite_query"),
            Seed("args", text: "(service { m : (blob) -> () oneway }, vec record { nat; int; float64 }, Named)"),
        ]
        for file in sources.realworldFiles("candid", suffix: ".did").prefix(40) {
            for (index, line) in String(decoding: file.bytes, as: UTF8.self).split(separator: ";").prefix(20).enumerated() {
                if let equals = line.firstIndex(of: "=") { seeds.append(Seed("\(file.name)-\(index)", text: String(line[line.index(after: equals)...]))) }
            }
        }
        return seeds
    },
    parse: { bytes in (try? Candid.parseType(utf8: bytes)) != nil }
) { bytes in
    if let type = try? Candid.parseType(utf8: bytes) {
        for style in [CandidPrintStyle.pretty, .compact] {
            let text = Candid.print(type, style: style)
            FuzzCheck.require((try? Candid.parseType(text)) == type, "a printed type (\(style)) parses back differently: \(text.prefix(300))")
        }
    }
    if let arguments = try? Candid.parseArgumentTypes(utf8: bytes) {
        let text = Candid.print(argumentTypes: arguments)
        FuzzCheck.require((try? Candid.parseArgumentTypes(text)) == arguments, "printed argument types parse back differently: \(text.prefix(300))")
    }
}

private let candidInterface = Harness(
    "candid-did",
    "CandidInterface.parse of .did text (imports refused); the printed interface parses back and prints the same, and every interface is a compatible upgrade of itself",
    seeds: { sources in
        var seeds = [Seed("expected", text: expectedInterfaceText),
                     Seed("init-args", text: "type A = record { x : A2 }; type A2 = opt A; service : (A) -> { get : () -> (A) query }")]
        for file in sources.realworldFiles("candid", suffix: ".did") { seeds.append(Seed(file.name, file.bytes)) }
        for file in sources.vectorFiles("candid", suffix: ".did") where !file.name.hasSuffix(".test.did") { seeds.append(Seed(file.name, file.bytes)) }
        return seeds
    },
    parse: { bytes in (try? CandidInterface.parse(utf8: bytes)) != nil }
) { bytes in
    guard let interface = try? CandidInterface.parse(utf8: bytes) else { return }
    let printed = interface.printed()
    guard let again = try? CandidInterface.parse(printed) else { FuzzCheck.fail("a printed interface does not parse: \(printed.prefix(300))") }
    FuzzCheck.require(again.printed() == printed, "printing a re-parsed interface changed it")
    for method in interface.service?.methods ?? [] { _ = try? interface.method(method.name) }
    // Subtyping is reflexive: only running out of the work budget may stop the check.
    do throws(CandidError) {
        let reflexive = try interface.isCompatibleUpgrade(of: interface)
        FuzzCheck.require(reflexive, "an interface is not a compatible upgrade of itself")
    } catch {
        FuzzCheck.require(error.kind == .limitExceeded, "checking an interface against itself failed: \(error)")
    }
}

/// Without types, a vector's elements share their least common type, or the values are refused. Values that have
/// types encode at them and decode back.
private func checkUntypedEncoding(_ values: [CandidValue]) {
    guard let types = try? CandidValue.inferredTypes(of: values) else {
        FuzzCheck.require((try? Candid.encode(values)) == nil, "values without a common type encoded")
        return
    }
    do throws(CandidError) {
        let encoded = try Candid.encode(values)
        guard let decoded = try? Candid.decode(encoded, types: types) else { FuzzCheck.fail("values encoded at their inferred types do not decode") }
        if values.allSatisfy(hasUniformVectors) {
            FuzzCheck.require(decoded == values, "values do not round-trip through binary at their inferred types")
        } else {
            // Widened elements come back at the common type (a nat as an int, null as an absent option), so
            // what they decode to must encode to the same bytes.
            FuzzCheck.require((try? Candid.encode(decoded, types: types)) == encoded, "values at their inferred types do not re-encode to the same bytes")
        }
    } catch {
        FuzzCheck.require(error.kind == .limitExceeded, "values with inferred types do not encode at them: \(error)")
    }
}

/// Whether every vector in `value` holds elements of one inferred type (so encoding without types widens nothing).
private func hasUniformVectors(_ value: CandidValue) -> Bool {
    switch value {
    case .vec(let elements):
        guard let first = elements.first.map({ try? $0.inferredType() }) else { return true }
        return elements.allSatisfy { (try? $0.inferredType()) == first && hasUniformVectors($0) }
    case .opt(let payload): return payload.map(hasUniformVectors) ?? true
    case .record(let fields): return fields.allSatisfy { hasUniformVectors($0.value) }
    case .variant(let field): return hasUniformVectors(field.value)
    default: return true
    }
}
