import OmniCodec

/// Decodes one binary Candid message (`DIDL` + type table + argument types + values) in a single pass.
///
/// Values are read at the wire type and coerced to the expected type as they are read, following the spec's
/// coercion rules. A coercion failure inside an `opt` rewinds to the value's start, skips it by its wire type
/// (which still validates it) and yields `null`; any other failure aborts. Everything is charged to the
/// work budget (see `CandidLimits`), nesting is bounded by `maxDepth`, and lengths are checked against the
/// remaining input before anything is allocated.
struct MessageDecoder {
    let bytes: UnsafeBufferPointer<UInt8>
    let limits: CandidLimits
    var position = 0
    var budget: Int
    var depth = 0
    /// Set while building values inside something whose zero-sized values were already charged in full (a
    /// zero-sized record, or a vector of them), so nested records are not charged twice.
    private var zeroSizedCharged = false
    var wire = TypeGraph(nodes: [])
    var wireArguments: [Int] = []
    var expected: TypeGraph
    /// Created on first use; memoises reference-type subtype checks for the whole message.
    private var subtypes: SubtypeChecker?
    /// Whether to record values the special opt rule turns into null (the spec recommends warning about them).
    let collectsWarnings: Bool
    /// Such values, each with its path built innermost first as the decoder unwinds (like errors).
    private(set) var warnings: [PendingWarning] = []

    struct PendingWarning {
        var message: String
        var offset: Int
        var reversedPath: [CandidError.PathComponent] = []

        var warning: CandidWarning {
            CandidWarning(.optionalValueDropped, path: reversedPath.reversed().map(\.description), message: message, offset: offset)
        }
    }

    init(bytes: UnsafeBufferPointer<UInt8>, expected: TypeGraph, limits: CandidLimits, collectsWarnings: Bool = false) {
        self.bytes = bytes
        self.expected = expected
        self.limits = limits
        self.budget = limits.workBudget
        self.collectsWarnings = collectsWarnings
    }

    /// Adds an enclosing path component to the warnings recorded since `mark`.
    @inline(__always) private mutating func warnings(since mark: Int, are component: CandidError.PathComponent) {
        guard warnings.count > mark else { return }
        for index in mark..<warnings.count { warnings[index].reversedPath.append(component) }
    }

    // MARK: Message

    /// Decodes the argument list. With `expectedArguments` nil the values are returned at their wire types.
    mutating func decodeMessage(expectedArguments: [Int]?) throws(CandidError) -> [CandidValue] {
        try readHeader()
        let targets: [Int]
        if let expectedArguments {
            targets = expectedArguments
        } else {
            expected = wire
            targets = wireArguments
        }
        var values: [CandidValue] = []
        values.reserveCapacity(targets.count)
        for (index, target) in targets.enumerated() {
            let mark = warnings.count
            defer { warnings(since: mark, are: .argument(index)) }
            do throws(CandidError) {
                if index < wireArguments.count {
                    values.append(try decode(wireArguments[index], target))
                } else if let value = defaultValue(target) {
                    values.append(value)
                } else {
                    throw CandidError(.typeMismatch, "missing argument of type \(describe(target, in: expected))", offset: position)
                }
            } catch {
                throw error.inside(.argument(index))
            }
        }
        for index in targets.count..<max(targets.count, wireArguments.count) {
            do throws(CandidError) { try skip(wireArguments[index]) } catch { throw error.inside(.argument(index)) }
        }
        guard position == bytes.count else {
            throw CandidError(.malformed, "\(bytes.count - position) unexpected bytes after the last argument", offset: position)
        }
        return values
    }

    // MARK: Header and type table

