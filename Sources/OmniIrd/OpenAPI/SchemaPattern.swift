/// A schema's `pattern`: an ECMA-262 regular expression, found anywhere in a string (JSON Schema does not anchor it),
/// over code points as with the `u` flag.
///
/// It is matched by stepping all states of its automaton over the text together (Thompson's construction), never by
/// backtracking. So a document's `^(a+)+$` costs the text's length times the pattern's size, not 2^n: a backtracking
/// engine (Swift's `Regex`, Python's `re`) takes seconds on 18 characters and hours on 30. An automaton has no
/// memory of what it matched, so back-references and lookaround are refused as unsupported; the validator says it
/// did not check such a pattern rather than guess.
public struct SchemaPattern: Sendable {
    public struct Limits: Sendable {
        /// Code points of pattern source.
        public var maxSourceLength = 4096
        /// Automaton instructions, after counted repetitions (`x{2,50}`) are written out.
        public var maxProgramSize = 20_000
        /// Groups inside one another.
        public var maxNesting = 64

        public init() {}
    }

    /// Why a pattern cannot be used: `offset` counts code points into the source.
    public struct Refusal: Error, Sendable, Equatable, CustomStringConvertible {
        public enum Kind: Sendable, Equatable {
            /// Not an ECMA-262 pattern.
            case invalid
            /// Valid, but beyond an automaton (back-references, lookaround) or beyond a limit.
            case unsupported
        }
        public let kind: Kind
        public let offset: Int
        public let message: String

        public var description: String { "\(message) (at character \(offset + 1))" }
    }

    public let source: String
    private let program: [Instruction]
    private let sets: [ScalarSet]

    /// States of the automaton: a search visits at most this many per position of the text, and per start.
    public var automatonSize: Int { program.count }

    public init(_ source: String, limits: Limits = Limits()) throws(Refusal) {
        // Measured before anything is copied: a document's pattern can be megabytes long.
        guard source.utf8.count <= limits.maxSourceLength * 4, case let length = source.unicodeScalars.count, length <= limits.maxSourceLength else {
            throw Refusal(kind: .unsupported, offset: 0, message: "the pattern is over the limit of \(limits.maxSourceLength) characters")
        }
        let scalars = Array(source.unicodeScalars)
        var parser = PatternParser(scalars, limits: limits)
        let tree = try parser.parse()
        var compiler = PatternCompiler(sets: parser.sets, limit: limits.maxProgramSize)
        guard compiler.size(tree) <= limits.maxProgramSize else {
            throw Refusal(kind: .unsupported, offset: 0,
                          message: "the pattern's automaton would have more than \(limits.maxProgramSize) states (counted repetitions are written out)")
        }
        compiler.emit(tree)
        compiler.program.append(.match)
        self.source = source
        self.program = compiler.program
        self.sets = compiler.sets
    }

    /// The state sets a search works in, sized to the automaton. Reused, they make a search cost only its steps;
    /// made afresh, they cost the automaton's size (which a caller with a budget should charge).
    public struct SearchSpace {
        fileprivate var current: StateSet
        fileprivate var next: StateSet
        fileprivate var stack: [Int] = []
    }

    public func makeSearchSpace() -> SearchSpace {
        SearchSpace(current: StateSet(capacity: program.count), next: StateSet(capacity: program.count))
    }

    /// Whether the pattern occurs in `text`; nil when `budget` (states visited, each a few nanoseconds) ran out first.
    public func search(_ text: String, budget: inout Int) -> Bool? {
        var space = makeSearchSpace()
        return search(text, budget: &budget, in: &space)
    }

