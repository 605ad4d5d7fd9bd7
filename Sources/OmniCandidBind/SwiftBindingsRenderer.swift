import OmniCandid

/// Writes the Swift model of one canister as source text: the namespace enum with every type, the embedded
/// interface and the client. The text depends only on the model (no dates, no absolute paths), so identical input
/// gives identical output.
struct SwiftBindingsRenderer {
    let model: SwiftBindingsBuilder
    /// The `.did` file relative to the package root, for comments.
    let didPath: String
    let canisterIDText: String?
    /// The interface the client encodes and decodes with (definitions written and selected methods), as `.did` text.
    let interfaceText: String

    /// Every generated type name (a standard type of that name must then be written with its module).
    private let typeNames: Set<String>
    /// Every generated member name (fields and cases): runtime names used in expressions must not be one.
    private let memberNames: Set<String>
    /// Names of types nested inside other generated types: a definition of that name is written with the namespace.
    private let nestedTypeNames: Set<String>

    init(model: SwiftBindingsBuilder, didPath: String, canisterIDText: String?, interfaceText: String) {
        self.model = model
        self.didPath = didPath
        self.canisterIDText = canisterIDText
        self.interfaceText = interfaceText
        var types: Set<String> = [], members: Set<String> = [], nested: Set<String> = []
        func visit(_ node: SwiftNode) {
            types.insert(node.name)
            if node.depth > 1 { nested.insert(node.name) }
            switch node.kind {
            case .record(let fields, _): members.formUnion(fields.map(\.name))
            case .variant(let cases): members.formUnion(cases.map(\.name))
            default: break
            }
            node.nested.forEach(visit)
        }
        for definition in model.definitions {
            types.insert(definition.name)
            if case .nominal(let node) = definition.form { visit(node) }
            definition.siblings.forEach(visit)
        }
        model.methodNodes.forEach(visit)
        typeNames = types
        memberNames = members
        nestedTypeNames = nested
    }

    // MARK: Names

    /// A type of an imported module, in a type position: with its module when a generated type has its name.
    private func library(_ module: String, _ name: String) -> String {
        typeNames.contains(name) ? module + "." + name : name
    }

    /// A type of an imported module used in an expression, where generated members (fields, cases) shadow it too.
    private func value(_ module: String, _ name: String) -> String {
        typeNames.contains(name) || memberNames.contains(name) ? module + "." + name : name
    }

    private var bindings: (String) -> String { { library("OmniBindings", $0) } }
    private var bindingsValue: (String) -> String { { value("OmniBindings", $0) } }

    private func render(_ reference: SwiftTypeRef) -> String {
        switch reference {
        case .library(let module, let name): return library(module, name)
        case .optional(let inner): return render(inner) + "?"
        case .array(let inner): return "[" + render(inner) + "]"
        case .definition(let index):
            let name = model.definitions[index].name
            return SwiftNames.escaped(nestedTypeNames.contains(name) ? model.namespace + "." + name : name)
        case .nested(let node): return SwiftNames.escaped(node.name)
        }
    }

    /// The default of an initializer parameter: `nil` for options, the value of `null` and `reserved`.
    private func defaultValue(_ reference: SwiftTypeRef) -> String? {
        var current = reference
        var seen: Set<Int> = []
        while case .definition(let index) = current, seen.insert(index).inserted,
              case .alias(let target) = model.definitions[index].form {
            current = target
        }
        switch current {
        case .optional: return "nil"
        case .library("OmniBindings", "CandidNull"): return bindingsValue("CandidNull") + "()"
        case .library("OmniBindings", "CandidReserved"): return bindingsValue("CandidReserved") + "()"
        default: return nil
        }
    }

    // MARK: File

    /// The namespace enum: definitions, method types, the embedded interface and the client.
    func render() -> String {
        var out = SourceWriter()
        out.documentation("Swift bindings of \(didPath): its types, and a verified client of its methods "
                          + "(`\(model.namespace).Client`).")
        out.line("public enum \(model.namespace) {")
        out.indented {
            for definition in model.definitions {
                renderDefinition(definition, into: &$0)
                for sibling in definition.siblings {
                    $0.blank()
                    renderNode(sibling, into: &$0)
                }
                $0.blank()
            }
            for node in model.methodNodes {
                renderNode(node, into: &$0)
                $0.blank()
            }
            if let canisterIDText {
                $0.documentation("The canister the manifest names: `Client`'s default.")
                $0.line("public static let canisterIDText = \(SourceWriter.literal(canisterIDText))")
                $0.blank()
            }
            $0.documentation("The Candid interface arguments are encoded and replies decoded with (the definitions above "
                             + "and the methods of `Client`).")
            $0.line("public static let candidInterface = \(bindingsValue("CandidBindingInterface"))(text: \"\"\"")
            for line in interfaceText.split(separator: "\n", omittingEmptySubsequences: false) {
                $0.line(line.isEmpty ? "" : "    " + SourceWriter.escapedInMultilineLiteral(String(line)))
            }
            $0.line("    \"\"\")")
            $0.blank()
            renderClient(into: &$0)
        }
        out.line("}")
        return out.text
    }

