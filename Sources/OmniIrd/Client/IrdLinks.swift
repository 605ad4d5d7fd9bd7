import OmniCodec
import OmniTransport

/// OpenAPI `links` at run time: the input for the operation a link names, from the answer it came with — how a
/// 202's queued action finds the operation that polls it without a hard-coded path.
///
/// Runtime expressions understood: `$response.body#/json/pointer`, `$response.header.NAME`, `$request.path.NAME`,
/// `$request.query.NAME`, `$request.header.NAME`, `$request.body#/pointer`, `$statusCode`; any other value is a
/// constant. A link parameter may be qualified (`path.id`, `query.cursor`); unqualified ones go where the target
/// operation declares a parameter of that name.
public enum IrdLinks {
    /// The target operation and its input, or an error naming what could not be resolved.
    public static func follow(_ link: Link, from answer: IrdAnswer, request: IrdCallInput, in document: OpenAPIDocument) throws(IrdError)
        -> (Operation, IrdCallInput) {
        guard let id = link.operationId, let target = document.operation(id: id) else {
            throw IrdError(.invalidDocument, "link '\(link.name)' names no operation of the document (operationRef is not followed)")
        }
        var input = IrdCallInput()
        for (name, expression) in link.parameters {
            let value = try evaluate(expression, answer: answer, request: request, link: link.name)
            var parts = name.split(separator: ".", maxSplits: 1).map(String.init)
            let location = parts.count == 2 ? ParameterLocation(rawValue: parts[0]) : nil
            if location != nil { parts.removeFirst() }
            let parameterName = parts[0]
            guard let parameter = target.parameters.first(where: { $0.name == parameterName && (location == nil || $0.location == location) }) else {
                throw IrdError(.invalidDocument, "link '\(link.name)' sets '\(name)', which \(target.display) does not take")
            }
            let text = IrdRequestBuilder.text(of: value)
            switch parameter.location {
            case .path: input.path[parameter.name] = text
            case .query: input.query[parameter.name] = [text]
            case .header: input.headers[parameter.name] = text
            case .cookie: continue
            }
        }
        return (target, input)
    }

    static func evaluate(_ expression: JSONValue, answer: IrdAnswer, request: IrdCallInput, link: String) throws(IrdError) -> JSONValue {
        guard let text = expression.stringValue, text.hasPrefix("$") else { return expression }
        func missing() -> IrdError { IrdError(.invalidResponse, "link '\(link)': \(text) is not in the answer") }
        if text == "$statusCode" { return .int(answer.status) }
        if text.hasPrefix("$response.body") {
            guard let body = answer.json, let value = pointer(String(text.dropFirst("$response.body".count)), in: body) else { throw missing() }
            return value
        }
        if text.hasPrefix("$response.header.") {
            guard let value = answer.headers[String(text.dropFirst("$response.header.".count))] else { throw missing() }
            return .string(value)
        }
        if text.hasPrefix("$request.path.") { return try found(request.path[String(text.dropFirst("$request.path.".count))], missing) }
        if text.hasPrefix("$request.query.") { return try found(request.query[String(text.dropFirst("$request.query.".count))]?.first, missing) }
        if text.hasPrefix("$request.header.") { return try found(request.headers[String(text.dropFirst("$request.header.".count))], missing) }
        if text.hasPrefix("$request.body") {
            guard let body = request.body, let value = pointer(String(text.dropFirst("$request.body".count)), in: body) else { throw missing() }
            return value
        }
        throw IrdError(.invalidDocument, "link '\(link)': unsupported runtime expression \(text)")
    }

    private static func found(_ text: String?, _ missing: () -> IrdError) throws(IrdError) -> JSONValue {
        guard let text else { throw missing() }
        return .string(text)
    }

    /// `#/action/id` (or empty for the whole value) inside a JSON value.
    static func pointer(_ fragment: String, in value: JSONValue) -> JSONValue? {
        if fragment.isEmpty || fragment == "#" { return value }
        guard let path = JSONPath(pointer: fragment.hasPrefix("#") ? fragment : "#" + fragment) else { return nil }
        var current = value
        for component in path.components {
            guard case .key(let key) = component else { return nil }
            if let array = current.arrayValue, let index = Int(key), array.indices.contains(index) { current = array[index]; continue }
            guard let next = current[key] else { return nil }
            current = next
        }
        return current
    }
}
