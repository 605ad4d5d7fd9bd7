import Foundation
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
    private var loaded: [String: String]?
    private let lock = NSLock()
    private let parse: (String, String) throws -> [String: String]

    init(path: String, isExplicit: Bool, parse: @escaping (String, String) throws -> [String: String]) {
        self.path = path
        self.isExplicit = isExplicit
        self.parse = parse
    }

    /// The default location per the XDG base-directory spec.
    public static func defaultPath(environment: [String: String]) -> String {
        Directories(environment: environment).configFile
    }

    public func value(for key: String) throws -> Entry? {
        try entries()[key].map { Entry(text: $0, file: path) }
    }

    public func entries() throws -> [String: String] {
        lock.lock(); defer { lock.unlock() }
        if let loaded { return loaded }
        guard let data = FileManager.default.contents(atPath: path) else {
            if isExplicit || FileManager.default.fileExists(atPath: path) {
                throw CLIError(.configuration, "cannot read config file \(path)")
            }
            loaded = [:]
            return [:]
        }
        let values: [String: String]
        do {
            values = try parse(String(decoding: data, as: UTF8.self), path)
        } catch let error as CLIError {
            throw error
        } catch {
            throw CLIError(.configuration, "config file \(path): \(error)")
        }
        loaded = values
        return values
    }
}