    /// The same in `space` (made by this pattern's `makeSearchSpace`). The text is read once, a code point at a
    /// time, and never copied.
    public func search(_ text: String, budget: inout Int, in space: inout SearchSpace) -> Bool? {
        precondition(space.current.capacity == program.count, "a search space made for another pattern")
        space.current.removeAll()
        space.next.removeAll()
        var scalars = text.unicodeScalars.makeIterator()
        // What the assertions look at: the code points either side of the position.
        var around = Surroundings(atStart: true, before: nil, after: scalars.next()?.value)
        while true {
            // A thread starts at every position: the pattern is searched for, not anchored.
            switch follow(from: 0, around, into: &space.current, stack: &space.stack, budget: &budget) {
            case .matched: return true
            case .outOfBudget: return nil
            case .continuing: break
            }
            guard let scalar = around.after else { return false }
            around = Surroundings(atStart: false, before: scalar, after: scalars.next()?.value)
            space.next.removeAll()
            for state in space.current.members {
                let advances: Bool
                switch program[state] {
                case .scalar(let expected): advances = scalar == expected
                case .set(let index): advances = sets[index].contains(scalar)
                case .anyButLineTerminator: advances = !PatternClasses.isLineTerminator(scalar)
                default: advances = false
                }
                guard advances else { continue }
                switch follow(from: state + 1, around, into: &space.next, stack: &space.stack, budget: &budget) {
                case .matched: return true
                case .outOfBudget: return nil
                case .continuing: break
                }
            }
            swap(&space.current, &space.next)
        }
    }

    private struct Surroundings {
        let atStart: Bool
        let before: UInt32?
        let after: UInt32?
    }

    private enum Progress { case continuing, matched, outOfBudget }

    /// Adds `start` and every state reachable from it without reading a code point (through splits, jumps and
    /// assertions that hold here) to `states`.
    private func follow(from start: Int, _ around: Surroundings, into states: inout StateSet, stack: inout [Int],
                        budget: inout Int) -> Progress {
        stack.removeAll(keepingCapacity: true)
        stack.append(start)
        while let state = stack.popLast() {
            guard states.insert(state) else { continue }
            budget -= 1
            if budget < 0 { return .outOfBudget }
            switch program[state] {
            case .match: return .matched
            case .jump(let target): stack.append(target)
            case .split(let first, let second):
                stack.append(second)
                stack.append(first)
            case .assert(let assertion):
                if holds(assertion, around) { stack.append(state + 1) }
            case .scalar, .set, .anyButLineTerminator:
                break
            }
        }
        return .continuing
    }

    private func holds(_ assertion: Assertion, _ around: Surroundings) -> Bool {
        switch assertion {
        case .start: return around.atStart
        case .end: return around.after == nil
        case .wordBoundary, .notWordBoundary:
            let before = around.before.map(PatternClasses.isWordCharacter) ?? false
            let after = around.after.map(PatternClasses.isWordCharacter) ?? false
            return (before != after) == (assertion == .wordBoundary)
        }
    }
}

// MARK: - Automaton

enum Assertion: Sendable, Equatable { case start, end, wordBoundary, notWordBoundary }

private enum Instruction: Sendable {
    case scalar(UInt32)
    case set(Int)
    case anyButLineTerminator
    case split(Int, Int)
    case jump(Int)
    case assert(Assertion)
    case match
}

/// The states of one position, in the order added, with constant-time membership (a sparse set).
struct StateSet {
    private(set) var members: [Int] = []
    private var slot: [Int]

    var capacity: Int { slot.count }

    init(capacity: Int) {
        slot = Array(repeating: 0, count: capacity)
        members.reserveCapacity(capacity)
    }

    mutating func insert(_ state: Int) -> Bool {
        let index = slot[state]
        if index < members.count, members[index] == state { return false }
        slot[state] = members.count
        members.append(state)
        return true
    }

    mutating func removeAll() { members.removeAll(keepingCapacity: true) }
}

/// A character class: code points in ranges or general categories, each possibly negated (`\D`, `\P{L}`), the whole
/// possibly inverted (`[^…]`).
struct ScalarSet: Sendable {
    enum Item: Sendable {
        case ranges([ClosedRange<UInt32>], negated: Bool)
        case categories([Unicode.GeneralCategory], negated: Bool)
    }
    var items: [Item] = []
    var inverted = false

    func contains(_ value: UInt32) -> Bool {
        var found = false
        for item in items {
            switch item {
            case .ranges(let ranges, let negated):
                found = ranges.contains { $0.contains(value) } != negated
            case .categories(let categories, let negated):
                let category = Unicode.Scalar(value)?.properties.generalCategory
                found = (category.map { categories.contains($0) } ?? false) != negated
            }
            if found { break }
        }
        return found != inverted
    }
}

indirect enum PatternNode: Sendable {
    case empty
    case scalar(UInt32)
    /// An index into the parser's sets.
    case set(Int)
    case anyButLineTerminator
    case assertion(Assertion)
    case sequence([PatternNode])
    case alternation([PatternNode])
    /// `maximum` nil: unbounded.
    case repetition(PatternNode, minimum: Int, maximum: Int?)
}

