import OmniCandid

/// Turns one interface into the Swift model: names for every definition, member and generated type, the form of
/// each definition (alias, struct, class, enum, reference), and the client's methods.
struct SwiftBindingsBuilder {
    /// Generated types nest at most this deep, and type expressions (`opt`, `vec`) at most this much more: beyond,
    /// the Swift compiler would take too long, and no real interface comes close.
    static let maxNesting = 64

    let namespace: String
    let interface: CandidInterface
    /// Names reserved in every scope: the modules generated code imports, and the namespace.
    let reservedEverywhere: Set<String>
    private(set) var definitions: [SwiftDefinition] = []
    private(set) var methods: [SwiftMethod] = []
    /// Types generated for the methods' inline arguments and results, declared in the namespace.
    private(set) var methodNodes: [SwiftNode] = []
    let namespaceScope: NameScope
    private var definitionIndex: [String: Int] = [:]

    /// The namespace's own members besides the interface's types.
    static let namespaceMembers: Set<String> = ["Client", "candidInterface", "canisterIDText"]
    static let modules: Set<String> = ["Swift", "OmniBindings", "OmniCandid", "OmniCodec", "OmniIC"]

    /// `definitionNames`: the definitions to write (all, or those the selected methods use), in declaration order;
    /// `methodNames`: the selected methods in service order.
    init(namespace: String, interface: CandidInterface, definitionNames: [String], methodNames: [String]) throws(CandidBindError) {
        self.namespace = namespace
        self.interface = interface
        reservedEverywhere = SwiftBindingsBuilder.modules.union([namespace])
        namespaceScope = NameScope(reserved: reservedEverywhere.union(SwiftBindingsBuilder.namespaceMembers))

        let pairs = definitionNames.compactMap { name in interface.environment[name].map { (name: name, type: $0) } }
        let swiftNames = namespaceScope.claimAll(pairs.map(\.name), map: SwiftNames.memberName)
        for (index, pair) in pairs.enumerated() { definitionIndex[pair.name] = index }
        let recursion = RecursionAnalysis(definitions: pairs)

        // Nominal nodes exist before any type refers to them (definitions refer to each other in any order).
        for (index, pair) in pairs.enumerated() {
            let name = swiftNames[index]
            let documentation = interface.documentation.definitions[pair.name]
            switch pair.type {
            case .record, .variant, .function, .service:
                let node = makeNode(name: name, candidName: pair.name, depth: 1)
                node.isBoxed = recursion.boxed.contains(pair.name)
                node.documentation = documentation
                definitions.append(SwiftDefinition(candidName: pair.name, name: name, form: .nominal(node), documentation: documentation))
            default:
                if recursion.wrappers.contains(pair.name) {
                    let node = makeNode(name: name, candidName: pair.name, depth: 1)
                    node.isBoxed = true
                    node.documentation = documentation
                    definitions.append(SwiftDefinition(candidName: pair.name, name: name, form: .nominal(node), documentation: documentation))
                } else {
                    definitions.append(SwiftDefinition(candidName: pair.name, name: name, form: .alias(.swift("Never")),
                                                       documentation: documentation))
                }
            }
        }
        for (index, pair) in pairs.enumerated() {
            let path = ["type \(CandidLabel(pair.name).description)"]
            switch definitions[index].form {
            case .nominal(let node):
                let context = Context(owner: .node(node), docOwner: pair.name, docPath: [], path: path, depth: 1)
                try fill(node, with: pair.type, context: context)
            case .alias:
                var siblings: [SwiftNode] = []
                let context = Context(owner: .namespace, docOwner: pair.name, docPath: [], path: path, depth: 1,
                                      baseName: definitions[index].name)
                let reference = try typeRef(pair.type, context: context, hints: [], collect: &siblings)
                definitions[index].form = .alias(reference)
                definitions[index].siblings = siblings
            }
        }

        let methodScope = NameScope(reserved: reservedEverywhere.union(["binding", "canister", "init"]))
        let methodSwiftNames = methodScope.claimAll(methodNames, map: SwiftNames.memberName)
        for (index, methodName) in methodNames.enumerated() {
            let function: CandidFunctionType?
            do throws(CandidError) { function = try interface.method(methodName) } catch {
                throw CandidBindError(.unsupported, error.message, typePath: "method \"\(methodName)\"")
            }
            guard let function else {
                throw CandidBindError(.unsupported, "the service has no method \"\(methodName)\"", typePath: "method \"\(methodName)\"")
            }
            methods.append(try makeMethod(methodName, swiftName: methodSwiftNames[index], function: function))
        }
    }

