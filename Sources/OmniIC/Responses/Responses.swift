import OmniCandid
import OmniCodec
import OmniCrypto

/// Response bodies of the HTTPS interface, parsed but not yet verified.
public enum ResponseLimits {
    /// The default cap on response bodies (the agent may set a lower one).
    public static let maxBytes = 10 << 20
}

/// The 200 body of `read_state`: `{certificate: bytes}`.
public enum ReadStateResponse {
    public static func certificate(from body: [UInt8], maxBytes: Int = ResponseLimits.maxBytes) throws(ICError) -> [UInt8] {
        let value = try ICCBOR.decode(body, what: "read_state response", maxBytes: maxBytes, maxDepth: 4)
        return try CBORFields(value, what: "read_state response").bytes("certificate")
    }
}

/// The 200 body of a synchronous call (v3/v4) or the reject body of a v2 call.
public enum CallResponse: Sendable, Equatable {
    /// `{status: "replied", certificate}`: verify the certificate, then read the request status from it.
    case certificate([UInt8])
    /// A reject outside consensus (`non_replicated_rejection`, or a v2 call's 200 reject body): not certified.
    case rejected(Reject)

    public init(decoding body: [UInt8], maxBytes: Int = ResponseLimits.maxBytes) throws(ICError) {
        let value = try ICCBOR.decode(body, what: "call response", maxBytes: maxBytes, maxDepth: 4)
        let fields = try CBORFields(value, what: "call response")
        let status = try fields.optionalText("status")
        switch status {
        case "replied":
            self = .certificate(try fields.bytes("certificate"))
        case "non_replicated_rejection", nil:
            self = .rejected(try Reject(uncertified: fields))
        default:
            throw ICError.malformed("call response status \"\(Principal.quotedSample(status ?? ""))\" is not replied or non_replicated_rejection")
        }
    }
}

extension Reject {
    /// `{reject_code, reject_message, ?error_code}` from an unsigned response.
    init(uncertified fields: CBORFields) throws(ICError) {
        self.init(code: RejectCode(rawValue: try fields.natural("reject_code")), message: try fields.text("reject_message"),
                  errorCode: try fields.optionalText("error_code"), certified: false)
    }
}

/// One node's signature on a query response.
public struct NodeSignature: Sendable, Equatable {
    /// Nanoseconds since the epoch, as the node signed it.
    public let timestamp: UInt64
    /// Ed25519 signature over `0x0B "ic-response" ‖ hash_of_map(response, timestamp, request_id)`.
    public let signature: [UInt8]
    /// The node id (self-authenticating id of its key).
    public let identity: Principal

    public init(timestamp: UInt64, signature: [UInt8], identity: Principal) {
        self.timestamp = timestamp
        self.signature = signature
        self.identity = identity
    }
}

/// The 200 body of a query.
public struct QueryResponse: Sendable, Equatable {
    public enum Outcome: Sendable, Equatable {
        case replied([UInt8])
        /// A reject signed by the replica's nodes (not certified by consensus: `certified` is false).
        case rejected(Reject)
    }

    public let outcome: Outcome
    public let signatures: [NodeSignature]

    public init(outcome: Outcome, signatures: [NodeSignature]) {
        self.outcome = outcome
        self.signatures = signatures
    }

    public init(decoding body: [UInt8], maxBytes: Int = ResponseLimits.maxBytes) throws(ICError) {
        let value = try ICCBOR.decode(body, what: "query response", maxBytes: maxBytes, maxDepth: 8)
        let fields = try CBORFields(value, what: "query response")
        switch try fields.text("status") {
        case "replied":
            let reply = try CBORFields(try fields.required("reply"), what: "query response.reply")
            outcome = .replied(try reply.bytes("arg"))
        case "rejected":
            outcome = .rejected(try Reject(uncertified: fields))
        case let other:
            throw ICError.malformed("query response status \"\(Principal.quotedSample(other))\" is not replied or rejected")
        }
        var parsed: [NodeSignature] = []
        if let list = fields.optionalNonNull("signatures") {
            guard let items = list.array else { throw ICError.malformed("query response.signatures is not an array") }
            guard items.count <= 1000 else { throw ICError.malformed("query response has \(items.count) signatures") }
            for (index, item) in items.enumerated() {
                let entry = try CBORFields(item, what: "query response.signatures[\(index)]")
                parsed.append(NodeSignature(timestamp: try entry.natural("timestamp"), signature: try entry.bytes("signature"),
                                            identity: try Principal.fromBytes(try entry.bytes("identity"), what: "node identity")))
            }
        }
        signatures = parsed
    }

    /// The map a node signs for `timestamp` and `requestID` (interface spec § Query call): the response fields,
    /// the timestamp and the request id.
    public func signedMap(timestamp: UInt64, requestID: RequestID) -> CBOR {
        var pairs: [CBOR.Pair]
        switch outcome {
        case .replied(let arg):
            pairs = [("status", "replied"), ("reply", .map([("arg", .bytes(arg))]))]
        case .rejected(let reject):
            pairs = [("status", "rejected"), ("reject_code", .unsigned(reject.code.rawValue)), ("reject_message", .text(reject.message))]
            if let errorCode = reject.errorCode { pairs.append(("error_code", .text(errorCode))) }
        }
        pairs.append(("timestamp", .unsigned(timestamp)))
        pairs.append(("request_id", .bytes(requestID.bytes)))
        return .map(pairs)
    }

    /// The exact bytes a node signs: `0x0B "ic-response" ‖ hash_of_map(signedMap)`.
    public func signedMessage(timestamp: UInt64, requestID: RequestID) -> [UInt8] {
        guard let hash = try? RepresentationIndependentHash.hash(signedMap(timestamp: timestamp, requestID: requestID)) else {
            preconditionFailure("a query response map always hashes")
        }
        return DomainSeparator.response + hash
    }

    /// Checks every node signature (there must be at least one) with the node keys of the subnet that answered;
    /// `freshness`, when given, bounds each signature's timestamp. Fails with reason `node_signature` (missing
    /// signature, unknown node, bad signature) or `time`. An unknown node or a bad signature may mean the cached
    /// keys are stale: refresh them once, then treat the failure as final.
    public func verify(requestID: RequestID, subnet: SubnetInfo, freshness: Freshness? = nil) throws(ICError) {
        guard !signatures.isEmpty else {
            throw ICError.verification(.nodeSignature, "the query response carries no node signature")
        }
        for entry in signatures {
            guard let der = subnet.nodeKeys[entry.identity] else {
                throw ICError.verification(.nodeSignature, "node \(entry.identity) is not a node of subnet \(subnet.subnetID)")
            }
            let key: Ed25519.PublicKey
            do { key = try Ed25519.PublicKey(derRepresentation: der) } catch {
                throw ICError.verification(.nodeSignature, "node \(entry.identity) has a key that is not Ed25519: \(error.message)")
            }
            let message = signedMessage(timestamp: entry.timestamp, requestID: requestID)
            let valid = (try? key.isValidSignature(entry.signature, for: message)) ?? false
            guard valid else {
                throw ICError.verification(.nodeSignature, "the signature of node \(entry.identity) does not verify")
            }
            if let freshness { try freshness.check(entry.timestamp, what: "query signature") }
        }
    }
}
