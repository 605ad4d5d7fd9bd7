import OmniCodec
import OmniCrypto
import OmniSystem

/// What the session store says about a session without reading its secret into a session.
public struct TruAPISessionSummary: Sendable, Equatable {
    public let name: String
    public let rootPublicKey: [UInt8]
    public let identityPublicKey: [UInt8]
    public let liteUsername: String?
    public let fullUsername: String?
    /// RFC 3339, UTC.
    public let createdAt: String
}

/// Several isolated signing sessions, each in its own directory under the store (`omni truapi session …`,
/// `omni truapi bridge --session NAME`):
///
/// ```
/// <store>/<name>/secret.json            the entropy and usernames (0600; the only file holding a secret)
/// <store>/<name>/products/<product>/    the bridge state of that product under this session
/// ```
/// Directories are 0700 and files 0600, written atomically. Each session's products keep their own local storage
/// and permission decisions, so what one identity granted never carries over to another. A secret file anyone
/// but its owner may read is refused, as ssh refuses such keys.
public struct TruAPISessionStore: Sendable {
    public let directory: String

    public static let secretFileName = "secret.json"
    static let maximumSecretFileBytes = 64 << 10

    public init(directory: String) { self.directory = directory }

    /// Lowercase letters, digits, `.`, `_` and `-`, starting with a letter or digit, at most 64 characters.
    public static func problem(withName name: String) -> String? {
        guard !name.isEmpty, name.utf8.count <= 64 else { return "a session name is 1 to 64 characters" }
        guard let first = name.utf8.first, (0x61...0x7A).contains(first) || (0x30...0x39).contains(first),
              name.utf8.allSatisfy({ (0x61...0x7A).contains($0) || (0x30...0x39).contains($0) || "._-".utf8.contains($0) }) else {
            return "a session name is lowercase letters, digits, '.', '_' and '-', starting with a letter or digit"
        }
        return nil
    }

    public func sessionDirectory(_ name: String) -> String { directory + "/" + name }
    public func secretPath(_ name: String) -> String { sessionDirectory(name) + "/" + Self.secretFileName }
    /// Where the bridge keeps `product`'s state under session `name`.
    public func stateDirectory(_ name: String, product: TruAPIProductID) -> String { sessionDirectory(name) + "/products/" + product.value }

    public func exists(_ name: String) -> Bool { LocalFile.exists(secretPath(name)) }

    /// The stored sessions, by name.
    public func list() throws(TruAPIError) -> [TruAPISessionSummary] {
        guard LocalFile.isDirectory(directory) else { return [] }
        let names: [String]
        switch LocalFile.entries(of: directory) {
        case .success(let entries): names = entries
        case .failure(let failure): throw TruAPIError(.configuration, "session store \(directory): cannot list it (\(failure))")
        }
        var summaries: [TruAPISessionSummary] = []
        for name in names where Self.problem(withName: name) == nil && exists(name) {
            summaries.append(try summary(name))
        }
        return summaries
    }

    /// A stored session's public facts (the secret file is read and checked, the entropy not kept).
    public func summary(_ name: String) throws(TruAPIError) -> TruAPISessionSummary {
        let (session, createdAt) = try read(name)
        return TruAPISessionSummary(name: name, rootPublicKey: session.rootPublicKey.rawRepresentation,
                                    identityPublicKey: session.identityPublicKey.rawRepresentation, liteUsername: session.liteUsername,
                                    fullUsername: session.fullUsername, createdAt: createdAt)
    }

    /// The stored session `name`.
    public func load(_ name: String) throws(TruAPIError) -> TruAPISession { try read(name).0 }

