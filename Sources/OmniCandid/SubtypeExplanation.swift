/// Why one type is not a subtype of another: the path from the outer types to the first pair that breaks the
/// rules, and what breaks there. `omni candid check` and `omni candid subtype` report it with exit status 1.
public struct CandidSubtypeMismatch: Sendable, Equatable, CustomStringConvertible {
    /// Outermost first: `method "transfer"`, `argument 2`, `record field "fee"`, `variant case "Err"`,
    /// `vec element`, `opt`, `result 1`. Empty when the outer types themselves differ.
    public let path: [String]
    /// What differs at the end of the path, e.g. `nat is not a subtype of nat8`. When both sides use the same type
    /// name, the reason shows what the name stands for on each side.
    public let reason: String

    public init(path: [String], reason: String) {
        self.path = path
        self.reason = reason
    }

    public var pathDescription: String { path.joined(separator: " . ") }

    public var description: String { path.isEmpty ? reason : pathDescription + ": " + reason }
}

/// Something worth telling the user that does not make the input wrong. The Candid spec recommends warning when
/// the special `opt` rule is used: it lets any type pass as a subtype of an option, and every value that does not
/// fit then reads as `null`.
public struct CandidWarning: Sendable, Equatable, CustomStringConvertible {
    public enum Kind: String, Sendable {
        /// A subtype or upgrade check holds only through the special opt rule at `path`: such values read as null.
        case specialOptRule = "special_opt_rule"
        /// While decoding, a value did not coerce to an option's content type and was read as null.
        case optionalValueDropped = "opt_value_dropped"
    }

    public let kind: Kind
    /// Outermost first, as in `CandidSubtypeMismatch.path` (types) or `CandidError.path` (decoded values).
    public let path: [String]
    public let message: String
    /// Byte offset of the value in a decoded message.
    public let offset: Int?

    public init(_ kind: Kind, path: [String], message: String, offset: Int? = nil) {
        self.kind = kind
        self.path = path
        self.message = message
        self.offset = offset
    }

    public var pathDescription: String { path.joined(separator: " . ") }

    /// `method "get" . result 1 . opt: …` for types, `byte 12, at argument 1 . opt: …` for decoded values.
    public var description: String {
        var location: [String] = []
        if let offset { location.append("byte \(offset)") }
        if !path.isEmpty { location.append(offset == nil ? pathDescription : "at " + pathDescription) }
        return (location.isEmpty ? "" : location.joined(separator: ", ") + ": ") + message
    }
}

/// The verdict of a subtype or upgrade check.
public struct CandidCompatibility: Sendable, Equatable {
    /// Every incompatibility found: for services one per method that breaks (the first problem in each, in the old
    /// interface's order), for argument lists one per argument, otherwise at most one.
    public let mismatches: [CandidSubtypeMismatch]
    /// Places that pass only through the special opt rule.
    public let warnings: [CandidWarning]

    public init(mismatches: [CandidSubtypeMismatch], warnings: [CandidWarning]) {
        self.mismatches = mismatches
        self.warnings = warnings
    }

    public var isCompatible: Bool { mismatches.isEmpty }
    public var mismatch: CandidSubtypeMismatch? { mismatches.first }
}

extension Candid {
    /// Whether `sub <: super`, why not, and where the special opt rule is needed. Each step is decided by the same
    /// checker as `isSubtype`, so the verdict agrees with it exactly.
    public static func checkSubtype(_ sub: CandidType, in subEnvironment: CandidTypeEnvironment = CandidTypeEnvironment(),
                                    of superType: CandidType, in superEnvironment: CandidTypeEnvironment = CandidTypeEnvironment(),
                                    limits: CandidLimits = .default) throws(CandidError) -> CandidCompatibility {
        var explainer = try SubtypeExplainer(sub: [sub], in: subEnvironment, super: [superType], in: superEnvironment,
                                             sideNames: nil, limits: limits)
        return try explainer.compareTypes()
    }

