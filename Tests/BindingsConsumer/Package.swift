// swift-tools-version:6.0
// A package that uses omni the way an app would: by path, with the bindings plugin. BindingsConsumerTests builds it
// (scratch path .build/bindings-consumer under omni) and runs ConsumerApp against Tests/Peers/ic_replica.py.
import Foundation
import PackageDescription

// omni is the repository this package sits in. A path dependency is known by its directory's name (a clone is
// usually "omni"; a worktree may be called otherwise), so the name is read from the path.
let omniPath = Context.environment["OMNI_PACKAGE_PATH"] ?? "../.."
let omni = URL(fileURLWithPath: omniPath, relativeTo: URL(fileURLWithPath: Context.packageDirectory, isDirectory: true))
    .standardizedFileURL.lastPathComponent.lowercased()

let package = Package(
    name: "BindingsConsumer",
    dependencies: [.package(path: omniPath)],
    targets: [
        .executableTarget(
            name: "ConsumerApp",
            dependencies: [
                .product(name: "OmniBindings", package: omni),
                .product(name: "OmniIC", package: omni),
                .product(name: "OmniCandid", package: omni),
                .product(name: "OmniCodec", package: omni),
            ],
            // Candid/ holds the manifest and the .did file the plugin reads; they are not sources or resources.
            exclude: ["Candid"],
            plugins: [.plugin(name: "CandidBindPlugin", package: omni)]),
    ]
)
