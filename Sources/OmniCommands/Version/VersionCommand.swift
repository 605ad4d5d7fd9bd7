internal import COmniShims
import OmniCLI
import OmniAttest
import OmniCodec
import OmniCrypto
import OmniSystem
import OmniTransport

/// `omni version`: what this binary is; with `--libraries`, also which C libraries it runs on.
///
/// omni opens OpenSSL, libsodium, libcurl and SQLite on first use, so a plain `omni version` starts as fast as
/// `omni --version`. Reading a library's runtime version means loading it (and, for libcurl, its dependencies), which
/// costs more than the rest of the start together; so it is asked for by name. The versions are read from the
/// loaded libraries, so a distro update shows up without a rebuild.
public enum VersionCommand {
    /// omni's release version (its one home is `OmniRelease`).
    public static let version = OmniRelease.version

    static let libraries = Flag(
        "libraries", help: "Also load the C libraries omni uses (OpenSSL, libsodium, libcurl, SQLite) and show their versions.")

    public static let command = Command(
        "version", abstract: "Show omni's version and build; with --libraries, the C libraries it runs on.",
        options: [libraries],
        examples: [
            Example("omni version --output json", "Machine-readable build facts (format_version 2)."),
            Example("omni version --libraries", "The versions of the system libraries, as loaded (for bug reports)."),
        ],
        section: "Help and setup"
    ) { invocation in
        .output(BuildFacts(libraries: try invocation.value(libraries) ? LibraryVersions.loaded : nil))
    }

    /// The runtime versions of the C libraries, each read from the library itself: JSON key, text label, version.
    struct LibraryVersions {
        let entries: [(key: String, label: String, version: String)]

        static var loaded: LibraryVersions {
            LibraryVersions(entries: [
                ("openssl", "OpenSSL", CryptoLibraries.opensslVersion), ("libsodium", "libsodium", CryptoLibraries.libsodiumVersion),
                ("libcurl", "libcurl", HTTPClient.libcurlVersion), ("sqlite", "SQLite", SQLiteAttestStore.sqliteVersion),
            ])
        }
    }

    struct BuildFacts: Renderable {
        let commit = String(cString: omni_build_commit())
        let buildDate = String(cString: omni_build_date())
        let libraries: LibraryVersions?

        static var target: String {
            #if arch(x86_64)
            let arch = "x86_64"
            #elseif arch(arm64)
            let arch = "aarch64"
            #else
            let arch = "unknown"
            #endif
            #if os(Linux)
            return arch + "-unknown-linux-gnu"
            #else
            return arch + "-unknown"
            #endif
        }

        static var swiftVersion: String {
            #if compiler(>=6.5)
            "6.5+"
            #elseif compiler(>=6.4)
            "6.4"
            #elseif compiler(>=6.3)
            "6.3"
            #elseif compiler(>=6.2)
            "6.2"
            #else
            "6.0"
            #endif
        }

        func text(style: TextStyle) -> String {
            var list = FieldList()
            list.add("commit", .string(commit), text: commit + (buildDate == "unknown" ? "" : " (\(buildDate))"))
            list.add("target", .string(Self.target))
            list.add("swift", .string(Self.swiftVersion))
            for entry in libraries?.entries ?? [] { list.add(entry.key, .string(entry.version), label: entry.label) }
            return style.bold("omni \(VersionCommand.version)") + "\n" + list.text(style: style)
        }

        var json: JSONValue {
            var fields: [(String, JSONValue)] = [
                ("format_version", 2),
                ("version", .string(VersionCommand.version)),
                ("commit", .string(commit)),
                ("build_date", .string(buildDate)),
                ("target", .string(Self.target)),
                ("swift_version", .string(Self.swiftVersion)),
            ]
            if let libraries {
                fields.append(("libraries", .object(JSONObject(libraries.entries.map { ($0.key, .string($0.version)) }))))
            }
            return .object(JSONObject(fields))
        }
    }
}