    mutating func readHeader() throws(CandidError) {
        guard bytes.count >= 4, bytes[0] == 0x44, bytes[1] == 0x49, bytes[2] == 0x44, bytes[3] == 0x4C else {
            throw CandidError(.malformed, "missing the magic bytes \"DIDL\"", offset: 0)
        }
        position = 4
        let entryCount = try readCount(limit: limits.maxTypeTableEntries, what: "type table entries", minimumBytesEach: 1)
        try charge(entryCount)
        var nodes: [GraphNode] = []
        nodes.reserveCapacity(entryCount)
        var methodReferences: [(offset: Int, type: Int)] = []
        for _ in 0..<entryCount {
            let entryOffset = position
            let opcode = try readSignedLEB()
            switch opcode {
            case Int64(Opcode.opt), Int64(Opcode.vec):
                let inner = try readTypeReference(tableSize: entryCount)
                nodes.append(opcode == Int64(Opcode.opt) ? .opt(inner) : .vec(inner))
            case Int64(Opcode.record), Int64(Opcode.variant):
                let isRecord = opcode == Int64(Opcode.record)
                let count = try readCount(limit: limits.maxFieldsPerType, what: "fields", minimumBytesEach: 2)
                try charge(count)
                var fields: [GraphField] = []
                fields.reserveCapacity(count)
                for _ in 0..<count {
                    let idOffset = position
                    let id = try readLEB()
                    guard id <= UInt64(UInt32.max) else {
                        throw CandidError(.malformed, "field id \(id) does not fit in 32 bits", offset: idOffset)
                    }
                    if let last = fields.last, UInt64(last.label.id) >= id {
                        throw CandidError(.malformed, id == UInt64(last.label.id)
                                          ? "duplicate field id \(id)" : "field ids are not sorted (\(id) after \(last.label.id))",
                                          offset: idOffset)
                    }
                    fields.append(GraphField(label: CandidLabel(id: UInt32(id)), type: try readTypeReference(tableSize: entryCount)))
                }
                nodes.append(isRecord ? .record(fields) : .variant(fields))
            case Int64(Opcode.function):
                let argumentCount = try readCount(limit: limits.maxFieldsPerType, what: "function arguments", minimumBytesEach: 1)
                try charge(argumentCount)
                var arguments: [Int] = []
                for _ in 0..<argumentCount { arguments.append(try readTypeReference(tableSize: entryCount)) }
                let resultCount = try readCount(limit: limits.maxFieldsPerType, what: "function results", minimumBytesEach: 1)
                try charge(resultCount)
                var results: [Int] = []
                for _ in 0..<resultCount { results.append(try readTypeReference(tableSize: entryCount)) }
                let modeCount = try readCount(limit: 3, what: "function annotations", minimumBytesEach: 1)
                var modes: [UInt8] = []
                for _ in 0..<modeCount {
                    let modeOffset = position
                    let mode = try readByte()
                    guard (1...3).contains(mode) else {
                        throw CandidError(.malformed, "unknown function annotation \(mode)", offset: modeOffset)
                    }
                    modes.append(mode)
                }
                nodes.append(.function(GraphFunction(arguments: arguments, results: results, modes: Array(Set(modes)).sorted())))
            case Int64(Opcode.service):
                let count = try readCount(limit: limits.maxFieldsPerType, what: "service methods", minimumBytesEach: 2)
                try charge(count)
                var methods: [GraphMethod] = []
                var previousName: [UInt8]? = nil
                for _ in 0..<count {
                    let nameOffset = position
                    let length = try readLength()
                    let nameBytes = UnsafeBufferPointer(rebasing: bytes[position..<(position + length)])
                    guard let name = String(validating: nameBytes, as: UTF8.self) else {
                        throw CandidError(.malformed, "method name is not valid UTF-8", offset: nameOffset)
                    }
                    position += length
                    let nameArray = Array(nameBytes)
                    if let previousName, !previousName.lexicographicallyPrecedes(nameArray) {
                        throw CandidError(.malformed, previousName == nameArray ? "duplicate method \(CandidLabel.quoted(name))"
                                          : "service methods are not sorted by name", offset: nameOffset)
                    }
                    previousName = nameArray
                    let typeOffset = position
                    let type = try readTypeReference(tableSize: entryCount)
                    methodReferences.append((typeOffset, type))
                    methods.append(GraphMethod(name: name, type: type))
                }
                nodes.append(.service(methods))
            default:
                guard opcode < -24 else {
                    throw CandidError(.malformed, opcode >= 0 ? "type table entry must start with a type constructor, found index \(opcode)"
                                      : "\(Opcode.name(Int(opcode))) cannot be a type table entry", offset: entryOffset)
                }
                // A future type: skip its length-prefixed description.
                let length = try readLength()
                position += length
                nodes.append(.future)
            }
        }
        for reference in methodReferences {
            guard reference.type >= 0, case .function = nodes[reference.type] else {
                throw CandidError(.malformed, "service method type is not a function type", offset: reference.offset)
            }
        }
        wire = TypeGraph(nodes: nodes)
        let argumentCount = try readCount(limit: limits.maxArguments, what: "arguments", minimumBytesEach: 1)
        try charge(argumentCount)
        wireArguments.reserveCapacity(argumentCount)
        for _ in 0..<argumentCount { wireArguments.append(try readTypeReference(tableSize: entryCount)) }
    }

