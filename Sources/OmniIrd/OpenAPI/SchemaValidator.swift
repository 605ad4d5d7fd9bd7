import OmniCodec

/// One finding of a validation: where (`$.records[2].ttl`) and what.
public struct ValidationIssue: Hashable, Sendable, CustomStringConvertible {
    public let path: String
    public let message: String

    public var description: String { "\(path): \(message)" }
}

/// The outcome of checking a value against a schema: errors make it invalid; drift is what an answer has that the
/// document never mentions (an unknown field, a value outside an open enum) — kept, and reported on request.
public struct ValidationResult: Sendable {
    /// The first `SchemaValidator.maxIssues` errors; `errorCount` counts them all.
    public var errors: [ValidationIssue] = []
    /// The first `SchemaValidator.maxIssues` findings, then one saying how many more there were.
    public var drift: [ValidationIssue] = []
    public var unlistedErrors = 0

    public var errorCount: Int { errors.count + unlistedErrors }

    public var isValid: Bool { errors.isEmpty }
}

/// Checks JSON values against the document's schemas.
///
/// Requests are checked strictly: enums are closed, read-only fields refused. Answers are checked for what the
/// document promises, with string enums open (an unknown value passes, as drift) and unknown fields kept (as drift).
/// Numbers are compared as decimal text; nothing is converted to floating point.
public struct SchemaValidator: Sendable {
    public enum Direction: Sendable { case request, response }

    public let document: OpenAPIDocument
    public let direction: Direction
    /// Schema checks one validation may make (hostile schemas with wide oneOfs over deep values end here).
    public let budget: Int
    /// Automaton states one validation may visit matching `pattern`s (text length × pattern size each).
    public let patternBudget: Int

    /// Errors, and drift, one validation lists: an answer of a million wrong items gives the first ones and a count,
    /// not a million messages (some 150 MiB).
    public static let maxIssues = 1000

    /// About 0.4 s of matching in a release build (`make bench`: work budgets).
    public static let defaultPatternBudget = 20_000_000

    public init(document: OpenAPIDocument, direction: Direction, budget: Int = 1_000_000, patternBudget: Int = defaultPatternBudget) {
        self.document = document
        self.direction = direction
        self.budget = budget
        self.patternBudget = patternBudget
    }

    public func validate(_ value: JSONValue, against schema: SchemaRef, at path: JSONPath = .root) -> ValidationResult {
        var run = Run(validator: self, remaining: budget, shared: SharedWork(budget: patternBudget))
        run.check(value, schema, path, checkUnknown: true)
        var result = ValidationResult()
        var seenErrors = Set<ValidationIssue>(), seenDrift = Set<ValidationIssue>()
        result.errors = run.errors.filter { seenErrors.insert($0).inserted }
        result.drift = run.drift.filter { seenDrift.insert($0).inserted }
        result.unlistedErrors = run.unlistedErrors
        if run.unlistedDrift > 0 {
            result.drift.append(ValidationIssue(path: path.description, message: "and \(run.unlistedDrift) more (the first \(Self.maxIssues) are listed)"))
        }
        if run.remaining < 0 {
            result.errors.append(ValidationIssue(path: path.description, message: "validation needed more than \(budget) checks (the work budget)"))
        }
        if run.shared.remaining < 0 {
            result.errors.append(ValidationIssue(path: path.description,
                                                 message: "matching the document's patterns needed more than \(patternBudget) steps (the work budget)"))
        }
        return result
    }

    /// The names of every property the schema knows at this level, through allOf/anyOf/oneOf.
    public func knownProperties(_ ref: SchemaRef) -> Set<String> { Set(fields(of: ref).known.map(\.value)) }

    /// What a schema (through its applicators) says about an object's fields: the names it knows (compared exactly,
    /// as JSON compares keys), whether it allows any other field, and the work of finding out (schemas visited and
    /// names read), which a validation charges.
    func fields(of ref: SchemaRef) -> (known: Set<ExactText>, allowsAny: Bool, work: Int) {
        var names = Set<ExactText>()
        var visited = Set<Int>()
        var stack = [ref]
        var allowsAny = false, sawProperties = false
        var work = 0
        while let next = stack.popLast() {
            guard visited.insert(next.index).inserted else { continue }
            let schema = document[next]
            work += 1 + schema.properties.count
            names.formUnion(schema.properties.map { ExactText($0.name) })
            switch schema.additionalProperties {
            case .allowed, .schema: allowsAny = true
            case .forbidden, .unspecified: break
            }
            if !schema.properties.isEmpty { sawProperties = true }
            stack.append(contentsOf: schema.allOf + schema.anyOf + schema.oneOf)
        }
        return (names, allowsAny || !sawProperties, work)
    }

