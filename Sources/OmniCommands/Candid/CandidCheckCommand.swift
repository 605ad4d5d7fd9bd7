import OmniCLI
import OmniCandid
import OmniCodec

/// `omni candid check`: validate a .did file, and with a previous version, whether the upgrade is safe.
enum CandidCheckCommand {
    static let newFile = Argument<InputFile>("NEW", help: "The .did file to check (- for stdin).")
    static let oldFile = OptionalArgument<InputFile>("OLD", help: "The previous .did file: NEW must be able to replace it.")
    static let strict = Flag("strict", short: "s", help: "With OLD, require the two interfaces to be equivalent, not just compatible.")

    static let command = Command(
        "check", abstract: "Check a .did file; with a previous version, whether it is a safe upgrade.",
        discussion: """
            Parses NEW and its imports and checks the definitions (unknown or cyclic names, duplicate fields or \
            methods, hash collisions, method types). With OLD, checks that NEW's service is a subtype of OLD's, so \
            existing clients keep working: methods may be added, arguments may become optional or more general, \
            results may gain fields. Exit status: 0 valid (and compatible), 1 incompatible (with the method, \
            argument and field that break), 3 a .did file that does not parse or check (with line and column).
            """,
        options: [strict], arguments: [newFile, oldFile], relations: [.requires(strict, oldFile)],
        examples: [
            Example("omni candid check service.did", "Validate one interface."),
            Example("omni candid check new.did old.did", "Exit 0 if new.did can replace old.did, 1 with the reason if not."),
        ]
    ) { invocation in
        let newInput = try invocation.value(newFile)
        let new = try CandidTypeOptions.loadInterface(newInput, invocation: invocation, label: "NEW")
        guard let oldInput = try invocation.value(oldFile) else {
            return .output(Validity(file: newInput.displayName, interface: new))
        }
        let old = try CandidTypeOptions.loadInterface(oldInput, invocation: invocation, label: "OLD")
        let isStrict = try invocation.value(strict)
        let compatibility = try new.checkUpgrade(from: old, strict: isStrict)
        compatibility.warnings.forEach { invocation.note("warning: \($0)") }
        let mismatch = compatibility.mismatch
        let verdict = Compatibility(new: newInput.displayName, old: oldInput.displayName, strict: isStrict, mismatch: mismatch)
        return .output(verdict, exitCode: mismatch == nil ? .ok : .failure)
    }

    struct Validity: Renderable {
        let file: String
        let interface: CandidInterface

        var methods: [String] { interface.service?.methods.map(\.name) ?? [] }

        func text(style: TextStyle) -> String {
            let definitions = interface.environment.names.count
            var summary = "\(definitions) type definition\(definitions == 1 ? "" : "s")"
            if interface.service != nil {
                summary += ", a service with \(methods.count) method\(methods.count == 1 ? "" : "s")"
                if interface.initArguments != nil { summary += " and init arguments" }
            } else {
                summary += ", no service"
            }
            return style.good("valid") + ": \(file) (\(summary))"
        }

        var json: JSONValue {
            var object = JSONObject()
            object["valid"] = true
            object["file"] = .string(file)
            object["types"] = .array(interface.environment.names.map { .string($0) })
            object["methods"] = interface.service == nil ? .null : .array(methods.map { .string($0) })
            object["init_arguments"] = interface.initArguments.map { .string(Candid.print(argumentTypes: $0, style: .compact)) } ?? .null
            return .object(object)
        }
    }

    struct Compatibility: Renderable {
        let new: String
        let old: String
        let strict: Bool
        let mismatch: CandidSubtypeMismatch?

        func text(style: TextStyle) -> String {
            guard let mismatch else {
                return style.good(strict ? "equivalent" : "compatible") + ": \(new) can replace \(old)"
            }
            return style.bad(strict ? "not equivalent" : "incompatible") + ": " + mismatch.description
        }

        var json: JSONValue {
            var object = JSONObject()
            object["compatible"] = .bool(mismatch == nil)
            object["strict"] = .bool(strict)
            object["new"] = .string(new)
            object["old"] = .string(old)
            object["path"] = mismatch.map { .string($0.pathDescription) } ?? .null
            object["reason"] = mismatch.map { .string($0.reason) } ?? .null
            return .object(object)
        }
    }
}
