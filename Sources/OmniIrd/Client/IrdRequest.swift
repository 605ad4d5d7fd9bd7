import OmniCodec
import OmniTransport

/// What a caller gives for one operation: parameter values as typed on a command line, and the JSON body.
public struct IrdCallInput: Sendable {
    /// Path parameters by name.
    public var path: [String: String] = [:]
    /// Query parameters by name; several values for arrays.
    public var query: [String: [String]] = [:]
    /// Header parameters by name.
    public var headers: [String: String] = [:]
    public var body: JSONValue?

    public init(path: [String: String] = [:], query: [String: [String]] = [:], headers: [String: String] = [:], body: JSONValue? = nil) {
        self.path = path
        self.query = query
        self.headers = headers
        self.body = body
    }
}

/// An HTTP request for one operation, built and checked before anything is sent.
public struct IrdPreparedRequest: Sendable {
    public let operation: Operation
    public let method: String
    public let url: String
    public var headers: HTTPHeaders
    public let body: [UInt8]?
}

/// Turns an operation and its inputs into a request: values converted by their schemas (numbers stay their decimal
/// text), checked against the document unless validation is off, path values percent-encoded.
public struct IrdRequestBuilder: Sendable {
    public let document: OpenAPIDocument
    public let baseURL: String
    public let validates: Bool
    /// How messages name a parameter (`--limit`, `<domain>`); "query parameter 'limit'" unless told.
    public let label: @Sendable (Parameter) -> String

    public init(document: OpenAPIDocument, baseURL: String, validates: Bool = true,
                label: @escaping @Sendable (Parameter) -> String = { "\($0.location.rawValue) parameter '\($0.name)'" }) {
        self.document = document
        self.baseURL = baseURL
        self.validates = validates
        self.label = label
    }

    public func build(_ operation: Operation, _ input: IrdCallInput) throws(IrdError) -> IrdPreparedRequest {
        var path = operation.path
        var query: [(String, String)] = []
        var headers = HTTPHeaders()
        let validator = SchemaValidator(document: document, direction: .request)
        for parameter in operation.parameters {
            switch parameter.location {
            case .path:
                guard let text = input.path[parameter.name] else {
                    throw IrdError(.invalidParameter, "\(label(parameter)) is required", operation: operation.display)
                }
                let value = try typed(text, parameter, validator)
                path = path.replacing("{" + parameter.name + "}", with: PercentEncoding.encode(Self.text(of: value)))
            case .query:
                let texts = input.query[parameter.name] ?? []
                if texts.isEmpty {
                    if parameter.required {
                        throw IrdError(.invalidParameter, "\(label(parameter)) is required", operation: operation.display)
                    }
                    continue
                }
                let values = try typedList(texts, parameter, validator)
                if parameter.explode || values.count == 1 {
                    query += values.map { (parameter.name, Self.text(of: $0)) }
                } else {
                    query.append((parameter.name, values.map(Self.text).joined(separator: ",")))
                }
            case .header:
                guard let text = input.headers[parameter.name] else {
                    if parameter.required {
                        throw IrdError(.invalidParameter, "\(label(parameter)) is required", operation: operation.display)
                    }
                    continue
                }
                headers.append(name: parameter.name, value: Self.text(of: try typed(text, parameter, validator)))
            case .cookie:
                continue
            }
        }
        var bodyBytes: [UInt8]?
        if let body = input.body {
            guard let requestBody = operation.requestBody else {
                throw IrdError(.invalidBody, "\(operation.display) takes no request body", operation: operation.display)
            }
            guard let media = requestBody.json else {
                throw IrdError(.invalidBody, "\(operation.display) takes \(requestBody.content.map(\.type).joined(separator: ", ")), not JSON",
                               operation: operation.display)
            }
            if validates, let schema = media.schema {
                let result = validator.validate(body, against: schema)
                if let first = result.errors.first {
                    let more = result.errorCount > 1 ? " (and \(result.errorCount - 1) more)" : ""
                    throw IrdError(.invalidBody, "request body: \(first.message)\(more); nothing was sent", location: first.path,
                                   operation: operation.display)
                }
            }
            bodyBytes = Array(body.serialized().utf8)
            headers.append(name: "Content-Type", value: media.type)
        } else if let requestBody = operation.requestBody, requestBody.required {
            throw IrdError(.invalidBody, "\(operation.display) needs a request body: give --json JSON|@FILE|- or fields with -F/-f",
                           operation: operation.display)
        }
        headers.append(name: "Accept", value: "application/json")
        var url = Self.join(baseURL, path)
        if !query.isEmpty { url += "?" + PercentEncoding.query(query) }
        return IrdPreparedRequest(operation: operation, method: operation.method, url: url, headers: headers, body: bodyBytes)
    }

