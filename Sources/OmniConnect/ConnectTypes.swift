import OmniCodec

/// Which side a party plays. Norito unit enum: `u32` tag.
public enum ConnectRole: UInt32, Sendable, CaseIterable, CustomStringConvertible {
    case app = 0
    case wallet = 1

    /// The direction of frames this role sends.
    public var outbound: ConnectDirection { self == .app ? .appToWallet : .walletToApp }
    /// The direction of frames this role receives.
    public var inbound: ConnectDirection { self == .app ? .walletToApp : .appToWallet }
    public var peer: ConnectRole { self == .app ? .wallet : .app }
    public var description: String { self == .app ? "app" : "wallet" }
}

/// Frame direction. Norito unit enum: `u32` tag; one byte in the AEAD's associated data.
public enum ConnectDirection: UInt32, Sendable, CaseIterable, CustomStringConvertible {
    case appToWallet = 0
    case walletToApp = 1

    public var sender: ConnectRole { self == .appToWallet ? .app : .wallet }
    public var receiver: ConnectRole { sender.peer }
    public var description: String { self == .appToWallet ? "app_to_wallet" : "wallet_to_app" }
}

/// Signature algorithm tags (Iroha's `Algorithm`).
public enum ConnectAlgorithm: UInt8, Sendable, CaseIterable, CustomStringConvertible {
    case ed25519 = 0
    case secp256k1 = 1
    case blsNormal = 2
    case blsSmall = 3
    case mlDsa = 4
    case gost256A = 5
    case gost256B = 6
    case gost256C = 7
    case gost512A = 8
    case gost512B = 9
    case sm2 = 10

    public var description: String {
        switch self {
        case .ed25519: "ed25519"
        case .secp256k1: "secp256k1"
        case .blsNormal: "bls_normal"
        case .blsSmall: "bls_small"
        case .mlDsa: "ml-dsa"
        case .gost256A: "gost3410-2012-256-paramset-a"
        case .gost256B: "gost3410-2012-256-paramset-b"
        case .gost256C: "gost3410-2012-256-paramset-c"
        case .gost512A: "gost3410-2012-512-paramset-a"
        case .gost512B: "gost3410-2012-512-paramset-b"
        case .sm2: "sm2"
        }
    }

    public init?(name: String) {
        guard let match = Self.allCases.first(where: { $0.description == name.lowercased() }) else { return nil }
        self = match
    }
}

/// A 32-byte Iroha network id.
public struct ConnectNetworkID: Hashable, Sendable, CustomStringConvertible {
    public static let byteCount = 32
    public let bytes: [UInt8]

    public init(bytes: [UInt8]) throws(ConnectError) {
        guard bytes.count == Self.byteCount else {
            throw ConnectError(.malformed, "network id must be 32 bytes, got \(bytes.count)")
        }
        self.bytes = bytes
    }

    /// For callers that read exactly 32 bytes.
    init(exactly bytes: [UInt8]) { self.bytes = bytes }

    /// Accepts the typed literal `hash:<64 UPPERCASE hex>#<CRC-16>` (checked) or 64 hex digits.
    public init(parsing text: String) throws(ConnectError) {
        let trimmed = text.trimmingSpaces
        if trimmed.hasPrefix("hash:") {
            let body = trimmed.dropFirst(5)
            guard let hash = body.firstIndex(of: "#") else {
                throw ConnectError(.malformed, "network id literal '\(trimmed)' has no '#CRC' suffix")
            }
            let hexPart = String(body[..<hash])
            let crcPart = String(body[body.index(after: hash)...])
            guard hexPart.utf8.count == 64, hexPart.utf8.allSatisfy({ (48...57).contains($0) || (65...70).contains($0) }) else {
                throw ConnectError(.malformed, "network id literal must carry 64 uppercase hex digits after 'hash:'")
            }
            let expected = Self.checksum(hexUppercase: hexPart)
            guard crcPart == expected else {
                throw ConnectError(.malformed, "network id literal checksum is #\(crcPart), expected #\(expected)")
            }
            bytes = try ConnectText.parseHex(hexPart, byteCount: 32, what: "network id")
        } else {
            bytes = try ConnectText.parseHex(trimmed, byteCount: 32, what: "network id")
        }
    }

