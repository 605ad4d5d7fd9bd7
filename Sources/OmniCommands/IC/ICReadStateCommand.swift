import OmniCandid
import OmniCLI
import OmniCodec
import OmniIC

/// `omni ic read-state CANISTER PATH…` / `--subnet ID PATH…`: verified values from the certified state tree.
enum ICReadStateCommand {
    static let target = OptionalArgument<Principal>(
        "CANISTER", help: "The canister whose state is read (its effective canister id); not with --subnet.")
    static let paths = VariadicArgument<StatePath>(
        "PATH", help: "State paths like /time, /canister/<id>/module_hash, /subnet/<id>/public_key. Labels that are principals "
            + "become their bytes, 0x… labels hex bytes, others text. Default: /time.")
    /// Subtrees list at most this many leaves.
    static let maxLeaves = 10_000

    static let command = Command(
        "read-state", abstract: "Read paths of the certified state tree; prints verified values.",
        discussion: """
            Sends a read_state (v3, v2 fallback) for the canister or, with --subnet ID instead of CANISTER, to \
            /api/v3/subnet/ID/read_state, verifies the certificate for that scope (a subnet's certificate must be \
            that subnet's: its delegation names it, or the root key signed it for the root subnet), and prints each path as found (with its value, decoded where its meaning is \
            known: times, principals, ranges, text), absent (the certificate proves there is no such path) or \
            unknown (pruned). A path that names a subtree lists the leaves under it. Text output is a table \
            (path, lookup, value; tab-separated when piped, '-' for no value); how the answer was verified goes to \
            stderr. Exit 0 when every path was found, 1 when any is absent or unknown.
            """,
        options: [ICNetworkOptions.subnet] + ICNetworkOptions.connection + ICNetworkOptions.signing,
        arguments: [target, paths],
        relations: [.conflicting(target, ICNetworkOptions.subnet)] + ICNetworkOptions.relations,
        examples: [
            Example("omni ic read-state ryjl3-tyaaa-aaaaa-aaaba-cai /canister/ryjl3-tyaaa-aaaaa-aaaba-cai/module_hash",
                    "The ledger's module hash, certified."),
            Example("omni ic read-state --subnet tdb26-jop6k-aogll-7ltgs-eruif-6kk7m-qpktf-gdiqx-mxtrf-vb5e6-eqe /time /subnet",
                    "The NNS subnet's time and its subnet records."),
        ]
    ) { invocation in
        let canister = try invocation.value(target)
        let subnet = try invocation.value(ICNetworkOptions.subnet)
        let given = try invocation.value(paths)
        let route: CertificateScope
        if let subnet {
            route = .subnet(subnet)
        } else if let canister {
            route = .canister(canister)
        } else {
            // A word that is not a valid canister id is read as a path: say so, it is likely a typo.
            let read = given.first.map { "; the first word was read as the path \($0), not as a canister id" } ?? ""
            throw CLIError.usage("give CANISTER or --subnet ID" + read, commandPath: invocation.commandPath)
        }
        let statePaths = given.isEmpty ? [StatePath("time")] : given
        let connection = try ICNetworkOptions.prepare(invocation)
        let progress = invocation.progress("Reading")
        defer { progress.finish() }
        let agent = try connection.agent(invocation, progress: progress)
        let read = switch route {
        case .subnet(let id): try agent.readSubnetState(subnet: id, paths: statePaths)
        case .canister(let id): try agent.readState(canister: id, paths: statePaths)
        }
        var entries: [StateEntry] = []
        for path in statePaths { entries += StateEntry.entries(for: path, in: read.certificate) }
        let complete = entries.allSatisfy { $0.lookup == "found" }
        let output = StateReadOutput(read: read, entries: entries)
        invocation.note(output.verification)
        return .output(output, exitCode: complete ? .ok : .failure)
    }
}

/// One path of a read_state answer with its value decoded as far as its path says what it holds.
struct StateEntry {
    let path: StatePath
    /// `found`, `absent`, `unknown`.
    let lookup: String
    let bytes: [UInt8]?
    /// A readable rendering and its JSON form (nil when the bytes are best shown as hex).
    let decoded: (text: String, json: JSONValue)?

    /// The path's value, or for a subtree each leaf under it (bounded).
    static func entries(for path: StatePath, in certificate: VerifiedCertificate) -> [StateEntry] {
        switch certificate.lookup(path) {
        case .found(let bytes): return [StateEntry(path: path, lookup: "found", bytes: bytes, decoded: decode(bytes, at: path))]
        case .absent: return [StateEntry(path: path, lookup: "absent", bytes: nil, decoded: nil)]
        case .unknown: return [StateEntry(path: path, lookup: "unknown", bytes: nil, decoded: nil)]
        case .error:
            guard case .found(let subtree) = certificate.tree.subtree(at: path) else {
                return [StateEntry(path: path, lookup: "unknown", bytes: nil, decoded: nil)]
            }
            var result: [StateEntry] = []
            var stack: [(StatePath, HashTree)] = [(path, subtree)]
            while let (prefix, node) = stack.popLast(), result.count < ICReadStateCommand.maxLeaves {
                if case .leaf(let bytes) = node {
                    result.append(StateEntry(path: prefix, lookup: "found", bytes: bytes, decoded: decode(bytes, at: prefix)))
                    continue
                }
                for child in node.children.reversed() { stack.append((prefix.appending(child.label), child.tree)) }
            }
            return result
        }
    }

