import OmniCodec

/// Writes a binary Candid message for values at compiled types: `DIDL`, the type table (the graph's nodes),
/// the argument types, then the values. Encoding is minimal (shortest LEB128 forms, fields in id order).
///
/// Values must have the shape of their types, with the conversions a typed text value would get: a `nat`
/// value at `int`, a service reference at `principal`, `null` at an option type (absent), `.blob` and a `.vec`
/// of `nat8` interchangeably, and absent record fields of null, option or reserved type.
struct MessageEncoder {
    let graph: TypeGraph
    private(set) var bytes: [UInt8] = []
    private var depth = 0
    let maxDepth: Int
    let maxNumberBytes: Int

    init(graph: TypeGraph, maxDepth: Int, maxNumberBytes: Int) {
        self.graph = graph
        self.maxDepth = maxDepth
        self.maxNumberBytes = maxNumberBytes
    }

    static func encode(_ values: [CandidValue], types: [Int], graph: TypeGraph,
                       maxDepth: Int = CandidLimits.default.maxDepth,
                       maxNumberBytes: Int = CandidLimits.default.maxNumberBytes) throws(CandidError) -> [UInt8] {
        guard values.count == types.count else {
            throw CandidError(.typeMismatch, "\(values.count) values for \(types.count) argument types")
        }
        var encoder = MessageEncoder(graph: graph, maxDepth: maxDepth, maxNumberBytes: maxNumberBytes)
        encoder.writeHeader(arguments: types)
        for (index, (value, type)) in zip(values, types).enumerated() {
            do throws(CandidError) { try encoder.write(value, type) } catch { throw error.inside(.argument(index)) }
        }
        return encoder.bytes
    }

    private mutating func writeHeader(arguments: [Int]) {
        bytes.append(contentsOf: [0x44, 0x49, 0x44, 0x4C])
        LEB128.encode(UInt64(graph.nodes.count), into: &bytes)
        for node in graph.nodes {
            LEB128.encodeSigned(Int64(node.opcode), into: &bytes)
            switch node {
            case .opt(let inner), .vec(let inner):
                writeReference(inner)
            case .record(let fields), .variant(let fields):
                LEB128.encode(UInt64(fields.count), into: &bytes)
                for field in fields {
                    LEB128.encode(UInt64(field.label.id), into: &bytes)
                    writeReference(field.type)
                }
            case .function(let function):
                LEB128.encode(UInt64(function.arguments.count), into: &bytes)
                for argument in function.arguments { writeReference(argument) }
                LEB128.encode(UInt64(function.results.count), into: &bytes)
                for result in function.results { writeReference(result) }
                LEB128.encode(UInt64(function.modes.count), into: &bytes)
                bytes.append(contentsOf: function.modes)
            case .service(let methods):
                LEB128.encode(UInt64(methods.count), into: &bytes)
                for method in methods {
                    writeText(method.name)
                    writeReference(method.type)
                }
            case .future:
                LEB128.encode(UInt64(0), into: &bytes)
            }
        }
        LEB128.encode(UInt64(arguments.count), into: &bytes)
        for argument in arguments { writeReference(argument) }
    }

    private mutating func writeReference(_ type: Int) { LEB128.encodeSigned(Int64(type), into: &bytes) }

    private mutating func writeText(_ text: String) {
        LEB128.encode(UInt64(text.utf8.count), into: &bytes)
        bytes.append(contentsOf: text.utf8)
    }

    private mutating func writePrincipal(_ principal: Principal) {
        bytes.append(1)
        LEB128.encode(UInt64(principal.bytes.count), into: &bytes)
        bytes.append(contentsOf: principal.bytes)
    }

    private mutating func writeFixed(_ value: UInt64, _ count: Int) {
        for index in 0..<count { bytes.append(UInt8(truncatingIfNeeded: value >> UInt64(8 * index))) }
    }

    mutating func write(_ value: CandidValue, _ type: Int) throws(CandidError) {
        if type < 0 { return try writePrimitive(value, type) }
        // Depth counts what the decoder counts (an option holding a value, a vector, a record, a variant), so
        // whatever decodes within the limit encodes again: an empty option, a function or a service is a leaf.
        switch (graph.nodes[type], value) {
        case (.opt, .opt(nil)), (.opt, .null), (.opt, .reserved):
            return bytes.append(0)
        case (.function, .function(let principal, let method)):
            bytes.append(1)
            writePrincipal(principal)
            return writeText(method)
        case (.service, .service(let principal)):
            return writePrincipal(principal)
        default:
            break
        }
        depth += 1
        defer { depth -= 1 }
        guard depth <= maxDepth else { throw CandidError(.limitExceeded, "value nested deeper than \(maxDepth)") }
        switch (graph.nodes[type], value) {
        case (.opt(let inner), .opt(let payload?)):
            bytes.append(1)
            try write(payload, inner)
        case (.vec(let inner), .blob(let blob)):
            guard inner == Opcode.nat8 else { throw mismatch(value, type) }
            LEB128.encode(UInt64(blob.count), into: &bytes)
            bytes.append(contentsOf: blob)
        case (.vec(let inner), .vec(let elements)):
            LEB128.encode(UInt64(elements.count), into: &bytes)
            for (index, element) in elements.enumerated() {
                do throws(CandidError) { try write(element, inner) } catch { throw error.inside(.element(index)) }
            }
        case (.record(let fields), .record(let values)):
            try writeRecord(values, fields)
        case (.variant(let fields), .variant(let field)):
            guard let index = fields.firstIndex(where: { $0.label.id == field.label.id }) else {
                throw CandidError(.typeMismatch, "variant case \(field.label.quotedDescription) is not in \(describe(type, in: graph))")
            }
            LEB128.encode(UInt64(index), into: &bytes)
            do throws(CandidError) { try write(field.value, fields[index].type) } catch { throw error.inside(.variantCase(fields[index].label)) }
        default:
            throw mismatch(value, type)
        }
    }