    /// Argument lists compared as the spec compares argument sequences: values of `sub` read at `super`, where
    /// extra trailing values are ignored and missing ones must be optional. Mismatches name `argument N` (from 1).
    public static func checkSubtype(arguments sub: [CandidType], in subEnvironment: CandidTypeEnvironment = CandidTypeEnvironment(),
                                    of superTypes: [CandidType], in superEnvironment: CandidTypeEnvironment = CandidTypeEnvironment(),
                                    limits: CandidLimits = .default) throws(CandidError) -> CandidCompatibility {
        var explainer = try SubtypeExplainer(sub: sub, in: subEnvironment, super: superTypes, in: superEnvironment,
                                             sideNames: nil, limits: limits)
        return try explainer.compareArgumentLists()
    }

    /// Nil when `sub <: super`; otherwise the first incompatibility (see `checkSubtype`).
    public static func subtypeMismatch(_ sub: CandidType, in subEnvironment: CandidTypeEnvironment = CandidTypeEnvironment(),
                                       of superType: CandidType, in superEnvironment: CandidTypeEnvironment = CandidTypeEnvironment(),
                                       limits: CandidLimits = .default) throws(CandidError) -> CandidSubtypeMismatch? {
        try checkSubtype(sub, in: subEnvironment, of: superType, in: superEnvironment, limits: limits).mismatch
    }
}

extension CandidInterface {
    /// Whether this interface can replace `previous` without breaking clients (its service must be a subtype of
    /// the old one), with every method that breaks and the places that pass only through the special opt rule.
    /// Reasons say which side each type is from (`new`, `old`). With `strict`, the interfaces must also be
    /// equivalent: the old service must be a subtype of the new one too.
    public func checkUpgrade(from previous: CandidInterface, strict: Bool = false,
                             limits: CandidLimits = .default) throws(CandidError) -> CandidCompatibility {
        let new = service ?? CandidServiceType([]), old = previous.service ?? CandidServiceType([])
        var forward = try SubtypeExplainer(sub: [.service(new)], in: environment, super: [.service(old)], in: previous.environment,
                                           sideNames: ["new", "old"], limits: limits)
        let result = try forward.compareServices(order: old.methods.map(\.name))
        guard strict else { return result }
        var backward = try SubtypeExplainer(sub: [.service(old)], in: previous.environment, super: [.service(new)], in: environment,
                                            sideNames: ["old", "new"], limits: limits)
        let reverse = try backward.compareServices(order: new.methods.map(\.name))
        return CandidCompatibility(mismatches: result.mismatches + reverse.mismatches, warnings: result.warnings)
    }

    /// Nil when this interface can replace `previous`; otherwise the first method, argument or field that breaks
    /// existing clients (see `checkUpgrade`).
    public func upgradeMismatch(from previous: CandidInterface, strict: Bool = false,
                                limits: CandidLimits = .default) throws(CandidError) -> CandidSubtypeMismatch? {
        try checkUpgrade(from: previous, strict: strict, limits: limits).mismatch
    }
}

/// Explains subtype checks on compiled type graphs (side 0: the subtype's, side 1: the supertype's), asking the
/// memoising `SubtypeChecker` at every step and descending only into the parts that fail. Contravariant
/// positions (function arguments) swap the sides.
struct SubtypeExplainer {
    private struct Pair: Hashable {
        let a: Int, sa: Int, b: Int, sb: Int
    }

    private var checker: SubtypeChecker
    private let roots: [[Int]]
    /// Per side: node → the definition name it came from.
    private let names: [[Int: String]]
    /// "new"/"old" for upgrades (indexed by side); nil for plain subtype questions.
    private let sideNames: [String]?
    private let maxDepth: Int
    /// Pairs being explained: a recursive type that fails through itself is explained where it fails otherwise.
    private var inProgress: Set<Pair> = []
    private var loopHits = 0
    /// Pairs already searched for special-opt uses, and pairs already warned about.
    private var walked: Set<Pair> = []
    /// Content pairs already warned about: a type used in many places is reported once, at the first place found.
    private var warned: Set<Pair> = []
    private var warnings: [CandidWarning] = []