    // MARK: Contexts

    /// Where a type is being written: who owns the types made for its inline parts, which definition's comments
    /// apply, and the path for messages.
    struct Context {
        enum Owner {
            case namespace
            case node(SwiftNode)
        }

        var owner: Owner
        /// The definition whose member comments apply, and the label path inside it.
        var docOwner: String?
        var docPath: [UInt32]
        /// For messages: `type Account . record field "owner" . opt`.
        var path: [String]
        var depth: Int
        /// In the namespace (aliases, methods): the name inline types are named after, with the roles on the way
        /// (`Transactions` + `Element`).
        var baseName: String? = nil

        func stepping(_ component: String, role: String? = nil) -> Context {
            var next = self
            next.path.append(component)
            next.depth += 1
            if let role, let base = baseName { next.baseName = base + role }
            return next
        }
    }

    private func makeNode(name: String, candidName: String, depth: Int) -> SwiftNode {
        SwiftNode(name: name, candidName: candidName, scope: NameScope(reserved: reservedEverywhere), depth: depth)
    }

    private func unsupported(_ message: String, _ context: Context) -> CandidBindError {
        CandidBindError(.unsupported, message, typePath: context.path.joined(separator: " . "))
    }

    // MARK: Types

    /// The Swift type for `type`; inline records, variants and references become nodes of the owner (or, in the
    /// namespace, are appended to `collect`), named by the first free of `hints` (or the context's base name).
    private func typeRef(_ type: CandidType, context: Context, hints: [String], collect: inout [SwiftNode]) throws(CandidBindError) -> SwiftTypeRef {
        guard context.depth <= SwiftBindingsBuilder.maxNesting * 2 else {
            throw unsupported("nested more than \(SwiftBindingsBuilder.maxNesting * 2) levels deep", context)
        }
        switch type {
        case .null: return .library(module: "OmniBindings", name: "CandidNull")
        case .bool: return .swift("Bool")
        case .nat: return .library(module: "OmniCodec", name: "BigUInt")
        case .int: return .library(module: "OmniCodec", name: "BigInt")
        case .nat8: return .swift("UInt8")
        case .nat16: return .swift("UInt16")
        case .nat32: return .swift("UInt32")
        case .nat64: return .swift("UInt64")
        case .int8: return .swift("Int8")
        case .int16: return .swift("Int16")
        case .int32: return .swift("Int32")
        case .int64: return .swift("Int64")
        case .float32: return .swift("Float")
        case .float64: return .swift("Double")
        case .text: return .swift("String")
        case .reserved: return .library(module: "OmniBindings", name: "CandidReserved")
        case .empty: return .library(module: "OmniBindings", name: "CandidEmpty")
        case .principal: return .library(module: "OmniCandid", name: "Principal")
        case .opt(let inner):
            return .optional(try typeRef(inner, context: context.stepping("opt", role: "Value"), hints: hints, collect: &collect))
        case .vec(let inner):
            return .array(try typeRef(inner, context: context.stepping("vec", role: "Element"), hints: hints, collect: &collect))
        case .named(let name):
            guard let index = definitionIndex[name] else {
                throw unsupported("type \(CandidLabel(name).description) is not among the definitions written", context)
            }
            return .definition(index)
        case .record, .variant, .function, .service:
            let node = try inlineNode(for: type, context: context, hints: hints)
            if case .namespace = context.owner { collect.append(node) }
            return .nested(node)
        }
    }

