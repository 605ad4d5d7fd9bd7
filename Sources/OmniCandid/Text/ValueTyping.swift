import OmniCodec

/// Gives parsed text values their types, the way `didc` annotates: number literals take the expected numeric
/// type (range-checked), `null` fills options, record fields absent from the text take null when their type
/// allows it, and fields the type does not know are dropped. Unlike binary decoding, text does not use the
/// liberal option rules: a bare `42` is not accepted where `opt nat` is expected.
struct ValueTyper {
    let graph: TypeGraph
    let environment: CandidTypeEnvironment
    let source: [UInt8]
    let limits: CandidLimits
    private var depth = 0

    init(graph: TypeGraph, environment: CandidTypeEnvironment, source: [UInt8], limits: CandidLimits) {
        self.graph = graph
        self.environment = environment
        self.source = source
        self.limits = limits
    }

    private func mismatch(_ message: String, at offset: Int?) -> CandidError {
        CandidParser.locate(CandidError(.typeMismatch, message, offset: offset), in: source)
    }

    /// Depth counts what the binary decoder counts (an option holding a value, a vector or blob, a record, a
    /// variant) and nothing else: leaves, empty options and annotations take no level, so any value that decodes
    /// types again from its printed text, and one level more is refused here as it is there.
    private mutating func enter(nesting: Bool, at offset: Int?) throws(CandidError) {
        guard nesting else { return }
        guard depth < limits.maxDepth else {
            throw CandidParser.locate(CandidError(.limitExceeded, "value nested deeper than \(limits.maxDepth)", offset: offset), in: source)
        }
        depth += 1
    }

    private mutating func leave(nesting: Bool) {
        if nesting { depth -= 1 }
    }

    private static func nests(_ kind: TextValue.Kind) -> Bool {
        switch kind {
        case .opt, .vec, .blob, .record, .variant: true
        default: false
        }
    }

    private static func nests(_ value: CandidValue) -> Bool {
        switch value {
        case .opt(let payload): payload != nil
        case .vec, .blob, .record, .variant: true
        default: false
        }
    }

    // MARK: Text values

    mutating func annotate(_ value: TextValue, _ e: Int) throws(CandidError) -> CandidValue {
        let nesting = Self.nests(value.kind)
        try enter(nesting: nesting, at: value.offset)
        defer { leave(nesting: nesting) }
        if case .annotated(let inner, let type) = value.kind {
            let (innerGraph, references) = try TypeCompiler.compile([type], in: environment, maxDepth: limits.maxDepth)
            var innerTyper = ValueTyper(graph: innerGraph, environment: environment, source: source, limits: limits)
            let typed = try innerTyper.annotate(inner, references[0])
            return try coerce(typed, e, at: value.offset)
        }
        if e == Opcode.reserved { return .reserved }
        if e < 0 { return try annotatePrimitive(value, e) }
        let offset = value.offset
        switch (graph.nodes[e], value.kind) {
        case (.opt, .null):
            return .opt(nil)
        case (.opt(let inner), .opt(let payload)):
            return .opt(try annotate(payload, inner))
        case (.vec(let inner), .blob(let bytes)) where inner == Opcode.nat8:
            return .blob(bytes)
        case (.vec(let inner), .vec(let elements)):
            if inner == Opcode.nat8 {
                var bytes: [UInt8] = []
                bytes.reserveCapacity(elements.count)
                for (index, element) in elements.enumerated() {
                    do throws(CandidError) {
                        guard case .nat8(let byte) = try annotate(element, Opcode.nat8) else { throw mismatch("expected nat8", at: element.offset) }
                        bytes.append(byte)
                    } catch { throw error.inside(.element(index)) }
                }
                return .blob(bytes)
            }
            var values: [CandidValue] = []
            values.reserveCapacity(elements.count)
            for (index, element) in elements.enumerated() {
                do throws(CandidError) { values.append(try annotate(element, inner)) } catch { throw error.inside(.element(index)) }
            }
            return .vec(values)
        case (.record(let fields), .record(let given)):
            var values: [CandidFieldValue] = []
            values.reserveCapacity(fields.count)
            let positions = FieldPositions(given.map(\.label.id))
            for field in fields {
                if let match = positions.index(of: field.label.id).map({ given[$0] }) {
                    do throws(CandidError) { values.append(CandidFieldValue(field.label, try annotate(match.value, field.type))) }
                    catch { throw error.inside(.field(field.label)) }
                } else if let value = defaultValue(field.type) {
                    values.append(CandidFieldValue(field.label, value))
                } else {
                    throw mismatch("record field \(field.label.quotedDescription) is missing", at: offset)
                }
            }
            return .record(values)
        case (.variant(let fields), .variant(let label, let payload)):
            guard let field = MessageDecoder.find(label.id, in: fields) else {
                throw mismatch("variant case \(label.quotedDescription) is not in \(describe(e, in: graph))", at: offset)
            }
            do throws(CandidError) { return .variant(CandidFieldValue(field.label, try annotate(payload, field.type))) }
            catch { throw error.inside(.variantCase(field.label)) }
        case (.function, .function(let principal, let method)):
            return .function(principal, method: method)
        case (.service, .service(let principal)):
            return .service(principal)
        default:
            throw mismatch("\(value.kindDescription) cannot be of type \(describe(e, in: graph))", at: offset)
        }
    }