    /// A type reference in the table or argument list: a primitive opcode or a table index.
    private mutating func readTypeReference(tableSize: Int) throws(CandidError) -> Int {
        let offset = position
        let code = try readSignedLEB()
        if code >= 0 {
            guard code < Int64(tableSize) else {
                throw CandidError(.malformed, "type index \(code) is outside the type table of \(tableSize) entries", offset: offset)
            }
            return Int(code)
        }
        guard code >= -24, Opcode.isPrimitive(Int(code)) else {
            throw CandidError(.malformed, code >= -24 ? "\(Opcode.name(Int(code))) must be defined in the type table"
                              : "invalid type opcode \(code)", offset: offset)
        }
        return Int(code)
    }

    // MARK: Values at an expected type

    mutating func decode(_ w: Int, _ e: Int) throws(CandidError) -> CandidValue {
        if e < 0 { return try decodeAtPrimitive(w, e) }
        switch expected.nodes[e] {
        case .opt(let inner):
            return try decodeOption(w, inner, e)
        case .vec(let inner):
            return try decodeVector(w, inner, e)
        case .record(let fields):
            return try decodeRecord(w, fields, e)
        case .variant(let fields):
            return try decodeVariant(w, fields, e)
        case .function:
            guard w >= 0, case .function = wire.nodes[w] else { throw mismatch(w, e) }
            guard try isSubtype(w, e) else { throw mismatch(w, e, detail: "the function type is not a subtype") }
            try charge(2)
            let tagOffset = position
            guard try readByte() == 1 else {
                throw CandidError(.malformed, "only public function references (tag 1) are supported", offset: tagOffset)
            }
            let principal = try readPrincipal()
            let method = try readText()
            return .function(principal, method: method)
        case .service:
            guard w >= 0, case .service = wire.nodes[w] else { throw mismatch(w, e) }
            guard try isSubtype(w, e) else { throw mismatch(w, e, detail: "the service type is not a subtype") }
            try charge(1)
            return .service(try readPrincipal())
        case .future:
            try skip(w)
            return .reserved
        }
    }

    private mutating func decodeAtPrimitive(_ w: Int, _ e: Int) throws(CandidError) -> CandidValue {
        if e == Opcode.reserved {
            try skip(w)
            return .reserved
        }
        if w == e { return try readPrimitive(e) }
        if !wire.isInhabited(w) { throw uninhabited(w) }
        if e == Opcode.int && w == Opcode.nat {
            try charge(1)
            return .int(BigInt(try readNat()))
        }
        if e == Opcode.principal, w >= 0, case .service = wire.nodes[w] {
            try charge(1)
            return .principal(try readPrincipal())
        }
        throw mismatch(w, e)
    }

    private mutating func decodeOption(_ w: Int, _ inner: Int, _ e: Int) throws(CandidError) -> CandidValue {
        if w == Opcode.null || w == Opcode.reserved {
            try charge(1)
            return .opt(nil)
        }
        if w >= 0, case .opt(let wireInner) = wire.nodes[w] {
            try charge(1)
            let tagOffset = position
            switch try readByte() {
            case 0: return .opt(nil)
            case 1:
                try enter()
                defer { depth -= 1 }
                return try decodeOptionalPayload(wireInner, inner)
            default: throw CandidError(.malformed, "invalid option tag", offset: tagOffset)
            }
        }
        // A non-optional value read at an option type: `opt v` when it coerces, else null. A recursive option
        // (`type t = opt t`) would wrap forever, so it cannot hold such a value at all.
        if expected.isRecursiveOption[e] {
            throw CandidError(.typeMismatch, "a non-optional \(describe(w, in: wire)) cannot be read at a recursive option type",
                              offset: position)
        }
        try enter()
        defer { depth -= 1 }
        return try decodeOptionalPayload(w, inner)
    }

