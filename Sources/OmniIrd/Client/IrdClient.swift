import OmniCodec
import OmniTransport

/// An answer of the service: the success status of an operation, its body, and what the body has that the
/// document never mentions.
public struct IrdAnswer: Sendable {
    public let status: Int
    public let headers: HTTPHeaders
    public let body: [UInt8]
    /// The body as JSON (unknown fields kept as they came), nil for an empty or non-JSON body.
    public let json: JSONValue?
    /// Unknown fields and values outside open enums (empty without validation).
    public let drift: [ValidationIssue]
    public let operation: Operation?
}

/// Sends ird requests: one credential slot, the document's security rules (anonymous operations never carry a
/// credential), request and answer validation, and the one error table. No automatic retry: a failed request is
/// reported at once.
public final class IrdClient: Sendable {
    public struct Configuration: Sendable {
        public var baseURL: String
        public var credential: IrdCredential?
        public var validates: Bool
        public var timeout: Duration
        public var maxResponseBytes: Int
        public var userAgent: String
        public var logger: HTTPLogger?

        public init(baseURL: String, credential: IrdCredential? = nil, validates: Bool = true, timeout: Duration = .seconds(30),
                    maxResponseBytes: Int = 10 << 20, userAgent: String = "omni", logger: HTTPLogger? = nil) {
            self.baseURL = baseURL
            self.credential = credential
            self.validates = validates
            self.timeout = timeout
            self.maxResponseBytes = maxResponseBytes
            self.userAgent = userAgent
            self.logger = logger
        }
    }

    public let document: OpenAPIDocument?
    public let configuration: Configuration
    let http: HTTPClient

    public init(document: OpenAPIDocument?, configuration: Configuration) {
        self.document = document
        self.configuration = configuration
        http = HTTPClient(configuration: .init(userAgent: configuration.userAgent, connectTimeout: .seconds(10),
                                               totalTimeout: configuration.timeout, maxResponseBytes: configuration.maxResponseBytes,
                                               logger: configuration.logger))
    }

    /// The request for an operation, checked, with the credential the document allows (nothing is sent).
    public func prepare(_ operation: Operation, _ input: IrdCallInput,
                        label: @escaping @Sendable (Parameter) -> String = { "\($0.location.rawValue) parameter '\($0.name)'" })
        throws(IrdError) -> IrdPreparedRequest {
        guard let document else { throw IrdError(.noDocument, "no OpenAPI document") }
        var request = try IrdRequestBuilder(document: document, baseURL: configuration.baseURL, validates: configuration.validates,
                                            label: label).build(operation, input)
        try authorize(&request.headers, for: operation, in: document)
        return request
    }

    /// Sends a prepared request and checks the answer against the operation's documented success.
    public func send(_ request: IrdPreparedRequest, cancellation: HTTPCancellation? = nil) throws -> IrdAnswer {
        let response = try http.perform(HTTPRequest(method: request.method, url: request.url, headers: request.headers, body: request.body),
                                         cancellation: cancellation)
        return try answer(response, for: request.operation)
    }

    /// Prepares and sends; on `totp-required` or `invalid-totp`, asks `freshCode` once and repeats with it.
    public func call(_ operation: Operation, _ input: IrdCallInput,
                     label: @escaping @Sendable (Parameter) -> String = { "\($0.location.rawValue) parameter '\($0.name)'" },
                     cancellation: HTTPCancellation? = nil,
                     freshCode: ((IrdError) throws -> String?)? = nil) throws -> IrdAnswer {
        let request = try prepare(operation, input, label: label)
        do {
            return try send(request, cancellation: cancellation)
        } catch let error as IrdError where error.kind == .totpRequired || error.kind == .invalidTotp {
            guard let document, let freshCode, let code = try freshCode(error) else { throw error }
            guard let placement = IrdTOTPPlacement.of(operation, in: document) else {
                throw IrdError(error.kind, error.message + "; the document gives \(operation.display) no TOTP parameter or field to send a code in",
                               status: error.status, code: error.code, operation: error.operation)
            }
            return try send(try prepare(operation, placement.applying(code, to: input), label: label), cancellation: cancellation)
        }
    }

