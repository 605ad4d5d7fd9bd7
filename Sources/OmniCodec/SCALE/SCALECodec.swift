/// The one interpreter for described SCALE types: decodes bytes to `SCALEValue` and encodes values back, for any
/// type of its registry. Decoding is bounded (depth, size, counts against the bytes left) and every error names the
/// byte offset and the field path.
public struct SCALECodec: Sendable {
    public let registry: SCALETypeRegistry
    public let limits: SCALELimits
    /// A lower bound on each named type's encoded size, for bounding element counts.
    private let minimumSizes: [String: Int]

    public init(registry: SCALETypeRegistry, limits: SCALELimits = .default) {
        self.registry = registry
        self.limits = limits
        var sizes: [String: Int] = [:]
        var inProgress: Set<String> = []
        func size(_ type: SCALEType) -> Int {
            switch type {
            case .unit: return 0
            case .bool, .compact, .string, .bytes, .vector, .option, .optionBool, .result, .enumeration, .versioned: return 1
            case .integer(let width): return width.byteCount
            case .fixedBytes(let count): return count
            case .tuple(let items): return items.reduce(0) { $0 + size($1) }
            case .structure(let fields): return fields.reduce(0) { $0 + size($1.type) }
            case .named(let name):
                if let known = sizes[name] { return known }
                guard inProgress.insert(name).inserted, let resolved = registry[name] else { return 0 }
                let value = size(resolved)
                inProgress.remove(name)
                sizes[name] = value
                return value
            }
        }
        for name in registry.names { _ = size(.named(name)) }
        minimumSizes = sizes
    }

    /// The fewest bytes any value of `type` encodes to.
    public func minimumSize(_ type: SCALEType) -> Int {
        switch type {
        case .unit: 0
        case .bool, .compact, .string, .bytes, .vector, .option, .optionBool, .result, .enumeration, .versioned: 1
        case .integer(let width): width.byteCount
        case .fixedBytes(let count): count
        case .tuple(let items): items.reduce(0) { $0 + minimumSize($1) }
        case .structure(let fields): fields.reduce(0) { $0 + minimumSize($1.type) }
        case .named(let name): minimumSizes[name] ?? 0
        }
    }

    // MARK: - Decoding

    /// Decodes all of `bytes` as `type`; trailing bytes are an error.
    public func decode(_ type: SCALEType, from bytes: [UInt8]) throws(CodecError) -> SCALEValue {
        guard bytes.count <= limits.maxBytes else {
            throw CodecError(.limitExceeded, format: "SCALE", "input of \(bytes.count) bytes exceeds \(limits.maxBytes)", offset: 0)
        }
        var reader = SCALEReader(bytes, limits: limits)
        let value = try decode(type, from: &reader)
        try reader.finish()
        return value
    }

    /// Decodes one value of `type` at the reader's position (the reader's path is the caller's).
    public func decode(_ type: SCALEType, from reader: inout SCALEReader) throws(CodecError) -> SCALEValue {
        try decode(type, &reader, depth: 0)
    }

    private func decode(_ type: SCALEType, _ reader: inout SCALEReader, depth: Int) throws(CodecError) -> SCALEValue {
        if case .named = type {} else { try reader.countValue() }
        switch type {
        case .unit:
            return .unit
        case .bool:
            return .bool(try reader.bool())
        case .integer(let width):
            return .integer(try reader.integer(width))
        case .compact(let width):
            return .integer(try reader.compact(width))
        case .string:
            return .string(try reader.string())
        case .bytes:
            return .bytes(try reader.bytes())
        case .fixedBytes(let count):
            return .bytes(try reader.fixedBytes(count))
        case .optionBool:
            let start = reader.position
            switch try reader.u8() {
            case 0: return .absent
            case 1: return .some(.bool(true))
            case 2: return .some(.bool(false))
            case let other: throw reader.error("OptionBool must be 00, 01 or 02, got \(Hex.encode([other]))", at: start)
            }
        case .named(let name):
            guard let resolved = registry[name] else { throw reader.error("unknown type \(name)") }
            return try decode(resolved, &reader, depth: depth)
        case .vector, .tuple, .option, .result, .structure, .enumeration, .versioned:
            guard depth < limits.maxDepth else {
                throw reader.limitError("nesting deeper than \(limits.maxDepth)")
            }
            return try decodeComposite(type, &reader, depth: depth + 1)
        }
    }

