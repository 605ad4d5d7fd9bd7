/// The JSON form of described SCALE values (the mapping `omni help truapi-json` documents):
///
/// - `()` is null; bool is a boolean; u8, u16, u32 are numbers; u64, u128 and compacts of them are decimal strings
///   (JSON numbers lose precision past 2^53). On input every integer may be a number or a decimal string.
/// - str is a string; bytes and `[u8; N]` are `0x`-prefixed lowercase hex (input: with or without `0x`).
/// - `Vec<T>` and tuples are arrays; `Option<T>` and OptionBool are null or the value.
/// - structs are objects in field order (input: absent `Option` fields are None; unknown keys are errors).
/// - enums: a unit variant is its name as a string, any other `{"Name": payload}` (a one-item tuple's payload is
///   the item, a longer tuple an array, a fields variant an object). Input also takes `{"Name": null}` for a
///   unit variant.
/// - versioned envelopes: the V1 content stands for itself; another version is `{"V2": content}` (input takes
///   `{"V1": content}` too).
/// - `Result` is `{"Ok": value}` or `{"Err": error}`.
extension SCALECodec {
    /// The JSON of `value` read as `type`.
    public func json(_ value: SCALEValue, as type: SCALEType) throws(CodecError) -> JSONValue {
        var path: [String] = []
        return try json(value, type, &path, depth: 0)
    }

    /// The value `json` describes as `type`; errors name the JSON path (`$.payload.items[3]`) under `root`.
    public func value(fromJSON json: JSONValue, as type: SCALEType, root: String = "$") throws(CodecError) -> SCALEValue {
        var path: [String] = []
        return try value(json, type, &path, root: root, depth: 0)
    }

    // MARK: - To JSON

    private func json(_ value: SCALEValue, _ type: SCALEType, _ path: inout [String], depth: Int) throws(CodecError) -> JSONValue {
        guard depth <= limits.maxDepth else {
            throw CodecError(.limitExceeded, format: "SCALE", "nesting deeper than \(limits.maxDepth)", path: "$" + path.joined())
        }
        func misfit() -> CodecError {
            CodecError(.malformed, format: "SCALE", "a \(Self.describe(value)) value does not fit \(Self.describe(type))",
                       path: "$" + path.joined())
        }
        switch (type, value) {
        case (.unit, .unit): return .null
        case (.bool, .bool(let flag)): return .bool(flag)
        case (.integer(let width), .integer(let number)), (.compact(let width), .integer(let number)):
            return width.byteCount <= 4 ? .number(String(number)) : .string(String(number))
        case (.string, .string(let text)): return .string(text)
        case (.bytes, .bytes(let data)), (.fixedBytes, .bytes(let data)): return .string("0x" + Hex.encode(data))
        case (.optionBool, .option(let inner)):
            guard let inner else { return .null }
            guard case .bool(let flag) = inner else { throw misfit() }
            return .bool(flag)
        case (.named(let name), _):
            guard let resolved = registry[name] else { throw misfit() }
            return try json(value, resolved, &path, depth: depth)
        case (.vector(let element), .sequence(let items)):
            var array: [JSONValue] = []
            array.reserveCapacity(items.count)
            for (index, item) in items.enumerated() {
                path.append("[\(index)]")
                array.append(try json(item, element, &path, depth: depth + 1))
                path.removeLast()
            }
            return .array(array)
        case (.tuple(let members), .sequence(let items)) where members.count == items.count:
            var array: [JSONValue] = []
            for (index, (member, item)) in zip(members, items).enumerated() {
                path.append("[\(index)]")
                array.append(try json(item, member, &path, depth: depth + 1))
                path.removeLast()
            }
            return .array(array)
        case (.option(let inner), .option(let content)):
            guard let content else { return .null }
            return try json(content, inner, &path, depth: depth + 1)
        case (.result(let ok, _), .ok(let content)):
            path.append(".Ok")
            defer { path.removeLast() }
            return .object(JSONObject([("Ok", try json(content, ok, &path, depth: depth + 1))]))
        case (.result(_, let error), .err(let content)):
            path.append(".Err")
            defer { path.removeLast() }
            return .object(JSONObject([("Err", try json(content, error, &path, depth: depth + 1))]))
        case (.structure(let fields), .record(let record)):
            return try jsonFields(fields, record, &path, depth: depth + 1)
        case (.enumeration(let variants), .variant(let name, let payload)), (.versioned(let variants), .variant(let name, let payload)):
            guard let variant = variants.first(where: { $0.name == name }) else { throw misfit() }
            path.append("." + name)
            defer { path.removeLast() }
            let content: JSONValue
            switch variant.payload {
            case .none:
                content = .null
            case .tuple(let members) where members.isEmpty:
                content = .null
            case .tuple(let members) where members.count == 1:
                content = try json(payload, members[0], &path, depth: depth + 1)
            case .tuple(let members):
                content = try json(payload, .tuple(members), &path, depth: depth + 1)
            case .fields(let fields):
                guard case .record(let record) = payload else { throw misfit() }
                content = try jsonFields(fields, record, &path, depth: depth + 1)
            }
            if case .versioned = type, variant.index == 0 { return content }
            if variant.isUnit, case .enumeration = type { return .string(name) }
            return .object(JSONObject([(name, content)]))
        default:
            throw misfit()
        }
    }

