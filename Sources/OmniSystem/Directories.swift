/// Where omni keeps files, per the XDG base-directory spec (unset, empty or relative values are ignored).
public struct Directories: Sendable {
    public let environment: [String: String]

    public init(environment: [String: String]) { self.environment = environment }

    private var home: String { environment["HOME"].flatMap { $0.hasPrefix("/") ? $0 : nil } ?? "/" }

    private func base(_ variable: String, default relative: String) -> String {
        if let value = environment[variable], value.hasPrefix("/") { return value }
        return home + "/" + relative
    }

    /// `$OMNI_CONFIG_DIR`, else `$XDG_CONFIG_HOME/omni`, else `~/.config/omni`.
    public var config: String {
        if let dir = environment["OMNI_CONFIG_DIR"], dir.hasPrefix("/") { return dir }
        return base("XDG_CONFIG_HOME", default: ".config") + "/omni"
    }

    /// `$XDG_CACHE_HOME/omni`, else `~/.cache/omni`.
    public var cache: String { base("XDG_CACHE_HOME", default: ".cache") + "/omni" }

    /// `$XDG_STATE_HOME/omni`, else `~/.local/state/omni`.
    public var state: String { base("XDG_STATE_HOME", default: ".local/state") + "/omni" }

    public var configFile: String { config + "/config.toml" }
}
