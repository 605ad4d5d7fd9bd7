import OmniCodec

// # Candid ⇄ JSON mapping
//
// `omni` maps Candid values to JSON for scripts (`--output json`) and reads JSON back into Candid when the
// Candid type is known (JSON alone cannot say whether `5` is a `nat8` or an `int`).
//
// | Candid                                  | JSON                                                          |
// |-----------------------------------------|---------------------------------------------------------------|
// | `null`, `reserved`                      | `null`                                                        |
// | `bool`                                  | `true` / `false`                                              |
// | `nat`, `int`, `nat64`, `int64`          | decimal string: `"18446744073709551615"`, `"-5"`              |
// | `nat8`…`nat32`, `int8`…`int32`          | number: `255`, `-7`                                           |
// | `float32`, `float64`                    | number; `"NaN"`, `"Infinity"`, `"-Infinity"` for non-finite   |
// | `text`                                  | string                                                        |
// | `blob` (`vec nat8`)                     | lowercase hex string: `"deadbeef"`                            |
// | `vec T`                                 | array                                                         |
// | `opt T`                                 | `null` when absent, otherwise the value itself                |
// | `record` with names                     | object keyed by field name; unnamed ids as `"_123_"`          |
// | tuple record (`record { T0; T1 }`)      | array `[v0, v1]`                                              |
// | `variant { tag = v }`                   | object with one key: `{"tag": v}` (`{"ok": null}` for null)   |
// | `principal`, `service`                  | textual principal: `"aaaaa-aa"`                               |
// | `func`                                  | `{"service": "<principal>", "method": "<name>"}`              |
//
// Reading JSON back (`Candid.arguments(fromJSON:types:)`):
// - numbers are accepted as JSON numbers or decimal strings for every numeric type, range-checked;
// - a blob is also accepted as an array of byte numbers;
// - a record is read from an object (keys: field names, `"_123_"`, or the decimal id), or from an array when the
//   type is a tuple; absent fields of null, option or reserved type become null; unknown keys are an error
//   (to catch misspelled field names);
// - a variant case whose type is `null` may also be given as a bare string: `"ok"`;
// - `null` for an option type is the absent value. Because an option's value maps to the value itself,
//   `opt null`, `opt opt …` and `opt reserved` cannot be told apart from `null` in JSON: such a value reads
//   back as the absent option.
//
// Values decoded without a type carry only numeric field ids, so their records use `"_123_"` keys; decode with
// the method's type (from a `.did` file) to get field names.

extension CandidValue {
    /// The JSON form of this value (see the mapping above).
    public var json: JSONValue {
        switch self {
        case .null, .reserved, .opt(nil): return .null
        case .bool(let flag): return .bool(flag)
        case .nat(let number): return .string(number.description)
        case .int(let number): return .string(number.description)
        case .nat64(let number): return .string(String(number))
        case .int64(let number): return .string(String(number))
        case .nat8(let number): return .int(number)
        case .nat16(let number): return .int(number)
        case .nat32(let number): return .int(number)
        case .int8(let number): return .int(number)
        case .int16(let number): return .int(number)
        case .int32(let number): return .int(number)
        case .float32(let number): return CandidValue.floatJSON(Double(number), text: number.description)
        case .float64(let number): return CandidValue.floatJSON(number, text: number.description)
        case .text(let text): return .string(text)
        case .principal(let principal), .service(let principal): return .string(principal.text)
        case .opt(let payload?): return payload.json
        case .blob(let bytes): return .string(Hex.encode(bytes))
        case .vec(let elements): return .array(elements.map(\.json))
        case .record(let fields):
            if !fields.isEmpty && CandidPrinter.isTuple(fields) { return .array(fields.map(\.value.json)) }
            return .object(JSONObject(fields.map { ($0.label.jsonKey, $0.value.json) }))
        case .variant(let field):
            return .object(JSONObject([(field.label.jsonKey, field.value.json)]))
        case .function(let principal, let method):
            return .object(JSONObject([("service", .string(principal.text)), ("method", .string(method))]))
        }
    }

