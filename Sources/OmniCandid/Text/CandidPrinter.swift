import OmniCodec

/// Candid text output in `didc`'s style: numbers other than `int`-literals carry their type (`42 : nat`,
/// `1_000 : nat64`), `null` of type null prints as `null : null`, blobs as `blob "\de\ad"`, tuples without
/// labels, and long values break over lines at 80 columns with two-space indentation.
public enum CandidPrintStyle: Sendable {
    /// Multi-line layout when a value does not fit in `width` columns.
    case pretty(width: Int)
    /// Everything on one line.
    case compact

    public static let pretty = CandidPrintStyle.pretty(width: 80)

    var width: Int? {
        if case .pretty(let width) = self { return width }
        return nil
    }
}

extension Candid {
    /// Prints an argument list: `(42 : nat, "hi")`.
    public static func print(arguments: [CandidValue], style: CandidPrintStyle = .pretty) -> String {
        let document = PrettyDocument.enclose("(", .separated(arguments.map(CandidPrinter.value), by: ","), ")", spaced: false)
        return document.render(width: style.width)
    }

    /// Prints one value.
    public static func print(_ value: CandidValue, style: CandidPrintStyle = .pretty) -> String {
        CandidPrinter.value(value).render(width: style.width)
    }

    /// Prints a type (`record { owner : principal; amount : nat }`).
    public static func print(_ type: CandidType, style: CandidPrintStyle = .pretty) -> String {
        CandidPrinter.type(type).render(width: style.width)
    }

    /// Prints an argument type list: `(principal, amount : nat)`.
    public static func print(argumentTypes: [CandidArgument], style: CandidPrintStyle = .pretty) -> String {
        CandidPrinter.arguments(argumentTypes).render(width: style.width)
    }

    /// A blob as `didc` prints it: printable ASCII kept (quotes and backslashes escaped), otherwise every
    /// byte as `\xx`.
    public static func blobLiteral(_ bytes: [UInt8]) -> String {
        let printable = bytes.allSatisfy { ($0 >= 0x20 && $0 <= 0x7E) || $0 == 0x09 || $0 == 0x0A || $0 == 0x0D }
        var text = "blob \""
        for byte in bytes {
            if printable, byte >= 0x20, byte <= 0x7E, byte != 0x22, byte != 0x27, byte != 0x60, byte != 0x5C {
                text.unicodeScalars.append(Unicode.Scalar(byte))
            } else {
                text += "\\" + (byte < 0x10 ? "0" : "") + String(byte, radix: 16)
            }
        }
        return text + "\""
    }
}

enum CandidPrinter {
    private static func keyword(_ word: String) -> PrettyDocument { .text(word + " ") }

    static func value(_ value: CandidValue) -> PrettyDocument {
        switch value {
        case .opt(let payload?):
            let inner = child(payload)
            return keyword("opt") + (payload.hasTypeAnnotation ? .enclose("(", inner, ")", spaced: false) : inner)
        case .vec(let elements):
            return keyword("vec") + .enclose("{", .separated(elements.map(child), by: ";"), "}", spaced: true)
        case .record(let fields):
            if isTuple(fields) {
                return keyword("record") + .enclose("{", .separated(fields.map { child($0.value) }, by: ";"), "}", spaced: true)
            }
            let items = fields.map { PrettyDocument.text($0.label.description + " = ") + child($0.value) }
            return keyword("record") + .enclose("{", .separated(items, by: ";"), "}", spaced: true)
        case .variant(let field):
            if case .null = field.value {
                return keyword("variant") + .enclose("{", .text(field.label.description), "}", spaced: true)
            }
            return keyword("variant") + .enclose("{", .text(field.label.description + " = ") + child(field.value), "}", spaced: true)
        default:
            return .text(scalarText(value))
        }
    }

    /// A nested value's document, built only when the renderer gets to it (see `PrettyDocument.lazy`).
    private static func child(_ value: CandidValue) -> PrettyDocument {
        switch value {
        case .opt(.some), .vec, .record, .variant: .lazy { self.value(value) }
        default: .text(scalarText(value))
        }
    }

    /// Records whose ids are exactly 0, 1, 2, … print without labels.
    static func isTuple(_ fields: [CandidFieldValue]) -> Bool {
        fields.enumerated().allSatisfy { UInt32($0.offset) == $0.element.label.id && $0.element.label.name == nil }
    }

    static func scalarText(_ value: CandidValue) -> String {
        switch value {
        case .null: return "null : null"
        case .bool(let flag): return flag ? "true" : "false"
        case .nat(let number): return "\(number) : nat"
        case .int(let number): return "\(number) : int"
        case .nat8(let number): return "\(number) : nat8"
        case .nat16(let number): return "\(grouped(String(number))) : nat16"
        case .nat32(let number): return "\(grouped(String(number))) : nat32"
        case .nat64(let number): return "\(grouped(String(number))) : nat64"
        case .int8(let number): return "\(number) : int8"
        case .int16(let number): return "\(grouped(String(number))) : int16"
        case .int32(let number): return "\(grouped(String(number))) : int32"
        case .int64(let number): return "\(grouped(String(number))) : int64"
        case .float32(let number): return floatText(Double(number), shortest: number.description) + " : float32"
        case .float64(let number): return floatText(number, shortest: number.description) + " : float64"
        case .text(let text): return CandidLabel.quoted(text)
        case .reserved: return "null : reserved"
        case .principal(let principal): return "principal \"\(principal.text)\""
        case .service(let principal): return "service \"\(principal.text)\""
        case .function(let principal, let method):
            return "func \"\(principal.text)\"." + (CandidLabel.isPlainIdentifier(method) ? method : CandidLabel.quoted(method))
        case .opt(nil): return "null"
        case .blob(let bytes): return Candid.blobLiteral(bytes)
        default: return CandidPrinter.value(value).render(width: nil)
        }
    }

