// swift-tools-version:6.1
// omni: one CLI for verified Internet Computer calls, Candid, Iroha Connect, TrUAPI, App Attest and ird.
// Layout follows swift-crypto's layering (C system modules → C shims → Swift wrappers → domains → CLI) and
// SwiftPM's thin-executable / fat-command-library split. Nothing outside the toolchain is fetched.
import PackageDescription

let package = Package(
    name: "omni",
    products: [
        .executable(name: "omni", targets: ["omni"]),
        // For Swift packages that call canisters: depend on omni by path or git and use these (the CLI tree,
        // OmniCLI and OmniCommands, stays out of them). Generated bindings import OmniBindings and what it uses.
        .library(name: "OmniBindings", targets: ["OmniBindings"]),
        .library(name: "OmniIC", targets: ["OmniIC"]),
        .library(name: "OmniCandid", targets: ["OmniCandid"]),
        .library(name: "OmniCodec", targets: ["OmniCodec"]),
        // Generates bindings from a target's Candid/bindings.toml at build time.
        .plugin(name: "CandidBindPlugin", targets: ["CandidBindPlugin"]),
    ],
    targets: executable + commandLayer + domains + shared + cLayer + plugins + tests
)

/// Language mode 5 for every Swift target keeps C interop free of Sendable noise.
var swiftSettings: [SwiftSetting] { [.swiftLanguageMode(.v5)] }
/// Library and executable targets also see only the members of modules a file imports itself, so Foundation-only
/// API (which would link Foundation and ICU into omni) cannot leak in through another module's `import
/// Foundation`. Tests may use Foundation freely.
var librarySettings: [SwiftSetting] { swiftSettings + [.enableUpcomingFeature("MemberImportVisibility")] }
/// Built for size in release builds (issue 10's 20 MB budget): code whose time goes elsewhere — argument parsing,
/// help, command bodies, the ird tree, the bindings generator, and the domain layers whose hot loops are in OmniCodec,
/// OmniCrypto, OmniTransport or C (BLS, OpenSSL). Those three and the C targets keep -O/-O3.
var coldLibrarySettings: [SwiftSetting] { librarySettings + [.unsafeFlags(["-Osize"], .when(configuration: .release))] }

// MARK: - Executable (thin: assembles the command tree)
var executable: [Target] { [
    .executableTarget(name: "omni", dependencies: ["OmniCommands", "OmniCLI"], swiftSettings: coldLibrarySettings),
    // The build-tool plugin's generator: `omni candid bind` without the rest of the CLI, so a consumer package
    // builds only the bindings generator for it.
    .executableTarget(name: "omni-candid-bind", dependencies: ["OmniCandidBind", "OmniSystem"], swiftSettings: librarySettings),
    // `make bench` only: times omni's libraries in-process next to the Python peers; not shipped.
    .executableTarget(name: "omni-bench", dependencies: ["OmniAttest", "OmniBLS", "OmniCandid", "OmniCodec", "OmniCrypto", "OmniIC", "OmniIrd"],
                      swiftSettings: librarySettings),
    // Fuzz targets for every parser (`make fuzz`: libFuzzer with -DOMNI_FUZZ; otherwise a replayer of saved inputs
    // that `make test` runs over Tests/Fuzz/regressions); not shipped. Domains and shared layers only, no CLI.
    .executableTarget(name: "omni-fuzz", dependencies: ["OmniAttest", "OmniCandid", "OmniCodec", "OmniConnect", "OmniCrypto",
                                                        "OmniIC", "OmniIrd", "OmniSystem", "OmniTransport", "OmniTruAPI"],
                      swiftSettings: librarySettings),
] }

// MARK: - Command layer (the only code that knows about terminals)
var commandLayer: [Target] { [
    .target(name: "OmniCLI", dependencies: ["OmniCodec", "OmniSystem"], swiftSettings: coldLibrarySettings),
    .target(name: "OmniCommands", dependencies: [
        "OmniCLI", "OmniCodec", "OmniSystem", "OmniCrypto", "OmniTransport", "COmniShims",
        "OmniCandid", "OmniCandidBind", "OmniBLS", "OmniIC", "OmniConnect", "OmniAttest", "OmniTruAPI", "OmniIrd",
    ], swiftSettings: coldLibrarySettings),
] }

// MARK: - Domain libraries (no terminal code; one public error enum each)
var domains: [Target] { [
    .target(name: "OmniCandid", dependencies: ["OmniCodec", "OmniSystem"], swiftSettings: coldLibrarySettings),
    .target(name: "OmniBLS", dependencies: ["CBLS12381", "OmniCodec", "OmniCrypto"], swiftSettings: coldLibrarySettings),
    .target(name: "OmniConnect", dependencies: ["OmniCodec", "OmniCrypto", "OmniTransport", "OmniSystem"], swiftSettings: coldLibrarySettings),
    .target(name: "OmniTruAPI", dependencies: ["OmniCodec", "OmniCrypto", "OmniSystem", "OmniTransport"], swiftSettings: coldLibrarySettings),
    .target(name: "OmniAttest", dependencies: ["OmniCodec", "OmniCrypto", "CSQLite"], swiftSettings: coldLibrarySettings),
    .target(name: "OmniIrd", dependencies: ["OmniCodec", "OmniSystem", "OmniTransport"], swiftSettings: coldLibrarySettings),
    .target(name: "OmniIC", dependencies: ["OmniCodec", "OmniCrypto", "OmniBLS", "OmniCandid", "OmniSystem", "OmniTransport"],
            swiftSettings: coldLibrarySettings),
    // Candid → Swift: the generator (`omni candid bind`, the plugin) and the runtime the generated code uses.
    .target(name: "OmniCandidBind", dependencies: ["OmniCandid", "OmniCodec", "OmniCrypto", "OmniSystem"], swiftSettings: coldLibrarySettings),
    .target(name: "OmniBindings", dependencies: ["OmniCandid", "OmniCodec", "OmniIC"], swiftSettings: librarySettings),
] }

