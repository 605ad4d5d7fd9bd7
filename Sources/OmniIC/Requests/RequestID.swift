import OmniCandid
import OmniCodec

/// A request id: the representation-independent hash of a request's content (32 bytes).
public struct RequestID: Hashable, Sendable, CustomStringConvertible {
    public static let byteCount = 32
    public let bytes: [UInt8]

    public init(bytes: [UInt8]) throws(ICError) {
        guard bytes.count == RequestID.byteCount else {
            throw ICError.malformed("a request id is 32 bytes, got \(bytes.count)")
        }
        self.bytes = bytes
    }

    /// 64 hex digits, optionally prefixed with `0x` (the form dfx prints).
    public init(hex: String) throws(ICError) {
        let decoded: [UInt8]
        do { decoded = try Hex.decode(hex, allowPrefix: true) } catch { throw ICError.codec(error, "request id") }
        try self.init(bytes: decoded)
    }

    init(hash: [UInt8]) { bytes = hash }

    /// 64 lowercase hex digits.
    public var hex: String { Hex.encode(bytes) }
    /// `0x` and 64 lowercase hex digits, as dfx and the specification print request ids.
    public var prefixedHex: String { "0x" + hex }
    public var description: String { prefixedHex }
}

/// A path into the certified state tree: a sequence of byte-string labels (`/request_status/<id>/reply`).
public struct StatePath: Hashable, Sendable, CustomStringConvertible, ExpressibleByArrayLiteral {
    /// The specification's limit on labels per read_state path.
    public static let maxLabels = 127

    public var labels: [[UInt8]]

    public init(_ labels: [[UInt8]]) { self.labels = labels }

    /// Labels given as text (UTF-8).
    public init(_ labels: String...) { self.labels = labels.map { Array($0.utf8) } }

    public init(arrayLiteral elements: String...) { labels = elements.map { Array($0.utf8) } }

    /// This path with one more label.
    public func appending(_ label: [UInt8]) -> StatePath { StatePath(labels + [label]) }
    public func appending(_ label: String) -> StatePath { appending(Array(label.utf8)) }

    public static let time: StatePath = ["time"]

    /// `/subnet/<subnet>/public_key`.
    public static func subnetPublicKey(_ subnet: [UInt8]) -> StatePath { StatePath([Array("subnet".utf8), subnet, Array("public_key".utf8)]) }

    /// `/request_status/<request id>`.
    public static func requestStatus(_ id: RequestID) -> StatePath { StatePath([Array("request_status".utf8), id.bytes]) }

    /// `/canister/<canister>/metadata/<name>`, e.g. `candid:service`.
    public static func canisterMetadata(_ canister: [UInt8], name: String) -> StatePath {
        StatePath([Array("canister".utf8), canister, Array("metadata".utf8), Array(name.utf8)])
    }

    /// `/a/b/…`: printable ASCII labels as text, principal-sized binary labels as principals, others as hex.
    public var description: String {
        labels.isEmpty ? "/" : labels.map { "/" + StatePath.describe($0) }.joined()
    }

    static func describe(_ label: [UInt8]) -> String {
        if !label.isEmpty, label.allSatisfy({ (0x21...0x7e).contains($0) && $0 != UInt8(ascii: "/") }) {
            return String(decoding: label, as: UTF8.self)
        }
        if (label.count == 10 || label.count == 29), let principal = try? Principal.fromBytes(label) {
            return principal.text
        }
        return Hex.encode(label)
    }
}