    /// Known leaves: `/time` and timestamps (ns; RFC 3339 in text), module hashes (hex), controllers (principals),
    /// metadata and statuses (text), reject codes (nat), canister ranges; otherwise printable UTF-8 as text. Each text
    /// form is one field of the read-state table (lists joined by commas, no spaces).
    static func decode(_ bytes: [UInt8], at path: StatePath) -> (text: String, json: JSONValue)? {
        let names = path.labels.map { String(validating: $0, as: UTF8.self) ?? "" }
        let last = names.last ?? ""
        switch last {
        case "time", "canister_creation_timestamp", "last_install_timestamp":
            guard let value = natural(bytes) else { return nil }
            return (ICTime.format(value), .string(String(value)))
        case "reject_code":
            guard let value = natural(bytes) else { return nil }
            return (String(value), .int(value))
        case "module_hash", "public_key", "reply", "certified_data":
            return nil
        case "controllers":
            guard let principals = principalList(bytes) else { return nil }
            return (principals.map(\.text).joined(separator: ","), .array(principals.map { .string($0.text) }))
        case "canister_ranges":
            return ranges(bytes)
        default:
            if names.first == "canister_ranges", names.count == 3 { return ranges(bytes) }
            guard let text = String(validating: bytes, as: UTF8.self), !text.isEmpty,
                  text.unicodeScalars.allSatisfy({ $0 == "\n" || $0 == "\t" || !($0.properties.generalCategory == .control) })
            else { return nil }
            return (text, .string(text))
        }
    }

    static func natural(_ bytes: [UInt8]) -> UInt64? {
        var offset = 0
        guard let value = try? LEB128.decodeUInt64(bytes, at: &offset), offset == bytes.count else { return nil }
        return value
    }

    static func principalList(_ bytes: [UInt8]) -> [Principal]? {
        guard let value = try? CBOR.decode(bytes, options: CBORDecodingOptions(maxDepth: 4, stripSelfDescribeTag: true)),
              let items = value.array else { return nil }
        var result: [Principal] = []
        for item in items {
            guard let raw = item.bytes, let principal = try? Principal(bytes: raw) else { return nil }
            result.append(principal)
        }
        return result
    }

    static func ranges(_ bytes: [UInt8]) -> (text: String, json: JSONValue)? {
        guard let value = try? CBOR.decode(bytes, options: CBORDecodingOptions(maxDepth: 4, stripSelfDescribeTag: true)),
              let items = value.array else { return nil }
        var pairs: [(Principal, Principal)] = []
        for item in items {
            guard let pair = item.array, pair.count == 2, let low = pair[0].bytes, let high = pair[1].bytes,
                  let lowest = try? Principal(bytes: low), let highest = try? Principal(bytes: high) else { return nil }
            pairs.append((lowest, highest))
        }
        return (pairs.map { "\($0.0.text)…\($0.1.text)" }.joined(separator: ","),
                .array(pairs.map { .array([.string($0.0.text), .string($0.1.text)]) }))
    }
}

/// The paths read: a table (path, lookup, value) for people and scripts; how it was verified goes to stderr
/// (`verification`).
struct StateReadOutput: Renderable {
    let read: StateRead
    let entries: [StateEntry]

    var verification: String { ReplyContext.certificateVerification(read.certificate).1 }

    func text(style: TextStyle) -> String {
        var table = Table(columns: ["path", "lookup", "value"])
        for entry in entries {
            let value = entry.lookup == "found" ? (entry.decoded?.text ?? Hex.encode(entry.bytes ?? [])) : "-"
            // A field stays on its line: text values (metadata) keep their line breaks only in JSON.
            table.append([entry.path.description, entry.lookup, value.replacing("\n", with: "\\n")])
        }
        return table.text(style: style)
    }

    var json: JSONValue {
        let (verification, _) = ReplyContext.certificateVerification(read.certificate)
        return .object([
            "verification": verification,
            "paths": .array(entries.map { entry in
                var object = JSONObject([("path", .string(entry.path.description)), ("lookup", .string(entry.lookup))])
                if let bytes = entry.bytes { object["hex"] = .string(Hex.encode(bytes)) }
                if let decoded = entry.decoded { object["value"] = decoded.json }
                return .object(object)
            }),
        ])
    }
}