private struct PatternCompiler {
    var sets: [ScalarSet]
    let limit: Int
    var program: [Instruction] = []

    /// Instructions `node` emits, saturating just above the limit (so `(a{1000}){1000}` is refused before it is built).
    func size(_ node: PatternNode) -> Int {
        let cap = limit + 1
        func add(_ a: Int, _ b: Int) -> Int { min(cap, a + b) }
        func times(_ a: Int, _ b: Int) -> Int {
            let (product, overflow) = a.multipliedReportingOverflow(by: b)
            return overflow ? cap : min(cap, product)
        }
        switch node {
        case .empty: return 0
        case .scalar, .set, .anyButLineTerminator, .assertion: return 1
        case .sequence(let nodes): return nodes.reduce(0) { add($0, size($1)) }
        case .alternation(let nodes): return nodes.reduce(2 * (nodes.count - 1)) { add($0, size($1)) }  // a split and a jump each but the last
        case .repetition(let node, let minimum, let maximum):
            // An empty body still costs its copies' time to write out: `(){99999999999}` is refused, not looped over.
            let body = max(1, size(node))
            let optional = maximum.map { times(max(0, $0 - minimum), add(body, 1)) } ?? add(body, 2)
            return add(times(minimum, body), optional)
        }
    }

    mutating func emit(_ node: PatternNode) {
        switch node {
        case .empty: break
        case .scalar(let value): program.append(.scalar(value))
        case .set(let index): program.append(.set(index))
        case .anyButLineTerminator: program.append(.anyButLineTerminator)
        case .assertion(let assertion): program.append(.assert(assertion))
        case .sequence(let nodes): for node in nodes { emit(node) }
        case .alternation(let nodes):
            // split(first, rest); first; jump end; rest: split(second, rest'); …; last
            var jumps: [Int] = []
            for (index, alternative) in nodes.enumerated() {
                if index < nodes.count - 1 {
                    let split = program.count
                    program.append(.split(split + 1, 0))
                    emit(alternative)
                    jumps.append(program.count)
                    program.append(.jump(0))
                    program[split] = .split(split + 1, program.count)
                } else {
                    emit(alternative)
                }
            }
            for jump in jumps { program[jump] = .jump(program.count) }
        case .repetition(let body, let minimum, let maximum):
            for _ in 0..<minimum { emit(body) }
            if let maximum {
                // Each optional copy is reachable only through the one before it: x{0,3} is (x(x(x)?)?)?.
                var splits: [Int] = []
                for _ in minimum..<max(minimum, maximum) {
                    splits.append(program.count)
                    program.append(.split(program.count + 1, 0))
                    emit(body)
                }
                for split in splits { program[split] = .split(split + 1, program.count) }
            } else {
                let loop = program.count
                program.append(.split(loop + 1, 0))
                emit(body)
                program.append(.jump(loop))
                program[loop] = .split(loop + 1, program.count)
            }
        }
    }
}

// MARK: - Parser

/// ECMA-262 pattern syntax with the `u` flag's code points, and Annex B's leniency where real documents rely on it:
/// a `{` or `}` that is no quantifier, a lone `]`, and `\` before any punctuation are literal characters.
private struct PatternParser {
    let source: [Unicode.Scalar]
    let limits: SchemaPattern.Limits
    var position = 0
    var sets: [ScalarSet] = []

    init(_ source: [Unicode.Scalar], limits: SchemaPattern.Limits) {
        self.source = source
        self.limits = limits
    }

    typealias Refusal = SchemaPattern.Refusal

    func invalid(_ message: String, at offset: Int? = nil) -> Refusal {
        Refusal(kind: .invalid, offset: offset ?? position, message: message)
    }

    func unsupported(_ message: String, at offset: Int? = nil) -> Refusal {
        Refusal(kind: .unsupported, offset: offset ?? position, message: message)
    }

    var peek: UInt32? { position < source.count ? source[position].value : nil }

    func peek(_ ahead: Int) -> UInt32? { position + ahead < source.count ? source[position + ahead].value : nil }

    mutating func parse() throws(Refusal) -> PatternNode {
        let tree = try disjunction(depth: 0)
        if position < source.count { throw invalid("unmatched )") }
        return tree
    }