    private mutating func decodeOptionalPayload(_ w: Int, _ inner: Int) throws(CandidError) -> CandidValue {
        let start = position
        let mark = warnings.count
        do throws(CandidError) {
            return .opt(try decode(w, inner))
        } catch where error.isCoercionFailure {
            // Not coercible: the spec yields null. Rewind and skip by the wire type so the bytes are still validated.
            position = start
            try charge(10)
            try skip(w)
            if collectsWarnings {
                // What was found inside the discarded value no longer matters; the value itself does.
                warnings.removeSubrange(mark...)
                let detail = error.pathDescription.isEmpty ? error.message : "at \(error.pathDescription): \(error.message)"
                warnings.append(PendingWarning(message: "a \(describe(w, in: wire)) value does not fit \(describe(inner, in: expected)) "
                                               + "(\(detail)), so it reads as null (the special opt rule)", offset: start))
            }
            return .opt(nil)
        }
    }

    private mutating func decodeVector(_ w: Int, _ inner: Int, _ e: Int) throws(CandidError) -> CandidValue {
        guard w >= 0, case .vec(let wireInner) = wire.nodes[w] else { throw mismatch(w, e) }
        try enter()
        defer { depth -= 1 }
        let length = try readVectorLength(elementType: wireInner)
        if inner == Opcode.nat8 && wireInner == Opcode.nat8 {
            try charge(1 + length / 64)
            let blob = Array(UnsafeBufferPointer(rebasing: bytes[position..<(position + length)]))
            position += length
            return .blob(blob)
        }
        try charge(1 + length)
        let wasCharged = zeroSizedCharged
        defer { zeroSizedCharged = wasCharged }
        if let cost = wire.zeroSizedCost(of: wireInner), !zeroSizedCharged {
            // Elements that take no bytes are charged in full before any is built (see `TypeGraph.zeroSizedUnit`).
            let (total, overflow) = length.multipliedReportingOverflow(by: cost)
            try charge(overflow ? Int.max : total)
            zeroSizedCharged = true
        }
        var elements: [CandidValue] = []
        elements.reserveCapacity(length)
        if inner >= 0, wireInner >= 0, case .record(let expectedFields) = expected.nodes[inner],
           case .record(let wireFields) = wire.nodes[wireInner], wire.inhabited[wireInner] {
            // Vectors of records are the bulk of real replies: the per-record checks, depth and charge are the
            // same for every element, so do them once and decode the fields directly.
            try charge(length)
            try enter()
            defer { depth -= 1 }
            for index in 0..<length {
                let mark = warnings.count
                do throws(CandidError) { elements.append(try decodeRecordFields(wireFields, expectedFields)) }
                catch { throw error.inside(.element(index)) }
                warnings(since: mark, are: .element(index))
            }
            return .vec(elements)
        }
        for index in 0..<length {
            let mark = warnings.count
            do throws(CandidError) { elements.append(try decode(wireInner, inner)) } catch { throw error.inside(.element(index)) }
            warnings(since: mark, are: .element(index))
        }
        if inner == Opcode.nat8 {
            // Only reached for vectors without elements (e.g. `vec empty`): keep blobs uniformly `.blob`.
            return .blob(elements.map { if case .nat8(let byte) = $0 { return byte }; return 0 })
        }
        return .vec(elements)
    }

    private mutating func decodeRecord(_ w: Int, _ expectedFields: [GraphField], _ e: Int) throws(CandidError) -> CandidValue {
        guard w >= 0, case .record(let wireFields) = wire.nodes[w] else { throw mismatch(w, e) }
        guard wire.inhabited[w] else { throw uninhabited(w) }
        try enter()
        defer { depth -= 1 }
        try charge(1)
        let wasCharged = zeroSizedCharged
        defer { zeroSizedCharged = wasCharged }
        if !zeroSizedCharged, let cost = wire.zeroSizedCost(of: w) {
            // A record that takes no bytes is pure amplification wherever it stands (a field, an option's or a
            // variant's payload), not only in vectors: its whole tree is charged as the vector rule charges it,
            // before any of it is built. Otherwise one byte of `opt` tag could stand for a tree of any size.
            try charge(cost)
            zeroSizedCharged = true
        }
        return try decodeRecordFields(wireFields, expectedFields)
    }