    private mutating func writeRecord(_ values: [CandidFieldValue], _ fields: [GraphField]) throws(CandidError) {
        var cursor = 0
        for field in fields {
            // Values are normally sorted like the type, so the cursor usually hits at once.
            let match: CandidFieldValue?
            if cursor < values.count, values[cursor].label.id == field.label.id {
                match = values[cursor]
                cursor += 1
            } else {
                match = values.first { $0.label.id == field.label.id }
            }
            let label = match.map { CandidLabel(id: $0.label.id, name: $0.label.name ?? field.label.name) } ?? field.label
            do throws(CandidError) {
                if let match {
                    try write(match.value, field.type)
                } else if field.type == Opcode.null || field.type == Opcode.reserved {
                    continue
                } else if field.type >= 0, case .opt = graph.nodes[field.type] {
                    bytes.append(0)
                } else {
                    throw CandidError(.typeMismatch, "record field \(label.quotedDescription) of type \(describe(field.type, in: graph)) is missing")
                }
            } catch {
                throw error.inside(.field(label))
            }
        }
    }

    /// A nat or int longer than decoders accept (`CandidLimits.maxNumberBytes`, this one's included) is refused,
    /// so that nothing encoded here fails to decode (found by fuzzing `candid-text`: a 2 338-digit literal).
    private func checkNumberLength(since start: Int) throws(CandidError) {
        let length = bytes.count - start
        guard length <= maxNumberBytes else {
            throw CandidError(.limitExceeded, "a number \(length) bytes long when encoded exceeds the limit of \(maxNumberBytes)")
        }
    }

    private mutating func writePrimitive(_ value: CandidValue, _ type: Int) throws(CandidError) {
        let start = bytes.count
        switch (type, value) {
        case (Opcode.null, .null), (Opcode.reserved, _): return
        case (Opcode.bool, .bool(let flag)): bytes.append(flag ? 1 : 0)
        case (Opcode.nat, .nat(let number)): LEB128.encode(number, into: &bytes)
        case (Opcode.int, .int(let number)): LEB128.encodeSigned(number, into: &bytes)
        case (Opcode.int, .nat(let number)): LEB128.encodeSigned(BigInt(number), into: &bytes)
        case (Opcode.nat8, .nat8(let number)): bytes.append(number)
        case (Opcode.nat16, .nat16(let number)): writeFixed(UInt64(number), 2)
        case (Opcode.nat32, .nat32(let number)): writeFixed(UInt64(number), 4)
        case (Opcode.nat64, .nat64(let number)): writeFixed(number, 8)
        case (Opcode.int8, .int8(let number)): bytes.append(UInt8(bitPattern: number))
        case (Opcode.int16, .int16(let number)): writeFixed(UInt64(UInt16(bitPattern: number)), 2)
        case (Opcode.int32, .int32(let number)): writeFixed(UInt64(UInt32(bitPattern: number)), 4)
        case (Opcode.int64, .int64(let number)): writeFixed(UInt64(bitPattern: number), 8)
        case (Opcode.float32, .float32(let number)): writeFixed(UInt64(number.bitPattern), 4)
        case (Opcode.float64, .float64(let number)): writeFixed(number.bitPattern, 8)
        case (Opcode.text, .text(let text)): writeText(text)
        case (Opcode.principal, .principal(let principal)), (Opcode.principal, .service(let principal)):
            writePrincipal(principal)
        default: throw mismatch(value, type)
        }
        if type == Opcode.nat || type == Opcode.int { try checkNumberLength(since: start) }
    }

    private func mismatch(_ value: CandidValue, _ type: Int) -> CandidError {
        CandidError(.typeMismatch, "a \(value.kindDescription) value cannot be encoded as \(describe(type, in: graph))")
    }
}

extension CandidValue {
    /// The kind of value, for messages ("nat", "record", "opt").
    var kindDescription: String {
        switch self {
        case .null: return "null"
        case .bool: return "bool"
        case .nat: return "nat"
        case .int: return "int"
        case .nat8: return "nat8"
        case .nat16: return "nat16"
        case .nat32: return "nat32"
        case .nat64: return "nat64"
        case .int8: return "int8"
        case .int16: return "int16"
        case .int32: return "int32"
        case .int64: return "int64"
        case .float32: return "float32"
        case .float64: return "float64"
        case .text: return "text"
        case .reserved: return "reserved"
        case .principal: return "principal"
        case .opt: return "opt"
        case .vec: return "vec"
        case .blob: return "blob"
        case .record: return "record"
        case .variant: return "variant"
        case .function: return "func"
        case .service: return "service"
        }
    }
}
