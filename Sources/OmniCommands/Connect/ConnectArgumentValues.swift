import OmniCLI
import OmniConnect

// The Connect values a command line carries, parsed once by the framework: a malformed one is exit 3 with the
// parser's reason, before the command runs.

extension ConnectTokenTransport: ArgumentValue {}

extension ConnectGeneration: ArgumentValue {}

extension ConnectNetworkID: ArgumentValue {
    public init?(argument: String) {
        guard let parsed = try? ConnectNetworkID(parsing: argument) else { return nil }
        self = parsed
    }

    public static var expectation: String { "64 hex digits or hash:<64 UPPERCASE hex>#<CRC>" }
    public static var isData: Bool { true }

    public static func problem(with text: String) -> String? {
        do { _ = try ConnectNetworkID(parsing: text) } catch { return error.message }
        return nil
    }

    public var argumentText: String { typedLiteral }
}

extension IrohaAccountID: ArgumentValue {
    public init?(argument: String) {
        guard let parsed = try? IrohaAccountID(parsing: argument) else { return nil }
        self = parsed
    }

    public static var expectation: String { "an I105 account id such as sora…" }
    public static var isData: Bool { true }

    public static func problem(with text: String) -> String? {
        do { _ = try IrohaAccountID(parsing: text) } catch { return error.message }
        return nil
    }

    public var argumentText: String { literal }
}

/// Bytes of a fixed length given as hex (optionally `0x`) or unpadded base64url: keys, nonces, sids.
protocol ConnectFixedBytes: ArgumentValue {
    static var byteCount: Int { get }
    static var what: String { get }
    var bytes: [UInt8] { get }
    init(checked bytes: [UInt8])
}

extension ConnectFixedBytes {
    init?(argument: String) {
        guard let bytes = try? ConnectText.parseBytes(argument, byteCount: Self.byteCount, what: Self.what) else { return nil }
        self.init(checked: bytes)
    }

    static var expectation: String { "\(what): \(byteCount * 2) hex digits or base64url of \(byteCount) bytes" }
    static var isData: Bool { true }

    static func problem(with text: String) -> String? {
        do { _ = try ConnectText.parseBytes(text, byteCount: byteCount, what: what) } catch { return error.message }
        return nil
    }

    var argumentText: String { ConnectText.base64URL(bytes) }
}

/// An X25519 public key (32 bytes).
struct ConnectPublicKeyValue: ConnectFixedBytes {
    static let byteCount = 32
    static let what = "X25519 public key"
    let bytes: [UInt8]
    init(checked bytes: [UInt8]) { self.bytes = bytes }
}

/// A session id (32 bytes).
struct ConnectSIDValue: ConnectFixedBytes {
    static let byteCount = 32
    static let what = "session id"
    let bytes: [UInt8]
    init(checked bytes: [UInt8]) { self.bytes = bytes }
}

/// A session nonce (16 bytes).
struct ConnectNonceValue: ConnectFixedBytes {
    static let byteCount = 16
    static let what = "nonce"
    let bytes: [UInt8]
    init(checked bytes: [UInt8]) { self.bytes = bytes }
}