    private func defaultValue(_ e: Int) -> CandidValue? {
        if e == Opcode.null { return .null }
        if e == Opcode.reserved { return .reserved }
        if e >= 0, case .opt = graph.nodes[e] { return .opt(nil) }
        return nil
    }

    private func annotatePrimitive(_ value: TextValue, _ e: Int) throws(CandidError) -> CandidValue {
        let offset = value.offset
        switch (e, value.kind) {
        case (Opcode.null, .null): return .null
        case (Opcode.bool, .bool(let flag)): return .bool(flag)
        case (Opcode.text, .text(let text)): return .text(text)
        case (Opcode.principal, .principal(let principal)), (Opcode.principal, .service(let principal)):
            return .principal(principal)
        case (_, .number(let text, let isFloat, let isHex)):
            return try number(text, isFloat: isFloat, isHex: isHex, at: e, offset: offset)
        default:
            throw mismatch("\(value.kindDescription) cannot be of type \(Opcode.name(e))", at: offset)
        }
    }

    private func number(_ text: String, isFloat: Bool, isHex: Bool, at e: Int, offset: Int) throws(CandidError) -> CandidValue {
        if e == Opcode.float32 || e == Opcode.float64 {
            let literal = text == "inf" ? "infinity" : text
            if e == Opcode.float32, let value = Float(literal) { return .float32(value) }
            if e == Opcode.float64, let value = Double(literal) { return .float64(value) }
            throw mismatch("\(text) is not a valid \(Opcode.name(e))", at: offset)
        }
        guard !isFloat else { throw mismatch("\(text) is not an integer, so it cannot be of type \(Opcode.name(e))", at: offset) }
        guard text.utf8.count <= limits.maxNumberBytes * 3 else {
            throw CandidParser.locate(CandidError(.limitExceeded, "number literal longer than \(limits.maxNumberBytes * 3) digits", offset: offset), in: source)
        }
        let negative = text.hasPrefix("-")
        let digits = negative ? text.dropFirst() : Substring(text)
        let body = isHex ? digits.dropFirst(2) : digits
        guard let magnitude = BigUInt(body, radix: isHex ? 16 : 10) else {
            throw mismatch("\(text) is not a valid number", at: offset)
        }
        // Built only when needed: locating an error scans the source, which per number would be quadratic.
        func outOfRange() -> CandidError { mismatch("\(text) is out of range for \(Opcode.name(e))", at: offset) }
        if e == Opcode.int { return .int(BigInt(isNegative: negative, magnitude: magnitude)) }
        if negative && !magnitude.isZero {
            guard let small = magnitude.uint64Value else { throw outOfRange() }
            switch e {
            case Opcode.int8: guard small <= 128 else { throw outOfRange() }; return .int8(Int8(truncatingIfNeeded: 0 &- Int64(small)))
            case Opcode.int16: guard small <= 32768 else { throw outOfRange() }; return .int16(Int16(truncatingIfNeeded: 0 &- Int64(small)))
            case Opcode.int32: guard small <= 1 << 31 else { throw outOfRange() }; return .int32(Int32(truncatingIfNeeded: 0 &- Int64(small)))
            case Opcode.int64: guard small <= 1 << 63 else { throw outOfRange() }; return .int64(Int64(truncatingIfNeeded: 0 &- small))
            case Opcode.nat, Opcode.nat8, Opcode.nat16, Opcode.nat32, Opcode.nat64:
                throw mismatch("\(text) is negative, so it cannot be of type \(Opcode.name(e))", at: offset)
            default: break
            }
        } else {
            if e == Opcode.nat { return .nat(magnitude) }
            guard let small = magnitude.uint64Value else { throw outOfRange() }
            switch e {
            case Opcode.nat8: guard let v = UInt8(exactly: small) else { throw outOfRange() }; return .nat8(v)
            case Opcode.nat16: guard let v = UInt16(exactly: small) else { throw outOfRange() }; return .nat16(v)
            case Opcode.nat32: guard let v = UInt32(exactly: small) else { throw outOfRange() }; return .nat32(v)
            case Opcode.nat64: return .nat64(small)
            case Opcode.int8: guard let v = Int8(exactly: small) else { throw outOfRange() }; return .int8(v)
            case Opcode.int16: guard let v = Int16(exactly: small) else { throw outOfRange() }; return .int16(v)
            case Opcode.int32: guard let v = Int32(exactly: small) else { throw outOfRange() }; return .int32(v)
            case Opcode.int64: guard let v = Int64(exactly: small) else { throw outOfRange() }; return .int64(v)
            default: break
            }
        }
        throw mismatch("a number cannot be of type \(Opcode.name(e))", at: offset)
    }