    private func renderDefinition(_ definition: SwiftDefinition, into out: inout SourceWriter) {
        switch definition.form {
        case .alias(let target):
            out.documentation(definition.documentation)
            out.line("public typealias \(SwiftNames.escaped(definition.name)) = \(render(target))")
        case .nominal(let node):
            renderNode(node, into: &out)
        }
    }

    // MARK: Types

    private func conformances(_ protocols: String...) -> String {
        protocols.map { $0 == "Equatable" || $0 == "Sendable" ? library("Swift", $0) : bindings($0) }.joined(separator: ", ")
    }

    private func renderNode(_ node: SwiftNode, into out: inout SourceWriter) {
        out.documentation(node.documentation)
        let name = SwiftNames.escaped(node.name)
        let candidValue = library("OmniCandid", "CandidValue")
        let error = bindings("CandidBindingError")
        switch node.kind {
        case .record(let fields, let isTuple):
            let keyword = node.isBoxed ? "final class" : "struct"
            let binding = node.isBoxed ? "let" : "var"
            out.line("public \(keyword) \(name): \(conformances("CandidConvertible", "Equatable")) {")
            out.indented { out in
                for field in fields {
                    out.documentation(field.documentation)
                    out.line("public \(binding) \(SwiftNames.escaped(field.name)): \(render(field.type!))")
                }
                if !fields.isEmpty { out.blank() }
                let parameters = fields.map { field -> String in
                    let label = isTuple ? "_ " + SwiftNames.escaped(field.name) : SwiftNames.escaped(field.name)
                    let defaulted = defaultValue(field.type!).map { " = " + $0 } ?? ""
                    return "\(label): \(render(field.type!))\(defaulted)"
                }
                out.line("public init(\(parameters.joined(separator: ", "))) {")
                out.indented { out in
                    for field in fields { out.line("self.\(SwiftNames.escaped(field.name)) = \(SwiftNames.escaped(field.name))") }
                }
                out.line("}")
                out.blank()
                out.line("public init(candid value: \(candidValue)) throws(\(error)) {")
                out.indented { out in
                    let reader = bindingsValue("CandidRecordReader")
                    if fields.isEmpty {
                        out.line("_ = try \(reader)(value, type: \(SourceWriter.literal(node.candidName)))")
                    } else {
                        out.line("var reader = try \(reader)(value, type: \(SourceWriter.literal(node.candidName)))")
                        for field in fields.sorted(by: { $0.label.id < $1.label.id }) {
                            out.line("self.\(SwiftNames.escaped(field.name)) = try reader.field(\(field.label.id), \(labelLiteral(field.label)))")
                        }
                    }
                }
                out.line("}")
                out.blank()
                out.line("public var candidValue: \(candidValue) {")
                out.indented { out in
                    let binding = bindingsValue("CandidBinding")
                    if fields.isEmpty {
                        out.line("\(binding).record([])")
                    } else {
                        out.line("\(binding).record([")
                        out.indented { out in
                            for field in fields.sorted(by: { $0.label.id < $1.label.id }) {
                                out.line("\(binding).field(\(field.label.id), \(labelLiteral(field.label)), self.\(SwiftNames.escaped(field.name))),")
                            }
                        }
                        out.line("])")
                    }
                }
                out.line("}")
                if node.isBoxed {
                    out.blank()
                    let comparisons = fields.map { "lhs.\(SwiftNames.escaped($0.name)) == rhs.\(SwiftNames.escaped($0.name))" }
                    out.line("public static func == (lhs: \(name), rhs: \(name)) -> Bool {")
                    out.indented { $0.line("lhs === rhs || (" + (comparisons.isEmpty ? "true" : comparisons.joined(separator: " && ")) + ")") }
                    out.line("}")
                }
                renderNested(node, into: &out)
            }
            out.line("}")
        case .variant(let cases):
            let indirect = node.isBoxed && cases.contains { $0.type != nil } ? "indirect " : ""
            out.line("public \(indirect)enum \(name): \(conformances("CandidConvertible", "Equatable")) {")
            out.indented { out in
                for variantCase in cases {
                    out.documentation(variantCase.documentation)
                    let payload = variantCase.type.map { "(" + render($0) + ")" } ?? ""
                    out.line("case \(SwiftNames.escaped(variantCase.name))\(payload)")
                }
                if !cases.isEmpty { out.blank() }
                let binding = bindingsValue("CandidBinding")
                out.line("public init(candid value: \(candidValue)) throws(\(error)) {")
                out.indented { out in
                    out.line("let (id, payload) = try \(binding).variantCase(of: value, type: \(SourceWriter.literal(node.candidName)))")
                    let unknown = "throw \(binding).unknownCase(id, payload, type: \(SourceWriter.literal(node.candidName)))"
                    if cases.isEmpty {
                        out.line(unknown)
                    } else {
                        out.line("switch id {")
                        for variantCase in cases {
                            let caseName = SwiftNames.escaped(variantCase.name)
                            if variantCase.type != nil {
                                let caseLiteral = SourceWriter.literal(variantCase.label.name ?? String(variantCase.label.id))
                                out.line("case \(variantCase.label.id): self = .\(caseName)(try \(binding).payload(payload, case: \(caseLiteral)))")
                            } else {
                                out.line("case \(variantCase.label.id): self = .\(caseName)")
                            }
                        }
                        out.line("default: \(unknown)")
                        out.line("}")
                    }
                }
                out.line("}")
                out.blank()
                out.line("public var candidValue: \(candidValue) {")
                out.indented { out in
                    out.line("switch self {")
                    for variantCase in cases {
                        let caseName = SwiftNames.escaped(variantCase.name)
                        if variantCase.type != nil {
                            out.line("case .\(caseName)(let payload): \(binding).variant(\(variantCase.label.id), \(labelLiteral(variantCase.label)), payload)")
                        } else {
                            out.line("case .\(caseName): \(binding).variant(\(variantCase.label.id), \(labelLiteral(variantCase.label)))")
                        }
                    }
                    out.line("}")
                }
                out.line("}")
                renderNested(node, into: &out)
            }
            out.line("}")
        case .function(let function):
            out.documentation("A reference to a method of type `\(Candid.print(.function(function), style: .compact))`.",
                              separated: node.documentation != nil)
            let principal = library("OmniCandid", "Principal")
            out.line("public struct \(name): \(conformances("CandidFunctionReference")) {")
            out.indented { out in
                out.documentation("The canister that has the method.")
                out.line("public var principal: \(principal)")
                out.line("public var method: \(library("Swift", "String"))")
                out.blank()
                out.line("public init(principal: \(principal), method: \(library("Swift", "String"))) {")
                out.indented { out in
                    out.line("self.principal = principal")
                    out.line("self.method = method")
                }
                out.line("}")
            }
            out.line("}")
        case .service(let service):
            let summary = service.methods.isEmpty ? "an empty service"
                : "a service with " + (service.methods.count == 1 ? "the method " : "the methods ")
                    + service.methods.map { "`\($0.name)`" }.joined(separator: ", ")
            out.documentation("A reference to a canister of type \(summary).", separated: node.documentation != nil)
            let principal = library("OmniCandid", "Principal")
            out.line("public struct \(name): \(conformances("CandidServiceReference")) {")
            out.indented { out in
                out.line("public var principal: \(principal)")
                out.blank()
                out.line("public init(principal: \(principal)) {")
                out.indented { $0.line("self.principal = principal") }
                out.line("}")
            }
            out.line("}")
        case .wrapper(let target):
            let type = render(target)
            out.line("public final class \(name): \(conformances("CandidConvertible", "Equatable")) {")
            out.indented { out in
                out.line("public let value: \(type)")
                out.blank()
                out.line("public init(_ value: \(type)) {")
                out.indented { $0.line("self.value = value") }
                out.line("}")
                out.blank()
                out.line("public init(candid value: \(candidValue)) throws(\(error)) {")
                out.indented { $0.line("self.value = try \(bindingsValue("CandidBinding")).convert(value)") }
                out.line("}")
                out.blank()
                out.line("public var candidValue: \(candidValue) {")
                out.indented { $0.line("self.value.candidValue") }
                out.line("}")
                out.blank()
                out.line("public static func == (lhs: \(name), rhs: \(name)) -> Bool {")
                out.indented { $0.line("lhs === rhs || lhs.value == rhs.value") }
                out.line("}")
                renderNested(node, into: &out)
            }
            out.line("}")
        }
    }

