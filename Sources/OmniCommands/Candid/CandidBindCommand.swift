import OmniCandidBind
import OmniCLI
import OmniCodec
import OmniSystem

/// `omni candid bind`: Swift bindings (types and a verified client) from a manifest of `.did` files.
enum CandidBindCommand {
    static let manifest = DefaultedOption<InputFile>(
        "manifest", valueName: "FILE",
        help: "The bindings manifest: [[canister]] tables with name, did, canister_id (optional) and methods (optional).",
        default: .path("Candid/bindings.toml"))
    static let outFile = RequiredOption<OutputFile>(
        "out-file", valueName: "FILE.swift", help: "Where to write the Swift (atomically); - for stdout.")
    static let packageRoot = Option<String>(
        "package-root", valueName: "DIR", help: "The directory the manifest's paths are relative to.",
        absentMeans: "the nearest directory above the manifest with a Package.swift, else the manifest's own")
    static let buildInfo = Flag(
        "build-info", help: "Start the file with omni's version and a SHA-256 over every input (the manifest and each .did file).")

    static let command = Command(
        "bind", abstract: "Generate Swift types and a verified client from .did files (see 'omni help candid-bindings').",
        discussion: """
            Reads the manifest and, for each [[canister]], its .did file and imports (all inside the package root), and \
            writes one Swift file: per canister a namespace enum with a type for every definition the chosen methods \
            use, the interface, and a Client whose methods call the canister through omni's verified agent \
            (OmniBindings, OmniIC). The same input always gives the same bytes. A manifest or interface that cannot be \
            generated fails with the manifest's line and the type path (exit 3); with --out-file - the Swift goes to \
            stdout and nothing else does.
            """,
        options: [manifest, outFile, packageRoot, buildInfo],
        examples: [
            Example("omni candid bind --manifest Candid/bindings.toml --out-file Sources/App/Bindings.swift",
                    "Generate the bindings a package checks in."),
            Example("omni candid bind --out-file - --build-info | head", "Look at the start of the file, with its build information."),
        ]
    ) { invocation in
        let path = invocation.commandPath
        let input = try invocation.value(manifest)
        let output = try invocation.value(outFile)
        let root = try invocation.value(packageRoot).map(FileInput.expandingTilde)
        if input == .standardInput, root == nil {
            throw CLIError.usage("--manifest - needs --package-root DIR (the directory the manifest's paths are relative to)",
                                 commandPath: path)
        }
        if output == .standardOutput, invocation.outputFormat.isJSON {
            throw CLIError.usage("--output json needs --out-file FILE: with --out-file - stdout carries the Swift source",
                                 commandPath: path)
        }
        if let root, !Paths.isDirectory(root) {
            throw CLIError.usage("--package-root \(root) is not a directory", commandPath: path)
        }
        let bytes = try invocation.read(input, label: "--manifest")
        var manifestPath: String?
        if case .path(let file) = input { manifestPath = FileInput.expandingTilde(file) }
        let generated = try CandidBindings.generate(manifest: bytes, manifestPath: manifestPath, displayPath: input.displayName,
                                                    packageRoot: root, buildInfo: try invocation.value(buildInfo))
        try invocation.write(generated.source, to: output, label: "--out-file")
        if output == .standardOutput { return .success }
        return .output(Summary(outFile: output.displayName, output: generated))
    }

    struct Summary: Renderable {
        let outFile: String
        let output: CandidBindings.Output

        func text(style: TextStyle) -> String {
            let canisters = output.canisters.map { canister in
                "\(canister.name) (\(canister.did): \(canister.methods.count) method\(canister.methods.count == 1 ? "" : "s"), "
                    + "\(canister.definitions) type\(canister.definitions == 1 ? "" : "s"))"
            }
            return style.good("wrote") + " \(outFile): " + canisters.joined(separator: ", ")
        }

        var json: JSONValue {
            var object = JSONObject()
            object["out_file"] = .string(outFile)
            object["inputs_sha256"] = .string(output.inputDigest)
            object["inputs"] = .array(output.inputs.map { .string($0) })
            object["canisters"] = .array(output.canisters.map { canister in
                .object(["name": .string(canister.name), "did": .string(canister.did),
                         "methods": .array(canister.methods.map { .string($0) }), "definitions": .int(canister.definitions)])
            })
            return .object(object)
        }
    }
}

extension CandidBindCommand {
    /// `omni help candid-bindings`.
    static var topic: HelpTopic {
        HelpTopic("candid-bindings", abstract: "Swift bindings from .did files: the manifest, the types, the client.", body: """
            'omni candid bind' (and the CandidBindPlugin build-tool plugin) reads a manifest, by default
            Candid/bindings.toml:

              [[canister]]
              name = "Ledger"                                 # the Swift namespace
              did = "Candid/ledger.did"                       # relative to the package root
              canister_id = "ryjl3-tyaaa-aaaaa-aaaba-cai"     # optional: Ledger.Client's default
              methods = ["icrc1_balance_of", "icrc1_transfer"]  # optional: omitted = all

            Paths are relative to the package root (the nearest directory above the manifest with a
            Package.swift, or --package-root); the .did files and everything they import must be inside it.
            Unknown keys, unknown methods, invalid canister ids, paths outside the root and types that cannot
            be written fail with the manifest line (and the type path), exit 3.

            Types: bool, nat8…nat64 (UInt8…UInt64), int8…int64 (Int8…Int64), nat (BigUInt), int (BigInt),
            float32 (Float), float64 (Double), text (String), blob ([UInt8]), principal (Principal), opt T (T?),
            vec T ([T]), null (CandidNull), reserved (CandidReserved), empty (CandidEmpty). Records are structs,
            variants enums, func and service types typed reference structs; a definition on a recursive cycle
            is a final class (records, recursive aliases) or an indirect enum (variants).

            Names: Candid names that are Swift identifiers are kept (keywords in backticks); other characters
            become _, a leading digit gets a leading _, numeric ids are _<id>; clashes take _2, _3, …

            Client: Ledger.Client(agent:canisterID:) over a verified ICAgent. Query methods take an optional
            signer; update methods take 'as signer:' (an ICIdentity or a DelegatedSession); every method takes
            options: ICRequestOptions (effectiveCanisterID, delegationTarget). Replies are decoded with Candid's
            subtyping rules. See docs/bindings.md.
            """)
    }
}
