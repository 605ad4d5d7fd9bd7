import OmniCodec
import OmniTestSupport
import OmniTruAPI
import Testing

@Suite("TrUAPI wire table and types", .vectors("truapi/wire_table.json", "../reference/truapi.md"))
struct TruAPITableTests {
    @Test("(a) every method, id, kind, direction and type of wire_table.json matches the table")
    func wireTableMatchesVector() throws {
        let vector = try truapiVector("wire_table.json")
        let methods = try #require(vector["methods"]?.arrayValue)
        #expect(methods.count == 69)
        #expect(TruAPIWireTable.methods.count == methods.count)
        for (expected, ours) in zip(methods, TruAPIWireTable.methods) {
            let name = try #require(expected["method"]?.stringValue)
            #expect(ours.name == name, "order differs at \(name)")
            let found = try #require(TruAPIWireTable.method(named: name), "missing \(name)")
            #expect(found.kind.rawValue == expected["kind"]?.stringValue, "\(name) kind")
            let direction = expected["direction"]?.stringValue ?? ""
            #expect(direction.hasPrefix(found.direction.rawValue), "\(name) direction \(direction)")
            #expect(found.requestType == expected["request_type"]?.stringValue, "\(name) request type")
            #expect(found.requiredExecution == expected["required_execution"]?.stringValue, "\(name) execution")
            let ids = try #require(expected["ids"]?.objectValue)
            for (key, value) in ids {
                let kind = try #require(TruAPIFrameKind(rawValue: String(key.dropLast(3))), "\(key)")
                #expect(found.discriminant(of: kind).map(Int64.init) == value.int64Value, "\(name) \(key)")
                #expect(TruAPIWireTable.lookup(UInt8(value.int64Value!))?.method.name == name)
            }
            #expect(ids.count == found.discriminants.count, "\(name) has \(found.discriminants.count) ids")
            switch found.kind {
            case .request:
                // "()" is the unit Ok (statement_store_submit), which has no envelope: nil in our table.
                let okType = expected["ok_type"]?.stringValue
                #expect(found.okType == (okType == "()" ? nil : okType), "\(name) ok")
                #expect(found.errorType == expected["error_type"]?.stringValue, "\(name) error")
            case .subscription:
                #expect(found.itemType == expected["item_type"]?.stringValue, "\(name) item")
                #expect(found.errorType == expected["interrupt_error_type"]?.stringValue, "\(name) interrupt error")
            }
            for type in [found.requestType, found.okType, found.errorType, found.itemType].compactMap({ $0 }) {
                #expect(TruAPITypes.registry[type] != nil, "\(name) names \(type), which the registry lacks")
            }
        }
        // Retired ids stay unused; 174 and above are free.
        for id in Array(70...75) + Array(174...255) { #expect(TruAPIWireTable.lookup(UInt8(id)) == nil, "\(id)") }
    }

    @Test("(b) every type of Appendix A, parsed now, has our fields, variants and order — and nothing more")
    func registryMatchesAppendixA() throws {
        let text = try referenceText()
        let start = try #require(text.range(of: "## Appendix A"))
        let end = try #require(text.range(of: "## Appendix B"))
        let appendix = text[start.upperBound..<end.lowerBound]
        let block = try #require(appendix.split(separator: "```").dropFirst().first)
        var seen: Set<String> = []
        var section = ""
        for line in block.split(separator: "\n").map({ $0.trimmingCharacters(in: .whitespaces) }) where !line.isEmpty {
            if line.hasPrefix("#") { section = line; continue }
            if line.hasPrefix("const ") { continue }
            let parts = line.split(separator: "=", maxSplits: 1).map { $0.trimmingCharacters(in: .whitespaces) }
            try #require(parts.count == 2, "unreadable line: \(line)")
            let name = (section.hasPrefix("# versioned") ? "" : "v01::") + parts[0]
            try #require(seen.insert(name).inserted, "\(name) twice in Appendix A")
            guard let ours = TruAPITypes.registry[name] else {
                Issue.record("Appendix A has \(name); the registry does not")
                continue
            }
            let rendered = AppendixNotation.render(ours, inVersioned: name.hasPrefix("v01::") == false, typeName: name)
            #expect(squeeze(rendered) == squeeze(parts[1]), "\(name)\n  appendix: \(parts[1])\n  ours:     \(rendered)")
        }
        let extra = Set(TruAPITypes.registry.names).subtracting(seen)
        #expect(extra.isEmpty, "registry types not in Appendix A: \(extra.sorted())")
        #expect(TruAPITypes.registry.problems().isEmpty, "\(TruAPITypes.registry.problems())")
    }

    private func squeeze(_ text: String) -> String { text.filter { !$0.isWhitespace } }
}

/// Our types written back in Appendix A's notation, to compare with the text.
enum AppendixNotation {
    static func render(_ type: SCALEType, inVersioned: Bool, typeName: String) -> String {
        switch type {
        case .structure(let fields):
            return "struct { " + fields.map { "\($0.name): \(reference($0.type, inVersioned))" }.joined(separator: "; ") + " }"
        case .enumeration(let variants):
            return "enum [ " + variants.map { variant(typeName, $0, inVersioned) }.joined(separator: " | ") + " ]"
        case .versioned(let variants):
            return "versioned [ " + variants.map { variant(typeName, $0, true) }.joined(separator: " | ") + " ]"
        default:
            return "alias " + reference(type, inVersioned)
        }
    }

    static func variant(_ typeName: String, _ variant: SCALEVariant, _ inVersioned: Bool) -> String {
        // Appendix A's extraction turned the variant name `String` into `str` (its notation for the type String).
        let name = typeName == "v01::CustomRendererNode" && variant.name == "String" ? "str" : variant.name
        let head = "\(variant.index):\(name)"
        switch variant.payload {
        case .none: return head + (inVersioned ? "()" : "")
        case .tuple(let items): return head + "(" + items.map { reference($0, inVersioned) }.joined(separator: ", ") + ")"
        case .fields(let fields):
            return head + "{" + fields.map { "\($0.name): \(reference($0.type, inVersioned))" }.joined(separator: "; ") + "}"
        }
    }

    static func reference(_ type: SCALEType, _ inVersioned: Bool) -> String {
        switch type {
        case .unit: return "()"
        case .bool: return "bool"
        case .integer(let width): return width.rawValue
        case .compact(let width): return "Compact<\(width.rawValue)>"
        case .string: return "str"
        case .bytes: return "bytes"
        case .fixedBytes(let count): return "[u8; \(count)]"
        case .vector(let inner): return "Vec<\(reference(inner, inVersioned))>"
        case .tuple(let items): return "(" + items.map { reference($0, inVersioned) }.joined(separator: ", ") + ")"
        case .option(let inner): return "Option<\(reference(inner, inVersioned))>"
        case .optionBool: return "OptionBool"
        case .result(let ok, let error): return "Result<\(reference(ok, inVersioned)), \(reference(error, inVersioned))>"
        case .named(let name): return inVersioned ? name : String(name.dropFirst("v01::".count))
        case .structure, .enumeration, .versioned: return "<inline>"
        }
    }
}
