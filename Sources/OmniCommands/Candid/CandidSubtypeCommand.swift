import OmniCLI
import OmniCandid
import OmniCodec

/// `omni candid subtype`: is T1 <: T2?
enum CandidSubtypeCommand {
    static let subType = Argument<String>("T1", help: "The candidate subtype, e.g. 'record { a : nat; b : text }', or an argument list '(nat, text)'.",
                                          source: .content)
    static let superType = Argument<String>("T2", help: "The supertype (an argument list when T1 is one).", source: .content)
    static let did = Option<String>("did", short: "d", valueName: "FILE", help: "A .did file whose type definitions the names in T1 and T2 refer to.",
                                    source: .path)

    static let command = Command(
        "subtype", abstract: "Check whether T1 is a subtype of T2 (exit 0 yes, 1 no with the reason).",
        discussion: """
            Uses the Candid spec's subtyping: nat <: int, anything <: reserved and opt T, empty <: anything, \
            records may have extra fields and lack optional ones, variants may have fewer cases, functions are \
            contravariant in their arguments and covariant in their results, and recursive types are compared \
            coinductively. A value of T1 can then always be decoded at T2. Argument lists '(…)' compare like \
            method arguments: extra trailing values are allowed, missing ones must be optional.
            """,
        options: [did], arguments: [subType.spec, superType.spec],
        examples: [
            Example("omni candid subtype nat int", "Exit 0: every nat is an int."),
            Example("omni candid subtype 'record { a : nat }' 'record { a : nat; b : nat }'",
                    "Exit 1: record field \"b\" is missing and not optional."),
            Example("omni candid subtype --did ledger.did Account 'record { owner : principal }'", "Names from a .did file."),
        ]
    ) { invocation in
        let environment = try invocation.value(did)
            .map { try CandidTypeOptions.loadInterface($0, invocation: invocation, label: "--did").environment } ?? CandidTypeEnvironment()
        let first = (try invocation.argument(subType) ?? "").trimmingWhitespaceAndNewlines()
        let second = (try invocation.argument(superType) ?? "").trimmingWhitespaceAndNewlines()
        let a = try parse(first, label: "T1"), b = try parse(second, label: "T2")
        try CandidTypeOptions.checkNames([a], in: environment, label: "T1")
        try CandidTypeOptions.checkNames([b], in: environment, label: "T2")
        let mismatch = try Candid.subtypeMismatch(a, in: environment, of: b, in: environment)
        return .output(Verdict(sub: first, super: second, mismatch: mismatch),
                       exitCode: mismatch == nil ? .ok : .failure)
    }

    /// A type, or an argument list as the tuple record it is compared like.
    static func parse(_ text: String, label: String) throws -> CandidType {
        let types = try CandidTypeOptions.parseTypes(text, label: label)
        return text.hasPrefix("(") ? .tuple(types) : types[0]
    }

    struct Verdict: Renderable {
        let sub: String
        let `super`: String
        let mismatch: CandidSubtypeMismatch?

        func text(style: TextStyle) -> String {
            guard let mismatch else { return style.good("yes") + ": \(sub) <: \(`super`)" }
            return style.bad("no") + ": " + mismatch.description
        }

        var json: JSONValue {
            var object = JSONObject()
            object["subtype"] = .bool(mismatch == nil)
            object["path"] = mismatch.map { .string($0.pathDescription) } ?? .null
            object["reason"] = mismatch.map { .string($0.reason) } ?? .null
            return .object(object)
        }
    }
}
