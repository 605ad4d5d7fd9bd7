import OmniCLI
import OmniCodec
import OmniIrd

/// `-F key=value` (typed) and `-f key=value` (raw string) fields, as `gh api` takes them: `a.b=…` nests, `a[]=…`
/// appends to an array, `a[].b=…` appends an object. A typed value follows the body schema where it knows the field
/// (a money field declared as a string stays a string, whatever it looks like), else `true`, `false`, `null` and
/// numbers are JSON, `@FILE` is the file's text, anything else a string. Numbers keep their decimal text.
enum IrdFields {
    struct Field {
        let text: String
        let typed: Bool

        /// The key, when it names a secret (SecretNames) and its value is on the command line itself: -f always,
        /// -F unless the value is @FILE.
        var secretKeyGivenLiterally: String? {
            guard let equals = text.firstIndex(of: "=") else { return nil }
            let key = String(text[..<equals])
            let last = key.split(separator: ".").last.map { String($0.hasSuffix("[]") ? $0.dropLast(2) : $0[...]) } ?? key
            guard SecretNames.looksSecret(last) else { return nil }
            let value = text[text.index(after: equals)...]
            if typed, value.hasPrefix("@"), value.count > 1 { return nil }
            return key
        }
    }

    /// The first key anywhere in a body that names a secret and holds a value (a string, number or structure).
    static func secretKey(in body: JSONValue) -> String? {
        if let object = body.objectValue {
            for (key, value) in object {
                if SecretNames.looksSecret(key), !value.isNull { return key }
                if let inner = secretKey(in: value) { return key + "." + inner }
            }
        } else if let array = body.arrayValue {
            for value in array { if let inner = secretKey(in: value) { return inner } }
        }
        return nil
    }

    static func apply(_ fields: [Field], to body: JSONValue?, schema: SchemaRef?, document: OpenAPIDocument?,
                      invocation: Invocation) throws -> JSONValue? {
        guard !fields.isEmpty else { return body }
        var root = body ?? .object(JSONObject())
        guard root.objectValue != nil else {
            throw CLIError(.input, "fields (-F/-f) need a JSON object body, but --json gave \(root.serialized().prefix(20))…")
        }
        for field in fields {
            guard let equals = field.text.firstIndex(of: "="), equals != field.text.startIndex else {
                throw CLIError.usage("field '\(TerminalText.escaped(field.text))' is not key=value", commandPath: invocation.commandPath)
            }
            let key = String(field.text[..<equals])
            let raw = String(field.text[field.text.index(after: equals)...])
            let segments = key.split(separator: ".", omittingEmptySubsequences: false).map(String.init)
            guard !segments.contains(where: { $0.isEmpty || $0 == "[]" }) else {
                throw CLIError.usage("field '\(TerminalText.escaped(key))' has an empty name part", commandPath: invocation.commandPath)
            }
            let target = schemaAt(segments, schema, document)
            let value = field.typed ? try typedValue(raw, schema: target, document: document, key: key, invocation: invocation) : .string(raw)
            root = try set(value, at: segments[...], in: root, key: key)
        }
        return root
    }

    /// The schema of the field a key names, through properties, array items and allOf/anyOf/oneOf.
    static func schemaAt(_ segments: [String], _ start: SchemaRef?, _ document: OpenAPIDocument?) -> Schema? {
        guard let document, var current = start else { return nil }
        for segment in segments {
            let appends = segment.hasSuffix("[]")
            let name = appends ? String(segment.dropLast(2)) : segment
            guard let property = property(name, of: current, document) else { return nil }
            current = property
            if appends { guard let items = document[current].items else { return nil }; current = items }
        }
        return document[current]
    }

    static func property(_ name: String, of ref: SchemaRef, _ document: OpenAPIDocument) -> SchemaRef? {
        var visited = Set<Int>()
        var stack = [ref]
        while let next = stack.popLast() {
            guard visited.insert(next.index).inserted else { continue }
            let schema = document[next]
            if let found = schema.property(name) { return found }
            stack.append(contentsOf: (schema.allOf + schema.anyOf + schema.oneOf).reversed())
        }
        return nil
    }

    static func typedValue(_ raw: String, schema: Schema?, document: OpenAPIDocument?, key: String, invocation: Invocation) throws -> JSONValue {
        var text = raw
        if raw.hasPrefix("@"), raw.count > 1 {
            text = try invocation.readText(.path(String(raw.dropFirst())), label: "field \(key)")
        }
        let types = schema?.types ?? []
        if text == "null", schema?.nullable == true || schema == nil { return .null }
        if !types.isEmpty {
            if types.contains(.string) { return .string(text) }
            if types.contains(.integer) || types.contains(.number) {
                guard DecimalText.isNumber(text) else {
                    throw CLIError(.input, "field \(key): expected a number, got '\(TerminalText.escaped(text))'")
                }
                return .number(text)
            }
            if types.contains(.boolean) {
                guard text == "true" || text == "false" else {
                    throw CLIError(.input, "field \(key): expected true or false, got '\(TerminalText.escaped(text))'")
                }
                return .bool(text == "true")
            }
            if types.contains(.object) || types.contains(.array) {
                do { return try JSONValue.parse(text) } catch { throw CLIError(.input, "field \(key): \(error)") }
            }
        }
        if raw.hasPrefix("@") { return .string(text) }
        switch text {
        case "true": return .bool(true)
        case "false": return .bool(false)
        case "null": return .null
        default: return DecimalText.isNumber(text) ? .number(text) : .string(text)
        }
    }

    static func set(_ value: JSONValue, at segments: ArraySlice<String>, in container: JSONValue, key: String) throws -> JSONValue {
        guard let segment = segments.first else { return value }
        let appends = segment.hasSuffix("[]")
        let name = appends ? String(segment.dropLast(2)) : segment
        guard var object = container.objectValue else {
            throw CLIError(.input, "field \(key): '\(name)' is inside a value that is not an object")
        }
        let rest = segments.dropFirst()
        if appends {
            var items = object[name]?.arrayValue ?? []
            if object[name] != nil, object[name]?.arrayValue == nil {
                throw CLIError(.input, "field \(key): '\(name)' is already set to a value that is not an array")
            }
            items.append(rest.isEmpty ? value : try set(value, at: rest, in: .object(JSONObject()), key: key))
            object[name] = .array(items)
        } else {
            object[name] = rest.isEmpty ? value : try set(value, at: rest, in: object[name] ?? .object(JSONObject()), key: key)
        }
        return .object(object)
    }
}
