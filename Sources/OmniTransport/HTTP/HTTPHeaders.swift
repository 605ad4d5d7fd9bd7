/// One header field as sent or received, spelled as written.
public struct HTTPHeader: Sendable, Equatable {
    public var name: String
    public var value: String

    public init(name: String, value: String) {
        self.name = name
        self.value = value
    }
}

/// An ordered list of header fields. Repeated names are kept (and sent) in order; lookups ignore ASCII case,
/// as HTTP field names are case-insensitive.
public struct HTTPHeaders: Sendable, Equatable, RandomAccessCollection, ExpressibleByDictionaryLiteral {
    public private(set) var fields: [HTTPHeader]

    public init(_ fields: [HTTPHeader] = []) {
        self.fields = fields
    }

    /// Dictionary-literal syntax keeps the written order and allows repeated names.
    public init(dictionaryLiteral elements: (String, String)...) {
        fields = elements.map { HTTPHeader(name: $0.0, value: $0.1) }
    }

    public var startIndex: Int { fields.startIndex }
    public var endIndex: Int { fields.endIndex }
    public subscript(position: Int) -> HTTPHeader { fields[position] }

    /// The first value of `name`, or nil.
    public subscript(name: String) -> String? {
        fields.first { HTTP1Head.equalsIgnoringCase($0.name, name) }?.value
    }

    /// Every value of `name`, in order.
    public func values(for name: String) -> [String] {
        fields.filter { HTTP1Head.equalsIgnoringCase($0.name, name) }.map(\.value)
    }

    public func contains(name: String) -> Bool {
        fields.contains { HTTP1Head.equalsIgnoringCase($0.name, name) }
    }

    public mutating func append(name: String, value: String) {
        fields.append(HTTPHeader(name: name, value: value))
    }
}