    /// A record's fields in wire order, matched to the expected fields by id (both sorted): extra wire fields are
    /// skipped, missing expected ones take their default.
    private mutating func decodeRecordFields(_ wireFields: [GraphField], _ expectedFields: [GraphField]) throws(CandidError) -> CandidValue {
        var values: [CandidFieldValue] = []
        values.reserveCapacity(expectedFields.count)
        var next = 0
        for field in wireFields {
            while next < expectedFields.count && expectedFields[next].label.id < field.label.id {
                try appendMissingField(expectedFields[next], to: &values)
                next += 1
            }
            if next < expectedFields.count && expectedFields[next].label.id == field.label.id {
                let target = expectedFields[next]
                let mark = warnings.count
                do throws(CandidError) { values.append(CandidFieldValue(target.label, try decode(field.type, target.type))) }
                catch { throw error.inside(.field(target.label)) }
                warnings(since: mark, are: .field(target.label))
                next += 1
            } else {
                do throws(CandidError) { try skip(field.type) } catch { throw error.inside(.field(field.label)) }
            }
        }
        while next < expectedFields.count {
            try appendMissingField(expectedFields[next], to: &values)
            next += 1
        }
        return .record(values)
    }

    private func appendMissingField(_ field: GraphField, to values: inout [CandidFieldValue]) throws(CandidError) {
        guard let value = defaultValue(field.type) else {
            throw CandidError(.typeMismatch, "record field \(field.label.quotedDescription) of type \(describe(field.type, in: expected)) is missing",
                              offset: position).coercionFailure
        }
        values.append(CandidFieldValue(field.label, value))
    }

    private mutating func decodeVariant(_ w: Int, _ expectedFields: [GraphField], _ e: Int) throws(CandidError) -> CandidValue {
        guard w >= 0, case .variant(let wireFields) = wire.nodes[w] else { throw mismatch(w, e) }
        guard wire.inhabited[w] else { throw uninhabited(w) }
        try enter()
        defer { depth -= 1 }
        try charge(1)
        let indexOffset = position
        let index = try readLEB()
        guard index < UInt64(wireFields.count) else {
            throw CandidError(.malformed, "variant index \(index) is out of range (\(wireFields.count) cases)", offset: indexOffset)
        }
        let field = wireFields[Int(index)]
        guard let target = Self.find(field.label.id, in: expectedFields) else {
            throw CandidError(.typeMismatch, "variant case \(field.label.id) is not in the expected type \(describe(e, in: expected))",
                              offset: indexOffset).coercionFailure
        }
        let mark = warnings.count
        defer { warnings(since: mark, are: .variantCase(target.label)) }
        do throws(CandidError) { return .variant(CandidFieldValue(target.label, try decode(field.type, target.type))) }
        catch { throw error.inside(.variantCase(target.label)) }
    }

    static func find(_ id: UInt32, in fields: [GraphField]) -> GraphField? {
        var low = 0, high = fields.count
        while low < high {
            let middle = (low + high) / 2
            if fields[middle].label.id < id { low = middle + 1 } else { high = middle }
        }
        return low < fields.count && fields[low].label.id == id ? fields[low] : nil
    }

    /// The value an absent argument or record field takes: null for null, reserved and option types.
    func defaultValue(_ e: Int) -> CandidValue? {
        if e == Opcode.null { return .null }
        if e == Opcode.reserved { return .reserved }
        if e >= 0, case .opt = expected.nodes[e] { return .opt(nil) }
        return nil
    }

    private mutating func isSubtype(_ w: Int, _ e: Int) throws(CandidError) -> Bool {
        var checker = subtypes ?? SubtypeChecker(sub: wire, super: expected, budget: 0, maxDepth: limits.maxDepth)
        checker.budget = budget
        defer {
            budget = checker.budget
            subtypes = checker
        }
        do throws(CandidError) { return try checker.isSubtype(w, e) } catch { throw error.at(position) }
    }

    // MARK: Primitive values