    /// What every trial of a oneOf or anyOf in one validation shares: each object schema's fields, found once; and
    /// the patterns, each compiled once, with the steps left to compile and match them. Compiling a pattern costs
    /// the steps of its source and automaton, so a document of 50 000 large patterns cannot make one answer compile
    /// them all; the cache keeps at most `maxCachedStates` states (some 11 MiB) and starts again beyond.
    private final class SharedWork {
        /// By schema index; filled by `Run.fields(of:)` and `Run.ownProperties(of:)`, which charge the walk to the
        /// check budget.
        var fields: [Int: (known: Set<ExactText>, allowsAny: Bool)] = [:]
        var ownProperties: [Int: [ExactText: SchemaRef]] = [:]

        final class Entry {
            let pattern: Result<SchemaPattern, SchemaPattern.Refusal>
            var space: SchemaPattern.SearchSpace?

            init(_ pattern: Result<SchemaPattern, SchemaPattern.Refusal>) {
                self.pattern = pattern
                space = try? pattern.get().makeSearchSpace()
            }
        }

        static let maxCachedStates = 200_000
        var remaining: Int
        private var entries: [String: Entry] = [:]
        private var cachedStates = 0

        init(budget: Int) { remaining = budget }

        func entry(_ source: String) -> Entry {
            if let known = entries[source] { return known }
            let entry = Entry(Result { () throws(SchemaPattern.Refusal) in try SchemaPattern(source) })
            let states = (try? entry.pattern.get())?.automatonSize ?? 0
            remaining -= source.utf8.count + states
            if cachedStates + states > Self.maxCachedStates {
                entries.removeAll()
                cachedStates = 0
            }
            entries[source] = entry
            cachedStates += states
            return entry
        }
    }

    private struct Run {
        let validator: SchemaValidator
        var remaining: Int
        let shared: SharedWork
        var errors: [ValidationIssue] = []
        var drift: [ValidationIssue] = []

        var document: OpenAPIDocument { validator.document }

        var unlistedErrors = 0
        var unlistedDrift = 0

        mutating func error(_ path: JSONPath, _ message: String) {
            guard errors.count < SchemaValidator.maxIssues else { unlistedErrors += 1; return }
            errors.append(ValidationIssue(path: path.description, message: message))
        }

        mutating func note(drift issue: ValidationIssue) {
            guard drift.count < SchemaValidator.maxIssues else { unlistedDrift += 1; return }
            drift.append(issue)
        }

        mutating func note(drift issues: [ValidationIssue]) {
            for issue in issues { note(drift: issue) }
        }