    /// `https://api.ird.ro/v1` + `/domains` without a doubled or missing slash.
    public static func join(_ base: String, _ path: String) -> String {
        var base = base
        while base.hasSuffix("/") { base.removeLast() }
        return base + (path.hasPrefix("/") ? path : "/" + path)
    }

    /// How a value travels in a URL or header: strings as they are, numbers as their text, booleans as words.
    static func text(of value: JSONValue) -> String {
        switch value {
        case .string(let text): text
        case .number(let text): text
        case .bool(let flag): flag ? "true" : "false"
        case .null: "null"
        default: value.serialized()
        }
    }

    private func typedList(_ texts: [String], _ parameter: Parameter, _ validator: SchemaValidator) throws(IrdError) -> [JSONValue] {
        guard let ref = parameter.schema, document[ref].types?.contains(.array) == true else {
            guard texts.count == 1 else {
                throw IrdError(.invalidParameter, "\(label(parameter)) takes one value, got \(texts.count)")
            }
            return [try typed(texts[0], parameter, validator)]
        }
        let items = document[ref].items
        let values = try texts.map { text throws(IrdError) in try Self.convert(text, items.map { document[$0] }, label(parameter)) }
        if validates {
            let result = validator.validate(.array(values), against: ref)
            if let first = result.errors.first { throw IrdError(.invalidParameter, "\(label(parameter)): \(first.message)") }
        }
        return values
    }

    private func typed(_ text: String, _ parameter: Parameter, _ validator: SchemaValidator) throws(IrdError) -> JSONValue {
        guard let ref = parameter.schema else { return .string(text) }
        let value = try Self.convert(text, document[ref], label(parameter))
        if validates {
            let result = validator.validate(value, against: ref)
            if let first = result.errors.first { throw IrdError(.invalidParameter, "\(label(parameter)): \(first.message)") }
        }
        return value
    }

    /// A command-line word as the JSON value its schema wants; a number stays its decimal text.
    static func convert(_ text: String, _ schema: Schema?, _ label: String) throws(IrdError) -> JSONValue {
        let types = schema?.types ?? [.string]
        if types.contains(.string) { return .string(text) }
        if types.contains(.integer) || types.contains(.number) {
            if DecimalText.isNumber(text), types.contains(.number) || DecimalText.isIntegral(text) { return .number(text) }
            if types.contains(.boolean), let flag = Bool(word: text) { return .bool(flag) }
            throw IrdError(.invalidParameter, "\(label): expected \(types.contains(.integer) ? "an integer" : "a number"), got '\(text)'")
        }
        if types.contains(.boolean) {
            guard let flag = Bool(word: text) else { throw IrdError(.invalidParameter, "\(label): expected true or false, got '\(text)'") }
            return .bool(flag)
        }
        if types.contains(.object) || types.contains(.array) {
            do { return try JSONValue.parse(text) } catch { throw IrdError(.invalidParameter, "\(label): expected JSON, \(error.summary)") }
        }
        return .string(text)
    }
}

extension Bool {
    init?(word: String) {
        switch word { case "true": self = true; case "false": self = false; default: return nil }
    }
}