    /// Stores a new session; an existing one of that name is never replaced.
    @discardableResult
    public func create(_ name: String, entropy: some Collection<UInt8>, liteUsername: String? = nil, fullUsername: String? = nil,
                       createdAt: String? = nil) throws(TruAPIError) -> TruAPISession {
        if let problem = Self.problem(withName: name) { throw TruAPIError(.configuration, "session name '\(name)': \(problem)") }
        let session = try TruAPISession(entropy: entropy, name: name, liteUsername: liteUsername, fullUsername: fullUsername)
        guard !exists(name) else {
            throw TruAPIError(.configuration, "session \(name) exists already (remove it first with 'omni truapi session remove \(name)')")
        }
        do {
            try AtomicFile.makeDirectories(directory, mode: 0o700)
            try AtomicFile.makeDirectories(sessionDirectory(name), mode: 0o700)
        } catch {
            throw TruAPIError(.configuration, "session store: \(error.description)")
        }
        var object = JSONObject()
        object.append("version", 1)
        object.append("name", .string(name))
        let now = RFC3339.format(RFC3339.Instant(seconds: Int64(truAPIWallClockMilliseconds() / 1000)))
        object.append("created_at", .string(createdAt ?? now))
        object.append("root_public_key", .string("0x" + Hex.encode(session.rootPublicKey.rawRepresentation)))
        object.append("lite_username", liteUsername.map(JSONValue.string) ?? .null)
        object.append("full_username", fullUsername.map(JSONValue.string) ?? .null)
        var entropyBytes = session.exportEntropy()
        var hex = Array(("0x" + Hex.encode(entropyBytes)).utf8)
        wipe(&entropyBytes)
        object.append("entropy", .string(String(decoding: hex, as: UTF8.self)))
        wipe(&hex)
        var text = Array((JSONValue.object(object).serialized() + "\n").utf8)
        defer { wipe(&text) }
        do { try AtomicFile.write(text, to: secretPath(name), mode: 0o600) } catch {
            throw TruAPIError(.configuration, "session \(name): cannot store it: \(error.description)")
        }
        return session
    }

    /// Removes a session: its secret and every product state under it.
    public func remove(_ name: String) throws(TruAPIError) {
        if let problem = Self.problem(withName: name) { throw TruAPIError(.configuration, "session name '\(name)': \(problem)") }
        guard exists(name) else { throw missing(name) }
        // The secret goes first: whatever else fails to be removed, the identity is gone.
        if let failure = LocalFile.removeTree(secretPath(name)) ?? LocalFile.removeTree(sessionDirectory(name)) {
            throw TruAPIError(.configuration, "session \(name): cannot remove \(sessionDirectory(name)) (\(failure))")
        }
    }

    private func missing(_ name: String) -> TruAPIError {
        TruAPIError(.configuration, "no session \(name) in \(directory) (create it with 'omni truapi session new \(name)')")
    }

    private func read(_ name: String) throws(TruAPIError) -> (TruAPISession, String) {
        if let problem = Self.problem(withName: name) { throw TruAPIError(.configuration, "session name '\(name)': \(problem)") }
        let path = secretPath(name)
        var bytes: [UInt8]
        switch LocalFile.read(path, limit: Self.maximumSecretFileBytes) {
        case .success(let read): bytes = read
        case .failure(.notFound): throw missing(name)
        case .failure(let failure): throw TruAPIError(.configuration, "session \(name): cannot read \(path) (\(failure))")
        }
        defer { wipe(&bytes) }
        if let exposure = LocalFile.exposure(of: path) {
            throw TruAPIError(.configuration, "session \(name): \(path) \(exposure); run 'chmod 600 \(path)'")
        }
        func damaged(_ field: String, _ problem: String) -> TruAPIError {
            TruAPIError(.configuration, "session file \(path): at \(field): \(problem)")
        }
        let json: JSONValue
        do { json = try JSONValue.parse(bytes, limits: JSONLimits(maxDepth: 4, maxBytes: Self.maximumSecretFileBytes)) } catch {
            // The parser's message names a position, never the text around it.
            throw TruAPIError(.configuration, "session file \(path): \(error.description)")
        }
        guard json.objectValue != nil, json["version"]?.int64Value == 1 else { throw damaged("$", "expected an object with \"version\": 1") }
        guard let hex = json["entropy"]?.stringValue, var entropy = try? Hex.decode(hex, allowPrefix: true) else {
            throw damaged("$.entropy", "expected the entropy as 0x-prefixed hex")
        }
        defer { wipe(&entropy) }
        func optionalString(_ key: String) throws(TruAPIError) -> String? {
            switch json[key] {
            case nil, .null?: return nil
            case .string(let text)?: return text
            default: throw damaged("$." + key, "expected a string or null")
            }
        }
        let session = try TruAPISession(entropy: entropy, name: name, liteUsername: try optionalString("lite_username"),
                                        fullUsername: try optionalString("full_username"))
        if let stored = json["root_public_key"]?.stringValue, (try? Hex.decode(stored, allowPrefix: true)) != session.rootPublicKey.rawRepresentation {
            throw damaged("$.root_public_key", "does not match the entropy (the file was edited or damaged)")
        }
        return (session, json["created_at"]?.stringValue ?? "")
    }
}
