import OmniCandid
import OmniCodec

/// A reject: by the canister, or by the system before or during execution.
public struct Reject: Sendable, Equatable, CustomStringConvertible {
    public let code: RejectCode
    public let message: String
    /// The IC's error code, e.g. `IC0503`, when given.
    public let errorCode: String?
    /// Whether the reject came in a verified certificate (replicated) rather than in an unsigned response.
    public let certified: Bool

    public init(code: RejectCode, message: String, errorCode: String?, certified: Bool) {
        self.code = code
        self.message = message
        self.errorCode = errorCode
        self.certified = certified
    }

    public var description: String {
        "rejected (\(code)\(errorCode.map { ", \($0)" } ?? "")): \(message)"
    }
}

/// A reject code (interface spec § Reject codes); unknown codes are kept.
public struct RejectCode: RawRepresentable, Hashable, Sendable, CustomStringConvertible {
    public let rawValue: UInt64
    public init(rawValue: UInt64) { self.rawValue = rawValue }

    public static let systemFatal = RejectCode(rawValue: 1)
    public static let systemTransient = RejectCode(rawValue: 2)
    public static let destinationInvalid = RejectCode(rawValue: 3)
    public static let canisterReject = RejectCode(rawValue: 4)
    public static let canisterError = RejectCode(rawValue: 5)
    public static let systemUnknown = RejectCode(rawValue: 6)

    /// `SYS_FATAL`, `CANISTER_REJECT`, …, or `UNKNOWN`.
    public var name: String {
        switch rawValue {
        case 1: "SYS_FATAL"
        case 2: "SYS_TRANSIENT"
        case 3: "DESTINATION_INVALID"
        case 4: "CANISTER_REJECT"
        case 5: "CANISTER_ERROR"
        case 6: "SYS_UNKNOWN"
        default: "UNKNOWN"
        }
    }

    public var description: String { "\(rawValue) \(name)" }
}

/// The status of an update call as certified under `/request_status/<id>`.
public enum RequestStatus: Sendable, Equatable {
    /// The certificate proves the IC does not know the request (not yet received, or forgotten).
    case unknown
    case received
    case processing
    /// Terminal: the reply (`arg` bytes, usually Candid).
    case replied([UInt8])
    /// Terminal: a certified reject.
    case rejected(Reject)
    /// Terminal: the call finished but its reply or reject has been forgotten ("done without reply").
    case done

    /// Whether polling can stop.
    public var isTerminal: Bool {
        switch self {
        case .replied, .rejected, .done: true
        case .unknown, .received, .processing: false
        }
    }
}

extension VerifiedCertificate {
    /// Interprets `/request_status/<id>` per the specification: replied must come with a certified reply (never an
    /// empty one by default), rejected with a code and a message. A pruned status is a lookup failure, a proven
    /// absence is `.unknown`.
    public func requestStatus(_ id: RequestID) throws(ICError) -> RequestStatus {
        let base = StatePath.requestStatus(id)
        let statusPath = base.appending("status")
        let status: [UInt8]
        switch lookup(statusPath) {
        case .found(let value): status = value
        case .absent: return .unknown
        case .unknown, .error:
            throw ICError.verification(.lookup, "the certificate does not reveal the request status", location: statusPath.description)
        }
        switch String(decoding: status, as: UTF8.self) {
        case "received": return .received
        case "processing": return .processing
        case "done": return .done
        case "replied":
            let replyPath = base.appending("reply")
            guard case .found(let reply) = lookup(replyPath) else {
                throw ICError.verification(.lookup, "status is replied but the certificate has no reply", location: replyPath.description)
            }
            return .replied(reply)
        case "rejected":
            let codePath = base.appending("reject_code")
            guard case .found(let codeBytes) = lookup(codePath) else {
                throw ICError.verification(.lookup, "status is rejected but the certificate has no reject code", location: codePath.description)
            }
            let code = try LEB128Value.natural(codeBytes, what: codePath.description)
            let messagePath = base.appending("reject_message")
            guard case .found(let messageBytes) = lookup(messagePath) else {
                throw ICError.verification(.lookup, "status is rejected but the certificate has no reject message", location: messagePath.description)
            }
            guard let message = String(validating: messageBytes, as: UTF8.self) else {
                throw ICError.malformed("the reject message is not UTF-8", location: messagePath.description)
            }
            let errorPath = base.appending("error_code")
            var errorCode: String?
            switch lookup(errorPath) {
            case .found(let bytes):
                guard let text = String(validating: bytes, as: UTF8.self) else {
                    throw ICError.malformed("the error code is not UTF-8", location: errorPath.description)
                }
                errorCode = text
            case .absent: errorCode = nil
            case .unknown, .error:
                throw ICError.verification(.lookup, "the certificate hides whether the reject has an error code", location: errorPath.description)
            }
            return .rejected(Reject(code: RejectCode(rawValue: code), message: message, errorCode: errorCode, certified: true))
        default:
            throw ICError.malformed("unknown request status \"\(Principal.quotedSample(String(decoding: status, as: UTF8.self)))\"",
                                    location: statusPath.description)
        }
    }
}