    /// The untyped escape hatch: any method and URL, JSON in and out, the same credential rules when the URL is
    /// one of the service's (an operation of the document is found by method and path) and none for other hosts.
    public func raw(method: String, url: String, headers: HTTPHeaders = [:], body: [UInt8]?, cancellation: HTTPCancellation? = nil)
        throws -> IrdAnswer {
        var headers = headers
        let sameService = url.lowercased().hasPrefix(IrdRequestBuilder.join(configuration.baseURL, "/").lowercased())
        var operation: Operation?
        if sameService, let document {
            var relative = String(url.dropFirst(IrdRequestBuilder.join(configuration.baseURL, "").count))
            if !relative.hasPrefix("/") { relative = "/" + relative }
            operation = document.operation(method: method, path: relative)
            if let operation { try authorize(&headers, for: operation, in: document) }
            else if let credential = configuration.credential { Self.addBearer(credential, to: &headers, scheme: nil) }
        } else if sameService, let credential = configuration.credential {
            Self.addBearer(credential, to: &headers, scheme: nil)
        }
        if !headers.contains(name: "Accept") { headers.append(name: "Accept", value: "application/json") }
        if body != nil, !headers.contains(name: "Content-Type") { headers.append(name: "Content-Type", value: "application/json") }
        let response = try http.perform(HTTPRequest(method: method.uppercased(), url: url, headers: headers, body: body), cancellation: cancellation)
        let display = operation?.display ?? "\(method.uppercased()) \(url)"
        guard (200...299).contains(response.status) else {
            throw IrdErrorTable.error(status: response.status, headers: response.headers, body: response.body, operation: display)
        }
        let json = response.body.isEmpty ? nil : try? JSONValue.parse(response.body)
        return IrdAnswer(status: response.status, headers: response.headers, body: response.body, json: json, drift: [], operation: operation)
    }

    // MARK: Credentials

    /// Adds the credential the operation's security allows: none for anonymous operations, whatever is configured;
    /// an operation that needs one fails here, before anything is sent, when there is none.
    func authorize(_ headers: inout HTTPHeaders, for operation: Operation, in document: OpenAPIDocument) throws(IrdError) {
        let requirements = document.security(of: operation)
        if requirements.isEmpty { return }
        guard let credential = configuration.credential else {
            if document.credentialIsOptional(operation) { return }
            throw IrdError(.unauthorized, "\(operation.display) needs a credential: give --api-key @FILE, set IRD_API_KEY, or log in "
                           + "with 'omni ird login'; nothing was sent", operation: operation.display)
        }
        for requirement in requirements where !requirement.isEmpty {
            let schemes = requirement.compactMap(document.securityScheme(named:))
            guard schemes.count == requirement.count, schemes.allSatisfy(Self.isUsable) else { continue }
            for scheme in schemes { Self.addBearer(credential, to: &headers, scheme: scheme) }
            return
        }
        throw IrdError(.configuration, "\(operation.display): none of the document's security schemes (\(requirements.flatMap { $0 }.joined(separator: ", "))) "
                       + "is one omni can send (HTTP bearer, or an API key in a header)", operation: operation.display)
    }

    static func isUsable(_ scheme: SecurityScheme) -> Bool {
        switch scheme.kind {
        case .http: scheme.scheme == "bearer"
        case .apiKey: scheme.location == .header && scheme.parameterName != nil
        case .oauth2, .openIdConnect: true
        default: false
        }
    }

    static func addBearer(_ credential: IrdCredential, to headers: inout HTTPHeaders, scheme: SecurityScheme?) {
        if let scheme, scheme.kind == .apiKey, let name = scheme.parameterName {
            headers.append(name: name, value: credential.token)
        } else if !headers.contains(name: "Authorization") {
            headers.append(name: "Authorization", value: "Bearer " + credential.token)
        }
    }

    // MARK: Answers

    func answer(_ response: HTTPResponse, for operation: Operation) throws -> IrdAnswer {
        let documented = operation.responses.first { $0.matches(response.status) && $0.status != "default" }
        let isSuccess = (200...299).contains(response.status)
        guard isSuccess else {
            throw IrdErrorTable.error(status: response.status, headers: response.headers, body: response.body, operation: operation.display)
        }
        if configuration.validates, documented == nil {
            throw IrdError(.invalidResponse, "\(operation.display) answered HTTP \(response.status), which the document does not list "
                           + "(it lists \(operation.responses.map(\.status).joined(separator: ", "))); not printed",
                           status: response.status, operation: operation.display)
        }
        var json: JSONValue?
        if !response.body.isEmpty {
            do { json = try JSONValue.parse(response.body) } catch {
                if let media = documented?.json, configuration.validates {
                    throw IrdError(.invalidResponse, "\(operation.display): the answer is not the \(media.type) the document promises: \(error.summary)",
                                   location: error.path, line: error.line, column: error.column, status: response.status,
                                   operation: operation.display)
                }
            }
        }
        var drift: [ValidationIssue] = []
        if configuration.validates, let document, let schema = documented?.json?.schema {
            guard let value = json else {
                throw IrdError(.invalidResponse, "\(operation.display) answered HTTP \(response.status) without the JSON body the document promises",
                               status: response.status, operation: operation.display)
            }
            let result = SchemaValidator(document: document, direction: .response).validate(value, against: schema)
            if let first = result.errors.first {
                let more = result.errorCount > 1 ? " (and \(result.errorCount - 1) more)" : ""
                throw IrdError(.invalidResponse, "\(operation.display): the answer does not fit the document: \(first.message)\(more); not printed",
                               location: first.path, status: response.status, operation: operation.display)
            }
            drift = result.drift
        }
        return IrdAnswer(status: response.status, headers: response.headers, body: response.body, json: json, drift: drift, operation: operation)
    }
}
