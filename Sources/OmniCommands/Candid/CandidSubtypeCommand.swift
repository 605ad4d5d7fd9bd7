import OmniCLI
import OmniCandid
import OmniCodec

/// `omni candid subtype`: is T1 <: T2?
enum CandidSubtypeCommand {
    static let subType = Argument<String>("T1", help: "The candidate subtype, e.g. 'record { a : nat; b : text }', or an argument list '(nat, text)'.",
                                          source: .content)
    static let superType = Argument<String>("T2", help: "The supertype (an argument list when T1 is one).", source: .content)
    static let did = Option<InputFile>("did", short: "d", valueName: "FILE",
                                       help: "A .did file whose type definitions the names in T1 and T2 refer to.")

    static let command = Command(
        "subtype", abstract: "Check whether T1 is a subtype of T2 (exit 0 yes, 1 no with the reason).",
        discussion: """
            Uses the Candid spec's subtyping: nat <: int, anything <: reserved and opt T, empty <: anything, \
            records may have extra fields and lack optional ones, variants may have fewer cases, functions are \
            contravariant in their arguments and covariant in their results, and recursive types are compared \
            coinductively. A value of T1 can then always be decoded at T2. Argument lists '(…)' compare like \
            method arguments: extra trailing values are allowed, missing ones must be optional.
            """,
        options: [did], arguments: [subType, superType],
        examples: [
            Example("omni candid subtype nat int", "Exit 0: every nat is an int."),
            Example("omni candid subtype 'record { a : nat }' 'record { a : nat; b : nat }'",
                    "Exit 1: record field \"b\" is missing and not optional."),
            Example("omni candid subtype --did ledger.did Account 'record { owner : principal }'", "Names from a .did file."),
        ]
    ) { invocation in
        let environment = try invocation.value(did)
            .map { try CandidTypeOptions.loadInterface($0, invocation: invocation, label: "--did").environment } ?? CandidTypeEnvironment()
        let first = try invocation.bytes(of: subType) ?? [], second = try invocation.bytes(of: superType) ?? []
        let subTypes = try CandidTypeOptions.parseTypes(first, label: "T1")
        let superTypes = try CandidTypeOptions.parseTypes(second, label: "T2")
        try CandidTypeOptions.checkNames(subTypes, in: environment, label: "T1")
        try CandidTypeOptions.checkNames(superTypes, in: environment, label: "T2")
        let firstText = try invocation.text(of: subType)?.trimmingWhitespaceAndNewlines() ?? ""
        let secondText = try invocation.text(of: superType)?.trimmingWhitespaceAndNewlines() ?? ""
        // Argument lists compare as arguments ("argument 2"), not as the tuple records they resemble.
        let compatibility = firstText.hasPrefix("(") && secondText.hasPrefix("(")
            ? try Candid.checkSubtype(arguments: subTypes, in: environment, of: superTypes, in: environment)
            : try Candid.checkSubtype(firstText.hasPrefix("(") ? .tuple(subTypes) : subTypes[0], in: environment,
                                      of: secondText.hasPrefix("(") ? .tuple(superTypes) : superTypes[0], in: environment)
        compatibility.warnings.forEach { invocation.note("warning: \($0)") }
        let mismatch = compatibility.mismatch
        return .output(Verdict(sub: firstText, super: secondText, mismatch: mismatch),
                       exitCode: mismatch == nil ? .ok : .failure)
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