    mutating func disjunction(depth: Int) throws(Refusal) -> PatternNode {
        guard depth <= limits.maxNesting else { throw unsupported("groups nest deeper than \(limits.maxNesting)") }
        var alternatives = [try alternative(depth: depth)]
        while peek == ascii("|") {
            position += 1
            alternatives.append(try alternative(depth: depth))
        }
        return alternatives.count == 1 ? alternatives[0] : .alternation(alternatives)
    }

    mutating func alternative(depth: Int) throws(Refusal) -> PatternNode {
        var terms: [PatternNode] = []
        while let next = peek, next != ascii("|"), next != ascii(")") {
            terms.append(try term(depth: depth))
        }
        return terms.isEmpty ? .empty : terms.count == 1 ? terms[0] : .sequence(terms)
    }

    mutating func term(depth: Int) throws(Refusal) -> PatternNode {
        let start = position
        let character = source[position].value
        position += 1
        let atom: PatternNode
        switch character {
        case ascii("^"): return try refuseQuantifier(.assertion(.start))
        case ascii("$"): return try refuseQuantifier(.assertion(.end))
        case ascii("\\") where peek == ascii("b"):
            position += 1
            return try refuseQuantifier(.assertion(.wordBoundary))
        case ascii("\\") where peek == ascii("B"):
            position += 1
            return try refuseQuantifier(.assertion(.notWordBoundary))
        case ascii("\\"): atom = try escape(inClass: false).node(in: &sets)
        case ascii("("): atom = try group(depth: depth, start: start)
        case ascii("["): atom = .set(try characterClass())
        case ascii("."): atom = .anyButLineTerminator
        case ascii("*"), ascii("+"), ascii("?"): throw invalid("nothing to repeat before \(Self.show(character))", at: start)
        case ascii("{"):
            position = start
            if (try quantifierBounds()) != nil { throw invalid("nothing to repeat before {", at: start) }
            position = start + 1
            atom = .scalar(character)
        default: atom = .scalar(character)
        }
        return try quantified(atom)
    }

    mutating func refuseQuantifier(_ assertion: PatternNode) throws(Refusal) -> PatternNode {
        guard let next = peek else { return assertion }
        let repeated = next == ascii("{") ? try quantifierBoundsAhead() != nil : next == ascii("*") || next == ascii("+") || next == ascii("?")
        if repeated { throw invalid("an assertion cannot be repeated") }
        return assertion
    }

    mutating func quantified(_ atom: PatternNode) throws(Refusal) -> PatternNode {
        guard let next = peek else { return atom }
        let bounds: (Int, Int?)
        switch next {
        case ascii("*"): position += 1; bounds = (0, nil)
        case ascii("+"): position += 1; bounds = (1, nil)
        case ascii("?"): position += 1; bounds = (0, 1)
        case ascii("{"):
            let start = position
            guard let counted = try quantifierBounds() else { position = start; return atom }
            bounds = counted
        default: return atom
        }
        if peek == ascii("?") { position += 1 }  // lazy: the same strings match
        if let next = peek, next == ascii("*") || next == ascii("+") || next == ascii("?") {
            throw invalid("nothing to repeat before \(Self.show(next))")
        }
        return .repetition(atom, minimum: bounds.0, maximum: bounds.1)
    }

    /// `{n}`, `{n,}` or `{n,m}` at the position (moving past it), or nil when the brace starts no quantifier.
    mutating func quantifierBounds() throws(Refusal) -> (Int, Int?)? {
        let start = position
        guard peek == ascii("{") else { return nil }
        position += 1
        guard let minimum = number() else { return nil }
        var maximum: Int? = minimum
        if peek == ascii(",") {
            position += 1
            maximum = peek == ascii("}") ? nil : number()
            if maximum == nil, peek != ascii("}") { return nil }
        }
        guard peek == ascii("}") else { return nil }
        position += 1
        if let maximum, maximum < minimum { throw invalid("the repetition {\(minimum),\(maximum)} is out of order", at: start) }
        return (minimum, maximum)
    }

    mutating func quantifierBoundsAhead() throws(Refusal) -> (Int, Int?)? {
        let start = position
        defer { position = start }
        return try quantifierBounds()
    }

    /// Decimal digits, saturating (a count beyond any automaton is refused by size, not by overflow).
    mutating func number() -> Int? {
        var value: Int?
        while let digit = peek, digit >= ascii("0"), digit <= ascii("9") {
            value = min(1 << 40, (value ?? 0) * 10 + Int(digit - ascii("0")))
            position += 1
        }
        return value
    }

