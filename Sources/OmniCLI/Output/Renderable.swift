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
    case text
    case json
}

/// Emphasis for text output. Every function returns its input unchanged when colour is disabled.
public struct TextStyle: Sendable {
    public let colorEnabled: Bool
    /// Terminal width when known (stdout is a TTY), for wrapping tables; nil when not a terminal.
    public let width: Int?

    public init(colorEnabled: Bool, width: Int?) {
        self.colorEnabled = colorEnabled
        self.width = width
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
        fields.append((key: key, label: label ?? key.replacingOccurrences(of: "_", with: " "), value: value, text: rendered))
    }

    public func text(style: TextStyle) -> String {
        let width = fields.map(\.label.count).max() ?? 0
        return fields.map { field in
            style.dim(field.label + ":") + String(repeating: " ", count: width - field.label.count + 1) + field.text
        }.joined(separator: "\n")
    }

    public var json: JSONValue { .object(JSONObject(fields.map { ($0.key, $0.value) })) }
}

import Foundation