    // MARK: Typed values

    /// Coerces an already typed value to `e`: identity on matching types, `nat` to `int`, service references to
    /// `principal`, anything to `reserved`, null to options, records and variants by label.
    mutating func coerce(_ value: CandidValue, _ e: Int, at offset: Int?) throws(CandidError) -> CandidValue {
        let nesting = Self.nests(value)
        try enter(nesting: nesting, at: offset)
        defer { leave(nesting: nesting) }
        if e == Opcode.reserved { return .reserved }
        if e < 0 {
            switch (e, value) {
            case (Opcode.null, .null), (Opcode.bool, .bool), (Opcode.nat, .nat), (Opcode.int, .int), (Opcode.nat8, .nat8),
                 (Opcode.nat16, .nat16), (Opcode.nat32, .nat32), (Opcode.nat64, .nat64), (Opcode.int8, .int8),
                 (Opcode.int16, .int16), (Opcode.int32, .int32), (Opcode.int64, .int64), (Opcode.float32, .float32),
                 (Opcode.float64, .float64), (Opcode.text, .text), (Opcode.principal, .principal):
                return value
            case (Opcode.int, .nat(let number)): return .int(BigInt(number))
            case (Opcode.principal, .service(let principal)): return .principal(principal)
            default: throw mismatch("a \(value.kindDescription) value cannot be of type \(Opcode.name(e))", at: offset)
            }
        }
        switch (graph.nodes[e], value) {
        case (.opt, .null), (.opt, .reserved), (.opt, .opt(nil)):
            return .opt(nil)
        case (.opt(let inner), .opt(let payload?)):
            return .opt(try coerce(payload, inner, at: offset))
        case (.vec(let inner), .blob(let bytes)) where inner == Opcode.nat8:
            return .blob(bytes)
        case (.vec(let inner), .vec(let elements)):
            var values: [CandidValue] = []
            values.reserveCapacity(elements.count)
            for (index, element) in elements.enumerated() {
                do throws(CandidError) { values.append(try coerce(element, inner, at: offset)) } catch { throw error.inside(.element(index)) }
            }
            if inner == Opcode.nat8 {
                return .blob(values.map { if case .nat8(let byte) = $0 { return byte }; return 0 })
            }
            return .vec(values)
        case (.record(let fields), .record(let given)):
            var values: [CandidFieldValue] = []
            let positions = FieldPositions(given.map(\.label.id))
            for field in fields {
                if let match = positions.index(of: field.label.id).map({ given[$0] }) {
                    do throws(CandidError) { values.append(CandidFieldValue(field.label, try coerce(match.value, field.type, at: offset))) }
                    catch { throw error.inside(.field(field.label)) }
                } else if let value = defaultValue(field.type) {
                    values.append(CandidFieldValue(field.label, value))
                } else {
                    throw mismatch("record field \(field.label.quotedDescription) is missing", at: offset)
                }
            }
            return .record(values)
        case (.variant(let fields), .variant(let given)):
            guard let field = MessageDecoder.find(given.label.id, in: fields) else {
                throw mismatch("variant case \(given.label.quotedDescription) is not in \(describe(e, in: graph))", at: offset)
            }
            do throws(CandidError) { return .variant(CandidFieldValue(field.label, try coerce(given.value, field.type, at: offset))) }
            catch { throw error.inside(.variantCase(field.label)) }
        case (.function, .function), (.service, .service):
            return value
        default:
            throw mismatch("a \(value.kindDescription) value cannot be of type \(describe(e, in: graph))", at: offset)
        }
    }

