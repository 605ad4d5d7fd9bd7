import OmniCLI
import OmniCodec

/// An answer of the service, printed as it came: JSON output is the body itself (fields the document never
/// mentions included, money strings as strings); text output lays it out for people.
struct IrdAnswerOutput: Renderable {
    let value: JSONValue

    var json: JSONValue { value }

    func text(style: TextStyle) -> String { Self.text(value, style: style) }

    static func text(_ value: JSONValue, style: TextStyle) -> String {
        switch value {
        case .object(let object): return lines(object, style: style)
        case .array(let items): return list(items, style: style)
        default: return scalar(value)
        }
    }

    static func scalar(_ value: JSONValue) -> String {
        switch value {
        case .string(let text): text
        case .number(let text): text
        case .bool(let flag): flag ? "true" : "false"
        case .null: "-"
        default: value.serialized()
        }
    }

    /// `key: value` lines, nested objects as dotted keys, arrays of objects as a table after the lines.
    static func lines(_ object: JSONObject, style: TextStyle) -> String {
        var fields: [(String, String)] = []
        var tables: [String] = []
        func visit(_ object: JSONObject, _ prefix: String) {
            for (key, value) in object {
                let name = prefix + key
                switch value {
                case .object(let inner) where !inner.isEmpty: visit(inner, name + ".")
                case .array(let items) where items.contains(where: { $0.objectValue != nil }):
                    tables.append(style.dim(name + ":") + "\n" + list(items, style: style))
                case .array(let items): fields.append((name, items.map(scalar).joined(separator: ", ")))
                default: fields.append((name, scalar(value)))
                }
            }
        }
        visit(object, "")
        let width = fields.map(\.0.count).max() ?? 0
        let head = fields.map { style.dim($0.0 + ":") + String(repeating: " ", count: width - $0.0.count + 1) + $0.1 }
        return (head + tables).joined(separator: "\n")
    }

    /// Objects as a table of their scalar fields (the first object's order, then new ones); other items one a line.
    static func list(_ items: [JSONValue], style: TextStyle) -> String {
        guard !items.isEmpty else { return style.dim("(none)") }
        guard items.allSatisfy({ $0.objectValue != nil }) else { return items.map(scalar).joined(separator: "\n") }
        var columns: [String] = []
        for item in items {
            for (key, value) in item.objectValue! where !columns.contains(key) {
                if case .object = value { continue }
                if case .array = value { continue }
                columns.append(key)
            }
        }
        var table = Table(columns: columns)
        for item in items { table.append(columns.map { item[$0].map(scalar) ?? "-" }) }
        return table.text(style: style)
    }
}
