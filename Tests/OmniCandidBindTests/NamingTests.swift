@testable import OmniCandidBind
import OmniCandid
import Testing

/// How Candid names become Swift names (docs/bindings.md, "Names"), and that no two generated names collide.
@Suite struct NamingTests {
    @Test func candidNamesMapToSwiftIdentifiersPredictably() {
        #expect(SwiftNames.identifier("owner") == "owner")
        #expect(SwiftNames.identifier("fee-rate") == "fee_rate")
        #expect(SwiftNames.identifier("with space") == "with_space")
        #expect(SwiftNames.identifier("1st") == "_1st")
        #expect(SwiftNames.identifier("héllo") == "h_llo")
        #expect(SwiftNames.identifier("") == "_")
        #expect(SwiftNames.memberName("init") == "init_" && SwiftNames.memberName("Type") == "Type_" && SwiftNames.memberName("self") == "self_")
        #expect(SwiftNames.memberName("_") == "__")
        #expect(SwiftNames.escaped("protocol") == "`protocol`" && SwiftNames.escaped("default") == "`default`")
        #expect(SwiftNames.escaped("owner") == "owner")
        #expect(SwiftNames.pascal("icrc1_transfer") == "Icrc1Transfer" && SwiftNames.pascal("ok") == "Ok")
        #expect(SwiftNames.pascal("BadFee") == "BadFee" && SwiftNames.pascal("http-request") == "HttpRequest")
        #expect(SwiftNames.pascal("2fa") == "_2fa" && SwiftNames.pascal("") == "Value" && SwiftNames.pascal("type") == "Type_")
    }

    @Test func aScopeGivesNamesThatNeedNoMappingFirstThenNumbersTheRest() {
        let scope = NameScope(reserved: ["candidValue"])
        let names = scope.claimAll(["field-name", "field name", "field_name", "candidValue", "a", "a"], map: SwiftNames.memberName)
        #expect(names == ["field_name_2", "field_name_3", "field_name", "candidValue_2", "a", "a_2"])
        #expect(scope.claim(firstFreeOf: ["Status", "StatusVariant"]) == "Status")
        #expect(scope.claim(firstFreeOf: ["Status", "StatusVariant"]) == "StatusVariant")
        #expect(scope.claim(firstFreeOf: ["Status", "StatusVariant"]) == "Status_2")
    }

    @Test func noTwoGeneratedNamesInAScopeCollide() throws {
        let url = GoldenTests.inputs.appendingPathComponent("naming.did")
        let interface = try CandidInterface.load(contentsOf: url)
        let model = try SwiftBindingsBuilder(namespace: "Naming", interface: interface, definitionNames: interface.environment.names,
                                             methodNames: interface.service?.methods.map(\.name) ?? [])
        // The namespace: definitions, the types made for methods, and its own members.
        var namespace = model.definitions.map(\.name) + model.methodNodes.map(\.name) + ["Client", "candidInterface"]
        namespace += model.definitions.flatMap { $0.siblings.map(\.name) }
        #expect(Set(namespace).count == namespace.count, "\(namespace)")
        #expect(!namespace.contains("Naming") && !namespace.contains("Swift"), "the namespace and module names are never taken")
        #expect(model.definitions.map(\.name).contains("Naming_2") && model.definitions.map(\.name).contains("Swift_2"))
        // Each type: members and nested types together.
        var checked = 0
        func check(_ node: SwiftNode) {
            var names = node.nested.map(\.name)
            switch node.kind {
            case .record(let fields, _): names += fields.map(\.name)
            case .variant(let cases): names += cases.map(\.name)
            default: break
            }
            #expect(Set(names).count == names.count, "\(node.candidName): \(names)")
            #expect(!names.contains("candidValue"), "\(node.candidName) keeps candidValue for the conversion")
            checked += 1
            node.nested.forEach(check)
        }
        for definition in model.definitions { if case .nominal(let node) = definition.form { check(node) } }
        #expect(checked >= 8)
        // The client: methods, and the argument labels of each.
        let methods = model.methods.map(\.name)
        #expect(Set(methods).count == methods.count)
        #expect(methods == ["get_value_2", "get_value", "init_", "binding_2", "class", "principal_of"])
        let getValue = try #require(model.methods.first { $0.candidName == "get-value" })
        #expect(getValue.parameters.map(\.label) == ["key", "options_2", "signer_2"])
    }

    @Test func aDefinitionShadowedByANestedTypeIsWrittenWithTheNamespace() throws {
        let source = try GoldenTests.generate("naming.toml").source
        #expect(source.contains("public typealias String = Swift.String"))
        #expect(source.contains("public typealias Principal = OmniCandid.Principal"))
        #expect(source.contains("public var other: Naming.String"))
        #expect(source.contains("public var string: String\n"), "the nested type, unqualified, where it is declared")
    }
}