        mutating func check(_ value: JSONValue, _ ref: SchemaRef, _ path: JSONPath, checkUnknown: Bool) {
            remaining -= 1
            guard remaining >= 0 else { return }
            let schema = document[ref]
            // A number's digits are read by the integer test and the bounds (up to 4096 of them): a check per 512.
            if case .number(let text) = value { remaining -= text.utf8.count >> 9 }
            if let types = schema.types {
                if types.isEmpty { error(path, "no value is allowed here"); return }
                if value.isNull {
                    if !schema.nullable && !types.contains(.null) { error(path, "must not be null (expected \(Self.names(types)))") }
                    return
                }
                if !types.contains(where: { Self.matches(value, $0) }) {
                    error(path, "expected \(Self.names(types)), got \(Self.kind(of: value))")
                    return
                }
            } else if value.isNull, schema.nullable {
                return
            }
            if let values = schema.enumValues { remaining -= values.count }  // each compared, and listed on a miss
            if let values = schema.enumValues, !values.contains(value) {
                let allStrings = values.allSatisfy { $0.stringValue != nil }
                let listed = values.map { $0.stringValue ?? $0.serialized() }.joined(separator: ", ")
                if validator.direction == .response, allStrings, value.stringValue != nil {
                    note(drift: ValidationIssue(path: path.description,
                                                message: "'\(value.stringValue!)' is not one of the document's values (\(listed)); passed through"))
                } else {
                    error(path, "\(Self.describe(value)) is not one of \(listed)")
                }
            }
            if let constant = schema.constValue, constant != value { error(path, "must be \(constant.serialized())") }

            switch value {
            case .string(let text): checkString(text, schema, path)
            case .number(let text): checkNumber(text, schema, path)
            case .array(let items):
                if let minimum = schema.minItems, items.count < minimum { error(path, "has \(items.count) items, at least \(minimum) needed") }
                if let maximum = schema.maxItems, items.count > maximum { error(path, "has \(items.count) items, at most \(maximum) allowed") }
                if let itemSchema = schema.items {
                    for (index, item) in items.enumerated() { check(item, itemSchema, path + index, checkUnknown: true) }
                }
            case .object(let object): checkObject(object, ref, schema, path, checkUnknown: checkUnknown)
            default: break
            }

            for branch in schema.allOf { check(value, branch, path, checkUnknown: false) }
            if !schema.anyOf.isEmpty {
                let outcomes = schema.anyOf.map { trial(value, $0, path) }
                if !outcomes.contains(where: { $0.errors.isEmpty }) {
                    fail(alternatives: outcomes, path, "matches none of the \(outcomes.count) anyOf alternatives")
                } else if let best = outcomes.first(where: { $0.errors.isEmpty }) {
                    note(drift: best.drift)
                }
            }
            if !schema.oneOf.isEmpty { checkOneOf(value, schema, path) }
            if let not = schema.not, trial(value, not, path).errors.isEmpty { error(path, "matches a schema it must not match") }
        }

        mutating func checkOneOf(_ value: JSONValue, _ schema: Schema, _ path: JSONPath) {
            if let property = schema.discriminator, let tag = value[property]?.stringValue,
               let chosen = schema.discriminatorMapping[tag] ?? chargedScan(schema.oneOf, for: tag) {
                check(value, chosen, path, checkUnknown: false)
                return
            }
            let outcomes = schema.oneOf.map { trial(value, $0, path) }
            let passing = outcomes.indices.filter { outcomes[$0].errors.isEmpty }
            if passing.isEmpty {
                fail(alternatives: outcomes, path, "matches none of the \(outcomes.count) oneOf alternatives")
            } else if passing.count > 1 {
                error(path, "matches more than one oneOf alternative (\(passing.map { String($0 + 1) }.joined(separator: ", ")))")
            } else {
                note(drift: outcomes[passing[0]].drift)
            }
        }

        /// The alternative named `tag`, a linear search charged by its length.
        mutating func chargedScan(_ alternatives: [SchemaRef], for tag: String) -> SchemaRef? {
            remaining -= alternatives.count
            return alternatives.first { document[$0].componentName == tag }
        }

        /// Reports a failed choice with the closest alternative's own errors, which say what to fix.
        mutating func fail(alternatives: [(errors: [ValidationIssue], drift: [ValidationIssue])], _ path: JSONPath, _ message: String) {
            let closest = alternatives.min { $0.errors.count < $1.errors.count }
            var text = message
            if let first = closest?.errors.first { text += "; closest: \(first)" }
            error(path, text)
        }

        mutating func trial(_ value: JSONValue, _ ref: SchemaRef, _ path: JSONPath) -> (errors: [ValidationIssue], drift: [ValidationIssue]) {
            var inner = Run(validator: validator, remaining: remaining, shared: shared)
            inner.check(value, ref, path, checkUnknown: false)
            remaining = inner.remaining
            return (inner.errors, inner.drift)
        }

        mutating func checkString(_ text: String, _ schema: Schema, _ path: JSONPath) {
            if schema.minLength != nil || schema.maxLength != nil {
                // Counting code points reads the text: a check per 512 bytes, so a long text tried against many
                // alternatives is charged for each reading.
                remaining -= text.utf8.count >> 9
                let length = text.unicodeScalars.count
                if let minimum = schema.minLength, length < minimum { error(path, "is \(length) characters long, at least \(minimum) needed") }
                if let maximum = schema.maxLength, length > maximum { error(path, "is \(length) characters long, at most \(maximum) allowed") }
            }
            // Once the budget is spent, validate() reports it once and no more patterns are compiled or matched.
            guard let source = schema.pattern, shared.remaining >= 0 else { return }
            let entry = shared.entry(source)
            switch entry.pattern {
            case .success(let pattern):
                guard shared.remaining >= 0, var space = entry.space else { return }
                entry.space = nil  // held here while searching, so the entry keeps no second copy to copy on write
                let found = pattern.search(text, budget: &shared.remaining, in: &space)
                entry.space = space
                if found == false { error(path, "\(Self.describe(.string(text))) does not match the pattern \(source)") }
            case .failure(let refusal):
                note(drift: ValidationIssue(path: path.description, message: "the document's pattern \(source) was not checked: \(refusal)"))
            }
        }

