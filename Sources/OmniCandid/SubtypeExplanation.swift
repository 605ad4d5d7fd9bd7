/// Why one type is not a subtype of another: the path from the outer types to the first pair that breaks the
/// rules, and what breaks there. `omni candid check` and `omni candid subtype` report it with exit status 1.
public struct CandidSubtypeMismatch: Sendable, Equatable, CustomStringConvertible {
    /// Outermost first: `method "transfer"`, `arg 0`, `record field "fee"`, `variant case "Err"`, `vec element`,
    /// `opt`, `result 0`. Empty when the outer types themselves differ.
    public let path: [String]
    /// What differs at the end of the path, e.g. `nat is not a subtype of nat8`.
    public let reason: String

    public var pathDescription: String { path.joined(separator: " . ") }

    public var description: String { path.isEmpty ? reason : pathDescription + ": " + reason }
}

extension Candid {
    /// Nil when `sub <: super`; otherwise the first incompatibility, found by descending only into the parts whose
    /// subtype check fails (each step is decided by `isSubtype`, so the answer agrees with it exactly).
    public static func subtypeMismatch(_ sub: CandidType, in subEnvironment: CandidTypeEnvironment = CandidTypeEnvironment(),
                                       of superType: CandidType, in superEnvironment: CandidTypeEnvironment = CandidTypeEnvironment(),
                                       limits: CandidLimits = .default) throws(CandidError) -> CandidSubtypeMismatch? {
        var explainer = SubtypeExplainer(limits: limits)
        return try explainer.explain(Side(type: sub, environment: subEnvironment),
                                     Side(type: superType, environment: superEnvironment), path: [])
    }
}

extension CandidInterface {
    /// Nil when this interface can replace `previous` (see `isCompatibleUpgrade(of:)`); otherwise the first method,
    /// argument or field that breaks existing clients. With `strict`, the interfaces must also be equivalent.
    public func upgradeMismatch(from previous: CandidInterface, strict: Bool = false,
                                limits: CandidLimits = .default) throws(CandidError) -> CandidSubtypeMismatch? {
        let new = service ?? CandidServiceType([]), old = previous.service ?? CandidServiceType([])
        if let forward = try Candid.subtypeMismatch(.service(new), in: environment, of: .service(old),
                                                    in: previous.environment, limits: limits) {
            return forward
        }
        guard strict, let backward = try Candid.subtypeMismatch(.service(old), in: previous.environment, of: .service(new),
                                                                in: environment, limits: limits) else { return nil }
        // The backward check reads the old interface as the subtype, so its reasons describe the old side.
        return CandidSubtypeMismatch(path: backward.path, reason: backward.reason + " (in the old interface, so they are not equivalent)")
    }
}

/// A type with the environment its names resolve in.
private struct Side {
    let type: CandidType
    let environment: CandidTypeEnvironment

    func with(_ type: CandidType) -> Side { Side(type: type, environment: environment) }
}

private struct SubtypeExplainer {
    let limits: CandidLimits
    /// Named pairs already entered: a recursive type that fails through itself is reported where it loops.
    private var visited: Set<String> = []

    init(limits: CandidLimits) { self.limits = limits }

    private func holds(_ sub: Side, _ superSide: Side) throws(CandidError) -> Bool {
        try Candid.isSubtype(sub.type, in: sub.environment, of: superSide.type, in: superSide.environment, limits: limits)
    }

    private func isNullable(_ side: Side) throws(CandidError) -> Bool {
        switch try side.environment.resolve(side.type) {
        case .null, .reserved, .opt: return true
        default: return false
        }
    }

    private static func short(_ type: CandidType) -> String {
        let text = Candid.print(type, style: .compact)
        return text.count > 60 ? String(text.prefix(57)) + "…" : text
    }

    private static func notSubtype(_ sub: CandidType, _ superType: CandidType) -> String {
        "\(short(sub)) is not a subtype of \(short(superType))"
    }