    private static func floatJSON(_ number: Double, text: String) -> JSONValue {
        if number.isNaN { return .string("NaN") }
        if number.isInfinite { return .string(number < 0 ? "-Infinity" : "Infinity") }
        // Swift's shortest text (`1e-05`, `0.1`) is valid JSON number syntax once `inf`/`nan` are excluded.
        return .number(text)
    }
}

extension CandidLabel {
    /// The JSON object key: the name, or `_id_` for a numeric label.
    public var jsonKey: String { name ?? "_\(id)_" }
}

extension Candid {
    /// An argument list as a JSON array.
    public static func json(arguments: [CandidValue]) -> JSONValue { .array(arguments.map(\.json)) }

    /// Reads an argument list from a JSON array (a single non-array value is taken as a one-element list).
    public static func arguments(fromJSON json: JSONValue, types: [CandidType],
                                 environment: CandidTypeEnvironment = CandidTypeEnvironment(),
                                 limits: CandidLimits = .default) throws(CandidError) -> [CandidValue] {
        let items = json.arrayValue ?? [json]
        let (graph, references) = try TypeCompiler.compile(types, in: environment, maxDepth: limits.maxDepth)
        var reader = JSONReader(graph: graph, maxDepth: limits.maxDepth)
        var values: [CandidValue] = []
        for (index, reference) in references.enumerated() {
            do throws(CandidError) {
                if index < items.count {
                    values.append(try reader.read(items[index], reference))
                } else if let value = reader.defaultValue(reference) {
                    values.append(value)
                } else {
                    throw CandidError(.typeMismatch, "missing argument of type \(describe(reference, in: graph))")
                }
            } catch {
                throw error.inside(.argument(index))
            }
        }
        if items.count > references.count {
            throw CandidError(.typeMismatch, "\(items.count) JSON values for \(references.count) argument types")
        }
        return values
    }

    /// Reads one value of `type` from JSON.
    public static func value(fromJSON json: JSONValue, type: CandidType,
                             environment: CandidTypeEnvironment = CandidTypeEnvironment(),
                             limits: CandidLimits = .default) throws(CandidError) -> CandidValue {
        let (graph, references) = try TypeCompiler.compile([type], in: environment, maxDepth: limits.maxDepth)
        var reader = JSONReader(graph: graph, maxDepth: limits.maxDepth)
        return try reader.read(json, references[0])
    }
}

private struct JSONReader {
    let graph: TypeGraph
    let maxDepth: Int
    var depth = 0

    init(graph: TypeGraph, maxDepth: Int) {
        self.graph = graph
        self.maxDepth = maxDepth
    }

    func defaultValue(_ e: Int) -> CandidValue? {
        if e == Opcode.null { return .null }
        if e == Opcode.reserved { return .reserved }
        if e >= 0, case .opt = graph.nodes[e] { return .opt(nil) }
        return nil
    }

    private func mismatch(_ json: JSONValue, _ e: Int) -> CandidError {
        CandidError(.typeMismatch, "JSON \(json.kindDescription) cannot be read as \(describe(e, in: graph))")
    }

