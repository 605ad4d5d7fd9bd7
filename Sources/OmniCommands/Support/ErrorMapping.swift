import OmniBLS
import OmniAttest
import OmniCandid
import OmniCandidBind
import OmniCLI
import OmniCodec
import OmniConnect
import OmniCrypto
import OmniIC
import OmniIrd
import OmniSystem
import OmniTransport
import OmniTruAPI

/// The one place domain errors become what the user sees and the exit code (CLIError is handled by the
/// framework itself). Kinds are stable snake_case strings for `--output json`.
public enum ErrorMapping {
    public static func report(_ error: Error) -> ErrorReport? {
        switch error {
        case let error as CodecError:
            return ErrorReport(kind: "malformed_input", message: error.description, exitCode: .malformedInput)
        case let error as CryptoError:
            switch error.kind {
            case .invalidInput, .invalidKey:
                return ErrorReport(kind: "malformed_input", message: error.description, exitCode: .malformedInput)
            case .verificationFailed, .certificateInvalid:
                return ErrorReport(kind: "verification_failed", message: error.description, exitCode: .failure)
            case .library:
                return ErrorReport(kind: "internal", message: error.description, exitCode: .internalError)
            }
        case let error as CandidError:
            return candid(error)
        case let error as CandidBindError:
            // A manifest or interface that cannot be turned into Swift: the input is at fault.
            return ErrorReport(kind: error.kind == .unsupported ? "unsupported" : "malformed_input", message: error.description,
                               exitCode: .malformedInput)
        case let error as TransportError:
            return transport(error)
        case let error as BLSError:
            // Thrown only for bytes that cannot be a point at all (length, DER prefix); commands turn decodable but
            // invalid points into verdicts themselves.
            return ErrorReport(kind: "malformed_input", message: error.description, exitCode: .malformedInput)
        case let error as ConnectError:
            let exitCode: ExitCode = switch error.kind {
            case .malformed: .malformedInput
            case .protocolViolation, .verificationFailed: .failure
            case .rejected, .remote: .rejected
            case .unauthorized: .unauthorized
            case .timeout: .network
            case .configuration: .configuration
            }
            return ErrorReport(kind: error.kind == .malformed ? "malformed_input" : error.kind.rawValue, message: error.description,
                               exitCode: exitCode)
        case let error as AttestError:
            // Refused evidence is a verdict (exit 1), never an error; these are arguments or a store unfit to use.
            switch error.kind {
            case .invalidArgument:
                return ErrorReport(kind: "malformed_input", message: error.description, exitCode: .malformedInput)
            case .store:
                return ErrorReport(kind: "store", message: error.description, exitCode: .configuration)
            }
        case let error as ICError:
            return ic(error)
        case let error as TruAPIError:
            return truapi(error)
        case let error as IrdError:
            return ird(error)
        case let error as SystemError:
            // A local file could not be written or read (permissions, disk full): the environment, not the input.
            return ErrorReport(kind: "file_system", message: error.description, exitCode: .configuration)
        default:
            return nil
        }
    }

    /// Every Candid failure is about the input (bytes, text, types or .did files given), so all exit 3; the kind
    /// tells scripts which: the data itself is broken, it does not fit the types, it is too big, or a .did is wrong.
    static func candid(_ error: CandidError) -> ErrorReport {
        switch error.kind {
        case .malformed, .syntax:
            return ErrorReport(kind: "malformed_input", message: error.description, exitCode: .malformedInput)
        case .typeMismatch:
            return ErrorReport(kind: "type_mismatch", message: error.description, exitCode: .malformedInput)
        case .limitExceeded:
            // Only binary decoding (which has byte offsets) takes --work-budget.
            return ErrorReport(kind: "limit_exceeded", message: error.description, exitCode: .malformedInput,
                               hint: error.offset != nil && error.message.contains("work budget")
                                   ? "For a large message you trust, raise the limit with --work-budget UNITS." : nil)
        case .invalidType:
            return ErrorReport(kind: "invalid_type", message: error.description, exitCode: .malformedInput)
        case .importFailed:
            return ErrorReport(kind: "import_failed", message: error.description, exitCode: .malformedInput)
        case .duplicateLabel:
            return ErrorReport(kind: "duplicate_label", message: error.description, exitCode: .malformedInput)
        }
    }