    private func jsonFields(_ fields: [SCALEField], _ record: [String: SCALEValue], _ path: inout [String],
                            depth: Int) throws(CodecError) -> JSONValue {
        var object = JSONObject()
        for field in fields {
            path.append("." + field.name)
            guard let member = record[field.name] else {
                throw CodecError(.malformed, format: "SCALE", "missing field \(field.name)", path: "$" + path.joined())
            }
            object.append(field.name, try json(member, field.type, &path, depth: depth))
            path.removeLast()
        }
        return .object(object)
    }

    // MARK: - From JSON

    private func value(_ json: JSONValue, _ type: SCALEType, _ path: inout [String], root: String,
                       depth: Int) throws(CodecError) -> SCALEValue {
        func wrong(_ message: String) -> CodecError {
            CodecError(.malformed, format: "JSON", message, path: root + path.joined())
        }
        guard depth <= limits.maxDepth else {
            throw CodecError(.limitExceeded, format: "JSON", "nesting deeper than \(limits.maxDepth)", path: root + path.joined())
        }
        switch type {
        case .unit:
            guard json.isNull else { throw wrong("expected null for ()") }
            return .unit
        case .bool:
            guard let flag = json.boolValue else { throw wrong("expected true or false") }
            return .bool(flag)
        case .integer(let width), .compact(let width):
            let text: String
            switch json {
            case .number(let digits): text = digits
            case .string(let digits): text = digits
            default: throw wrong("expected \(Self.describe(type)) as a number or a decimal string")
            }
            guard !text.isEmpty, text.utf8.allSatisfy({ (0x30...0x39).contains($0) }), let number = UInt128(text) else {
                throw wrong("'\(text.prefix(40))' is not a non-negative integer")
            }
            guard number <= width.maximum else { throw wrong("\(number) exceeds \(width.rawValue) (maximum \(width.maximum))") }
            return .integer(number)
        case .string:
            guard let text = json.stringValue else { throw wrong("expected a string") }
            return .string(text)
        case .bytes, .fixedBytes:
            guard let text = json.stringValue else { throw wrong("expected bytes as 0x-prefixed hex") }
            let data: [UInt8]
            do { data = try Hex.decode(text, allowPrefix: true) } catch { throw wrong("bytes: \(error.message)") }
            if case .fixedBytes(let count) = type, data.count != count {
                throw wrong("[u8; \(count)] needs \(count) bytes (\(count * 2) hex digits), got \(data.count)")
            }
            return .bytes(data)
        case .optionBool:
            if json.isNull { return .absent }
            guard let flag = json.boolValue else { throw wrong("expected null, true or false") }
            return .some(.bool(flag))
        case .named(let name):
            guard let resolved = registry[name] else { throw wrong("unknown type \(name)") }
            return try value(json, resolved, &path, root: root, depth: depth)
        case .vector(let element):
            guard let items = json.arrayValue else { throw wrong("expected an array for \(Self.describe(type))") }
            var values: [SCALEValue] = []
            values.reserveCapacity(items.count)
            for (index, item) in items.enumerated() {
                path.append("[\(index)]")
                values.append(try value(item, element, &path, root: root, depth: depth + 1))
                path.removeLast()
            }
            return .sequence(values)
        case .tuple(let members):
            guard let items = json.arrayValue, items.count == members.count else {
                throw wrong("expected an array of \(members.count) items for \(Self.describe(type))")
            }
            var values: [SCALEValue] = []
            for (index, (member, item)) in zip(members, items).enumerated() {
                path.append("[\(index)]")
                values.append(try value(item, member, &path, root: root, depth: depth + 1))
                path.removeLast()
            }
            return .sequence(values)
        case .option(let inner):
            if json.isNull { return .absent }
            return .some(try value(json, inner, &path, root: root, depth: depth + 1))
        case .result(let ok, let error):
            guard let object = json.objectValue, object.count == 1, let key = object.keys.first, key == "Ok" || key == "Err" else {
                throw wrong("expected {\"Ok\": …} or {\"Err\": …}")
            }
            path.append("." + key)
            defer { path.removeLast() }
            let content = object[key] ?? .null
            return key == "Ok" ? .ok(try value(content, ok, &path, root: root, depth: depth + 1))
                : .err(try value(content, error, &path, root: root, depth: depth + 1))
        case .structure(let fields):
            return .record(try valueFields(json, fields, &path, root: root, depth: depth + 1))
        case .enumeration(let variants), .versioned(let variants):
            let isVersioned: Bool
            if case .versioned = type { isVersioned = true } else { isVersioned = false }
            let name: String
            let content: JSONValue
            var unwrapped = false
            if let text = json.stringValue, variants.contains(where: { $0.name == text && $0.isUnit }), !isVersioned {
                name = text
                content = .null
            } else if let object = json.objectValue, object.count == 1, let key = object.keys.first,
                      variants.contains(where: { $0.name == key }) {
                name = key
                content = object[key] ?? .null
            } else if isVersioned, let first = variants.first(where: { $0.index == 0 }) {
                name = first.name
                content = json
                unwrapped = true
            } else {
                let names = variants.map { $0.isUnit ? "\"\($0.name)\"" : "{\"\($0.name)\": …}" }.joined(separator: ", ")
                throw wrong("expected one of \(names)")
            }
            let variant = variants.first(where: { $0.name == name })!
            // The JSON path follows the JSON: an unwrapped V1 content has no `.V1` level.
            if !unwrapped { path.append("." + name) }
            defer { if !unwrapped { path.removeLast() } }
            switch variant.payload {
            case .none:
                guard content.isNull else { throw wrong("variant \(name) has no payload: give \"\(name)\"") }
                return .variant(name, .unit)
            case .tuple(let members) where members.isEmpty:
                guard content.isNull else { throw wrong("variant \(name) has no payload") }
                return .variant(name, .unit)
            case .tuple(let members) where members.count == 1:
                return .variant(name, try value(content, members[0], &path, root: root, depth: depth + 1))
            case .tuple(let members):
                return .variant(name, try value(content, .tuple(members), &path, root: root, depth: depth + 1))
            case .fields(let fields):
                return .variant(name, .record(try valueFields(content, fields, &path, root: root, depth: depth + 1)))
            }
        }
    }