    mutating func read(_ json: JSONValue, _ e: Int) throws(CandidError) -> CandidValue {
        if e == Opcode.reserved { return .reserved }
        if e < 0 { return try readPrimitive(json, e) }
        // Depth counts what the binary decoder counts (options holding a value, vectors, records, variants), so
        // any value that decodes reads again from its JSON.
        let nests: Bool = switch graph.nodes[e] {
        case .opt: !json.isNull
        case .vec, .record, .variant: true
        default: false
        }
        if nests { depth += 1 }
        defer { if nests { depth -= 1 } }
        guard depth <= maxDepth else { throw CandidError(.limitExceeded, "JSON nested deeper than \(maxDepth)") }
        switch graph.nodes[e] {
        case .opt(let inner):
            if json.isNull { return .opt(nil) }
            return .opt(try read(json, inner))
        case .vec(let inner):
            if inner == Opcode.nat8, let text = json.stringValue {
                guard let bytes = try? Hex.decode(text) else { throw CandidError(.typeMismatch, "blob string is not hexadecimal") }
                return .blob(bytes)
            }
            guard let items = json.arrayValue else { throw mismatch(json, e) }
            var values: [CandidValue] = []
            values.reserveCapacity(items.count)
            for (index, item) in items.enumerated() {
                do throws(CandidError) { values.append(try read(item, inner)) } catch { throw error.inside(.element(index)) }
            }
            if inner == Opcode.nat8 {
                return .blob(values.map { if case .nat8(let byte) = $0 { return byte }; return 0 })
            }
            return .vec(values)
        case .record(let fields):
            return try readRecord(json, fields, e)
        case .variant(let fields):
            let tag: String, payload: JSONValue
            if let text = json.stringValue {
                (tag, payload) = (text, .null)
            } else if let object = json.objectValue, object.count == 1, let entry = object.entries.first {
                (tag, payload) = (entry.key, entry.value)
            } else {
                throw CandidError(.typeMismatch, "a variant is an object with exactly one key, found JSON \(json.kindDescription)")
            }
            guard let field = fields.first(where: { $0.label.matches(jsonKey: tag) }) else {
                throw CandidError(.typeMismatch, "variant case \(CandidLabel.quoted(tag)) is not in \(describe(e, in: graph))")
            }
            do throws(CandidError) { return .variant(CandidFieldValue(field.label, try read(payload, field.type))) }
            catch { throw error.inside(.variantCase(field.label)) }
        case .function:
            guard let object = json.objectValue, let service = object["service"]?.stringValue, let method = object["method"]?.stringValue else {
                throw CandidError(.typeMismatch, "a func reference is {\"service\": principal, \"method\": name}")
            }
            return .function(try Principal(text: service), method: method)
        case .service:
            guard let text = json.stringValue else { throw mismatch(json, e) }
            return .service(try Principal(text: text))
        case .future:
            return .reserved
        }
    }

    private mutating func readRecord(_ json: JSONValue, _ fields: [GraphField], _ e: Int) throws(CandidError) -> CandidValue {
        var values: [CandidFieldValue] = []
        values.reserveCapacity(fields.count)
        if let items = json.arrayValue {
            let isTuple = fields.enumerated().allSatisfy { UInt32($0.offset) == $0.element.label.id }
            guard isTuple, items.count <= fields.count else { throw mismatch(json, e) }
            for (index, field) in fields.enumerated() {
                do throws(CandidError) {
                    if index < items.count {
                        values.append(CandidFieldValue(field.label, try read(items[index], field.type)))
                    } else if let value = defaultValue(field.type) {
                        values.append(CandidFieldValue(field.label, value))
                    } else {
                        throw CandidError(.typeMismatch, "tuple element \(index) is missing")
                    }
                } catch { throw error.inside(.field(field.label)) }
            }
            return .record(values)
        }
        guard let object = json.objectValue else { throw mismatch(json, e) }
        var used = 0
        for field in fields {
            let entry = object.entries.first { field.label.matches(jsonKey: $0.key) }
            do throws(CandidError) {
                if let entry {
                    used += 1
                    values.append(CandidFieldValue(field.label, try read(entry.value, field.type)))
                } else if let value = defaultValue(field.type) {
                    values.append(CandidFieldValue(field.label, value))
                } else {
                    throw CandidError(.typeMismatch, "record field \(field.label.quotedDescription) is missing")
                }
            } catch { throw error.inside(.field(field.label)) }
        }
        if used < object.count {
            let unknown = object.entries.first { entry in !fields.contains { $0.label.matches(jsonKey: entry.key) } }
            throw CandidError(.typeMismatch, "unknown record field \(CandidLabel.quoted(unknown?.key ?? "?")) for \(describe(e, in: graph))")
        }
        return .record(values)
    }