    private func decodeComposite(_ type: SCALEType, _ reader: inout SCALEReader, depth: Int) throws(CodecError) -> SCALEValue {
        switch type {
        case .vector(let element):
            let count = try reader.length(minimumElementSize: minimumSize(element), "vector of")
            var items: [SCALEValue] = []
            items.reserveCapacity(count)
            for index in 0..<count {
                reader.push("[\(index)]")
                items.append(try decode(element, &reader, depth: depth))
                reader.pop()
            }
            return .sequence(items)
        case .tuple(let members):
            var items: [SCALEValue] = []
            for (index, member) in members.enumerated() {
                reader.push("[\(index)]")
                items.append(try decode(member, &reader, depth: depth))
                reader.pop()
            }
            return .sequence(items)
        case .option(let inner):
            let start = reader.position
            switch try reader.u8() {
            case 0: return .absent
            case 1: return .some(try decode(inner, &reader, depth: depth))
            case let other: throw reader.error("option tag must be 00 or 01, got \(Hex.encode([other]))", at: start)
            }
        case .result(let ok, let error):
            let start = reader.position
            switch try reader.u8() {
            case 0:
                reader.push(".Ok")
                defer { reader.pop() }
                return .ok(try decode(ok, &reader, depth: depth))
            case 1:
                reader.push(".Err")
                defer { reader.pop() }
                return .err(try decode(error, &reader, depth: depth))
            case let other: throw reader.error("result tag must be 00 or 01, got \(Hex.encode([other]))", at: start)
            }
        case .structure(let fields):
            return .record(try decodeFields(fields, &reader, depth: depth))
        case .enumeration(let variants), .versioned(let variants):
            let start = reader.position
            let index = try reader.u8()
            guard let variant = variants.first(where: { $0.index == index }) else {
                let known = variants.map { "\($0.index) \($0.name)" }.joined(separator: ", ")
                throw reader.error("unknown variant index \(index) (expected \(known))", at: start)
            }
            reader.push("." + variant.name)
            defer { reader.pop() }
            switch variant.payload {
            case .none:
                return .variant(variant.name, .unit)
            case .tuple(let members) where members.isEmpty:
                return .variant(variant.name, .unit)
            case .tuple(let members) where members.count == 1:
                return .variant(variant.name, try decode(members[0], &reader, depth: depth))
            case .tuple(let members):
                return .variant(variant.name, try decodeComposite(.tuple(members), &reader, depth: depth))
            case .fields(let fields):
                return .variant(variant.name, .record(try decodeFields(fields, &reader, depth: depth)))
            }
        default:
            return try decode(type, &reader, depth: depth)
        }
    }

    private func decodeFields(_ fields: [SCALEField], _ reader: inout SCALEReader, depth: Int) throws(CodecError) -> [String: SCALEValue] {
        var record: [String: SCALEValue] = [:]
        record.reserveCapacity(fields.count)
        for field in fields {
            reader.push("." + field.name)
            record[field.name] = try decode(field.type, &reader, depth: depth)
            reader.pop()
        }
        return record
    }

    // MARK: - Encoding

    public func encode(_ value: SCALEValue, as type: SCALEType) throws(CodecError) -> [UInt8] {
        var writer = SCALEWriter()
        try encode(value, as: type, into: &writer)
        return writer.bytes
    }

    /// Appends `value` as `type`; a value that does not fit the type fails with the path of the misfit.
    public func encode(_ value: SCALEValue, as type: SCALEType, into writer: inout SCALEWriter) throws(CodecError) {
        var path: [String] = []
        try encode(value, type, &writer, &path, depth: 0)
    }

    private func mismatch(_ message: String, _ path: [String]) -> CodecError {
        CodecError(.malformed, format: "SCALE", message, path: "$" + path.joined())
    }

