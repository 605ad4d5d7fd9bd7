import OmniCandid
import OmniCodec
import OmniCrypto

/// The content of a request to the IC's HTTPS interface (interface spec § Request: call, query, read_state),
/// with its request id and its CBOR form.
public struct ICRequest: Sendable, Equatable {
    /// What the request asks for.
    public enum Body: Sendable, Equatable {
        /// An update call (`request_type: "call"`).
        case call(canister: Principal, method: String, arg: [UInt8])
        /// A query (`request_type: "query"`).
        case query(canister: Principal, method: String, arg: [UInt8])
        /// A state read (`request_type: "read_state"`).
        case readState(paths: [StatePath])
    }

    /// The specification's limits.
    public static let maxNonceBytes = 32
    public static let maxPaths = 1000

    public var body: Body
    public var sender: Principal
    /// Nanoseconds since the Unix epoch after which the IC refuses the request.
    public var ingressExpiry: UInt64
    /// Up to 32 bytes that make otherwise identical requests distinct.
    public var nonce: [UInt8]?

    public init(_ body: Body, sender: Principal, ingressExpiry: UInt64, nonce: [UInt8]? = nil) throws(ICError) {
        if let nonce, nonce.count > ICRequest.maxNonceBytes {
            throw ICError(.invalidArgument, "a nonce is at most \(ICRequest.maxNonceBytes) bytes, got \(nonce.count)")
        }
        if case .readState(let paths) = body {
            guard paths.count <= ICRequest.maxPaths else {
                throw ICError(.invalidArgument, "a read_state request has at most \(ICRequest.maxPaths) paths, got \(paths.count)")
            }
            if let long = paths.first(where: { $0.labels.count > StatePath.maxLabels }) {
                throw ICError(.invalidArgument, "path \(long) has more than \(StatePath.maxLabels) labels")
            }
        }
        self.body = body
        self.sender = sender
        self.ingressExpiry = ingressExpiry
        self.nonce = nonce
    }

    /// `"call"`, `"query"` or `"read_state"`.
    public var requestType: String {
        switch body {
        case .call: "call"
        case .query: "query"
        case .readState: "read_state"
        }
    }

    /// The canister a call or query addresses (nil for read_state).
    public var canister: Principal? {
        switch body {
        case .call(let canister, _, _), .query(let canister, _, _): canister
        case .readState: nil
        }
    }

    /// The content map as sent in the envelope's `content` field.
    public var content: CBOR {
        var pairs: [CBOR.Pair] = [
            ("request_type", .text(requestType)),
            ("sender", .bytes(sender.bytes)),
            ("ingress_expiry", .unsigned(ingressExpiry)),
        ]
        if let nonce { pairs.append(("nonce", .bytes(nonce))) }
        switch body {
        case .call(let canister, let method, let arg), .query(let canister, let method, let arg):
            pairs.append(("canister_id", .bytes(canister.bytes)))
            pairs.append(("method_name", .text(method)))
            pairs.append(("arg", .bytes(arg)))
        case .readState(let paths):
            pairs.append(("paths", .array(paths.map { path in .array(path.labels.map { .bytes($0) }) })))
        }
        return .map(pairs)
    }

    /// The request id: the representation-independent hash of `content`.
    public var requestID: RequestID {
        // The content holds only text, bytes, integers and arrays of bytes, which always hash.
        guard let hash = try? RepresentationIndependentHash.hash(content) else {
            preconditionFailure("request content always has a representation-independent hash")
        }
        return RequestID(hash: hash)
    }

