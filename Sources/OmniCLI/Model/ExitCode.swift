/// omni's exit codes. The table is a contract with scripts; `omni help exit-codes` and docs/exit-codes.md print it.
public enum ExitCode: Int32, CaseIterable, Sendable {
    case ok = 0
    /// Verification failed, or the answer is negative (invalid signature, rejected attestation, not found).
    case failure = 1
    /// The command line is wrong: unknown command or option, missing or invalid value.
    case usage = 2
    /// Input data is malformed (bad hex, CBOR, Candid, JSON, PEM…).
    case malformedInput = 3
    /// The remote side rejected the request (replica reject, HTTP 4xx, WebSocket upgrade refused).
    case rejected = 4
    /// Network failure or timeout (DNS, connect, TLS, timeouts).
    case network = 5
    /// Not authorised (missing or refused credentials).
    case unauthorized = 6
    /// Configuration problem (bad config file, unknown identity or profile, missing setting).
    case configuration = 7
    /// An internal error: a bug in omni.
    case internalError = 70
    /// Interrupted by SIGINT (Ctrl-C).
    case interrupted = 130
    /// Stopped by SIGTERM.
    case terminated = 143

    /// Stable snake_case name used as the `kind` of JSON error objects when no finer kind is given.
    public var name: String {
        switch self {
        case .ok: "ok"
        case .failure: "failure"
        case .usage: "usage"
        case .malformedInput: "malformed_input"
        case .rejected: "rejected"
        case .network: "network"
        case .unauthorized: "unauthorized"
        case .configuration: "configuration"
        case .internalError: "internal"
        case .interrupted: "interrupted"
        case .terminated: "terminated"
        }
    }

    /// One line for `omni help exit-codes`.
    public var meaning: String {
        switch self {
        case .ok: "success"
        case .failure: "verification failed, or a negative answer (invalid, rejected evidence, not found)"
        case .usage: "usage error: unknown command or option, missing or invalid value"
        case .malformedInput: "malformed input: bad hex, CBOR, Candid, JSON, PEM, …"
        case .rejected: "rejected by the remote side (replica reject, HTTP 4xx, refused upgrade)"
        case .network: "network failure or timeout (DNS, connect, TLS, timeouts, HTTP 429/5xx after retries)"
        case .unauthorized: "not authorised (refused credentials, or outside a session's delegation targets)"
        case .configuration: "configuration error (config file, unknown identity or profile, missing setting)"
        case .internalError: "internal error: a bug in omni, please report it"
        case .interrupted: "interrupted (SIGINT / Ctrl-C)"
        case .terminated: "terminated (SIGTERM)"
        }
    }
}