    private func renderNested(_ node: SwiftNode, into out: inout SourceWriter) {
        for nested in node.nested {
            out.blank()
            renderNode(nested, into: &out)
        }
    }

    private func labelLiteral(_ label: CandidLabel) -> String {
        label.name.map(SourceWriter.literal) ?? "nil"
    }

    // MARK: Client

    private func renderClient(into out: inout SourceWriter) {
        let namespace = model.namespace
        let principal = library("OmniCandid", "Principal")
        out.documentation("""
            A client of the canister described by \(didPath). Every call goes through the agent's verified transport: \
            query replies are checked against the subnet's node keys, update calls read from a certified state tree, \
            and an agent with verification turned off is refused. Queries are signed by the agent's identity unless a \
            call names a `signer`; update calls always name theirs (an `ICIdentity` or a `DelegatedSession`). \
            Arguments are encoded and replies decoded at the interface's types, with Candid's subtyping rules.
            """)
        out.line("public struct Client: \(library("Swift", "Sendable")) {")
        out.indented { out in
            out.documentation("The canister, the agent and the interface behind every method.")
            out.line("public let binding: \(bindings("CanisterBinding"))")
            out.blank()
            let agent = library("OmniIC", "ICAgent")
            if canisterIDText != nil {
                out.documentation("A client of `canisterID`, by default the manifest's canister (`\(namespace).canisterIDText`).")
                out.line("public init(agent: \(agent), canisterID: \(principal)? = nil) throws {")
                out.indented { out in
                    out.line("let canister = try canisterID ?? \(value("OmniCandid", "Principal"))(text: \(namespace).canisterIDText)")
                    out.line("self.binding = try \(bindingsValue("CanisterBinding"))(agent: agent, canister: canister, interface: \(namespace).candidInterface)")
                }
            } else {
                out.documentation("A client of the canister `canisterID`.")
                out.line("public init(agent: \(agent), canisterID: \(principal)) throws {")
                out.indented { out in
                    out.line("self.binding = try \(bindingsValue("CanisterBinding"))(agent: agent, canister: canisterID, interface: \(namespace).candidInterface)")
                }
            }
            out.line("}")
            for method in model.methods {
                out.blank()
                renderMethod(method, into: &out)
            }
        }
        out.line("}")
    }

