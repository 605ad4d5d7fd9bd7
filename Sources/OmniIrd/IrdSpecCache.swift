import OmniCodec
import OmniSystem
import OmniTransport

/// Where an OpenAPI document comes from: a URL (fetched, revalidated with its ETag) or a local file.
public enum IrdSpecSource: Sendable, Equatable, CustomStringConvertible {
    case url(String)
    case file(String)

    public static let defaultURL = "https://api.ird.ro/openapi.json"

    public init(_ text: String) {
        let lowered = text.lowercased()
        self = lowered.hasPrefix("https://") || lowered.hasPrefix("http://") ? .url(text) : .file(text)
    }

    public var description: String {
        switch self {
        case .url(let url): url
        case .file(let path): path
        }
    }
}

/// The cached document: `$XDG_CACHE_HOME/omni/ird/openapi.json` and, beside it, `openapi.meta.json` (source, ETag,
/// Last-Modified, when). Both written atomically; the document first, so the metadata never describes a file
/// that is not there.
public struct IrdSpecCache: Sendable {
    public struct Metadata: Sendable, Equatable {
        public let source: String
        public let etag: String?
        public let lastModified: String?
        /// RFC 3339.
        public let fetchedAt: String
        public let bytes: Int

        public init(source: String, etag: String?, lastModified: String?, fetchedAt: String, bytes: Int) {
            self.source = source
            self.etag = etag
            self.lastModified = lastModified
            self.fetchedAt = fetchedAt
            self.bytes = bytes
        }

        var json: JSONValue {
            var object = JSONObject()
            object["format"] = "omni-ird-spec-cache"
            object["version"] = 1
            object["source"] = .string(source)
            if let etag { object["etag"] = .string(etag) }
            if let lastModified { object["last_modified"] = .string(lastModified) }
            object["fetched_at"] = .string(fetchedAt)
            object["bytes"] = .int(bytes)
            return .object(object)
        }

        init?(json: JSONValue) {
            guard json["format"]?.stringValue == "omni-ird-spec-cache", let source = json["source"]?.stringValue,
                  let fetchedAt = json["fetched_at"]?.stringValue else { return nil }
            self.source = source
            etag = json["etag"]?.stringValue
            lastModified = json["last_modified"]?.stringValue
            self.fetchedAt = fetchedAt
            bytes = json["bytes"]?.int64Value.map { Int($0) } ?? 0
        }
    }

    public let directory: String

    public init(directories: Directories) { directory = directories.cache + "/ird" }
    public init(directory: String) { self.directory = directory }

    public var documentPath: String { directory + "/openapi.json" }
    public var metadataPath: String { directory + "/openapi.meta.json" }

    /// The cached document's bytes and metadata; nil when nothing is cached.
    public func load(limit: Int = OpenAPILimits.default.maxBytes) throws(IrdError) -> (bytes: [UInt8], metadata: Metadata?)? {
        let bytes: [UInt8]
        switch LocalFile.read(documentPath, limit: limit) {
        case .failure(.notFound): return nil
        case .failure(.tooLarge(let limit)):
            throw IrdError(.invalidDocument, "the cached document \(documentPath) is larger than \(limit) bytes")
        case .failure(let failure): throw IrdError(.configuration, "cannot read the cached document \(documentPath): \(failure)")
        case .success(let read): bytes = read
        }
        var metadata: Metadata?
        if case .success(let raw) = LocalFile.read(metadataPath, limit: 1 << 16), let json = try? JSONValue.parse(raw) {
            metadata = Metadata(json: json)
        }
        return (bytes, metadata)
    }

    public func store(_ bytes: [UInt8], metadata: Metadata) throws(IrdError) {
        do {
            try AtomicFile.write(bytes, to: documentPath, mode: 0o644, createDirectories: true, directoryMode: 0o755)
            try AtomicFile.write(metadata.json.serialized(pretty: true) + "\n", to: metadataPath, mode: 0o644)
        } catch {
            throw IrdError(.configuration, "cannot cache the OpenAPI document: \(error)")
        }
    }
}

/// Fetching a document: a local file is read; a URL is asked with `If-None-Match` when the cached copy came from it.
public enum IrdSpecFetcher {
    public enum Outcome: Sendable {
        /// 304: the cached copy is current.
        case unchanged
        case fetched(bytes: [UInt8], etag: String?, lastModified: String?)
    }

    public static func fetch(_ source: IrdSpecSource, cached: IrdSpecCache.Metadata?, client: HTTPClient,
                             limit: Int = OpenAPILimits.default.maxBytes) throws -> Outcome {
        switch source {
        case .file(let path):
            switch LocalFile.read(path, limit: limit) {
            case .success(let bytes): return .fetched(bytes: bytes, etag: nil, lastModified: nil)
            case .failure(.notFound): throw IrdError(.configuration, "\(path): no such file")
            case .failure(.tooLarge(let limit)): throw IrdError(.invalidDocument, "\(path) is larger than \(limit) bytes")
            case .failure(let failure): throw IrdError(.configuration, "cannot read \(path): \(failure)")
            }
        case .url(let url):
            var headers: HTTPHeaders = ["Accept": "application/json"]
            if let cached, cached.source == url {
                if let etag = cached.etag { headers.append(name: "If-None-Match", value: etag) }
                else if let modified = cached.lastModified { headers.append(name: "If-Modified-Since", value: modified) }
            }
            let response = try client.perform(HTTPRequest(url: url, headers: headers, maxResponseBytes: limit, maxRedirects: 3))
            switch response.status {
            case 304 where cached?.source == url: return .unchanged
            case 200: return .fetched(bytes: response.body, etag: response.headers["ETag"], lastModified: response.headers["Last-Modified"])
            default:
                throw IrdErrorTable.error(status: response.status, headers: response.headers, body: response.body, operation: "GET \(url)")
            }
        }
    }

    public static func now() -> String { RFC3339.format(.init(seconds: WallClock.unixSeconds())) }
}
