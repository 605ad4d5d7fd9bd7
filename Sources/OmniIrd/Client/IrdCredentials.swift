import OmniCodec
import OmniSystem

/// The one credential slot of an ird client: an API key (`ird_…`) or an account session (a JWT from device login).
public struct IrdCredential: Sendable, Equatable {
    public enum Kind: String, Sendable { case apiKey = "api_key", session }
    /// Where it came from, for `omni ird auth status`.
    public enum Source: Sendable, Equatable {
        case file(String)
        case environment(String)
        case standardInput
        case storedSession(String)
    }

    public let kind: Kind
    public let source: Source
    /// Never printed or logged; `masked` is what people see.
    public let token: String
    public let expiresAt: String?

    public init(kind: Kind, source: Source, token: String, expiresAt: String? = nil) {
        self.kind = kind
        self.source = source
        self.token = token
        self.expiresAt = expiresAt
    }

    /// The credential a token is: `ird_…` is an API key, anything else a session token.
    public static func apiKeyOrSession(_ token: String, source: Source) -> IrdCredential {
        IrdCredential(kind: token.hasPrefix("ird_") ? .apiKey : .session, source: source, token: token)
    }

    /// `ird_…wxyz`: the kind of token and its last four characters, never more.
    public var masked: String {
        let tail = token.count > 12 ? String(token.suffix(4)) : ""
        let head = token.hasPrefix("ird_") ? "ird_" : ""
        return head + "…" + tail
    }

    public var sourceDescription: String {
        switch source {
        case .file(let path): "--api-key @\(path)"
        case .environment(let name): "environment variable \(name)"
        case .standardInput: "--api-key - (stdin)"
        case .storedSession(let path): "stored session \(path)"
        }
    }

    /// A token as read from a file or the environment: surrounding whitespace dropped, one line, printable ASCII.
    public static func token(from text: String, label: String) throws(IrdError) -> String {
        var token = Substring(text)
        while let first = token.first, first.isWhitespace { token = token.dropFirst() }
        while let last = token.last, last.isWhitespace { token = token.dropLast() }
        guard !token.isEmpty else { throw IrdError(.configuration, "\(label) is empty") }
        guard token.utf8.allSatisfy({ $0 > 0x20 && $0 < 0x7F }) else {
            throw IrdError(.configuration, "\(label) holds more than one token (spaces, line breaks or control characters)")
        }
        return String(token)
    }
}

/// An account session as `omni ird login` stores it.
public struct IrdSession: Sendable, Equatable {
    public let accessToken: String
    public let tokenType: String
    public let createdAt: String?
    public let expiresAt: String?
    public let account: String?

    public init(accessToken: String, tokenType: String = "Bearer", createdAt: String? = nil, expiresAt: String? = nil,
                account: String? = nil) {
        self.accessToken = accessToken
        self.tokenType = tokenType
        self.createdAt = createdAt
        self.expiresAt = expiresAt
        self.account = account
    }

    static let format = "omni-ird-session"

    var json: JSONValue {
        var object = JSONObject()
        object["format"] = .string(Self.format)
        object["version"] = 1
        object["access_token"] = .string(accessToken)
        object["token_type"] = .string(tokenType)
        if let createdAt { object["created_at"] = .string(createdAt) }
        if let expiresAt { object["expires_at"] = .string(expiresAt) }
        if let account { object["account"] = .string(account) }
        return .object(object)
    }

    init(json: JSONValue, path: String) throws(IrdError) {
        guard json["format"]?.stringValue == Self.format, json["version"]?.int64Value == 1 else {
            throw IrdError(.configuration, "\(path) is not an omni ird session file (format \(Self.format) version 1)")
        }
        guard let token = json["access_token"]?.stringValue, !token.isEmpty else {
            throw IrdError(.configuration, "\(path) has no access_token", location: "$.access_token")
        }
        accessToken = token
        tokenType = json["token_type"]?.stringValue ?? "Bearer"
        createdAt = json["created_at"]?.stringValue
        expiresAt = json["expires_at"]?.stringValue
        account = json["account"]?.stringValue
    }
}

/// Where the account session lives: `$XDG_CONFIG_HOME/omni/ird/session.json`, mode 0600 in a 0700 directory,
/// written atomically. `omni ird login` writes it, `omni ird auth logout` removes it.
public struct IrdSessionStore: Sendable {
    public let path: String

    public init(directories: Directories) { path = directories.config + "/ird/session.json" }
    public init(path: String) { self.path = path }

    /// The stored session, nil when there is none. A file others may read is refused, as ssh refuses such keys.
    public func read() throws(IrdError) -> IrdSession? {
        switch LocalFile.read(path, limit: 1 << 20) {
        case .failure(.notFound): return nil
        case .failure(let failure): throw IrdError(.configuration, "cannot read the ird session \(path): \(failure)")
        case .success(let bytes):
            if let exposure = LocalFile.exposure(of: path) {
                throw IrdError(.configuration, "the ird session \(path) \(exposure); run 'chmod 600 \(path)' or log in again")
            }
            let json: JSONValue
            do { json = try JSONValue.parse(bytes) } catch {
                throw IrdError(.configuration, "the ird session \(path) is not JSON: \(error.summary)", location: error.path,
                               line: error.line, column: error.column)
            }
            return try IrdSession(json: json, path: path)
        }
    }

    public func write(_ session: IrdSession) throws(IrdError) {
        do {
            try AtomicFile.write(session.json.serialized(pretty: true) + "\n", to: path, mode: 0o600, createDirectories: true,
                                 directoryMode: 0o700)
        } catch {
            throw IrdError(.configuration, "cannot store the ird session: \(error)")
        }
    }

    /// Removes the stored session; false when there was none.
    @discardableResult
    public func remove() throws(IrdError) -> Bool {
        guard LocalFile.exists(path) else { return false }
        do { try LocalFile.remove(path) } catch { throw IrdError(.configuration, "cannot remove the ird session: \(error)") }
        return true
    }
}
