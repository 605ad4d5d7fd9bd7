import OmniCodec
import OmniTransport

/// How a listing pages, read from the document: a GET whose answer has an array of items and either a
/// `next_cursor` field with a `cursor` query parameter (follow the cursor until it is null), or `limit` and
/// `offset` query parameters (walk the offset until a short page).
public struct IrdPagination: Sendable, Equatable {
    public enum Style: Sendable, Equatable {
        case cursor(parameter: String, field: String)
        case offset(parameter: String)
    }

    public let style: Style
    /// The answer's field holding the page's items.
    public let itemsField: String
    /// The page-size query parameter, when there is one.
    public let limitParameter: String?
    /// The page-size parameter's `maximum`, when the document gives one.
    public let maximumPageSize: Int?
    /// Its `default`, when the document gives one.
    public let defaultPageSize: Int?

    public static let cursorParameters = ["cursor", "page_token", "after"]
    public static let cursorFields = ["next_cursor", "next_page_token", "next"]

    public static func of(_ operation: Operation, in document: OpenAPIDocument) -> IrdPagination? {
        guard operation.method == "GET", let schemaRef = operation.success?.json?.schema else { return nil }
        let schema = document[schemaRef]
        guard let items = schema.properties.first(where: { document[$0.schema].types?.contains(.array) == true })?.name else { return nil }
        let query = operation.parameters(in: .query)
        let limit = query.first { $0.name == "limit" || $0.name == "page_size" }
        let limitSchema = limit?.schema.map { document[$0] }
        let maximum = limitSchema?.maximum.flatMap { Int($0) }
        let defaultSize = limitSchema?.defaultValue?.int64Value.map(Int.init)
        if let field = cursorFields.first(where: { schema.property($0) != nil }),
           let parameter = query.first(where: { cursorParameters.contains($0.name) }) {
            return IrdPagination(style: .cursor(parameter: parameter.name, field: field), itemsField: items, limitParameter: limit?.name,
                                 maximumPageSize: maximum, defaultPageSize: defaultSize)
        }
        if let offset = query.first(where: { $0.name == "offset" }), let limit {
            return IrdPagination(style: .offset(parameter: offset.name), itemsField: items, limitParameter: limit.name,
                                 maximumPageSize: maximum, defaultPageSize: defaultSize)
        }
        return nil
    }
}

/// Reads every page of a listing (`--all`), handing each item on as it arrives, at most `maxItems` of them.
public struct IrdPager {
    public let client: IrdClient
    public let operation: Operation
    public let pagination: IrdPagination
    public var maxPages = 100_000

    public init(client: IrdClient, operation: Operation, pagination: IrdPagination) {
        self.client = client
        self.operation = operation
        self.pagination = pagination
    }

    /// The `limit` given in `input` caps the items (not only the first page); pages then ask for what is left, up to
    /// the document's maximum page size. Returns the drift of every page.
    @discardableResult
    public func run(_ input: IrdCallInput, label: @escaping @Sendable (Parameter) -> String = { "\($0.location.rawValue) parameter '\($0.name)'" },
                    cancellation: HTTPCancellation? = nil, each: (JSONValue) throws -> Void) throws -> [ValidationIssue] {
        var input = input
        let cap: Int? = pagination.limitParameter.flatMap { input.query[$0]?.first }.flatMap { Int($0) }
        var delivered = 0
        var drift: [ValidationIssue] = []
        var offset = 0
        if case .offset(let parameter) = pagination.style { offset = input.query[parameter]?.first.flatMap { Int($0) } ?? 0 }
        for _ in 0..<maxPages {
            var pageSize: Int?
            if let name = pagination.limitParameter {
                if let cap {
                    let left = cap - delivered
                    pageSize = min(left, pagination.maximumPageSize ?? left)
                    input.query[name] = [String(pageSize!)]
                } else {
                    pageSize = pagination.defaultPageSize
                }
            }
            let answer = try client.call(operation, input, label: label, cancellation: cancellation)
            drift += answer.drift
            let json = answer.json ?? .null
            let items = json[pagination.itemsField]?.arrayValue ?? []
            for item in items {
                guard cap.map({ delivered < $0 }) ?? true else { break }
                try each(item)
                delivered += 1
            }
            if let cap, delivered >= cap { break }
            switch pagination.style {
            case .cursor(let parameter, let field):
                guard let next = json[field]?.stringValue, !next.isEmpty else { return drift }
                input.query[parameter] = [next]
            case .offset(let parameter):
                guard !items.isEmpty else { return drift }
                let size = pageSize ?? json["limit"]?.int64Value.map(Int.init)
                offset += items.count
                if let size, items.count < size { return drift }
                if let total = json["total"]?.int64Value, offset >= total { return drift }
                input.query[parameter] = [String(offset)]
            }
        }
        return drift
    }
}