    private mutating func readPrimitive(_ code: Int) throws(CandidError) -> CandidValue {
        try charge(1)
        switch code {
        case Opcode.null: return .null
        case Opcode.reserved: return .reserved
        case Opcode.bool:
            let offset = position
            switch try readByte() {
            case 0: return .bool(false)
            case 1: return .bool(true)
            default: throw CandidError(.malformed, "invalid bool value", offset: offset)
            }
        case Opcode.nat: return .nat(try readNat())
        case Opcode.int: return .int(try readInt())
        case Opcode.nat8: return .nat8(try readByte())
        case Opcode.nat16: return .nat16(UInt16(truncatingIfNeeded: try readFixed(2)))
        case Opcode.nat32: return .nat32(UInt32(truncatingIfNeeded: try readFixed(4)))
        case Opcode.nat64: return .nat64(try readFixed(8))
        case Opcode.int8: return .int8(Int8(bitPattern: try readByte()))
        case Opcode.int16: return .int16(Int16(bitPattern: UInt16(truncatingIfNeeded: try readFixed(2))))
        case Opcode.int32: return .int32(Int32(bitPattern: UInt32(truncatingIfNeeded: try readFixed(4))))
        case Opcode.int64: return .int64(Int64(bitPattern: try readFixed(8)))
        case Opcode.float32: return .float32(Float(bitPattern: UInt32(truncatingIfNeeded: try readFixed(4))))
        case Opcode.float64: return .float64(Double(bitPattern: try readFixed(8)))
        case Opcode.text: return .text(try readText())
        case Opcode.principal: return .principal(try readPrincipal())
        default: throw uninhabited(code)
        }
    }

    private mutating func readNat() throws(CandidError) -> BigUInt {
        if position < bytes.count, bytes[position] < 0x80 {
            position += 1
            return BigUInt(UInt64(bytes[position - 1]))
        }
        let start = position
        let value: BigUInt
        do throws(CodecError) { value = try LEB128.decodeBigUInt(bytes, at: &position, maxBytes: limits.maxNumberBytes) }
        catch { throw CandidError(error) }
        try charge((position - start) / 8)
        return value
    }

    private mutating func readInt() throws(CandidError) -> BigInt {
        let start = position
        let value: BigInt
        do throws(CodecError) { value = try LEB128.decodeBigInt(bytes, at: &position, maxBytes: limits.maxNumberBytes) }
        catch { throw CandidError(error) }
        try charge((position - start) / 8)
        return value
    }

    private mutating func readText() throws(CandidError) -> String {
        let offset = position
        let length = try readLength()
        try charge(length / 64)
        let slice = UnsafeBufferPointer(rebasing: bytes[position..<(position + length)])
        // Validate first, then build the string on the standard library's fast path for known-valid UTF-8.
        guard UTF8Validation.isValid(slice) else { throw CandidError(.malformed, "text is not valid UTF-8", offset: offset) }
        position += length
        return String(decoding: slice, as: UTF8.self)
    }

    private mutating func readPrincipal() throws(CandidError) -> Principal {
        let offset = position
        guard try readByte() == 1 else {
            throw CandidError(.malformed, "only transparent principal references (tag 1) are supported", offset: offset)
        }
        let length = try readLength()
        guard length <= Principal.maxByteCount else {
            throw CandidError(.malformed, "principal of \(length) bytes exceeds \(Principal.maxByteCount)", offset: offset)
        }
        let principal = Principal(unchecked: Array(UnsafeBufferPointer(rebasing: bytes[position..<(position + length)])))
        position += length
        return principal
    }

    // MARK: Skipping

