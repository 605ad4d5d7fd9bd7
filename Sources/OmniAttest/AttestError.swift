/// The one error type of OmniAttest. It is thrown only when a request cannot be judged at all: an unusable argument
/// (bad base64 key id, unreadable root PEM, malformed app id) or a store that cannot be used. Evidence that fails a
/// check — including evidence that does not even parse — is never an error: it is a verdict with a reason code.
public struct AttestError: Error, Equatable, Sendable, CustomStringConvertible {
    public enum Kind: String, Sendable {
        /// An argument (not the evidence) is unusable: wrong encoding, wrong length, bad PEM.
        case invalidArgument = "invalid_argument"
        /// The store could not be opened, read or written (SQLite's message is included).
        case store
    }

    public let kind: Kind
    public let message: String

    public init(_ kind: Kind, _ message: String) {
        self.kind = kind
        self.message = message
    }

    public static func invalidArgument(_ message: String) -> AttestError { AttestError(.invalidArgument, message) }

    public var description: String { message }
}
