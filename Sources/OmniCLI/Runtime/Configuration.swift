import OmniCodec
import OmniSystem
import Synchronization

/// The user's config file, `$XDG_CONFIG_HOME/omni/config.toml` (or `--config FILE` / `OMNI_CONFIG`), read lazily on
/// the first lookup so commands that never consult it pay nothing.
///
/// Keys are dotted paths into the TOML tables: `output = "json"` is `output`, `[ic] network = "local"` is
/// `ic.network`. Values are kept as text and converted by the option that asks for them.
///
/// Profiles: a `[profiles.NAME]` table holds keys that apply when profile NAME is selected (`--profile`,
/// `OMNI_PROFILE`, else the file's own top-level `profile = "NAME"`); its keys win over the same keys at the top.
public final class Configuration: @unchecked Sendable {
    public struct Entry: Sendable {
        public let text: String
        /// The key as written in the file (`profiles.work.ic.network` when a profile supplied it).
        public let key: String
        /// The file the value came from, for error messages.
        public let file: String
    }

    /// The file consulted, and whether the user named it (a named file must exist; the default may be absent).
    public let path: String
    public let isExplicit: Bool
    /// The profile the command line or environment selected, if any.
    public let requestedProfile: String?
    /// Called once, when the file is first read, with each key no option reads (and a suggestion).
    let reportUnknownKey: (@Sendable (_ key: String, _ suggestion: String?) -> Void)?
    /// Every key some option reads, computed only when a file is actually read.
    let knownKeys: @Sendable () -> Set<String>
    private let loaded = Mutex<[String: TOMLValue]?>(nil)

    init(path: String, isExplicit: Bool, profile: String? = nil, knownKeys: @escaping @Sendable () -> Set<String> = { [] },
         reportUnknownKey: (@Sendable (String, String?) -> Void)? = nil) {
        self.path = path
        self.isExplicit = isExplicit
        requestedProfile = profile
        self.knownKeys = knownKeys
        self.reportUnknownKey = reportUnknownKey
    }

    /// The default location per the XDG base-directory spec.
    public static func defaultPath(environment: [String: String]) -> String {
        Directories(environment: environment).configFile
    }

    static let profileKey = "profile"
    static let profilesTable = "profiles"

    /// The profile in effect: the requested one, else the file's `profile` key, else none. A profile that the
    /// file does not define is a configuration error.
    public func activeProfile() throws -> String? {
        let values = try entries()
        var name = requestedProfile
        if name == nil, case .string(let fromFile)? = values[Self.profileKey] { name = fromFile }
        guard let name else { return nil }
        let prefix = Self.profilesTable + "." + name + "."
        guard values.keys.contains(where: { $0.hasPrefix(prefix) }) else {
            let defined = Set(values.keys.compactMap { key -> String? in
                guard key.hasPrefix(Self.profilesTable + ".") else { return nil }
                return key.dropFirst(Self.profilesTable.count + 1).split(separator: ".").first.map(String.init)
            }).sorted()
            let known = defined.isEmpty ? "it defines none" : "it defines " + defined.joined(separator: ", ")
            throw CLIError(.configuration, "unknown profile '\(name)': \(path) has no [profiles.\(name)] table (\(known))")
        }
        return name
    }

    /// The scalar at a dotted key as text (strings as written, numbers and booleans in TOML syntax), from the
    /// active profile's table first.
    public func value(for key: String) throws -> Entry? {
        let values = try entries()
        var candidates = [key]
        if let profile = try activeProfile() { candidates.insert(Self.profilesTable + "." + profile + "." + key, at: 0) }
        for candidate in candidates {
            guard let value = values[candidate] else { continue }
            switch value {
            case .string(let text): return Entry(text: text, key: candidate, file: path)
            case .integer(let number): return Entry(text: String(number), key: candidate, file: path)
            case .float(let number): return Entry(text: String(number), key: candidate, file: path)
            case .bool(let flag): return Entry(text: flag ? "true" : "false", key: candidate, file: path)
            case .dateTime(let dateTime): return Entry(text: dateTime.text, key: candidate, file: path)
            case .array, .table:
                throw CLIError(.configuration, "config key '\(candidate)' in \(path) must be a single value, not an array or table")
            }
        }
        return nil
    }

    /// Every value of the file under its dotted key (`[ic] network = …` is `ic.network`).
    public func entries() throws -> [String: TOMLValue] {
        let (values, isNew) = try loaded.withLock { cache -> ([String: TOMLValue], Bool) in
            if let cache { return (cache, false) }
            let values = try read()
            cache = values
            return (values, true)
        }
        if isNew, !values.isEmpty, let reportUnknownKey { reportUnknown(values, reportUnknownKey) }
        return values
    }

    private func read() throws -> [String: TOMLValue] {
        let bytes: [UInt8]
        switch LocalFile.read(path, limit: 1 << 20) {
        case .success(let read): bytes = read
        case .failure(.notFound) where !isExplicit: return [:]
        case .failure(let failure):
            throw CLIError(.configuration, "cannot read config file \(path): \(FileInput.error(failure, path: path, label: "config").message)")
        }
        let table: TOMLTable
        do {
            table = try TOMLTable.parse(bytes)
        } catch {
            throw CLIError(.configuration, "config file \(path): \(error)")
        }
        var values: [String: TOMLValue] = [:]
        func flatten(_ table: TOMLTable, _ prefix: String) {
            for (key, value) in table {
                let dotted = prefix.isEmpty ? key : prefix + "." + key
                if case .table(let inner) = value { flatten(inner, dotted) } else { values[dotted] = value }
            }
        }
        flatten(table, "")
        return values
    }

    /// Keys no option reads are reported (a misspelt key would otherwise be ignored without a word).
    private func reportUnknown(_ values: [String: TOMLValue], _ report: @Sendable (String, String?) -> Void) {
        let known = knownKeys().union([Self.profileKey])
        for key in values.keys.sorted() {
            var bare = key
            if key.hasPrefix(Self.profilesTable + ".") {
                let parts = key.split(separator: ".", maxSplits: 2)
                guard parts.count == 3 else { report(key, nil); continue }
                bare = String(parts[2])
            }
            if known.contains(bare) { continue }
            report(key, Suggestions.closest(to: bare, in: known.sorted()))
        }
    }
}
