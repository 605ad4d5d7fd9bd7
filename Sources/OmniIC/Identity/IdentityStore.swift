import FoundationEssentials
import OmniCandid
import OmniCodec
import OmniSystem

/// omni's identities under `$XDG_CONFIG_HOME/omni/identities/`: keys as `<name>.pem` (dfx's formats), delegated
/// sessions as `<name>.session.json`, the default's name in `default-identity`.
///
/// Files are written 0600 through an atomic replace (a failed save leaves the previous file intact), the
/// directory is kept 0700. Listing and loading never return private key material as text; exporting it is
/// `exportPrivateKeyPEM(_:)`.
public struct IdentityStore: Sendable {
    public let directory: String
    /// Writes one file atomically; replaceable in tests to simulate failures.
    var writeFile: @Sendable (_ bytes: [UInt8], _ path: String) throws(ICError) -> Void

    public init(directory: String) {
        self.directory = directory
        writeFile = { bytes, path throws(ICError) in
            do {
                try AtomicFile.write(bytes, to: path, mode: 0o600, createDirectories: true, directoryMode: 0o700)
            } catch let error as SystemError {
                throw ICError.system(error)
            } catch {
                throw ICError(.storage, "\(error)", location: path)
            }
        }
    }

    /// The store at `<config>/identities` (`$OMNI_CONFIG_DIR`, `$XDG_CONFIG_HOME/omni` or `~/.config/omni`).
    public init(directories: Directories) {
        self.init(directory: directories.config + "/identities")
    }

    /// One stored identity (no secrets).
    public struct Entry: Sendable, Equatable {
        public let name: String
        public let keyType: ICIdentity.KeyType
        public let principal: Principal
        public let isDefault: Bool
        /// For sessions: when they expire.
        public let expiration: UInt64?
    }

    static let defaultFile = "default-identity"
    static let keySuffix = ".pem"
    static let sessionSuffix = ".session.json"

    /// Names are 1–64 characters of A–Z a–z 0–9 . _ -, not starting with '.' or '-'.
    public static func validate(name: String) throws(ICError) {
        let allowed = name.utf8.allSatisfy { unit in
            (0x30...0x39).contains(unit) || (0x41...0x5a).contains(unit) || (0x61...0x7a).contains(unit)
                || unit == UInt8(ascii: ".") || unit == UInt8(ascii: "_") || unit == UInt8(ascii: "-")
        }
        guard (1...64).contains(name.utf8.count), allowed, !name.hasPrefix("."), !name.hasPrefix("-") else {
            throw ICError(.invalidArgument, "identity name \"\(Principal.quotedSample(name))\" must be 1–64 characters of A–Z a–z 0–9 . _ - (not starting with . or -)")
        }
    }

    func keyPath(_ name: String) -> String { directory + "/" + name + IdentityStore.keySuffix }
    func sessionPath(_ name: String) -> String { directory + "/" + name + IdentityStore.sessionSuffix }

    /// The names of all stored identities, sorted.
    public func names() throws(ICError) -> [String] {
        let files: [String]
        do {
            files = try FileManager.default.contentsOfDirectory(atPath: directory)
        } catch {
            if !FileManager.default.fileExists(atPath: directory) { return [] }
            throw ICError(.storage, "cannot list identities: \(SystemError.reason(for: error))", location: directory)
        }
        var names: Set<String> = []
        for file in files where !file.hasPrefix(".") {
            if file.hasSuffix(IdentityStore.sessionSuffix) {
                names.insert(String(file.dropLast(IdentityStore.sessionSuffix.count)))
            } else if file.hasSuffix(IdentityStore.keySuffix) {
                names.insert(String(file.dropLast(IdentityStore.keySuffix.count)))
            }
        }
        return names.filter { (try? IdentityStore.validate(name: $0)) != nil }.sorted()
    }