        mutating func checkNumber(_ text: String, _ schema: Schema, _ path: JSONPath) {
            func compare(_ bound: String?, _ fails: (Int) -> Bool, _ message: String) {
                guard let bound, let order = DecimalText.compare(text, bound) else { return }
                if fails(order) { error(path, "\(text) \(message) \(bound)") }
            }
            compare(schema.minimum, { $0 < 0 }, "is less than the minimum")
            compare(schema.maximum, { $0 > 0 }, "is more than the maximum")
            compare(schema.exclusiveMinimum, { $0 <= 0 }, "is not more than")
            compare(schema.exclusiveMaximum, { $0 >= 0 }, "is not less than")
        }

        /// A schema's fields through its applicators, found once a validation and charged to its check budget.
        mutating func fields(of ref: SchemaRef) -> (known: Set<ExactText>, allowsAny: Bool) {
            if let known = shared.fields[ref.index] { return known }
            let found = validator.fields(of: ref)
            remaining -= found.work
            shared.fields[ref.index] = (found.known, found.allowsAny)
            return (found.known, found.allowsAny)
        }

        /// A schema's own properties by name, made once a validation and charged.
        mutating func ownProperties(of ref: SchemaRef, _ schema: Schema) -> [ExactText: SchemaRef] {
            if let known = shared.ownProperties[ref.index] { return known }
            remaining -= schema.properties.count
            var own: [ExactText: SchemaRef] = [:]
            for property in schema.properties where own[ExactText(property.name)] == nil { own[ExactText(property.name)] = property.schema }
            shared.ownProperties[ref.index] = own
            return own
        }

        mutating func checkObject(_ object: JSONObject, _ ref: SchemaRef, _ schema: Schema, _ path: JSONPath, checkUnknown: Bool) {
            // Every member and every named field is looked at once: a wide answer against a wide schema is charged
            // for both, not one check (a JSONObject lookup is a linear search, so members are indexed first).
            remaining -= object.count + schema.required.count + schema.properties.count
            guard remaining >= 0 else { return }
            var members: [ExactText: JSONValue] = Dictionary(minimumCapacity: object.count)
            for (key, value) in object where members[ExactText(key)] == nil { members[ExactText(key)] = value }
            let own = ownProperties(of: ref, schema)
            for name in schema.required where members[ExactText(name)] == nil {
                if let property = own[ExactText(name)] {
                    let target = document[property]
                    if validator.direction == .request && target.readOnly { continue }
                    if validator.direction == .response && target.writeOnly { continue }
                }
                error(path + name, "is required")
            }
            for property in schema.properties {
                guard let value = members[ExactText(property.name)] else { continue }
                if validator.direction == .request, document[property.schema].readOnly {
                    error(path + property.name, "is read-only: the service sets it")
                    continue
                }
                check(value, property.schema, path + property.name, checkUnknown: true)
            }
            switch schema.additionalProperties {
            case .forbidden:
                let known = fields(of: ref).known
                for (key, _) in object where !known.contains(ExactText(key)) {
                    error(path + key, "is not a field of this object (additional fields are not allowed)")
                }
            case .schema(let extra):
                for (key, value) in object where own[ExactText(key)] == nil { check(value, extra, path + key, checkUnknown: true) }
            case .allowed, .unspecified:
                break
            }
            if checkUnknown, case let facts = fields(of: ref), !facts.allowsAny {
                for (key, _) in object where !facts.known.contains(ExactText(key)) {
                    note(drift: ValidationIssue(path: (path + key).description, message: "is not in the document's schema"))
                }
            }
        }

        static func matches(_ value: JSONValue, _ type: JSONType) -> Bool {
            switch (type, value) {
            case (.null, .null), (.boolean, .bool), (.object, .object), (.array, .array), (.string, .string), (.number, .number): true
            case (.integer, .number(let text)): DecimalText.isIntegral(text)
            default: false
            }
        }