    // MARK: Untyped text

    /// Types a value without an expected type: integers become `int`, other numbers `float64`.
    mutating func infer(_ value: TextValue) throws(CandidError) -> CandidValue {
        let nesting = Self.nests(value.kind)
        try enter(nesting: nesting, at: value.offset)
        defer { leave(nesting: nesting) }
        switch value.kind {
        case .number(let text, let isFloat, let isHex):
            return try number(text, isFloat: isFloat, isHex: isHex, at: isFloat ? Opcode.float64 : Opcode.int, offset: value.offset)
        case .bool(let flag): return .bool(flag)
        case .null: return .null
        case .text(let text): return .text(text)
        case .blob(let bytes): return .blob(bytes)
        case .opt(let payload): return .opt(try infer(payload))
        case .vec(let elements):
            var values: [CandidValue] = []
            for element in elements { values.append(try infer(element)) }
            return .vec(values)
        case .record(let fields):
            var values: [CandidFieldValue] = []
            for field in fields { values.append(CandidFieldValue(field.label, try infer(field.value))) }
            return .record(values)
        case .variant(let label, let payload): return .variant(CandidFieldValue(label, try infer(payload)))
        case .principal(let principal): return .principal(principal)
        case .service(let principal): return .service(principal)
        case .function(let principal, let method): return .function(principal, method: method)
        case .annotated(let inner, let type):
            let (innerGraph, references) = try TypeCompiler.compile([type], in: environment, maxDepth: limits.maxDepth)
            var innerTyper = ValueTyper(graph: innerGraph, environment: environment, source: source, limits: limits)
            return try innerTyper.annotate(inner, references[0])
        }
    }
}

extension TextValue {
    var kindDescription: String {
        switch kind {
        case .number(let text, _, _): return "the number \(text)"
        case .bool(let flag): return flag ? "true" : "false"
        case .null: return "null"
        case .text: return "a text"
        case .blob: return "a blob"
        case .opt: return "an opt value"
        case .vec: return "a vec"
        case .record: return "a record"
        case .variant: return "a variant"
        case .principal: return "a principal"
        case .service: return "a service reference"
        case .function: return "a func reference"
        case .annotated: return "an annotated value"
        }
    }
}

/// Where each label id sits among a record's given fields (the first, when repeated). A scan for small records; a
/// dictionary for large ones, so matching a record of n fields against its type stays linear.
struct FieldPositions {
    private let ids: [UInt32]
    private let table: [UInt32: Int]?

    init(_ ids: [UInt32]) {
        self.ids = ids
        table = ids.count > 16 ? Dictionary(ids.enumerated().map { ($0.element, $0.offset) }, uniquingKeysWith: { first, _ in first }) : nil
    }

    func index(of id: UInt32) -> Int? {
        if let table { return table[id] }
        return ids.firstIndex(of: id)
    }
}
