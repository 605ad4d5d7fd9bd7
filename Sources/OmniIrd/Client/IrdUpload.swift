import OmniCodec
import OmniTransport

/// IPFS upload: an upload grant from the document's POST that answers `upload_url` and `token`, the file's bytes
/// streamed from disk to that URL with the grant's own bearer (never the account credential), then the upload
/// polled through the grant's link until it completed.
public struct IrdUpload {
    public let grant: Operation

    public struct Grant: Sendable {
        public let uploadURL: String
        public let token: String
        public let maxBytes: UInt64?
        public let answer: IrdAnswer
    }

    public init(document: OpenAPIDocument) throws(IrdError) {
        guard let grant = document.operations.first(where: { operation in
            guard operation.method == "POST", let ref = operation.success?.json?.schema else { return false }
            return Set(IrdDomainGate.topLevelFields(ref, document)).isSuperset(of: ["upload_url", "token"])
        }) else {
            throw IrdError(.invalidDocument, "the document has no upload grant: omni looks for a POST answering upload_url and token")
        }
        self.grant = grant
    }

    /// The grant's body: the fields its schema has among name, size and format.
    public func request(name: String, size: UInt64, format: String?, document: OpenAPIDocument) -> IrdCallInput {
        let fields = Set(grant.requestBody?.json?.schema.map { IrdDomainGate.topLevelFields($0, document) } ?? [])
        var body = JSONObject()
        if fields.contains("name") { body["name"] = .string(name) }
        if fields.contains("size") { body["size"] = .int(size) }
        if let format, fields.contains("format") { body["format"] = .string(format) }
        return IrdCallInput(body: grant.requestBody == nil ? nil : .object(body))
    }

    public func obtain(_ client: IrdClient, _ input: IrdCallInput, cancellation: HTTPCancellation? = nil) throws -> Grant {
        let answer = try client.call(grant, input, cancellation: cancellation)
        guard let url = answer.json?["upload_url"]?.stringValue, let token = answer.json?["token"]?.stringValue, !token.isEmpty else {
            throw IrdError(.invalidResponse, "\(grant.display): the grant has no upload_url and token", operation: grant.display)
        }
        let lowered = url.lowercased()
        guard lowered.hasPrefix("https://") || lowered.hasPrefix("http://") else {
            throw IrdError(.invalidResponse, "\(grant.display): the upload_url is not an http(s) URL", operation: grant.display)
        }
        return Grant(uploadURL: url, token: token, maxBytes: answer.json?["max_bytes"]?.int64Value.map { UInt64($0) }, answer: answer)
    }

    /// Streams the file to the node: constant memory, whatever its size.
    public func send(_ file: HTTPBodyFile, to grant: Grant, client: IrdClient, timeout: Duration, cancellation: HTTPCancellation? = nil) throws {
        if let limit = grant.maxBytes, file.size > limit {
            throw IrdError(.rejected, "\(file.path) has \(file.size) bytes; the upload grant allows \(limit)", operation: "POST \(grant.uploadURL)")
        }
        let headers: HTTPHeaders = ["Authorization": "Bearer " + grant.token, "Content-Type": "application/octet-stream", "Accept": "application/json"]
        var request = HTTPRequest(method: "POST", url: grant.uploadURL, headers: headers, totalTimeout: timeout)
        request.bodyFile = file
        let response = try client.http.perform(request, cancellation: cancellation)
        guard (200...299).contains(response.status) else {
            throw IrdErrorTable.error(status: response.status, headers: response.headers, body: response.body, operation: "POST \(grant.uploadURL)")
        }
    }
}