    private func readPrimitive(_ json: JSONValue, _ e: Int) throws(CandidError) -> CandidValue {
        switch e {
        case Opcode.null:
            guard json.isNull else { throw mismatch(json, e) }
            return .null
        case Opcode.bool:
            guard let flag = json.boolValue else { throw mismatch(json, e) }
            return .bool(flag)
        case Opcode.text:
            guard let text = json.stringValue else { throw mismatch(json, e) }
            return .text(text)
        case Opcode.principal:
            guard let text = json.stringValue else { throw mismatch(json, e) }
            return .principal(try Principal(text: text))
        case Opcode.float32, Opcode.float64:
            let text: String
            switch json {
            case .number(let number): text = number
            case .string("NaN"): text = "nan"
            case .string("Infinity"): text = "inf"
            case .string("-Infinity"): text = "-inf"
            case .string(let number): text = number
            default: throw mismatch(json, e)
            }
            if e == Opcode.float32, let value = Float(text) { return .float32(value) }
            if e == Opcode.float64, let value = Double(text) { return .float64(value) }
            throw CandidError(.typeMismatch, "\(text) is not a valid \(Opcode.name(e))")
        case Opcode.empty:
            throw CandidError(.typeMismatch, "no value has type empty")
        default:
            let text: String
            switch json {
            case .number(let number): text = number
            case .string(let number): text = number
            default: throw mismatch(json, e)
            }
            return try integer(text, e)
        }
    }

    private func integer(_ text: String, _ e: Int) throws(CandidError) -> CandidValue {
        guard text.utf8.count <= 4096, let value = BigInt(text) else {
            throw CandidError(.typeMismatch, "\(CandidLabel.quoted(text)) is not an integer")
        }
        func outOfRange() -> CandidError { CandidError(.typeMismatch, "\(text) is out of range for \(Opcode.name(e))") }
        switch e {
        case Opcode.int: return .int(value)
        case Opcode.nat:
            guard !value.isNegative else { throw outOfRange() }
            return .nat(value.magnitude)
        case Opcode.nat64:
            guard !value.isNegative, let small = value.magnitude.uint64Value else { throw outOfRange() }
            return .nat64(small)
        default:
            guard let small = value.int64Value else { throw outOfRange() }
            switch e {
            case Opcode.nat8: guard let v = UInt8(exactly: small) else { throw outOfRange() }; return .nat8(v)
            case Opcode.nat16: guard let v = UInt16(exactly: small) else { throw outOfRange() }; return .nat16(v)
            case Opcode.nat32: guard let v = UInt32(exactly: small) else { throw outOfRange() }; return .nat32(v)
            case Opcode.int8: guard let v = Int8(exactly: small) else { throw outOfRange() }; return .int8(v)
            case Opcode.int16: guard let v = Int16(exactly: small) else { throw outOfRange() }; return .int16(v)
            case Opcode.int32: guard let v = Int32(exactly: small) else { throw outOfRange() }; return .int32(v)
            case Opcode.int64: return .int64(small)
            default: throw outOfRange()
            }
        }
    }
}

extension CandidLabel {
    /// Whether a JSON key names this label: its name, `_id_`, or the decimal id.
    func matches(jsonKey key: String) -> Bool {
        if let name, name == key { return true }
        if key.hasPrefix("_"), key.hasSuffix("_"), key.count > 2, let number = UInt32(key.dropFirst().dropLast()) { return number == id }
        if let number = UInt32(key) { return number == id && name == nil }
        return name == nil && Candid.hash(key) == id
    }
}

extension JSONValue {
    var kindDescription: String {
        switch self {
        case .null: return "null"
        case .bool: return "boolean"
        case .number(let text): return "number \(text)"
        case .string: return "string"
        case .array: return "array"
        case .object: return "object"
        }
    }
}
