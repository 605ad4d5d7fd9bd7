import Foundation
import OmniCodec
import OmniSystem

/// The user's config file, `$XDG_CONFIG_HOME/omni/config.toml` (or `--config FILE` / `OMNI_CONFIG`), read lazily on
/// the first lookup so commands that never consult it pay nothing.
///
/// Keys are dotted paths into the TOML tables: `output = "json"` is `output`, `[ic] network = "local"` is
/// `ic.network`. Values are kept as text and converted by the option that asks for them.
public final class Configuration: @unchecked Sendable {
    public struct Entry: Sendable {
        public let text: String
        /// The file the value came from, for error messages.
        public let file: String
    }

    /// The file consulted, and whether the user named it (a named file must exist; the default may be absent).
    public let path: String
    public let isExplicit: Bool
    private var loaded: [String: TOMLValue]?
    private let lock = NSLock()

    init(path: String, isExplicit: Bool) {
        self.path = path
        self.isExplicit = isExplicit
    }

    /// The default location per the XDG base-directory spec.
    public static func defaultPath(environment: [String: String]) -> String {
        Directories(environment: environment).configFile
    }

    /// The scalar at a dotted key as text (strings as written, numbers and booleans in TOML syntax).
    public func value(for key: String) throws -> Entry? {
        guard let value = try entries()[key] else { return nil }
        switch value {
        case .string(let text): return Entry(text: text, file: path)
        case .integer(let number): return Entry(text: String(number), file: path)
        case .float(let number): return Entry(text: String(number), file: path)
        case .bool(let flag): return Entry(text: flag ? "true" : "false", file: path)
        case .dateTime(let dateTime): return Entry(text: dateTime.text, file: path)
        case .array, .table:
            throw CLIError(.configuration, "config key '\(key)' in \(path) must be a single value, not an array or table")
        }
    }

    /// Every value of the file under its dotted key (`[ic] network = …` is `ic.network`).
    public func entries() throws -> [String: TOMLValue] {
        lock.lock(); defer { lock.unlock() }
        if let loaded { return loaded }
        guard let data = FileManager.default.contents(atPath: path) else {
            if isExplicit || FileManager.default.fileExists(atPath: path) {
                throw CLIError(.configuration, "cannot read config file \(path)")
            }
            loaded = [:]
            return [:]
        }
        let table: TOMLTable
        do {
            table = try TOMLTable.parse([UInt8](data))
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
        loaded = values
        return values
    }
}