    init(sub: [CandidType], in subEnvironment: CandidTypeEnvironment, super superTypes: [CandidType],
         in superEnvironment: CandidTypeEnvironment, sideNames: [String]?, limits: CandidLimits) throws(CandidError) {
        func compile(_ types: [CandidType], _ environment: CandidTypeEnvironment) throws(CandidError) -> (TypeGraph, [Int], [Int: String]) {
            var compiler = TypeCompiler(environment: environment, maxDepth: limits.maxDepth)
            var references: [Int] = []
            for type in types { references.append(try compiler.compile(type)) }
            let graph = try compiler.finish()
            return (graph, references, compiler.definitionNames())
        }
        let (subGraph, subRoots, subNames) = try compile(sub, subEnvironment)
        let (superGraph, superRoots, superNames) = try compile(superTypes, superEnvironment)
        checker = SubtypeChecker(sub: subGraph, super: superGraph, budget: limits.workBudget, maxDepth: limits.maxDepth)
        roots = [subRoots, superRoots]
        names = [subNames, superNames]
        self.sideNames = sideNames
        maxDepth = limits.maxDepth
    }

    // MARK: Entry points

    mutating func compareTypes() throws(CandidError) -> CandidCompatibility {
        let a = roots[0][0], b = roots[1][0]
        if let found = try firstMismatch(a, 0, b, 1, path: []) { return CandidCompatibility(mismatches: [found], warnings: []) }
        try collectWarnings(a, 0, b, 1, path: [])
        return CandidCompatibility(mismatches: [], warnings: warnings)
    }

    mutating func compareArgumentLists() throws(CandidError) -> CandidCompatibility {
        var mismatches: [CandidSubtypeMismatch] = []
        for (index, expected) in roots[1].enumerated() {
            let path = ["argument \(index + 1)"]
            if index < roots[0].count {
                if let found = try firstMismatch(roots[0][index], 0, expected, 1, path: path) { mismatches.append(found) }
                else { try collectWarnings(roots[0][index], 0, expected, 1, path: path) }
            } else if !graph(1).isNullable(expected) {
                mismatches.append(CandidSubtypeMismatch(path: path, reason: "the argument is missing and its type \(show(expected, 1)) is not optional"))
            }
        }
        return CandidCompatibility(mismatches: mismatches, warnings: warnings)
    }

    /// Two services method by method, in `order` (the supertype's methods as written), so that every broken method
    /// is reported, not only the first.
    mutating func compareServices(order: [String]) throws(CandidError) -> CandidCompatibility {
        guard case .service(let subMethods) = graph(0).nodes[roots[0][0]],
              case .service(let superMethods) = graph(1).nodes[roots[1][0]] else {
            return try compareTypes()
        }
        var mismatches: [CandidSubtypeMismatch] = []
        for name in order {
            guard let method = superMethods.first(where: { $0.name == name }) else { continue }
            let path = ["method \(CandidLabel.quoted(name))"]
            guard let match = subMethods.first(where: { $0.name == name }) else {
                mismatches.append(CandidSubtypeMismatch(path: path, reason: methodMissing(in: 0)))
                continue
            }
            if let found = try firstMismatch(match.type, 0, method.type, 1, path: path) { mismatches.append(found) }
            else { try collectWarnings(match.type, 0, method.type, 1, path: path) }
        }
        return CandidCompatibility(mismatches: mismatches, warnings: warnings)
    }

    // MARK: Mismatches

    private func graph(_ side: Int) -> TypeGraph { checker.graph(side) }

    private func node(_ type: Int, _ side: Int) -> GraphNode? { type >= 0 ? graph(side).nodes[type] : nil }

    /// Nil when `a <: b`; otherwise the most specific reason found.
    private mutating func firstMismatch(_ a: Int, _ sa: Int, _ b: Int, _ sb: Int, path: [String]) throws(CandidError) -> CandidSubtypeMismatch? {
        if try checker.isSubtype(a, side: sa, b, side: sb) { return nil }
        if let found = try explain(a, sa, b, sb, path: path) { return found }
        return CandidSubtypeMismatch(path: path, reason: notSubtype(a, sa, b, sb))
    }