    /// A node for an inline record, variant or reference, named in the owner's scope.
    private func inlineNode(for type: CandidType, context: Context, hints: [String]) throws(CandidBindError) -> SwiftNode {
        let kindSuffix: String
        switch type {
        case .record: kindSuffix = "Record"
        case .variant: kindSuffix = "Variant"
        case .function: kindSuffix = "Func"
        default: kindSuffix = "Service"
        }
        let scope: NameScope
        let parentName: String
        let depth: Int
        switch context.owner {
        case .namespace:
            scope = namespaceScope
            parentName = ""
            depth = 1
        case .node(let parent):
            scope = parent.scope
            parentName = parent.candidName + "."
            depth = parent.depth + 1
        }
        guard depth <= SwiftBindingsBuilder.maxNesting else {
            throw unsupported("records and variants nested more than \(SwiftBindingsBuilder.maxNesting) deep", context)
        }
        var candidates = hints.flatMap { [$0, $0 + kindSuffix] }
        if let base = context.baseName { candidates = [base, base + kindSuffix] + candidates }
        if candidates.isEmpty { candidates = [kindSuffix] }
        let name = scope.claim(firstFreeOf: candidates)
        let candidName = parentName + (context.path.last.map { _ in name } ?? name)
        let node = makeNode(name: name, candidName: candidName, depth: depth)
        if case .node(let parent) = context.owner { parent.nested.append(node) }
        var inner = context
        inner.owner = .node(node)
        inner.baseName = nil
        try fill(node, with: type, context: inner)
        return node
    }

    /// Gives a node its kind and members (`type` is the node's own Candid type).
    private func fill(_ node: SwiftNode, with type: CandidType, context: Context) throws(CandidBindError) {
        var unused: [SwiftNode] = []
        switch type {
        case .record(let fields):
            node.scope.reserve(["candidValue", "candidAbsentValue"])
            let isTuple = !fields.isEmpty && fields.enumerated().allSatisfy { $0.element.label.name == nil && $0.element.label.id == UInt32($0.offset) }
            let names = node.scope.claimAll(fields.map(SwiftBindingsBuilder.memberCandidName), map: SwiftNames.memberName)
            var members: [SwiftMember] = []
            for (index, field) in fields.enumerated() {
                let step = context.stepping("record field \(SwiftBindingsBuilder.quoted(field.label))")
                var fieldContext = step
                fieldContext.docPath.append(field.label.id)
                let reference = try typeRef(field.type, context: fieldContext, hints: [SwiftBindingsBuilder.typeHint(field.label)],
                                            collect: &unused)
                members.append(SwiftMember(label: field.label, name: names[index], type: reference,
                                           documentation: documentation(context.docOwner, fieldContext.docPath),
                                           candidType: field.type))
            }
            node.kind = .record(fields: members, isTuple: isTuple)
        case .variant(let cases):
            node.scope.reserve(["candidValue", "candidAbsentValue"])
            let names = node.scope.claimAll(cases.map(SwiftBindingsBuilder.memberCandidName), map: SwiftNames.memberName)
            var members: [SwiftMember] = []
            for (index, variantCase) in cases.enumerated() {
                var caseContext = context.stepping("variant case \(SwiftBindingsBuilder.quoted(variantCase.label))")
                caseContext.docPath.append(variantCase.label.id)
                let reference: SwiftTypeRef? = variantCase.type == .null ? nil
                    : try typeRef(variantCase.type, context: caseContext, hints: [SwiftBindingsBuilder.typeHint(variantCase.label)],
                              collect: &unused)
                members.append(SwiftMember(label: variantCase.label, name: names[index], type: reference,
                                           documentation: documentation(context.docOwner, caseContext.docPath),
                                           candidType: variantCase.type))
            }
            node.kind = .variant(cases: members)
        case .function(let function):
            node.scope.reserve(["principal", "method", "candidValue", "candidAbsentValue"])
            node.kind = .function(function)
        case .service(let service):
            node.scope.reserve(["principal", "candidValue", "candidAbsentValue"])
            node.kind = .service(service)
        default:
            // A wrapper for a recursive alias: the alias's type as its `value`.
            node.scope.reserve(["value", "candidValue", "candidAbsentValue"])
            var inner = context
            inner.baseName = nil
            let reference = try typeRef(type, context: inner, hints: ["Value"], collect: &unused)
            node.kind = .wrapper(reference)
        }
    }