    /// Every stored identity with its type and principal; unreadable entries are reported as errors.
    public func list() throws(ICError) -> [Entry] {
        let defaultName = try self.defaultName()
        var entries: [Entry] = []
        for name in try names() {
            let identity = try load(name)
            var expiration: UInt64?
            if case .delegated(let session) = identity.signer { expiration = session.expiration }
            entries.append(Entry(name: name, keyType: identity.keyType, principal: identity.principal,
                                 isDefault: name == defaultName, expiration: expiration))
        }
        return entries
    }

    public func contains(_ name: String) -> Bool {
        FileManager.default.fileExists(atPath: keyPath(name)) || FileManager.default.fileExists(atPath: sessionPath(name))
    }

    /// Loads `name`; `.configuration` when there is no such identity.
    public func load(_ name: String) throws(ICError) -> ICIdentity {
        try IdentityStore.validate(name: name)
        if let text = try read(sessionPath(name)) {
            let json: JSONValue
            do { json = try JSONValue.parse(text, limits: JSONLimits(maxDepth: 16, maxBytes: 1 << 20)) } catch {
                throw ICError(.malformed, "identity \"\(name)\": \(error)", location: sessionPath(name))
            }
            return ICIdentity(session: try DelegatedSession(sessionFile: json))
        }
        guard let pem = try read(keyPath(name)) else {
            throw ICError(.configuration, "no identity named \"\(name)\" in \(directory)")
        }
        do {
            return try ICIdentity(pem: pem)
        } catch {
            throw ICError(error.kind, "identity \"\(name)\": \(error.message)", location: keyPath(name))
        }
    }

    /// Stores `identity` as `name` (refusing an existing name unless `overwrite`). Keys are written as PEM,
    /// sessions as session files; the anonymous identity cannot be stored.
    public func save(_ identity: ICIdentity, as name: String, overwrite: Bool = false) throws(ICError) {
        try IdentityStore.validate(name: name)
        if !overwrite && contains(name) {
            throw ICError(.configuration, "an identity named \"\(name)\" already exists")
        }
        let target: String, other: String
        var bytes: [UInt8]
        switch identity.signer {
        case .anonymous:
            throw ICError(.invalidArgument, "the anonymous identity is built in and cannot be stored")
        case .delegated(let session):
            bytes = Array(try session.sessionFileJSON().serialized(pretty: true).utf8) + [0x0a]
            target = sessionPath(name)
            other = keyPath(name)
        case .ed25519, .ecdsa:
            bytes = Array(try identity.exportPrivateKeyPEM().utf8)
            target = keyPath(name)
            other = sessionPath(name)
        }
        defer { for index in bytes.indices { bytes[index] = 0 } }
        try ensureDirectory()
        try writeFile(bytes, target)
        // Only once the new file is in place does the other kind under the same name go.
        if FileManager.default.fileExists(atPath: other) { try? FileManager.default.removeItem(atPath: other) }
    }

    /// Deletes `name` (and clears the default if it was the default).
    public func remove(_ name: String) throws(ICError) {
        try IdentityStore.validate(name: name)
        guard contains(name) else { throw ICError(.configuration, "no identity named \"\(name)\"") }
        for path in [keyPath(name), sessionPath(name)] where FileManager.default.fileExists(atPath: path) {
            do { try FileManager.default.removeItem(atPath: path) } catch {
                throw ICError(.storage, "cannot delete: \(SystemError.reason(for: error))", location: path)
            }
        }
        if try defaultName() == name {
            try? FileManager.default.removeItem(atPath: directory + "/" + IdentityStore.defaultFile)
        }
    }

    /// The default identity's name, if one is set.
    public func defaultName() throws(ICError) -> String? {
        guard let text = try read(directory + "/" + IdentityStore.defaultFile) else { return nil }
        let name = text.trimmingWhitespaceAndNewlines()
        return name.isEmpty ? nil : name
    }

