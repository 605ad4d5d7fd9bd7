import OmniCLI
import OmniCodec
import OmniTruAPI

/// `omni truapi methods`: the wire table.
enum TruAPIMethodsCommand {
    static let filter = OptionalArgument<String>("FILTER", help: "Only methods whose name contains this text (e.g. chain_, account).")
    static let kind = Option<TruAPIMethod.Kind>("kind", valueName: "KIND", help: "Only request or only subscription methods.",
                                                absentMeans: "both")

    static let command = Command(
        "methods", abstract: "List the 69 methods of the wire table: ids, kind and types.",
        discussion: """
            Ids are append-only and never reused (70-75 are retired, 174-255 free). A request method has a request \
            id and the response id after it; a subscription has start, stop, interrupt and receive ids. Types are \
            the versioned envelopes of Appendix A; 'host' marks the one host-initiated subscription.
            """,
        options: [kind], arguments: [filter],
        examples: [Example("omni truapi methods", "The whole table."),
                   Example("omni truapi methods chain_ --output json", "The chain methods with every type, as JSON.")]
    ) { invocation in
        let text = try invocation.value(filter)
        let wanted = try invocation.value(kind)
        let methods = TruAPIWireTable.methods.filter { method in
            (text.map { method.name.contains($0) } ?? true) && (wanted.map { method.kind == $0 } ?? true)
        }
        return .output(MethodTable(methods: methods))
    }
}

extension TruAPIMethod.Kind: ArgumentValue, CaseIterable {
    public static var allCases: [TruAPIMethod.Kind] { [.request, .subscription] }
}

extension TruAPIFrameKind: ArgumentValue {}

struct MethodTable: Renderable {
    let methods: [TruAPIMethod]

    var json: JSONValue {
        .object(["protocol": .string(TruAPITypes.protocolVersion), "methods": .array(methods.map(TruAPIJSON.json))])
    }

    func text(style: TextStyle) -> String {
        guard !methods.isEmpty else { return style.dim("no method matches") }
        var table = Table(columns: ["ids", "method", "kind", "request", "answer", "error"])
        for method in methods {
            let ids = method.discriminants.map { String($0.1) }
            let range = ids.count == 2 ? ids.joined(separator: "/") : "\(ids.first!)-\(ids.last!)"
            let kind = method.kind == .request ? "request" : (method.direction == .hostInitiated ? "host-subscription" : "subscription")
            let answer = method.kind == .request ? (method.okType ?? "()") : (method.itemType ?? "-")
            table.append([range, method.name, kind, method.requestType ?? "-", answer, method.errorType ?? "-"])
        }
        return table.text(style: style)
    }
}