    /// IC library errors: `kind` decides the exit code; a failed verification names its reason in the message.
    static func ic(_ error: ICError) -> ErrorReport {
        switch error.kind {
        case .malformed:
            return ErrorReport(kind: "malformed_input", message: error.description, exitCode: .malformedInput)
        case .verificationFailed:
            return ErrorReport(kind: "verification_failed", message: error.description, exitCode: .failure)
        case .configuration where error.reason == .time:
            // This machine's clock, not the identity store: the message says how far off it is and what to do.
            return ErrorReport(kind: "configuration", message: error.description, exitCode: .configuration)
        case .configuration:
            return ErrorReport(kind: "configuration", message: error.description, exitCode: .configuration,
                               hint: error.reason == nil ? "see 'omni ic identity list'" : nil)
        case .invalidArgument:
            return ErrorReport(kind: "invalid_argument", message: error.description, exitCode: .usage)
        case .unauthorized:
            // Refused here, before sending: the IC would refuse it for the same reason.
            return ErrorReport(kind: "unauthorized", message: error.description, exitCode: .unauthorized)
        case .unsupported:
            return ErrorReport(kind: "unsupported", message: error.description, exitCode: .malformedInput)
        case .storage:
            return ErrorReport(kind: "storage", message: error.description, exitCode: .configuration)
        case .internalFailure:
            return ErrorReport(kind: "internal", message: error.description, exitCode: .internalError)
        }
    }

    /// An Err answer is the method's negative answer (1); a framework error is the host refusing (4).
    static func truapi(_ error: TruAPIError) -> ErrorReport {
        let exitCode: ExitCode = switch error.kind {
        case .malformed: .malformedInput
        case .domainError: .failure
        case .callError: .rejected
        case .unauthorized: .unauthorized
        case .network: .network
        case .configuration: .configuration
        }
        return ErrorReport(kind: error.kind == .malformed ? "malformed_input" : error.kind.rawValue, message: error.description,
                           exitCode: exitCode)
    }

    /// The one ird error table (docs/ird.md lists it): 401/403 and a missing credential 6, 402/404/429 and other 4xx
    /// 4, 5xx 5 (the service failed, the request may be fine), no document 7, bad parameters 2, bad bodies 3, an
    /// answer that does not fit the document 1 (it is not printed).
    static func ird(_ error: IrdError) -> ErrorReport {
        let exitCode: ExitCode
        var hint: String?
        switch error.kind {
        case .noDocument: exitCode = .configuration
        case .invalidDocument, .invalidBody: exitCode = .malformedInput
        case .invalidParameter: exitCode = .usage
        case .invalidResponse: exitCode = .failure
        case .configuration: exitCode = .configuration
        case .unauthorized:
            exitCode = .unauthorized
            if error.status != nil { hint = "check the credential with 'omni ird auth status'; account-only operations refuse API keys" }
        case .accountSessionRequired:
            exitCode = .unauthorized
            hint = "log in with 'omni ird login' (an account session), then run it again"
        case .totpRequired, .invalidTotp:
            exitCode = .unauthorized
            hint = "give a fresh authenticator code with --totp CODE (or run it on a terminal to be asked)"
        case .insufficientCredits:
            exitCode = .rejected
            hint = "the account needs more credits: see its balance with the credits operations ('omni ird credits --help')"
        case .rateLimited:
            exitCode = .rejected
            hint = error.retryAfter.map { "wait \($0.allSatisfy(\.isNumber) ? $0 + " s" : "until " + $0) before trying again; omni never retries by itself" }
        case .notFound, .rejected: exitCode = .rejected
        case .serviceError: exitCode = .network
        case .timedOut:
            exitCode = .network
            hint = "the work may still finish: poll it again later, or give a longer --deadline"
        case .domainGateRefused:
            exitCode = .unauthorized
            hint = "the rules come from --deny-domain/--allow-domain and [ird.gate] in the config file; 'omni ird gate explain' says why an operation is gated"
        }
        return ErrorReport(kind: error.kind.rawValue, message: error.description, exitCode: exitCode, hint: hint)
    }

    static func transport(_ error: TransportError) -> ErrorReport {
        let exitCode: ExitCode
        switch error.kind {
        case .invalidURL, .invalidArgument: exitCode = .usage
        case .dns, .connect, .tls, .timeout, .closed, .io, .protocolViolation, .limitExceeded: exitCode = .network
        case .rejected:
            let status = error.status ?? 0
            if status == 401 || status == 403 {
                exitCode = .unauthorized
            } else if status == 429 || (500..<600).contains(status) {
                // Overloaded or failing, still so after the retries: a transient condition, not a refusal.
                exitCode = .network
            } else {
                exitCode = .rejected
            }
        case .cancelled: exitCode = .interrupted
        }
        return ErrorReport(kind: error.kind.rawValue, message: error.description, exitCode: exitCode)
    }
}