    /// Makes `name` the default (it must exist).
    public func setDefault(_ name: String) throws(ICError) {
        try IdentityStore.validate(name: name)
        guard contains(name) else { throw ICError(.configuration, "no identity named \"\(name)\"") }
        try ensureDirectory()
        try writeFile(Array((name + "\n").utf8), directory + "/" + IdentityStore.defaultFile)
    }

    /// The default identity, or nil when none is set (callers then use the anonymous identity or ask).
    public func loadDefault() throws(ICError) -> ICIdentity? {
        guard let name = try defaultName() else { return nil }
        return try load(name)
    }

    /// The private key of `name` as PEM. **This exports the secret**; sessions have no PEM.
    public func exportPrivateKeyPEM(_ name: String) throws(ICError) -> String {
        try load(name).exportPrivateKeyPEM()
    }

    // MARK: dfx

    /// dfx's identity directory: `$DFX_CONFIG_ROOT/.config/dfx/identity`, else `~/.config/dfx/identity`.
    public static func dfxIdentityDirectory(environment: [String: String]) -> String {
        if let root = environment["DFX_CONFIG_ROOT"], root.hasPrefix("/") { return root + "/.config/dfx/identity" }
        let home = environment["HOME"].flatMap { $0.hasPrefix("/") ? $0 : nil } ?? "/"
        return home + "/.config/dfx/identity"
    }

    /// Reads the key of a dfx identity directory (`<dir>/identity.pem`), for importing with `save`. Encrypted
    /// and keyring-held dfx identities are refused with a message saying how to export them.
    public static func loadDfxIdentity(directory: String) throws(ICError) -> ICIdentity {
        let pemPath = directory + "/identity.pem"
        if FileManager.default.fileExists(atPath: directory + "/identity.pem.encrypted") {
            throw ICError(.unsupported, "the dfx identity at \(directory) is encrypted; run `dfx identity export` and import the PEM")
        }
        guard let data = FileManager.default.contents(atPath: pemPath) else {
            if FileManager.default.fileExists(atPath: directory + "/identity.json") {
                throw ICError(.unsupported, "the dfx identity at \(directory) keeps its key in the system keyring or an HSM; run `dfx identity export` and import the PEM")
            }
            throw ICError(.configuration, "no dfx identity at \(directory) (no identity.pem)")
        }
        guard data.count <= 1 << 16 else { throw ICError.malformed("too large for a key", location: pemPath) }
        do {
            return try ICIdentity(pem: String(decoding: data, as: UTF8.self))
        } catch {
            throw error.labelled("dfx identity", location: pemPath)
        }
    }

    /// Imports dfx identity `dfxName` (from `dfxIdentityDirectory(environment:)`) into this store as `name`
    /// (default: the same name) and returns it.
    @discardableResult
    public func importDfxIdentity(_ dfxName: String, as name: String? = nil, environment: [String: String],
                                  overwrite: Bool = false) throws(ICError) -> ICIdentity {
        try IdentityStore.validate(name: dfxName)
        let identity = try IdentityStore.loadDfxIdentity(directory: IdentityStore.dfxIdentityDirectory(environment: environment) + "/" + dfxName)
        try save(identity, as: name ?? dfxName, overwrite: overwrite)
        return identity
    }

    // MARK: Files

    private func read(_ path: String) throws(ICError) -> String? {
        guard FileManager.default.fileExists(atPath: path) else { return nil }
        guard let data = FileManager.default.contents(atPath: path) else {
            throw ICError(.storage, "cannot read the file", location: path)
        }
        guard data.count <= 1 << 20 else { throw ICError.malformed("the file is too large", location: path) }
        return String(decoding: data, as: UTF8.self)
    }

    private func ensureDirectory() throws(ICError) {
        do { try AtomicFile.makeDirectories(directory, mode: 0o700) } catch { throw ICError.system(error) }
        try restrictPermissions(directory)
    }
}
