import OmniCodec

/// A command's result model. The command builds it; the runner renders it as text for people or JSON for scripts.
public protocol Renderable {
    /// Human-readable text (without a trailing newline). Use `style` for optional emphasis; it is plain when
    /// colour is off.
    func text(style: TextStyle) -> String
    /// The stable JSON contract for scripts: snake_case keys, additive changes only.
    var json: JSONValue { get }
}

/// Output formats selectable with `--output`.
public enum OutputFormat: String, CaseIterable, ArgumentValue, Sendable {
    /// For people: aligned on a terminal, tab-separated when piped.
    case text
    /// Exactly one JSON document (a streaming command prints one array).
    case json
    /// One JSON document per line, for streams (a single result is one line).
    case jsonl

    /// True for the formats meant for programs.
    public var isJSON: Bool { self != .text }
}

/// Emphasis for text output. Every function returns its input unchanged when colour is disabled.
public struct TextStyle: Sendable {
    public let colorEnabled: Bool
    /// Terminal width when known, for wrapping; nil when not known.
    public let width: Int?
    /// The stream is a terminal: tables align for people; otherwise they are tab-separated for `cut` and `awk`.
    public let isTerminal: Bool

    public init(colorEnabled: Bool, width: Int?, isTerminal: Bool = false) {
        self.colorEnabled = colorEnabled
        self.width = width
        self.isTerminal = isTerminal
    }

    public static let plain = TextStyle(colorEnabled: false, width: nil)

    private func sgr(_ code: String, _ text: String) -> String {
        colorEnabled ? "\u{1B}[\(code)m\(text)\u{1B}[0m" : text
    }
    public func bold(_ text: String) -> String { sgr("1", text) }
    public func dim(_ text: String) -> String { sgr("2", text) }
    public func good(_ text: String) -> String { sgr("32", text) }
    public func bad(_ text: String) -> String { sgr("31", text) }
    public func warn(_ text: String) -> String { sgr("33", text) }
}

/// A ready-made model for simple commands: one text form and one JSON form.
public struct SimpleOutput: Renderable {
    public let textForm: String
    public let json: JSONValue

    public init(text: String, json: JSONValue) {
        textForm = text
        self.json = json
    }

    public func text(style: TextStyle) -> String { textForm }
}

/// Key/value records printed as aligned `key: value` lines in text and as an object in JSON.
public struct FieldList: Renderable {
    public var fields: [(key: String, label: String, value: JSONValue, text: String)]

    public init() { fields = [] }

    /// Adds a field: `key` is the JSON key, `label` the text label, `text` overrides how the value prints.
    public mutating func add(_ key: String, _ value: JSONValue, label: String? = nil, text: String? = nil) {
        let rendered = text ?? {
            switch value {
            case .string(let s): return s
            case .number(let n): return n
            case .bool(let b): return b ? "yes" : "no"
            case .null: return "-"
            default: return value.serialized()
            }
        }()
        fields.append((key: key, label: label ?? key.replacing("_", with: " "), value: value, text: rendered))
    }

    public func text(style: TextStyle) -> String {
        let width = fields.map(\.label.count).max() ?? 0
        return fields.map { field in
            style.dim(field.label + ":") + String(repeating: " ", count: width - field.label.count + 1) + field.text
        }.joined(separator: "\n")
    }

    public var json: JSONValue { .object(JSONObject(fields.map { ($0.key, $0.value) })) }
}

/// Rows of fields for text output. On a terminal: a header and aligned columns. Otherwise (a pipe, a file): no
/// header, one row per line, fields separated by one tab, tabs and newlines inside a field replaced by spaces — so
/// `cut -f2` and `awk -F'\t'` always see the same columns. Put one fact in each field (no "delegated (until …)").
public struct Table: Sendable {
    public let columns: [String]
    public var rows: [[String]] = []

    public init(columns: [String]) { self.columns = columns }

    public mutating func append(_ row: [String]) {
        precondition(row.count == columns.count, "a table row has one field per column")
        rows.append(row)
    }

    public func text(style: TextStyle) -> String {
        guard style.isTerminal else {
            return rows.map { row in
                row.map { $0.replacing("\t", with: " ").replacing("\n", with: " ") }.joined(separator: "\t")
            }.joined(separator: "\n")
        }
        let widths = columns.indices.map { column in
            ([columns[column]] + rows.map { $0[column] }).map(\.count).max() ?? 0
        }
        func line(_ fields: [String]) -> String {
            fields.enumerated().map { index, field in
                index == fields.count - 1 ? field : field + String(repeating: " ", count: widths[index] - field.count)
            }.joined(separator: "  ")
        }
        return ([style.dim(line(columns.map { $0.uppercased() }))] + rows.map(line)).joined(separator: "\n")
    }
}