    mutating func group(depth: Int, start: Int) throws(Refusal) -> PatternNode {
        if peek == ascii("?") {
            switch (peek(1), peek(2)) {
            case (ascii(":"), _): position += 2
            case (ascii("="), _), (ascii("!"), _), (ascii("<"), ascii("=")), (ascii("<"), ascii("!")):
                throw unsupported("lookaround assertions are not supported", at: start)
            case (ascii("<"), _):
                position += 2
                let nameStart = position
                while let next = peek, next != ascii(">") {
                    guard PatternClasses.isGroupNameCharacter(next, first: position == nameStart) else { throw invalid("a group name has \(Self.show(next))") }
                    position += 1
                }
                guard peek == ascii(">"), position > nameStart else { throw invalid("unterminated group name", at: nameStart) }
                position += 1
            default:
                throw invalid("unknown group syntax (?\(peek(1).map(Self.show) ?? ""))", at: start)
            }
        }
        let inner = try disjunction(depth: depth + 1)
        guard peek == ascii(")") else { throw invalid("unterminated group", at: start) }
        position += 1
        return inner
    }

    // MARK: Escapes and classes

    /// An escape's meaning: one code point, or a class (`\d`, `\p{L}`).
    enum Escaped {
        case scalar(UInt32)
        case item(ScalarSet.Item)

        func node(in sets: inout [ScalarSet]) -> PatternNode {
            switch self {
            case .scalar(let value): return .scalar(value)
            case .item(let item):
                sets.append(ScalarSet(items: [item]))
                return .set(sets.count - 1)
            }
        }
    }

    /// After a backslash.
    mutating func escape(inClass: Bool) throws(Refusal) -> Escaped {
        let start = position - 1
        guard let character = peek else { throw invalid("the pattern ends with \\", at: start) }
        position += 1
        switch character {
        case ascii("d"), ascii("D"): return .item(.ranges(PatternClasses.digits, negated: character == ascii("D")))
        case ascii("w"), ascii("W"): return .item(.ranges(PatternClasses.word, negated: character == ascii("W")))
        case ascii("s"), ascii("S"): return .item(.ranges(PatternClasses.whiteSpace, negated: character == ascii("S")))
        case ascii("p"), ascii("P"): return .item(try property(negated: character == ascii("P"), start: start))
        case ascii("f"): return .scalar(0x0C)
        case ascii("n"): return .scalar(0x0A)
        case ascii("r"): return .scalar(0x0D)
        case ascii("t"): return .scalar(0x09)
        case ascii("v"): return .scalar(0x0B)
        case ascii("b") where inClass: return .scalar(0x08)
        case ascii("-") where inClass: return .scalar(character)
        case ascii("c"):
            guard let letter = peek, PatternClasses.isASCIILetter(letter) else { throw invalid("\\c needs a letter", at: start) }
            position += 1
            return .scalar(letter % 32)
        case ascii("0"):
            if let next = peek, next >= ascii("0"), next <= ascii("9") { throw unsupported("octal escapes are not supported", at: start) }
            return .scalar(0)
        case ascii("1")...ascii("9"): throw unsupported("back-references are not supported", at: start)
        case ascii("k"): throw unsupported("back-references are not supported", at: start)
        case ascii("x"):
            guard let value = hexDigits(2) else { throw invalid("\\x needs two hexadecimal digits", at: start) }
            return .scalar(value)
        case ascii("u"): return .scalar(try unicodeEscape(start: start))
        default:
            if PatternClasses.isASCIILetter(character) || (character >= ascii("0") && character <= ascii("9")) {
                throw invalid("unknown escape \\\(Self.show(character))", at: start)
            }
            return .scalar(character)
        }
    }

    mutating func hexDigits(_ count: Int) -> UInt32? {
        var value: UInt32 = 0
        for ahead in 0..<count {
            guard let digit = peek(ahead).flatMap(PatternClasses.hexValue) else { return nil }
            value = value * 16 + digit
        }
        position += count
        return value
    }