        static func kind(of value: JSONValue) -> String {
            switch value {
            case .null: "null"
            case .bool: "a boolean"
            case .number(let text): "the number \(text)"
            case .string(let text): "the string \(describe(.string(text)))"
            case .array: "an array"
            case .object: "an object"
            }
        }

        static func names(_ types: [JSONType]) -> String {
            let names = types.filter { $0 != .null }.map { type -> String in
                switch type {
                case .integer: "an integer"
                case .number: "a number"
                case .string: "a string"
                case .boolean: "a boolean"
                case .array: "an array"
                case .object: "an object"
                case .null: "null"
                }
            }
            return names.isEmpty ? "null" : names.joined(separator: " or ")
        }

        static func describe(_ value: JSONValue) -> String {
            let text = value.serialized()
            return text.count > 60 ? String(text.prefix(57)) + "…" : text
        }
    }
}

/// Decimal numbers as JSON text, compared exactly (money and bounds never pass through floating point).
public enum DecimalText {
    /// Sign, digits without leading zeros, and the power of ten of the last digit.
    private static func parse(_ text: String) -> (negative: Bool, digits: [UInt8], exponent: Int)? {
        var bytes = Array(text.utf8)[...]
        var negative = false
        if bytes.first == UInt8(ascii: "-") { negative = true; bytes = bytes.dropFirst() }
        else if bytes.first == UInt8(ascii: "+") { bytes = bytes.dropFirst() }
        var digits: [UInt8] = []
        var exponent = 0
        var seenPoint = false
        var seenDigit = false
        while let byte = bytes.first, byte != UInt8(ascii: "e"), byte != UInt8(ascii: "E") {
            bytes = bytes.dropFirst()
            if byte == UInt8(ascii: ".") { guard !seenPoint else { return nil }; seenPoint = true; continue }
            guard (0x30...0x39).contains(byte) else { return nil }
            seenDigit = true
            digits.append(byte - 0x30)
            if seenPoint { exponent -= 1 }
        }
        guard seenDigit else { return nil }
        if !bytes.isEmpty {
            bytes = bytes.dropFirst()
            guard let power = Int(String(decoding: bytes, as: UTF8.self)), abs(power) < 100_000 else { return nil }
            exponent += power
        }
        while digits.first == 0 { digits.removeFirst() }
        while digits.last == 0 { digits.removeLast(); exponent += 1 }
        if digits.isEmpty { return (false, [], 0) }
        return (negative, digits, exponent)
    }

    /// -1, 0 or 1; nil when either is not a number.
    public static func compare(_ a: String, _ b: String) -> Int? {
        guard let x = parse(a), let y = parse(b) else { return nil }
        if x.digits.isEmpty && y.digits.isEmpty { return 0 }
        if x.negative != y.negative || x.digits.isEmpty || y.digits.isEmpty {
            let sign = { (n: (negative: Bool, digits: [UInt8], exponent: Int)) in n.digits.isEmpty ? 0 : (n.negative ? -1 : 1) }
            return sign(x) < sign(y) ? -1 : (sign(x) > sign(y) ? 1 : 0)
        }
        // Same sign: compare magnitudes by the position of the leading digit, then digit by digit.
        let magnitude: Int
        let leadX = x.digits.count + x.exponent, leadY = y.digits.count + y.exponent
        if leadX != leadY {
            magnitude = leadX < leadY ? -1 : 1
        } else {
            var order = 0
            for index in 0..<max(x.digits.count, y.digits.count) {
                let dx = index < x.digits.count ? x.digits[index] : 0
                let dy = index < y.digits.count ? y.digits[index] : 0
                if dx != dy { order = dx < dy ? -1 : 1; break }
            }
            magnitude = order
        }
        return x.negative ? -magnitude : magnitude
    }

    /// True for numbers without a fractional part (`3`, `3.0`, `3e2`).
    public static func isIntegral(_ text: String) -> Bool {
        guard let number = parse(text) else { return false }
        return number.digits.isEmpty || number.exponent >= 0
    }

    /// True for JSON number syntax.
    public static func isNumber(_ text: String) -> Bool {
        (try? JSONValue.parse(text))?.numberText != nil
    }
}