    /// `1_000_000`: digit groups of three, as `didc` prints fixed-width numbers.
    static func grouped(_ digits: String) -> String {
        var body = Substring(digits)
        var sign = ""
        if body.hasPrefix("-") { sign = "-"; body = body.dropFirst() }
        var groups: [Substring] = []
        var end = body.endIndex
        while end > body.startIndex {
            let start = body.index(end, offsetBy: -3, limitedBy: body.startIndex) ?? body.startIndex
            groups.append(body[start..<end])
            end = start
        }
        return sign + groups.reversed().joined(separator: "_")
    }

    /// Positional decimal (no exponent) from the shortest round-trip digits, with `.0` for integral values;
    /// `nan`, `inf` and `-inf` for the special values.
    static func floatText(_ number: Double, shortest: String) -> String {
        if number.isNaN { return "nan" }
        if number.isInfinite { return number < 0 ? "-inf" : "inf" }
        var text = shortest
        var sign = ""
        if text.hasPrefix("-") { sign = "-"; text.removeFirst() }
        var exponent = 0
        if let e = text.firstIndex(where: { $0 == "e" || $0 == "E" }) {
            exponent = Int(text[text.index(after: e)...]) ?? 0
            text = String(text[..<e])
        }
        var integerPart = text, fraction = ""
        if let dot = text.firstIndex(of: ".") {
            integerPart = String(text[..<dot])
            fraction = String(text[text.index(after: dot)...])
        }
        var digits = integerPart + fraction
        var pointPosition = integerPart.count + exponent
        while digits.count > 1, digits.hasPrefix("0"), pointPosition > 1 { digits.removeFirst(); pointPosition -= 1 }
        if pointPosition <= 0 {
            digits = String(repeating: "0", count: 1 - pointPosition) + digits
            pointPosition = 1
        } else if pointPosition > digits.count {
            digits += String(repeating: "0", count: pointPosition - digits.count)
        }
        var whole = String(digits.prefix(pointPosition))
        var decimals = String(digits.dropFirst(pointPosition))
        while decimals.hasSuffix("0") { decimals.removeLast() }
        if whole.isEmpty { whole = "0" }
        if decimals.isEmpty { decimals = "0" }
        return sign + whole + "." + decimals
    }

    // MARK: Types

    static func type(_ type: CandidType) -> PrettyDocument {
        switch type {
        case .opt(let inner): return keyword("opt") + self.type(inner)
        case .vec(.nat8): return .text("blob")
        case .vec(let inner): return keyword("vec") + self.type(inner)
        case .record(let fields):
            if fields.enumerated().allSatisfy({ UInt32($0.offset) == $0.element.label.id && $0.element.label.name == nil }) {
                return keyword("record") + .enclose("{", .separated(fields.map { self.type($0.type) }, by: ";"), "}", spaced: true)
            }
            return keyword("record") + .enclose("{", .separated(fields.map { field($0, isVariant: false) }, by: ";"), "}", spaced: true)
        case .variant(let fields):
            return keyword("variant") + .enclose("{", .separated(fields.map { field($0, isVariant: true) }, by: ";"), "}", spaced: true)
        case .function(let function): return keyword("func") + self.function(function)
        case .service(let service): return keyword("service") + self.service(service)
        case .named(let name): return .text(name)
        default:
            guard let code = Opcode.primitive(type) else { return .text("?") }
            return .text(Opcode.name(code))
        }
    }

    private static func field(_ field: CandidField, isVariant: Bool) -> PrettyDocument {
        if isVariant, field.type == .null { return .text(field.label.description) }
        return .text(field.label.description + " : ") + type(field.type)
    }

    static func arguments(_ arguments: [CandidArgument]) -> PrettyDocument {
        let items = arguments.map { argument -> PrettyDocument in
            guard let name = argument.name else { return type(argument.type) }
            return .text((CandidLabel.isPlainIdentifier(name) ? name : CandidLabel.quoted(name)) + " : ") + type(argument.type)
        }
        return .enclose("(", .separated(items, by: ","), ")", spaced: false)
    }

    static func function(_ function: CandidFunctionType) -> PrettyDocument {
        let modes = function.modes.map { PrettyDocument.text(" " + $0.rawValue) }
        return arguments(function.arguments) + .text(" -> ") + arguments(function.results) + .concat(modes)
    }

    static func service(_ service: CandidServiceType) -> PrettyDocument {
        let methods = service.methods.map { method -> PrettyDocument in
            let name = CandidLabel.isPlainIdentifier(method.name) ? method.name : CandidLabel.quoted(method.name)
            if case .function(let function) = method.type { return .text(name + " : ") + self.function(function) }
            return .text(name + " : ") + type(method.type)
        }
        return .enclose("{", .separated(methods, by: ";"), "}", spaced: true)
    }
}

extension CandidValue {
    /// Values printed with a `: type` suffix; `opt` wraps them in parentheses.
    var hasTypeAnnotation: Bool {
        switch self {
        case .null, .reserved, .nat, .int, .nat8, .nat16, .nat32, .nat64, .int8, .int16, .int32, .int64, .float32, .float64:
            return true
        default:
            return false
        }
    }
}