    /// Reads a request's content map (e.g. from an envelope signed elsewhere), refusing unknown request types,
    /// missing fields and values of the wrong type. Unknown extra fields are refused too: they would change
    /// the request id without the reader knowing what they mean.
    public init(content: CBOR) throws(ICError) {
        let fields = try CBORFields(content, what: "content")
        let known: Set<String> = ["request_type", "sender", "ingress_expiry", "nonce", "canister_id", "method_name",
                                  "arg", "paths"]
        for pair in fields.pairs {
            guard let key = pair.key.text, known.contains(key) else {
                throw ICError.malformed("content has an unsupported field \(pair.key.text.map { "\"\($0)\"" } ?? pair.key.kindName)")
            }
        }
        let type = try fields.text("request_type")
        let sender = try Principal.fromBytes(try fields.bytes("sender"), what: "content.sender")
        let expiry = try fields.natural("ingress_expiry")
        let nonce = try fields.optionalBytes("nonce")
        let body: Body
        switch type {
        case "call", "query":
            let canister = try Principal.fromBytes(try fields.bytes("canister_id"), what: "content.canister_id")
            let method = try fields.text("method_name")
            let arg = try fields.bytes("arg")
            body = type == "call" ? .call(canister: canister, method: method, arg: arg)
                : .query(canister: canister, method: method, arg: arg)
        case "read_state":
            var paths: [StatePath] = []
            for (index, item) in try fields.array("paths").enumerated() {
                guard let labels = item.array else { throw ICError.malformed("content.paths[\(index)] is not an array") }
                var path: [[UInt8]] = []
                for label in labels {
                    guard let bytes = label.bytes else { throw ICError.malformed("content.paths[\(index)] has a label that is not bytes") }
                    path.append(bytes)
                }
                paths.append(StatePath(path))
            }
            body = .readState(paths: paths)
        default:
            throw ICError.malformed("content.request_type \"\(Principal.quotedSample(type))\" is not call, query or read_state")
        }
        do {
            try self.init(body, sender: sender, ingressExpiry: expiry, nonce: nonce)
        } catch {
            throw ICError.malformed(error.message)
        }
    }

    /// A fresh random nonce (16 bytes unless asked otherwise, at most 32).
    public static func randomNonce(byteCount: Int = 16) -> [UInt8] {
        SecureRandom.bytes(min(max(byteCount, 0), maxNonceBytes))
    }
}

/// A request as sent over HTTP: `55799({content, ?sender_pubkey, ?sender_delegation, ?sender_sig})`.
public struct ICEnvelope: Sendable, Equatable {
    public var content: ICRequest
    /// DER public key of the sender (the delegation chain's root key for a delegated identity).
    public var senderPublicKey: [UInt8]?
    public var senderSignature: [UInt8]?
    public var senderDelegation: [SignedDelegation]?

    public init(content: ICRequest, senderPublicKey: [UInt8]? = nil, senderSignature: [UInt8]? = nil,
                senderDelegation: [SignedDelegation]? = nil) {
        self.content = content
        self.senderPublicKey = senderPublicKey
        self.senderSignature = senderSignature
        self.senderDelegation = senderDelegation
    }

    public var requestID: RequestID { content.requestID }

    /// The envelope as a CBOR map (without the self-describe tag).
    public var cbor: CBOR {
        var pairs: [CBOR.Pair] = [("content", content.content)]
        if let senderPublicKey { pairs.append(("sender_pubkey", .bytes(senderPublicKey))) }
        if let senderDelegation { pairs.append(("sender_delegation", .array(senderDelegation.map(\.cbor)))) }
        if let senderSignature { pairs.append(("sender_sig", .bytes(senderSignature))) }
        return .map(pairs)
    }

    /// The HTTP body: the envelope with the self-describe tag (`d9 d9 f7`).
    public func encoded() throws(ICError) -> [UInt8] {
        try ICCBOR.encode(cbor.selfDescribed, what: "envelope")
    }

    /// Reads an envelope (self-describe tag optional).
    public init(decoding bytes: [UInt8], maxBytes: Int = 10 << 20) throws(ICError) {
        let value = try ICCBOR.decode(bytes, what: "envelope", maxBytes: maxBytes, maxDepth: 16)
        let fields = try CBORFields(value, what: "envelope")
        for pair in fields.pairs {
            guard let key = pair.key.text, ["content", "sender_pubkey", "sender_delegation", "sender_sig"].contains(key) else {
                throw ICError.malformed("envelope has an unsupported field \(pair.key.text.map { "\"\($0)\"" } ?? pair.key.kindName)")
            }
        }
        content = try ICRequest(content: try fields.required("content"))
        senderPublicKey = try fields.optionalBytes("sender_pubkey")
        senderSignature = try fields.optionalBytes("sender_sig")
        if let delegations = fields.optionalNonNull("sender_delegation") {
            guard let items = delegations.array else { throw ICError.malformed("envelope.sender_delegation is not an array") }
            guard items.count <= DelegationChain.maxLength else {
                throw ICError.malformed("envelope.sender_delegation has \(items.count) delegations, at most \(DelegationChain.maxLength) are allowed")
            }
            var parsed: [SignedDelegation] = []
            for item in items { parsed.append(try SignedDelegation(cbor: item)) }
            senderDelegation = parsed
        } else {
            senderDelegation = nil
        }
    }
}