    /// `hash:<UPPERCASE hex>#<CRC-16/CCITT-FALSE of "hash:" ‖ hex>`, the form Torii puts in JSON and URIs.
    public var typedLiteral: String {
        let hexPart = ConnectText.hex(bytes).uppercased()
        return "hash:" + hexPart + "#" + Self.checksum(hexUppercase: hexPart)
    }

    public var hex: String { ConnectText.hex(bytes) }
    public var description: String { typedLiteral }

    private static func checksum(hexUppercase: String) -> String {
        var crc: UInt16 = 0xFFFF
        for byte in ("hash:" + hexUppercase).utf8 {
            crc ^= UInt16(byte) << 8
            for _ in 0..<8 { crc = crc & 0x8000 != 0 ? (crc << 1) ^ 0x1021 : crc << 1 }
        }
        return Hex.encode([UInt8(crc >> 8), UInt8(crc & 0xFF)], uppercase: true)
    }
}

/// What a session is bound to: Gen B's network id or Gen A's chain id. Carried in `Open.constraints` and in the sid.
public enum ConnectConstraints: Hashable, Sendable {
    case network(ConnectNetworkID)
    case chain(String)
}

public struct ConnectAppMetadata: Hashable, Sendable {
    public var name: String
    public var url: String?
    public var iconHash: String?

    public init(name: String, url: String? = nil, iconHash: String? = nil) {
        self.name = name
        self.url = url
        self.iconHash = iconHash
    }
}

public struct ConnectPermissions: Hashable, Sendable {
    public var methods: [String]
    public var events: [String]
    public var resources: [String]?

    public init(methods: [String], events: [String] = [], resources: [String]? = nil) {
        self.methods = methods
        self.events = events
        self.resources = resources
    }
}

public struct ConnectSignInProof: Hashable, Sendable {
    public var domain: String
    public var uri: String
    public var statement: String
    public var issuedAt: String
    public var nonce: String

    public init(domain: String, uri: String, statement: String, issuedAt: String, nonce: String) {
        self.domain = domain
        self.uri = uri
        self.statement = statement
        self.issuedAt = issuedAt
        self.nonce = nonce
    }
}

public struct ConnectWalletSignature: Hashable, Sendable {
    public var algorithm: ConnectAlgorithm
    public var bytes: [UInt8]

    public init(algorithm: ConnectAlgorithm, bytes: [UInt8]) {
        self.algorithm = algorithm
        self.bytes = bytes
    }
}

public struct ConnectOpen: Hashable, Sendable {
    public var appPublicKey: [UInt8]
    public var appMetadata: ConnectAppMetadata?
    public var constraints: ConnectConstraints
    public var permissions: ConnectPermissions?

    public init(appPublicKey: [UInt8], appMetadata: ConnectAppMetadata? = nil, constraints: ConnectConstraints,
                permissions: ConnectPermissions? = nil) {
        self.appPublicKey = appPublicKey
        self.appMetadata = appMetadata
        self.constraints = constraints
        self.permissions = permissions
    }
}

public struct ConnectApprove: Hashable, Sendable {
    public var walletPublicKey: [UInt8]
    public var accountID: String
    public var permissions: ConnectPermissions?
    public var proof: ConnectSignInProof?
    public var signature: ConnectWalletSignature

    public init(walletPublicKey: [UInt8], accountID: String, permissions: ConnectPermissions? = nil,
                proof: ConnectSignInProof? = nil, signature: ConnectWalletSignature) {
        self.walletPublicKey = walletPublicKey
        self.accountID = accountID
        self.permissions = permissions
        self.proof = proof
        self.signature = signature
    }
}

