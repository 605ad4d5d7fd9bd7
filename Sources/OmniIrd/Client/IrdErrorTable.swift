import OmniCodec
import OmniTransport

/// The one error table for every ird operation: an answer that is not the operation's success becomes an
/// `IrdError` whose kind decides the exit code. The service's own code (`totp-required`, …) is looked for in the
/// usual places of an error body (`code`, `error.code`, `error` as text, a problem document's `type`).
public enum IrdErrorTable {
    /// Codes with a meaning of their own, whatever the status.
    public static let totpRequired = "totp-required"
    public static let invalidTotp = "invalid-totp"
    public static let accountSessionRequired = "sensitive-domain-api-key-blocked"

    public static func error(status: Int, headers: HTTPHeaders, body: [UInt8], operation: String) -> IrdError {
        let json = try? JSONValue.parse(body)
        let code = json.flatMap(Self.code)
        let detail = json.flatMap(Self.message) ?? Self.plainText(body)
        func make(_ kind: IrdError.Kind, _ text: String, retryAfter: String? = nil) -> IrdError {
            var message = "\(operation): \(text) (HTTP \(status)"
            if let code { message += ", \(code)" }
            message += ")"
            if let detail, !detail.isEmpty { message += ": " + detail }
            return IrdError(kind, message, status: status, code: code, retryAfter: retryAfter, operation: operation)
        }
        switch code {
        case totpRequired?: return make(.totpRequired, "an authenticator code is required")
        case invalidTotp?: return make(.invalidTotp, "the authenticator code was not accepted")
        case accountSessionRequired?:
            return make(.accountSessionRequired, "this operation needs an account session; an API key is not accepted for it")
        default: break
        }
        switch status {
        case 401, 403: return make(.unauthorized, status == 401 ? "not authorised" : "forbidden")
        case 402: return make(.insufficientCredits, "insufficient credits")
        case 404: return make(.notFound, "not found")
        case 429:
            let retryAfter = headers["Retry-After"]
            return make(.rateLimited, "rate limited" + (retryAfter.map { "; the service says to retry after \(Self.describeRetryAfter($0))" } ?? ""),
                        retryAfter: retryAfter)
        case 500...599: return make(.serviceError, "the service failed")
        default: return make(.rejected, "refused")
        }
    }

    static func code(_ json: JSONValue) -> String? {
        if let code = json["code"]?.stringValue { return code }
        if let inner = json["error"] {
            if let code = inner["code"]?.stringValue { return code }
            if let text = inner.stringValue, !text.contains(" ") { return text }
        }
        if let type = json["type"]?.stringValue, type != "about:blank", let last = type.split(separator: "/").last { return String(last) }
        return nil
    }

    static func message(_ json: JSONValue) -> String? {
        let candidates = [json["message"], json["detail"], json["error"]?["message"], json["title"],
                          json["error"].flatMap { $0.stringValue?.contains(" ") == true ? $0 : nil }]
        var parts = candidates.compactMap { $0?.stringValue }.prefix(1).map { $0 }
        // Field errors, when the body lists them, say what to fix.
        if let errors = (json["errors"] ?? json["error"]?["errors"])?.arrayValue {
            let fields = errors.prefix(5).compactMap { item -> String? in
                if let text = item.stringValue { return text }
                let field = item["field"]?.stringValue ?? item["path"]?.stringValue ?? item["pointer"]?.stringValue
                let text = item["message"]?.stringValue ?? item["detail"]?.stringValue
                return [field, text].compactMap { $0 }.joined(separator: ": ")
            }
            if !fields.isEmpty { parts.append(fields.joined(separator: "; ")) }
        }
        return parts.isEmpty ? nil : parts.joined(separator: " — ")
    }

    private static func plainText(_ body: [UInt8]) -> String? {
        guard !body.isEmpty, body.count <= 512, let text = try? UTF8Validation.string(body) else { return nil }
        return text.trimmingWhitespaceAndNewlines()
    }

    /// `30` → `30 s`; an HTTP date stays as written.
    static func describeRetryAfter(_ value: String) -> String {
        value.allSatisfy(\.isNumber) ? "\(value) s" : value
    }
}

/// Where an operation takes an authenticator code, as the document says: a header or query parameter, or a body
/// field, whose name contains `totp`.
public enum IrdTOTPPlacement: Sendable, Equatable {
    case parameter(name: String, location: ParameterLocation)
    case bodyField(String)

    public static func of(_ operation: Operation, in document: OpenAPIDocument) -> IrdTOTPPlacement? {
        if let parameter = operation.parameters.first(where: {
            ($0.location == .header || $0.location == .query) && $0.name.lowercased().contains("totp")
        }) {
            return .parameter(name: parameter.name, location: parameter.location)
        }
        if let schema = operation.requestBody?.json?.schema {
            let validator = SchemaValidator(document: document, direction: .request)
            if let field = validator.knownProperties(schema).sorted().first(where: { $0.lowercased().contains("totp") }) {
                return .bodyField(field)
            }
        }
        return nil
    }

    /// The input with the code in its place.
    public func applying(_ code: String, to input: IrdCallInput) -> IrdCallInput {
        var input = input
        switch self {
        case .parameter(let name, .header): input.headers[name] = code
        case .parameter(let name, _): input.query[name] = [code]
        case .bodyField(let name):
            var object = input.body?.objectValue ?? JSONObject()
            object[name] = .string(code)
            input.body = .object(object)
        }
        return input
    }
}