    mutating func explain(_ sub: Side, _ superSide: Side, path: [String]) throws(CandidError) -> CandidSubtypeMismatch? {
        if try holds(sub, superSide) { return nil }
        func mismatch(_ reason: String) -> CandidSubtypeMismatch { CandidSubtypeMismatch(path: path, reason: reason) }
        guard path.count < limits.maxDepth else { return mismatch(Self.notSubtype(sub.type, superSide.type)) }
        if case .named(let a) = sub.type, case .named(let b) = superSide.type {
            guard visited.insert(a + "\u{0}" + b).inserted else { return mismatch(Self.notSubtype(sub.type, superSide.type)) }
        }
        let subType = try sub.environment.resolve(sub.type)
        let superType = try superSide.environment.resolve(superSide.type)
        switch (subType, superType) {
        case (.vec(let a), .vec(let b)):
            if let found = try explain(sub.with(a), superSide.with(b), path: path + ["vec element"]) { return found }
        case (.record(let subFields), .record(let superFields)):
            for field in superFields {
                let fieldPath = path + ["record field \(field.label.quotedDescription)"]
                if let match = subFields.first(where: { $0.label.id == field.label.id }) {
                    if let found = try explain(sub.with(match.type), superSide.with(field.type), path: fieldPath) { return found }
                } else if !(try isNullable(superSide.with(field.type))) {
                    return CandidSubtypeMismatch(path: fieldPath, reason: "the field is missing and its type \(Self.short(field.type)) is not optional")
                }
            }
        case (.variant(let subFields), .variant(let superFields)):
            for field in subFields {
                let casePath = path + ["variant case \(field.label.quotedDescription)"]
                guard let match = superFields.first(where: { $0.label.id == field.label.id }) else {
                    return CandidSubtypeMismatch(path: casePath, reason: "the case is not in the supertype")
                }
                if let found = try explain(sub.with(field.type), superSide.with(match.type), path: casePath) { return found }
            }
        case (.function(let f), .function(let g)):
            if let found = try explainFunction(f, sub, g, superSide, path: path) { return found }
        case (.service(let subService), .service(let superService)):
            for method in superService.methods {
                let methodPath = path + ["method \(CandidLabel.quoted(method.name))"]
                guard let match = subService[method.name] else {
                    return CandidSubtypeMismatch(path: methodPath, reason: "the method is missing")
                }
                if let found = try explain(sub.with(match), superSide.with(method.type), path: methodPath) { return found }
            }
        default:
            break
        }
        return mismatch(Self.notSubtype(sub.type, superSide.type))
    }

    /// Arguments are contravariant (the new function must accept every old argument list), results covariant.
    private mutating func explainFunction(_ f: CandidFunctionType, _ sub: Side, _ g: CandidFunctionType, _ superSide: Side,
                                          path: [String]) throws(CandidError) -> CandidSubtypeMismatch? {
        if Set(f.modes) != Set(g.modes) {
            func modes(_ function: CandidFunctionType) -> String {
                function.modes.isEmpty ? "an update" : function.modes.map(\.rawValue).joined(separator: " ")
            }
            return CandidSubtypeMismatch(path: path, reason: "the annotations differ: \(modes(f)) instead of \(modes(g))")
        }
        for (index, argument) in f.arguments.enumerated() {
            let argumentPath = path + ["arg \(index)"]
            if index < g.arguments.count {
                if let found = try explain(superSide.with(g.arguments[index].type), sub.with(argument.type), path: argumentPath) {
                    return found
                }
            } else if !(try isNullable(sub.with(argument.type))) {
                return CandidSubtypeMismatch(path: argumentPath, reason: "a new argument of type \(Self.short(argument.type)) that is not optional")
            }
        }
        for (index, result) in g.results.enumerated() {
            let resultPath = path + ["result \(index)"]
            if index < f.results.count {
                if let found = try explain(sub.with(f.results[index].type), superSide.with(result.type), path: resultPath) {
                    return found
                }
            } else if !(try isNullable(superSide.with(result.type))) {
                return CandidSubtypeMismatch(path: resultPath, reason: "the result of type \(Self.short(result.type)) is missing")
            }
        }
        return nil
    }
}