    private func renderMethod(_ method: SwiftMethod, into out: inout SourceWriter) {
        let function = method.function
        let kind: String
        if function.modes.contains(.compositeQuery) { kind = "A composite query" }
        else if function.modes.contains(.query) { kind = "A query" }
        else if function.isOneway { kind = "A one-way update call: submitted, not waited for; returns the request id" }
        else { kind = "An update call, waited for until its certified reply" }
        let signature = "`" + CandidLabel(method.candidName).description + " : "
            + String(Candid.print(.function(function), style: .compact).dropFirst("func ".count)) + "`"
        out.documentation(method.documentation)
        out.documentation(kind + ". Candid: " + signature + ".", separated: method.documentation != nil)

        var parameters = method.parameters.enumerated().map { index, parameter in
            "\(parameter.label.map(SwiftNames.escaped) ?? "_") arg\(index): \(render(parameter.type))"
        }
        let options = library("OmniIC", "ICRequestOptions")
        let signer = library("OmniIC", "ICSigner")
        if function.isQuery {
            parameters.append("signer: (any \(signer))? = nil")
        } else {
            parameters.append("as signer: some \(signer)")
        }
        parameters.append("options: \(options) = \(value("OmniIC", "ICRequestOptions"))()")
        let returnType: String
        if function.isOneway {
            returnType = " -> " + library("OmniIC", "RequestID")
        } else if method.results.isEmpty {
            returnType = ""
        } else if method.results.count == 1 {
            returnType = " -> " + render(method.results[0])
        } else {
            let elements = method.results.enumerated().map { index, result in
                (method.resultLabels.map { SwiftNames.escaped($0[index]) + ": " } ?? "") + render(result)
            }
            returnType = " -> (" + elements.joined(separator: ", ") + ")"
        }
        let name = SwiftNames.escaped(method.name)
        out.line("public func \(name)(\(parameters.joined(separator: ", "))) throws\(returnType) {")
        out.indented { out in
            let methodLiteral = SourceWriter.literal(method.candidName)
            let arguments = "[" + method.parameters.indices.map { "arg\($0).candidValue" }.joined(separator: ", ") + "]"
            let call: String
            if function.isOneway {
                out.line("try binding.submit(\(methodLiteral), \(arguments), signer: signer, options: options)")
                return
            }
            call = function.isQuery ? "binding.query" : "binding.call"
            let invocation = "try \(call)(\(methodLiteral), \(arguments), signer: signer, options: options)"
            let result = bindingsValue("CanisterBinding")
            switch method.results.count {
            case 0:
                out.line("_ = " + invocation)
            case 1:
                out.line("let results = " + invocation)
                out.line("return try \(result).result(results, 0, of: \(methodLiteral))")
            default:
                out.line("let results = " + invocation)
                out.line("return try (")
                out.indented { out in
                    for index in method.results.indices {
                        out.line("\(result).result(results, \(index), of: \(methodLiteral))" + (index < method.results.count - 1 ? "," : ""))
                    }
                }
                out.line(")")
            }
        }
        out.line("}")
    }
}