    private func valueFields(_ json: JSONValue, _ fields: [SCALEField], _ path: inout [String], root: String,
                             depth: Int) throws(CodecError) -> [String: SCALEValue] {
        guard let object = json.objectValue else {
            throw CodecError(.malformed, format: "JSON", "expected an object with \(fields.map(\.name).joined(separator: ", "))",
                             path: root + path.joined())
        }
        if let unknown = object.keys.first(where: { key in !fields.contains { $0.name == key } }) {
            throw CodecError(.malformed, format: "JSON",
                             "unknown field \(unknown) (expected \(fields.map(\.name).joined(separator: ", ")))",
                             path: root + path.joined())
        }
        var record: [String: SCALEValue] = [:]
        for field in fields {
            path.append("." + field.name)
            if let member = object[field.name] {
                record[field.name] = try value(member, field.type, &path, root: root, depth: depth)
            } else if isOptional(field.type) {
                record[field.name] = .absent
            } else {
                throw CodecError(.malformed, format: "JSON", "missing field \(field.name)", path: root + path.dropLast().joined())
            }
            path.removeLast()
        }
        return record
    }

    private func isOptional(_ type: SCALEType) -> Bool {
        switch registry.resolve(type) {
        case .option?, .optionBool?: true
        default: false
        }
    }
}