    /// Nil when `a <: b`, or when it fails only by looping back into a pair being explained further out.
    private mutating func explain(_ a: Int, _ sa: Int, _ b: Int, _ sb: Int, path: [String]) throws(CandidError) -> CandidSubtypeMismatch? {
        if try checker.isSubtype(a, side: sa, b, side: sb) { return nil }
        guard a >= 0, b >= 0, path.count < maxDepth else { return CandidSubtypeMismatch(path: path, reason: notSubtype(a, sa, b, sb)) }
        let pair = Pair(a: a, sa: sa, b: b, sb: sb)
        guard inProgress.insert(pair).inserted else {
            loopHits += 1
            return nil
        }
        defer { inProgress.remove(pair) }
        let loopsBefore = loopHits
        switch (graph(sa).nodes[a], graph(sb).nodes[b]) {
        case (.vec(let x), .vec(let y)):
            if let found = try explain(x, sa, y, sb, path: path + ["vec element"]) { return found }
        case (.record(let subFields), .record(let superFields)):
            for field in superFields {
                let fieldPath = path + ["record field \(field.label.quotedDescription)"]
                if let match = MessageDecoder.find(field.label.id, in: subFields) {
                    if let found = try explain(match.type, sa, field.type, sb, path: fieldPath) { return found }
                } else if !graph(sb).isNullable(field.type) {
                    return CandidSubtypeMismatch(path: fieldPath, reason: missingField(field.type, sa, sb))
                }
            }
        case (.variant(let subFields), .variant(let superFields)):
            for field in subFields {
                let casePath = path + ["variant case \(field.label.quotedDescription)"]
                guard let match = MessageDecoder.find(field.label.id, in: superFields) else {
                    return CandidSubtypeMismatch(path: casePath, reason: caseOnlyInSubtype(sa))
                }
                if let found = try explain(field.type, sa, match.type, sb, path: casePath) { return found }
            }
        case (.function(let f), .function(let g)):
            if let found = try explainFunction(f, sa, g, sb, path: path) { return found }
        case (.service(let subMethods), .service(let superMethods)):
            for method in superMethods {
                let methodPath = path + ["method \(CandidLabel.quoted(method.name))"]
                guard let match = subMethods.first(where: { $0.name == method.name }) else {
                    return CandidSubtypeMismatch(path: methodPath, reason: methodMissing(in: sa))
                }
                if let found = try explain(match.type, sa, method.type, sb, path: methodPath) { return found }
            }
        default:
            break
        }
        if loopHits > loopsBefore { return nil }
        return CandidSubtypeMismatch(path: path, reason: notSubtype(a, sa, b, sb))
    }

    /// Arguments are contravariant (the new function must accept every old argument list), results covariant.
    private mutating func explainFunction(_ f: GraphFunction, _ sa: Int, _ g: GraphFunction, _ sb: Int,
                                          path: [String]) throws(CandidError) -> CandidSubtypeMismatch? {
        if f.modes != g.modes { return CandidSubtypeMismatch(path: path, reason: modesDiffer(f, sa, g, sb)) }
        for (index, argument) in f.arguments.enumerated() {
            let argumentPath = path + ["argument \(index + 1)"]
            if index < g.arguments.count {
                if let found = try explain(g.arguments[index], sb, argument, sa, path: argumentPath) { return found }
            } else if !graph(sa).isNullable(argument) {
                return CandidSubtypeMismatch(path: argumentPath, reason: extraArgument(argument, sa))
            }
        }
        for (index, result) in g.results.enumerated() {
            let resultPath = path + ["result \(index + 1)"]
            if index < f.results.count {
                if let found = try explain(f.results[index], sa, result, sb, path: resultPath) { return found }
            } else if !graph(sb).isNullable(result) {
                return CandidSubtypeMismatch(path: resultPath, reason: missingResult(result, sa, sb))
            }
        }
        return nil
    }

    // MARK: The special opt rule

