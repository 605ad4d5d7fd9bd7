import OmniCLI
import OmniCodec
import OmniIrd
import OmniTransport

/// `omni ird api METHOD PATH|URL`: any request, JSON in and out, with the same base URL and credential rules.
enum IrdApiCommand {
    static let method = Argument<String>("METHOD", help: "The HTTP method: GET, POST, PUT, PATCH, DELETE, …",
                                         completion: .values(["GET", "POST", "PUT", "PATCH", "DELETE"]))
    static let target = Argument<String>("PATH", help: "A path under the base URL (/domains/x.ro), or an absolute URL (a node-hosted endpoint).")
    static let input = Option<InputFile>("input", valueName: "FILE", help: "The request body from a file, or - for stdin.", group: "Body")

    static let command = Command(
        "api", abstract: "Send any request to the service: the untyped escape hatch (JSON in and out).",
        discussion: """
            Fields (-F typed, -f raw) become the query string of GET, HEAD and DELETE requests and the JSON body of the \
            others; --input sends a file or stdin as the body instead. A path is joined to the base URL (--base-url, \
            else the document's server) and sent with the credential the document asks for on that operation (none for \
            anonymous ones). An absolute URL on another host is sent without any credential. Nothing is validated, but the \
            domain gate applies: a mutation the document knows is checked like its generated command.
            """,
        options: [IrdOperationCommand.field, IrdOperationCommand.rawField, input] + IrdOptions.connection + IrdGate.options,
        arguments: [method, target],
        relations: [.conflicting(input, IrdOperationCommand.field), .conflicting(input, IrdOperationCommand.rawField)],
        examples: [Example("omni ird api GET /credits/balance", "The account's balance, as the service answers it."),
                   Example("omni ird api POST /tunnels -f hostname=demo.example.ro", "Create a tunnel with a raw field.")]
    ) { invocation in
        let verb = try invocation.value(method).uppercased()
        guard !verb.isEmpty, verb.utf8.allSatisfy({ (0x41...0x5A).contains($0) }) else {
            throw CLIError.usage("METHOD must be a word like GET or POST", commandPath: invocation.commandPath)
        }
        let where_ = try invocation.value(target)
        let loaded: IrdLoadedDocument?
        switch IrdDocumentLoader.load(invocation.environment) {
        case .success(let document)?: loaded = document
        case .failure(let error)?: throw error
        case nil: loaded = nil
        }
        let client = try IrdOptions.client(invocation, document: loaded, validates: false)
        let lowered = where_.lowercased()
        let isAbsolute = lowered.hasPrefix("http://") || lowered.hasPrefix("https://")
        guard isAbsolute || where_.hasPrefix("/") else {
            throw CLIError.usage("PATH must start with '/' or be an http(s):// URL", commandPath: invocation.commandPath)
        }
        var url = isAbsolute ? where_ : IrdRequestBuilder.join(client.configuration.baseURL, where_)
        let fields = try invocation.value(IrdOperationCommand.field).map { IrdFields.Field(text: $0, typed: true) }
            + invocation.value(IrdOperationCommand.rawField).map { IrdFields.Field(text: $0, typed: false) }
        var body: [UInt8]?
        if let file = try invocation.value(input) {
            body = try invocation.read(file, label: "--input")
        } else if !fields.isEmpty {
            let value = try IrdFields.apply(fields, to: nil, schema: nil, document: nil, invocation: invocation)
            if ["GET", "HEAD", "DELETE"].contains(verb), let object = value?.objectValue {
                let pairs = object.map { ($0.key, IrdAnswerOutput.scalar($0.value)) }
                url += (url.contains("?") ? "&" : "?") + PercentEncoding.query(pairs)
            } else {
                body = value.map { Array($0.serialized().utf8) }
            }
        }
        if !isAbsolute { try IrdGate.checkRaw(invocation, method: verb, path: where_, body: body, client: client) }
        let answer = try client.raw(method: verb, url: url, body: body, cancellation: IrdOptions.cancellation(invocation))
        return try IrdAnswers.result(answer, invocation: invocation)
    }
}