    private func documentation(_ owner: String?, _ path: [UInt32]) -> String? {
        owner.flatMap { interface.documentation.member($0, path) }
    }

    /// The Candid name a member's Swift name comes from: its name, or `_<id>` for a numeric id.
    static func memberCandidName(_ field: CandidField) -> String { field.label.name ?? "_\(field.label.id)" }

    /// The PascalCase name for a type made for a member.
    static func typeHint(_ label: CandidLabel) -> String { label.name.map(SwiftNames.pascal) ?? "Field\(label.id)" }

    static func quoted(_ label: CandidLabel) -> String {
        label.name.map { "\"" + $0.replacingEvery("\"", with: "\\\"") + "\"" } ?? String(label.id)
    }

    // MARK: Methods

    private mutating func makeMethod(_ name: String, swiftName: String, function: CandidFunctionType) throws(CandidBindError) -> SwiftMethod {
        let base = SwiftNames.pascal(name)
        let path = "method \"\(name)\""
        var parameters: [SwiftMethod.Parameter] = []
        let labelScope = NameScope(reserved: ["signer", "options", "as"])
        let labels = labelScope.claimAll(function.arguments.enumerated().map { $0.element.name ?? "_\($0.offset)" }, map: SwiftNames.memberName)
        for (index, argument) in function.arguments.enumerated() {
            let role = function.arguments.count == 1 ? "Arg" : "Arg\(index)"
            let context = Context(owner: .namespace, docOwner: nil, docPath: [], path: [path, "argument \(index + 1)"], depth: 1,
                                  baseName: base + role)
            var collected: [SwiftNode] = []
            let reference = try typeRef(argument.type, context: context, hints: [], collect: &collected)
            methodNodes += collected
            parameters.append(SwiftMethod.Parameter(label: argument.name == nil ? nil : labels[index], type: reference))
        }
        var results: [SwiftTypeRef] = []
        for (index, result) in function.results.enumerated() {
            let role = function.results.count == 1 ? "Result" : "Result\(index)"
            let context = Context(owner: .namespace, docOwner: nil, docPath: [], path: [path, "result \(index + 1)"], depth: 1,
                                  baseName: base + role)
            var collected: [SwiftNode] = []
            results.append(try typeRef(result.type, context: context, hints: [], collect: &collected))
            methodNodes += collected
        }
        // Tuple labels only when every result is named, the names are identifiers and distinct.
        var resultLabels: [String]?
        let names = function.results.compactMap(\.name)
        if results.count > 1, names.count == results.count, Set(names).count == names.count,
           names.allSatisfy({ SwiftNames.isIdentifier($0) && !SwiftNames.keywords.contains($0) }) {
            resultLabels = names
        }
        return SwiftMethod(candidName: name, name: swiftName, function: function, parameters: parameters, results: results,
                           resultLabels: resultLabels, documentation: interface.documentation.methods[name])
    }
}

extension NameScope {
    func reserve(_ names: [String]) {
        for name in names { _ = claim(name) }
    }
}

extension String {
    /// Every occurrence of `target` replaced (without Foundation).
    func replacingEvery(_ target: Character, with replacement: String) -> String {
        var out = ""
        for character in self { if character == target { out += replacement } else { out.append(character) } }
        return out
    }
}