public struct ConnectReject: Hashable, Sendable {
    public var code: UInt16
    public var codeID: String
    public var reason: String

    public init(code: UInt16, codeID: String, reason: String) {
        self.code = code
        self.codeID = codeID
        self.reason = reason
    }
}

public struct ConnectClose: Hashable, Sendable {
    public var who: ConnectRole
    public var code: UInt16
    public var reason: String
    public var retryable: Bool

    public init(who: ConnectRole, code: UInt16, reason: String, retryable: Bool = false) {
        self.who = who
        self.code = code
        self.reason = reason
        self.retryable = retryable
    }

    /// The close code Torii uses for terminating a session (a control frame, not a WebSocket close).
    public static let controlCloseCode: UInt16 = 4002
}

public enum ConnectServerEvent: Hashable, Sendable {
    case blockProofs(height: UInt64, entryHash: String, proofsJSON: String)
}

/// `ConnectControlV1`: the plaintext controls.
public enum ConnectControl: Hashable, Sendable {
    case open(ConnectOpen)
    case approve(ConnectApprove)
    case reject(ConnectReject)
    case close(ConnectClose)
    case ping(nonce: UInt64)
    case pong(nonce: UInt64)
    case serverEvent(ConnectServerEvent)

    public var name: String {
        switch self {
        case .open: "open"
        case .approve: "approve"
        case .reject: "reject"
        case .close: "close"
        case .ping: "ping"
        case .pong: "pong"
        case .serverEvent: "server_event"
        }
    }
}

/// `ConnectCiphertextV1`: the inner direction (must equal the frame's) and `ciphertext ‖ tag`.
public struct ConnectCiphertext: Hashable, Sendable {
    public var direction: ConnectDirection
    public var aead: [UInt8]

    public init(direction: ConnectDirection, aead: [UInt8]) {
        self.direction = direction
        self.aead = aead
    }
}

/// `ConnectFrameV1`: one WebSocket binary message.
public struct ConnectFrame: Hashable, Sendable {
    public enum Kind: Hashable, Sendable {
        case control(ConnectControl)
        case ciphertext(ConnectCiphertext)
    }

    public var sid: [UInt8]
    public var direction: ConnectDirection
    public var sequence: UInt64
    public var kind: Kind

    public init(sid: [UInt8], direction: ConnectDirection, sequence: UInt64, kind: Kind) {
        self.sid = sid
        self.direction = direction
        self.sequence = sequence
        self.kind = kind
    }

    public var control: ConnectControl? {
        if case .control(let control) = kind { return control }
        return nil
    }
}

/// `ControlAfterKeyV1`: controls sent encrypted once keys exist.
public enum ConnectControlAfterKey: Hashable, Sendable {
    case close(ConnectClose)
    case reject(ConnectReject)
}

/// `ConnectPayloadV1`: what travels inside the AEAD.
public enum ConnectPayload: Hashable, Sendable {
    case control(ConnectControlAfterKey)
    case signRequestRaw(domainTag: String, bytes: [UInt8])
    case signRequestTx(txBytes: [UInt8])
    case signResultOk(ConnectWalletSignature)
    case signResultErr(code: String, message: String)
    case displayRequest(title: String, body: String)

    public var name: String {
        switch self {
        case .control(.close): "close"
        case .control(.reject): "reject"
        case .signRequestRaw: "sign_request_raw"
        case .signRequestTx: "sign_request_tx"
        case .signResultOk: "sign_result_ok"
        case .signResultErr: "sign_result_err"
        case .displayRequest: "display_request"
        }
    }
}

/// `EnvelopeV1`: the plaintext of a ciphertext frame; `sequence` must equal the frame's.
public struct ConnectEnvelope: Hashable, Sendable {
    public var sequence: UInt64
    public var payload: ConnectPayload

    public init(sequence: UInt64, payload: ConnectPayload) {
        self.sequence = sequence
        self.payload = payload
    }
}