    /// Finds the places below `a <: b` that hold only because anything is a subtype of an option (the spec's two
    /// "unusual" opt rules). Each pair is searched once, and each pair of content types that needs the rule is
    /// reported once (at the first place found) with why the content types do not fit.
    private mutating func collectWarnings(_ a: Int, _ sa: Int, _ b: Int, _ sb: Int, path: [String]) throws(CandidError) {
        guard path.count < maxDepth, b != Opcode.reserved, a != Opcode.empty,
              try checker.isSubtype(a, side: sa, b, side: sb) else { return }
        if b >= 0, case .opt(let y) = graph(sb).nodes[b] {
            if a == Opcode.null || a == Opcode.reserved { return }
            var x = a
            if a >= 0, case .opt(let inner) = graph(sa).nodes[a] { x = inner }
            let contentPath = path + ["opt"]
            if try checker.isSubtype(x, side: sa, y, side: sb) {
                try collectWarnings(x, sa, y, sb, path: contentPath)
            } else if warned.insert(Pair(a: x, sa: sa, b: y, sb: sb)).inserted,
                      let inner = try firstMismatch(x, sa, y, sb, path: contentPath) {
                warnings.append(CandidWarning(.specialOptRule, path: inner.path, message: inner.reason
                    + "; inside the opt such values read as null (the special opt subtyping rule)"))
            }
            return
        }
        guard a >= 0, b >= 0, walked.insert(Pair(a: a, sa: sa, b: b, sb: sb)).inserted else { return }
        switch (graph(sa).nodes[a], graph(sb).nodes[b]) {
        case (.vec(let x), .vec(let y)):
            try collectWarnings(x, sa, y, sb, path: path + ["vec element"])
        case (.record(let subFields), .record(let superFields)):
            for field in superFields {
                guard let match = MessageDecoder.find(field.label.id, in: subFields) else { continue }
                try collectWarnings(match.type, sa, field.type, sb, path: path + ["record field \(field.label.quotedDescription)"])
            }
        case (.variant(let subFields), .variant(let superFields)):
            for field in subFields {
                guard let match = MessageDecoder.find(field.label.id, in: superFields) else { continue }
                try collectWarnings(field.type, sa, match.type, sb, path: path + ["variant case \(field.label.quotedDescription)"])
            }
        case (.function(let f), .function(let g)):
            for index in 0..<min(f.arguments.count, g.arguments.count) {
                try collectWarnings(g.arguments[index], sb, f.arguments[index], sa, path: path + ["argument \(index + 1)"])
            }
            for index in 0..<min(f.results.count, g.results.count) {
                try collectWarnings(f.results[index], sa, g.results[index], sb, path: path + ["result \(index + 1)"])
            }
        case (.service(let subMethods), .service(let superMethods)):
            for method in superMethods {
                guard let match = subMethods.first(where: { $0.name == method.name }) else { continue }
                try collectWarnings(match.type, sa, method.type, sb, path: path + ["method \(CandidLabel.quoted(method.name))"])
            }
        default:
            break
        }
    }

    // MARK: Messages

    /// `the new version` / `the old version` for upgrades.
    private func version(_ side: Int) -> String { "the \(sideNames?[side] ?? "") version" }

    private func notSubtype(_ a: Int, _ sa: Int, _ b: Int, _ sb: Int) -> String {
        var left = show(a, sa), right = show(b, sb)
        if left == right, a >= 0, b >= 0, names[sa][a] != nil {
            // The same name on both sides says nothing: show what it stands for on each.
            left += " = " + structure(a, sa)
            right += " = " + structure(b, sb)
        }
        guard let sideNames else { return "\(left) is not a subtype of \(right)" }
        return "\(left) (\(sideNames[sa])) is not a subtype of \(right) (\(sideNames[sb]))"
    }

    private func missingField(_ type: Int, _ sa: Int, _ sb: Int) -> String {
        guard sideNames != nil else { return "the field is missing and its type \(show(type, sb)) is not optional" }
        return "missing in \(version(sa)), and its type \(show(type, sb)) in \(version(sb)) is not optional"
    }