// MARK: - SwiftPM plugins
var plugins: [Target] { [
    .plugin(name: "CandidBindPlugin", capability: .buildTool(), dependencies: ["omni-candid-bind"]),
] }

// MARK: - Shared layers: codecs, files and directories, crypto, transports
var shared: [Target] { [
    .target(name: "OmniCodec", swiftSettings: librarySettings),
    .target(name: "OmniSystem", swiftSettings: librarySettings),
    .target(name: "OmniCrypto", dependencies: ["COpenSSL", "CSodium", "COmniShims", "OmniCodec", "OmniSystem"], swiftSettings: librarySettings),
    .target(name: "OmniTransport", dependencies: ["CCurl", "COmniShims", "OmniCodec", "OmniCrypto", "OmniSystem"], swiftSettings: librarySettings),
] }

// MARK: - C: system libraries through pkg-config, our shims, our BLS12-381 field arithmetic
var cLayer: [Target] { [
    // Headers only (no pkg-config, whose -l flags would link them): on Linux COmniShims opens libcrypto, libssl,
    // libsodium, libsqlite3 and libcurl on first use (lazy_libraries.c, curl_shims.c say why). The Makefile's
    // `deps` installs the -dev packages that provide the headers.
    .systemLibrary(name: "COpenSSL"),
    .systemLibrary(name: "CSodium"),
    .systemLibrary(name: "CCurl"),
    .systemLibrary(name: "CSQLite"),
    // Elsewhere (the trampolines are Linux-only) the libraries are linked as usual.
    .target(name: "COmniShims", dependencies: ["CCurl", "COpenSSL"],
            linkerSettings: [.linkedLibrary("dl")] + ["ssl", "crypto", "sodium", "sqlite3"].map {
                .linkedLibrary($0, .when(platforms: [.macOS]))
            }),
    .target(name: "CBLS12381", cSettings: [.unsafeFlags(["-O3"])]),
] }

// MARK: - Tests (Swift Testing; vectors come from ../shared/vectors or $OMNI_VECTORS)
var tests: [Target] { [
    .target(name: "OmniTestSupport", dependencies: ["OmniCodec", "OmniTransport"], path: "Tests/OmniTestSupport", swiftSettings: swiftSettings),
    .testTarget(name: "OmniCodecTests", dependencies: ["OmniCodec", "OmniTestSupport"], swiftSettings: swiftSettings),
    .testTarget(name: "OmniCryptoTests", dependencies: ["OmniCrypto", "OmniTestSupport"], swiftSettings: swiftSettings),
    .testTarget(name: "OmniTransportTests", dependencies: ["OmniTransport", "OmniTestSupport"], swiftSettings: swiftSettings),
    .testTarget(name: "OmniSystemTests", dependencies: ["OmniSystem", "OmniTestSupport"], swiftSettings: swiftSettings),
    .testTarget(name: "OmniCLITests", dependencies: ["OmniCLI", "OmniTestSupport"], swiftSettings: swiftSettings),
    .testTarget(name: "OmniCandidTests", dependencies: ["OmniCandid", "OmniTestSupport"], swiftSettings: swiftSettings),
    .testTarget(name: "OmniBLSTests", dependencies: ["OmniBLS", "OmniCrypto", "OmniTestSupport"], swiftSettings: swiftSettings),
    .testTarget(name: "OmniTruAPITests", dependencies: ["OmniTruAPI", "OmniTransport", "OmniTestSupport"], swiftSettings: swiftSettings),
    .testTarget(name: "OmniConnectTests", dependencies: ["OmniConnect", "OmniTestSupport"], swiftSettings: swiftSettings),
    .testTarget(name: "OmniAttestTests", dependencies: ["OmniAttest", "OmniTestSupport"], swiftSettings: swiftSettings),
    .testTarget(name: "OmniIrdTests", dependencies: ["OmniIrd", "OmniTestSupport"], swiftSettings: swiftSettings),
    .testTarget(name: "OmniICTests", dependencies: ["OmniIC", "OmniTestSupport"], swiftSettings: swiftSettings),
    // Golden/*.swift is generated code compiled into the tests (so its types are exercised); Golden/Inputs is
    // what it is generated from.
    .testTarget(name: "OmniCandidBindTests", dependencies: ["OmniCandidBind", "OmniBindings", "OmniIC", "OmniCandid", "OmniCodec",
                                                           "OmniTestSupport"],
                exclude: ["Golden/Inputs"], swiftSettings: swiftSettings),
    .testTarget(name: "OmniEndToEndTests", dependencies: ["omni", "omni-fuzz", "OmniTestSupport"], swiftSettings: swiftSettings),
] }