    /// Steps over one value of wire type `w`, validating it, without building anything.
    mutating func skip(_ w: Int) throws(CandidError) {
        if let cost = wire.zeroSizedCost(of: w) {
            try charge(cost)
            return
        }
        if w < 0 {
            try charge(1)
            switch w {
            case Opcode.bool:
                let offset = position
                guard try readByte() <= 1 else { throw CandidError(.malformed, "invalid bool value", offset: offset) }
            case Opcode.nat, Opcode.int:
                do throws(CodecError) { try LEB128.skip(bytes, at: &position, maxBytes: limits.maxNumberBytes) } catch { throw CandidError(error) }
            case Opcode.nat8, Opcode.int8: try advance(1)
            case Opcode.nat16, Opcode.int16: try advance(2)
            case Opcode.nat32, Opcode.int32, Opcode.float32: try advance(4)
            case Opcode.nat64, Opcode.int64, Opcode.float64: try advance(8)
            case Opcode.text:
                let offset = position
                let length = try readLength()
                try charge(length / 64)
                guard UTF8Validation.isValid(UnsafeBufferPointer(rebasing: bytes[position..<(position + length)])) else {
                    throw CandidError(.malformed, "text is not valid UTF-8", offset: offset)
                }
                position += length
            case Opcode.principal: _ = try readPrincipal()
            default: throw uninhabited(w)
            }
            return
        }
        switch wire.nodes[w] {
        case .opt(let inner):
            try charge(1)
            let offset = position
            switch try readByte() {
            case 0: return
            case 1:
                try enter()
                defer { depth -= 1 }
                try skip(inner)
            default: throw CandidError(.malformed, "invalid option tag", offset: offset)
            }
        case .vec(let inner):
            try enter()
            defer { depth -= 1 }
            let length = try readVectorLength(elementType: inner)
            if let cost = wire.zeroSizedCost(of: inner) {
                let (total, overflow) = length.multipliedReportingOverflow(by: cost)
                try charge(overflow ? Int.max : total)
                return
            }
            if inner == Opcode.nat8 || inner == Opcode.int8 {
                try charge(1 + length / 64)
                position += length
                return
            }
            try charge(1 + length)
            for index in 0..<length {
                do throws(CandidError) { try skip(inner) } catch { throw error.inside(.element(index)) }
            }
        case .record(let fields):
            guard wire.inhabited[w] else { throw uninhabited(w) }
            try enter()
            defer { depth -= 1 }
            try charge(1)
            for field in fields {
                do throws(CandidError) { try skip(field.type) } catch { throw error.inside(.field(field.label)) }
            }
        case .variant(let fields):
            guard wire.inhabited[w] else { throw uninhabited(w) }
            try enter()
            defer { depth -= 1 }
            try charge(1)
            let offset = position
            let index = try readLEB()
            guard index < UInt64(fields.count) else {
                throw CandidError(.malformed, "variant index \(index) is out of range (\(fields.count) cases)", offset: offset)
            }
            do throws(CandidError) { try skip(fields[Int(index)].type) } catch { throw error.inside(.variantCase(fields[Int(index)].label)) }
        case .function:
            try charge(2)
            let offset = position
            guard try readByte() == 1 else {
                throw CandidError(.malformed, "only public function references (tag 1) are supported", offset: offset)
            }
            _ = try readPrincipal()
            try skip(Opcode.text)
        case .service:
            try charge(1)
            _ = try readPrincipal()
        case .future:
            // A future value: its byte count, its reference count, then the bytes.
            try charge(1)
            let offset = position
            let length = try readLEB()
            _ = try readLEB()
            guard length <= UInt64(bytes.count - position) else {
                throw CandidError(.malformed, "length \(length) exceeds the \(bytes.count - position) remaining bytes", offset: offset)
            }
            try charge(Int(length) / 64)
            position += Int(length)
        }
    }

    // MARK: Reading primitives

    @inline(__always) private mutating func charge(_ units: Int) throws(CandidError) {
        guard units <= budget else {
            budget = -1
            throw CandidError(.limitExceeded, "work budget of \(limits.workBudget) units exhausted", offset: position)
        }
        budget -= units
    }

    @inline(__always) private mutating func enter() throws(CandidError) {
        depth += 1
        if depth > limits.maxDepth {
            depth -= 1
            throw CandidError(.limitExceeded, "values nested deeper than \(limits.maxDepth)", offset: position)
        }
    }

    @inline(__always) private mutating func readByte() throws(CandidError) -> UInt8 {
        guard position < bytes.count else { throw truncated() }
        position += 1
        return bytes[position - 1]
    }

    @inline(__always) private mutating func advance(_ count: Int) throws(CandidError) {
        guard bytes.count - position >= count else { throw truncated() }
        position += count
    }

    @inline(__always) private mutating func readFixed(_ count: Int) throws(CandidError) -> UInt64 {
        guard bytes.count - position >= count else { throw truncated() }
        var value: UInt64 = 0
        for index in 0..<count { value |= UInt64(bytes[position + index]) << UInt64(8 * index) }
        position += count
        return value
    }