    private func encode(_ value: SCALEValue, _ type: SCALEType, _ writer: inout SCALEWriter, _ path: inout [String],
                        depth: Int) throws(CodecError) {
        guard depth <= limits.maxDepth else { throw mismatch("nesting deeper than \(limits.maxDepth)", path) }
        switch (type, value) {
        case (.unit, .unit):
            return
        case (.bool, .bool(let flag)):
            writer.bool(flag)
        case (.integer(let width), .integer(let number)):
            guard number <= width.maximum else { throw mismatch("\(number) exceeds \(width.rawValue)", path) }
            writer.integer(number, width)
        case (.compact(let width), .integer(let number)):
            guard number <= width.maximum else { throw mismatch("\(number) exceeds \(width.rawValue)", path) }
            writer.compact(number)
        case (.string, .string(let text)):
            writer.string(text)
        case (.bytes, .bytes(let data)):
            writer.bytes(data)
        case (.fixedBytes(let count), .bytes(let data)):
            guard data.count == count else { throw mismatch("[u8; \(count)] needs \(count) bytes, got \(data.count)", path) }
            writer.raw(data)
        case (.optionBool, .option(let inner)):
            switch inner {
            case nil: writer.u8(0)
            case .bool(true)?: writer.u8(1)
            case .bool(false)?: writer.u8(2)
            default: throw mismatch("OptionBool holds a bool", path)
            }
        case (.named(let name), _):
            guard let resolved = registry[name] else { throw mismatch("unknown type \(name)", path) }
            try encode(value, resolved, &writer, &path, depth: depth)
        case (.vector(let element), .sequence(let items)):
            writer.compact(UInt128(items.count))
            for (index, item) in items.enumerated() {
                path.append("[\(index)]")
                try encode(item, element, &writer, &path, depth: depth + 1)
                path.removeLast()
            }
        case (.tuple(let members), .sequence(let items)):
            guard members.count == items.count else { throw mismatch("tuple of \(members.count) items, got \(items.count)", path) }
            for (index, (member, item)) in zip(members, items).enumerated() {
                path.append("[\(index)]")
                try encode(item, member, &writer, &path, depth: depth + 1)
                path.removeLast()
            }
        case (.option(let inner), .option(let content)):
            if let content {
                writer.u8(1)
                try encode(content, inner, &writer, &path, depth: depth + 1)
            } else {
                writer.u8(0)
            }
        case (.result(let okType, _), .ok(let content)):
            writer.u8(0)
            path.append(".Ok")
            try encode(content, okType, &writer, &path, depth: depth + 1)
            path.removeLast()
        case (.result(_, let errorType), .err(let content)):
            writer.u8(1)
            path.append(".Err")
            try encode(content, errorType, &writer, &path, depth: depth + 1)
            path.removeLast()
        case (.structure(let fields), .record(let record)):
            try encodeFields(fields, record, &writer, &path, depth: depth + 1)
        case (.enumeration(let variants), .variant(let name, let payload)), (.versioned(let variants), .variant(let name, let payload)):
            guard let variant = variants.first(where: { $0.name == name }) else {
                throw mismatch("unknown variant \(name) (expected one of \(variants.map(\.name).joined(separator: ", ")))", path)
            }
            writer.u8(variant.index)
            path.append("." + name)
            switch variant.payload {
            case .none:
                guard payload == .unit else { throw mismatch("variant \(name) has no payload", path) }
            case .tuple(let members) where members.isEmpty:
                guard payload == .unit else { throw mismatch("variant \(name) has no payload", path) }
            case .tuple(let members) where members.count == 1:
                try encode(payload, members[0], &writer, &path, depth: depth + 1)
            case .tuple(let members):
                try encode(payload, .tuple(members), &writer, &path, depth: depth + 1)
            case .fields(let fields):
                guard case .record(let record) = payload else { throw mismatch("variant \(name) needs its fields", path) }
                try encodeFields(fields, record, &writer, &path, depth: depth + 1)
            }
            path.removeLast()
        default:
            throw mismatch("a \(Self.describe(value)) value does not fit \(Self.describe(type))", path)
        }
    }

    private func encodeFields(_ fields: [SCALEField], _ record: [String: SCALEValue], _ writer: inout SCALEWriter,
                              _ path: inout [String], depth: Int) throws(CodecError) {
        if let unknown = record.keys.sorted().first(where: { key in !fields.contains { $0.name == key } }) {
            throw mismatch("unknown field \(unknown)", path)
        }
        for field in fields {
            path.append("." + field.name)
            guard let member = record[field.name] else { throw mismatch("missing field \(field.name)", path) }
            try encode(member, field.type, &writer, &path, depth: depth)
            path.removeLast()
        }
    }

    static func describe(_ type: SCALEType) -> String {
        switch type {
        case .unit: "()"
        case .bool: "bool"
        case .integer(let width): width.rawValue
        case .compact(let width): "Compact<\(width.rawValue)>"
        case .string: "str"
        case .bytes: "bytes"
        case .fixedBytes(let count): "[u8; \(count)]"
        case .vector(let inner): "Vec<\(describe(inner))>"
        case .tuple(let items): "(" + items.map(describe).joined(separator: ", ") + ")"
        case .option(let inner): "Option<\(describe(inner))>"
        case .optionBool: "OptionBool"
        case .result(let ok, let error): "Result<\(describe(ok)), \(describe(error))>"
        case .structure: "struct"
        case .enumeration: "enum"
        case .versioned: "versioned envelope"
        case .named(let name): name
        }
    }

    static func describe(_ value: SCALEValue) -> String {
        switch value {
        case .unit: "unit"
        case .bool: "bool"
        case .integer: "integer"
        case .string: "string"
        case .bytes: "bytes"
        case .sequence: "sequence"
        case .option: "option"
        case .record: "record"
        case .variant(let name, _): "variant \(name)"
        case .ok: "Ok"
        case .err: "Err"
        }
    }
}