    /// `\uXXXX` (a surrogate pair written as two is one code point) or `\u{X…}`.
    mutating func unicodeEscape(start: Int) throws(Refusal) -> UInt32 {
        if peek == ascii("{") {
            position += 1
            var value: UInt32 = 0
            var digits = 0
            while let digit = peek.flatMap(PatternClasses.hexValue) {
                value = min(0x11_0000, value * 16 + digit)
                digits += 1
                position += 1
            }
            guard digits > 0, peek == ascii("}"), value <= 0x10_FFFF else { throw invalid("\\u{…} needs a code point in hexadecimal", at: start) }
            position += 1
            return value
        }
        guard let unit = hexDigits(4) else { throw invalid("\\u needs four hexadecimal digits", at: start) }
        if (0xD800...0xDBFF).contains(unit), peek == ascii("\\"), peek(1) == ascii("u") {
            let resume = position
            position += 2
            if let low = hexDigits(4), (0xDC00...0xDFFF).contains(low) {
                return 0x10000 + ((unit - 0xD800) << 10) + (low - 0xDC00)
            }
            position = resume
        }
        return unit  // a lone surrogate: no code point of a string equals it, so it matches nothing
    }

    mutating func property(negated: Bool, start: Int) throws(Refusal) -> ScalarSet.Item {
        guard peek == ascii("{") else { throw invalid("\\p needs a {property}", at: start) }
        position += 1
        var name = ""
        while let next = peek, next != ascii("}") {
            guard name.unicodeScalars.count < 64, let scalar = Unicode.Scalar(next) else { throw invalid("unterminated \\p{…}", at: start) }
            name.unicodeScalars.append(scalar)
            position += 1
        }
        guard peek == ascii("}") else { throw invalid("unterminated \\p{…}", at: start) }
        position += 1
        var category = name
        for prefix in ["General_Category=", "gc="] where name.hasPrefix(prefix) { category = String(name.dropFirst(prefix.count)) }
        guard let categories = PatternClasses.generalCategories[category] else {
            throw unsupported("the Unicode property \\p{\(name)} is not supported (general categories are)", at: start)
        }
        return .categories(categories, negated: negated)
    }

    /// After `[`: the index of the class in `sets`.
    mutating func characterClass() throws(Refusal) -> Int {
        let start = position - 1
        var set = ScalarSet()
        if peek == ascii("^") {
            set.inverted = true
            position += 1
        }
        var ranges: [ClosedRange<UInt32>] = []
        while true {
            guard let character = peek else { throw invalid("unterminated character class", at: start) }
            if character == ascii("]") { position += 1; break }
            let low = try classAtom()
            if peek == ascii("-"), let after = peek(1), after != ascii("]") {
                position += 1
                let high = try classAtom()
                switch (low, high) {
                case (.scalar(let from), .scalar(let to)):
                    guard from <= to else { throw invalid("the range \(Self.show(from))-\(Self.show(to)) is out of order", at: start) }
                    ranges.append(from...to)
                default:
                    // Annex B: a class escape beside '-' makes the '-' literal.
                    for side in [low, high] {
                        switch side {
                        case .scalar(let value): ranges.append(value...value)
                        case .item(let item): set.items.append(item)
                        }
                    }
                    ranges.append(0x2D...0x2D)
                }
                continue
            }
            switch low {
            case .scalar(let value): ranges.append(value...value)
            case .item(let item): set.items.append(item)
            }
        }
        if !ranges.isEmpty { set.items.insert(.ranges(ranges, negated: false), at: 0) }
        sets.append(set)
        return sets.count - 1
    }

    mutating func classAtom() throws(Refusal) -> Escaped {
        let character = source[position].value
        position += 1
        return character == ascii("\\") ? try escape(inClass: true) : .scalar(character)
    }

    static func show(_ value: UInt32) -> String {
        guard let scalar = Unicode.Scalar(value), !scalar.properties.isWhitespace, value >= 0x20 else {
            return "U+" + String(value, radix: 16, uppercase: true)
        }
        return String(Character(scalar))
    }
}

private func ascii(_ character: Unicode.Scalar) -> UInt32 { character.value }