/// Lines of Swift with indentation.
struct SourceWriter {
    private(set) var text = ""
    private var indent = ""

    mutating func line(_ content: String) {
        text += (content.isEmpty ? "" : indent + content) + "\n"
    }

    mutating func blank() {
        if !text.hasSuffix("\n\n") && !text.hasSuffix("{\n") { text += "\n" }
    }

    mutating func indented(_ body: (inout SourceWriter) -> Void) {
        let saved = indent
        indent += "    "
        body(&self)
        indent = saved
        // A blank line never ends a block.
        while text.hasSuffix("\n\n") { text.removeLast() }
    }

    /// `/// …` lines; `separated` puts an empty `///` line before them (after a comment from the `.did`).
    mutating func documentation(_ text: String?, separated: Bool = false) {
        guard let text, !text.isEmpty else { return }
        if separated { line("///") }
        for line in text.split(separator: "\n", omittingEmptySubsequences: false) {
            let cleaned = SourceWriter.printable(String(line))
            if cleaned.isEmpty { self.line("///"); continue }
            for wrapped in SourceWriter.wrap(cleaned, width: max(40, SourceWriter.width - indent.count - 4)) {
                self.line("/// " + wrapped)
            }
        }
    }

    /// Lines of documentation are wrapped to this many columns.
    static let width = 120

    /// Words of `text` in lines of at most `width` characters (a longer word gets a line of its own).
    static func wrap(_ text: String, width: Int) -> [String] {
        guard text.count > width else { return [text] }
        var lines: [String] = []
        var current = ""
        for word in text.split(separator: " ", omittingEmptySubsequences: false) {
            if current.isEmpty {
                current = String(word)
            } else if current.count + 1 + word.count <= width {
                current += " " + word
            } else {
                lines.append(current)
                current = String(word)
            }
        }
        lines.append(current)
        return lines
    }

    /// Drops control characters (a comment must not end the line early or hide text).
    static func printable(_ text: String) -> String {
        String(String.UnicodeScalarView(text.unicodeScalars.filter { $0.value >= 0x20 && $0.value != 0x7F && !(0x80..<0xA0).contains($0.value)
            && $0.value != 0x2028 && $0.value != 0x2029 }))
    }

    /// A Swift string literal for `text`.
    static func literal(_ text: String) -> String {
        "\"" + escaped(text) + "\""
    }

    static func escaped(_ text: String) -> String {
        var out = ""
        for scalar in text.unicodeScalars {
            switch scalar {
            case "\\": out += "\\\\"
            case "\"": out += "\\\""
            case "\n": out += "\\n"
            case "\r": out += "\\r"
            case "\t": out += "\\t"
            default:
                if scalar.value < 0x20 || scalar.value == 0x7F || scalar.value == 0x2028 || scalar.value == 0x2029 {
                    out += "\\u{" + String(scalar.value, radix: 16) + "}"
                } else {
                    out.unicodeScalars.append(scalar)
                }
            }
        }
        return out
    }

    /// A line inside a `"""` literal: backslashes, quotes and control characters escaped.
    static func escapedInMultilineLiteral(_ line: String) -> String { escaped(line) }
}
