import OmniCodec
import OmniCrypto
import Synchronization

/// The one-time secret that ties the answer POSTed to the local login server to the page omni opened: 32 bytes from
/// the system CSPRNG, as 64 hex digits, carried in the page URL's fragment (never sent to a server, never in a
/// Referer). The first POST that presents it is accepted — whatever its answer says — and every later one is
/// refused, so a replayed or raced answer cannot replace the first.
public final class IILoginStateToken: Sendable {
    public enum Verdict: Sendable, Equatable {
        /// The token, presented for the first time: this POST is the login's answer.
        case accepted
        /// Not the token.
        case wrong
        /// The token, but an answer was already accepted.
        case alreadyUsed
    }

    /// The token's text: give it to the page only (the URL's fragment).
    public let text: String
    private let used = Mutex(false)

    public init() {
        text = Hex.encode(SecureRandom.bytes(32))
    }

    /// A token with known text, for tests.
    init(text: String) { self.text = text }

    /// Compares in constant time (only the length may show in timing) and, on a match, claims the token for good.
    public func claim(_ presented: String) -> Verdict {
        guard ConstantTime.equals(Array(presented.utf8), Array(text.utf8)) else { return .wrong }
        return used.withLock { used in
            defer { used = true }
            return used ? .alreadyUsed : .accepted
        }
    }

    public var isUsed: Bool { used.withLock { $0 } }
}