    private func caseOnlyInSubtype(_ sa: Int) -> String {
        sideNames == nil ? "the case is not in the supertype" : "the case is only in \(version(sa))"
    }

    private func methodMissing(in side: Int) -> String {
        sideNames == nil ? "the method is missing" : "the method is missing in \(version(side))"
    }

    private func modesDiffer(_ f: GraphFunction, _ sa: Int, _ g: GraphFunction, _ sb: Int) -> String {
        func modes(_ function: GraphFunction) -> String {
            function.modes.isEmpty ? "an update" : function.modes.map { $0 == 1 ? "a query" : $0 == 2 ? "oneway" : "a composite_query" }
                .joined(separator: " and ")
        }
        guard sideNames != nil else { return "the annotations differ: \(modes(f)) instead of \(modes(g))" }
        return "the annotations differ: \(modes(f)) in \(version(sa)), \(modes(g)) in \(version(sb))"
    }

    private func extraArgument(_ type: Int, _ sa: Int) -> String {
        guard sideNames != nil else { return "an extra argument of type \(show(type, sa)) that is not optional" }
        return "\(version(sa)) adds an argument of type \(show(type, sa)) that is not optional"
    }

    private func missingResult(_ type: Int, _ sa: Int, _ sb: Int) -> String {
        guard sideNames != nil else { return "the result of type \(show(type, sb)) is missing" }
        return "\(version(sa)) does not return it, and its type \(show(type, sb)) in \(version(sb)) is not optional"
    }

    /// A type as written in messages: a primitive, the definition's name, or its structure.
    private func show(_ type: Int, _ side: Int) -> String {
        if type < 0 { return Opcode.name(type) }
        if let name = names[side][type] { return CandidLabel.isPlainIdentifier(name) ? name : CandidLabel.quoted(name) }
        return structure(type, side)
    }

    /// The structure of a node, two levels deep, names for named parts, at most about 100 characters.
    private func structure(_ type: Int, _ side: Int, depth: Int = 0) -> String {
        func part(_ inner: Int) -> String {
            if inner < 0 { return Opcode.name(inner) }
            if let name = names[side][inner] { return CandidLabel.isPlainIdentifier(name) ? name : CandidLabel.quoted(name) }
            return depth >= 1 ? "…" : structure(inner, side, depth: depth + 1)
        }
        func list(_ items: [String], separator: String = "; ") -> String {
            (items.prefix(4) + (items.count > 4 ? ["…"] : [])).joined(separator: separator)
        }
        let text: String
        switch graph(side).nodes[type] {
        case .opt(let inner): text = "opt " + part(inner)
        case .vec(let inner): text = inner == Opcode.nat8 ? "blob" : "vec " + part(inner)
        case .record(let fields):
            let isTuple = fields.enumerated().allSatisfy { $0.element.label.name == nil && $0.element.label.id == UInt32($0.offset) }
            let items = fields.map { isTuple ? part($0.type) : "\($0.label) : \(part($0.type))" }
            text = items.isEmpty ? "record {}" : "record { " + list(items) + " }"
        case .variant(let fields):
            let items = fields.map { $0.type == Opcode.null ? "\($0.label)" : "\($0.label) : \(part($0.type))" }
            text = items.isEmpty ? "variant {}" : "variant { " + list(items) + " }"
        case .function(let function):
            let modes = function.modes.map { $0 == 1 ? " query" : $0 == 2 ? " oneway" : " composite_query" }.joined()
            text = "func (" + list(function.arguments.map(part), separator: ", ") + ") -> ("
                + list(function.results.map(part), separator: ", ") + ")" + modes
        case .service(let methods):
            text = methods.isEmpty ? "service {}" : "service { " + list(methods.map { CandidLabel.isPlainIdentifier($0.name) ? $0.name : CandidLabel.quoted($0.name) }) + " }"
        case .future:
            text = "a future type"
        }
        return text.count > 100 ? String(text.prefix(99)) + "…" : text
    }
}