/// ECMA-262's fixed classes and character tests.
enum PatternClasses {
    static let digits: [ClosedRange<UInt32>] = [0x30...0x39]
    static let word: [ClosedRange<UInt32>] = [0x30...0x39, 0x41...0x5A, 0x5F...0x5F, 0x61...0x7A]
    /// WhiteSpace and LineTerminator: tab, line feed to carriage return, space, no-break space, ogham space mark,
    /// the U+2000 spaces, the line and paragraph separators, narrow no-break, medium mathematical and ideographic
    /// space, and the byte order mark.
    static let whiteSpace: [ClosedRange<UInt32>] = [0x09...0x0D, 0x20...0x20, 0xA0...0xA0, 0x1680...0x1680, 0x2000...0x200A,
                                                    0x2028...0x2029, 0x202F...0x202F, 0x205F...0x205F, 0x3000...0x3000, 0xFEFF...0xFEFF]

    static func isLineTerminator(_ value: UInt32) -> Bool { value == 0x0A || value == 0x0D || value == 0x2028 || value == 0x2029 }

    static func isWordCharacter(_ value: UInt32) -> Bool { word.contains { $0.contains(value) } }

    static func isASCIILetter(_ value: UInt32) -> Bool { (0x41...0x5A).contains(value) || (0x61...0x7A).contains(value) }

    static func isGroupNameCharacter(_ value: UInt32, first: Bool) -> Bool {
        if value == 0x24 || value == 0x5F || isASCIILetter(value) { return true }
        if !first, (0x30...0x39).contains(value) { return true }
        guard value >= 0x80, let scalar = Unicode.Scalar(value) else { return false }
        return first ? scalar.properties.isIDStart : scalar.properties.isIDContinue
    }

    static func hexValue(_ value: UInt32) -> UInt32? {
        switch value {
        case 0x30...0x39: value - 0x30
        case 0x41...0x46: value - 0x41 + 10
        case 0x61...0x66: value - 0x61 + 10
        default: nil
        }
    }

    /// The general categories by short and long name, and the groups (`L`, `Letter`…).
    static let generalCategories: [String: [Unicode.GeneralCategory]] = {
        let all: [(String, String, Unicode.GeneralCategory)] = [
            ("Lu", "Uppercase_Letter", .uppercaseLetter), ("Ll", "Lowercase_Letter", .lowercaseLetter),
            ("Lt", "Titlecase_Letter", .titlecaseLetter), ("Lm", "Modifier_Letter", .modifierLetter), ("Lo", "Other_Letter", .otherLetter),
            ("Mn", "Nonspacing_Mark", .nonspacingMark), ("Mc", "Spacing_Mark", .spacingMark), ("Me", "Enclosing_Mark", .enclosingMark),
            ("Nd", "Decimal_Number", .decimalNumber), ("Nl", "Letter_Number", .letterNumber), ("No", "Other_Number", .otherNumber),
            ("Pc", "Connector_Punctuation", .connectorPunctuation), ("Pd", "Dash_Punctuation", .dashPunctuation),
            ("Ps", "Open_Punctuation", .openPunctuation), ("Pe", "Close_Punctuation", .closePunctuation),
            ("Pi", "Initial_Punctuation", .initialPunctuation), ("Pf", "Final_Punctuation", .finalPunctuation),
            ("Po", "Other_Punctuation", .otherPunctuation), ("Sm", "Math_Symbol", .mathSymbol), ("Sc", "Currency_Symbol", .currencySymbol),
            ("Sk", "Modifier_Symbol", .modifierSymbol), ("So", "Other_Symbol", .otherSymbol), ("Zs", "Space_Separator", .spaceSeparator),
            ("Zl", "Line_Separator", .lineSeparator), ("Zp", "Paragraph_Separator", .paragraphSeparator), ("Cc", "Control", .control),
            ("Cf", "Format", .format), ("Cs", "Surrogate", .surrogate), ("Co", "Private_Use", .privateUse), ("Cn", "Unassigned", .unassigned),
        ]
        var table: [String: [Unicode.GeneralCategory]] = [:]
        for (short, long, category) in all {
            table[short] = [category]
            table[long] = [category]
        }
        let groups: [(String, String)] = [("L", "Letter"), ("M", "Mark"), ("N", "Number"), ("P", "Punctuation"), ("S", "Symbol"),
                                          ("Z", "Separator"), ("C", "Other")]
        for (short, long) in groups {
            let members = all.filter { $0.0.hasPrefix(short) }.map(\.2)
            table[short] = members
            table[long] = members
        }
        table["LC"] = [.uppercaseLetter, .lowercaseLetter, .titlecaseLetter]
        table["Cased_Letter"] = table["LC"]
        return table
    }()
}