    @inline(__always) private mutating func readLEB() throws(CandidError) -> UInt64 {
        do throws(CodecError) { return try LEB128.decodeUInt64(bytes, at: &position) } catch { throw CandidError(error) }
    }

    private mutating func readSignedLEB() throws(CandidError) -> Int64 {
        do throws(CodecError) { return try LEB128.decodeInt64(bytes, at: &position) } catch { throw CandidError(error) }
    }

    /// A byte length that must fit in the remaining input.
    private mutating func readLength() throws(CandidError) -> Int {
        let offset = position
        let length = try readLEB()
        guard length <= UInt64(bytes.count - position) else {
            throw CandidError(.malformed, "length \(length) exceeds the \(bytes.count - position) remaining bytes", offset: offset)
        }
        return Int(length)
    }

    /// A count of items that each take at least `minimumBytesEach` bytes of the remaining input.
    private mutating func readCount(limit: Int, what: String, minimumBytesEach: Int) throws(CandidError) -> Int {
        let offset = position
        let count = try readLEB()
        let (needed, overflow) = count.multipliedReportingOverflow(by: UInt64(minimumBytesEach))
        guard !overflow, needed <= UInt64(bytes.count - position) else {
            throw CandidError(.malformed, "\(count) \(what) cannot fit in the \(bytes.count - position) remaining bytes", offset: offset)
        }
        guard count <= UInt64(limit) else {
            throw CandidError(.limitExceeded, "\(count) \(what) exceed the limit of \(limit)", offset: offset)
        }
        return Int(count)
    }

    private mutating func readVectorLength(elementType: Int) throws(CandidError) -> Int {
        let offset = position
        let length = try readLEB()
        let minimum = UInt64(wire.minimumBytes(of: elementType))
        let (needed, overflow) = length.multipliedReportingOverflow(by: minimum)
        guard !overflow, needed <= UInt64(bytes.count - position) else {
            throw CandidError(.malformed, "vector of \(length) elements cannot fit in the \(bytes.count - position) remaining bytes",
                              offset: offset)
        }
        guard length <= UInt64(limits.maxVectorLength) else {
            throw CandidError(.limitExceeded, "vector of \(length) elements exceeds the limit of \(limits.maxVectorLength)", offset: offset)
        }
        return Int(length)
    }

    // MARK: Errors

    private func truncated() -> CandidError {
        CandidError(.malformed, "input ends in the middle of a value", offset: position)
    }

    private func uninhabited(_ w: Int) -> CandidError {
        CandidError(.malformed, "the message claims a value of \(describe(w, in: wire)), a type that has no values", offset: position)
    }

    private func mismatch(_ w: Int, _ e: Int, detail: String? = nil) -> CandidError {
        var message = "expected \(describe(e, in: expected)), found \(describe(w, in: wire))"
        if let detail { message += " (\(detail))" }
        return CandidError(.typeMismatch, message, offset: position).coercionFailure
    }
}

extension CandidError {
    /// Marks a type mismatch the opt rules may turn into null.
    var coercionFailure: CandidError {
        var copy = self
        copy.isCoercionFailure = true
        return copy
    }

    func at(_ offset: Int) -> CandidError {
        var copy = self
        if copy.offset == nil { copy.offset = offset }
        return copy
    }
}

/// Short type descriptions for messages (`nat`, `record { … }`, `vec text`).
func describe(_ type: Int, in graph: TypeGraph, depth: Int = 0) -> String {
    if type < 0 { return Opcode.name(type) }
    guard depth < 2 else { return "…" }
    switch graph.nodes[type] {
    case .opt(let inner): return "opt " + describe(inner, in: graph, depth: depth + 1)
    case .vec(let inner): return "vec " + describe(inner, in: graph, depth: depth + 1)
    case .record(let fields):
        return fields.isEmpty ? "record {}" : "record { " + fields.prefix(3).map { "\($0.label) : \(describe($0.type, in: graph, depth: depth + 1))" }
            .joined(separator: "; ") + (fields.count > 3 ? "; …" : "") + " }"
    case .variant(let fields):
        return fields.isEmpty ? "variant {}" : "variant { " + fields.prefix(3).map { "\($0.label)" }.joined(separator: "; ")
            + (fields.count > 3 ? "; …" : "") + " }"
    case .function: return "func"
    case .service: return "service"
    case .future: return "a future type"
    }
}
