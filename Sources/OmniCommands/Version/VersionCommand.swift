internal import COmniShims
import OmniCLI
import OmniCodec
import OmniCrypto
import OmniSystem
import OmniTransport

/// `omni version`: what this binary is and which C libraries it runs on (read at run time from the loaded
/// libraries, so a distro update shows up without a rebuild).
public enum VersionCommand {
    /// omni's release version (its one home is `OmniRelease`).
    public static let version = OmniRelease.version

    public static let command = Command(
        "version", abstract: "Show omni's version, build and library versions.",
        examples: [Example("omni version --output json", "Machine-readable build facts (format_version 1).")],
        section: "Help and setup"
    ) { _ in
        .output(BuildFacts.current)
    }

    struct BuildFacts: Renderable {
        let commit = String(cString: omni_build_commit())
        let buildDate = String(cString: omni_build_date())
        let openssl = CryptoLibraries.opensslVersion
        let libsodium = CryptoLibraries.libsodiumVersion
        let libcurl = HTTPClient.libcurlVersion

        static var current: BuildFacts { BuildFacts() }

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
            list.add("openssl", .string(openssl), label: "OpenSSL")
            list.add("libsodium", .string(libsodium))
            list.add("libcurl", .string(libcurl))
            return style.bold("omni \(VersionCommand.version)") + "\n" + list.text(style: style)
        }

        var json: JSONValue {
            .object([
                "format_version": 1,
                "version": .string(VersionCommand.version),
                "commit": .string(commit),
                "build_date": .string(buildDate),
                "target": .string(Self.target),
                "swift_version": .string(Self.swiftVersion),
                "openssl": .string(openssl),
                "libsodium": .string(libsodium),
                "libcurl": .string(libcurl),
            ])
        }
    }
}
