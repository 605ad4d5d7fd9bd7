import OmniBLS
import OmniCLI
import OmniCandid
import OmniCodec
import OmniCrypto
import OmniIC
import OmniSystem

/// The `omni ic` commands that need no network: principals, accounts, identities, certificate checks and
/// offline signing.
enum ICOfflineCommands {
    static var all: [Command] { [principal, accountID, account, identity, certificate, ICSignCommand.command] }

    static var principal: Command {
        Command("principal", abstract: "Parse, derive and inspect principals (user, canister and subnet ids).",
                subcommands: [ICPrincipalParseCommand.command, ICPrincipalFromKeyCommand.command,
                              ICPrincipalFromBytesCommand.command, ICPrincipalWellKnownCommand.anonymous,
                              ICPrincipalWellKnownCommand.management])
    }

    static var accountID: Command { ICAccountIDCommand.command }

    static var account: Command {
        Command("account", abstract: "ICRC-1 accounts: encode an owner and subaccount as text, or decode the text.",
                subcommands: [ICAccountIDEncodeCommand.command, ICAccountIDDecodeCommand.command])
    }

    static var identity: Command {
        Command("identity", abstract: "Keys that sign requests, stored under the config directory (files 0600).",
                discussion: """
                    Identities live in $XDG_CONFIG_HOME/omni/identities/ (or $OMNI_CONFIG_DIR/identities/): keys as \
                    <name>.pem in the formats dfx writes, delegated sessions as <name>.session.json, the default's \
                    name in default-identity. Private keys are never printed, except by 'identity export \
                    --show-private-key'. Without a default identity, requests are anonymous (2vxsx-fae).
                    """,
                subcommands: [ICIdentityNewCommand.command, ICIdentityListCommand.command, ICIdentityUseCommand.command,
                              ICIdentityPrincipalCommand.command, ICIdentityShowCommand.command,
                              ICIdentityImportCommand.command, ICIdentityExportCommand.command,
                              ICIdentityRemoveCommand.command, ICIdentityDelegateCommand.command,
                              ICIdentityVerifyDelegationCommand.command])
    }

    static var certificate: Command {
        Command("certificate", abstract: "Check IC certificates offline (BLS signature, delegation, ranges, time).",
                subcommands: [ICCertificateVerifyCommand.command])
    }
}

/// How binary input arrives on the command line.
enum ICInputEncoding: String, CaseIterable, ArgumentValue {
    case hex
    case binary
}

/// Reading the values offline commands take: principals, subaccounts, bytes, times and durations. Every failure is
/// an `ICError` (malformed input, exit 3) that names the option it came from.
enum ICInput {
    /// A principal in text form; the error names the rule the text breaks.
    static func principal(_ text: String, label: String) throws -> Principal {
        let trimmed = text.trimmingWhitespaceAndNewlines()
        if let problem = Principal.textProblem(trimmed) {
            throw ICError(.malformed, "\(label): \"\(sample(trimmed))\" is not a principal: it \(problem) (rule: \(problem.rawValue))")
        }
        do { return try Principal(icText: trimmed) } catch {
            throw ICError(.malformed, "\(label): \(error.message)")
        }
    }

    /// Bytes given as hex (an optional 0x, surrounding whitespace ignored) or, with `.binary`, as they are.
    static func bytes(_ raw: [UInt8], encoding: ICInputEncoding, label: String) throws -> [UInt8] {
        switch encoding {
        case .binary:
            return raw
        case .hex:
            let text = String(decoding: raw, as: UTF8.self).trimmingWhitespaceAndNewlines()
            do { return try Hex.decode(text, allowPrefix: true) } catch {
                let looksBinary = raw.starts(with: [0xd9, 0xd9, 0xf7]) || raw.starts(with: [0x30]) && raw.count > 1 && !raw[1].isHexDigitASCII
                throw error.labelled(label, hint: looksBinary ? "the input looks binary; add --input binary" : nil)
            }
        }
    }

    /// A subaccount: a decimal index (big-endian in the last 8 bytes, the ledger convention), 64 hex digits, or
    /// `0x` and up to 64 hex digits (left-padded with zeros).
    static func subaccount(_ text: String, label: String) throws -> Subaccount {
        let trimmed = text.trimmingWhitespace()
        if !trimmed.isEmpty, trimmed.utf8.allSatisfy({ (0x30...0x39).contains($0) }), trimmed.utf8.count < 64 {
            guard let index = UInt64(trimmed) else {
                throw ICError(.malformed, "\(label): subaccount index \(trimmed) does not fit in 64 bits; give 64 hex digits instead")
            }
            return Subaccount(index: index)
        }
        var digits = Substring(trimmed)
        let prefixed = digits.hasPrefix("0x") || digits.hasPrefix("0X")
        if prefixed { digits = digits.dropFirst(2) }
        guard !digits.isEmpty, digits.utf8.allSatisfy({ $0.isHexDigitASCII }) else {
            throw ICError(.malformed, "\(label): \"\(sample(trimmed))\" is neither a subaccount index nor hex")
        }
        guard digits.utf8.count <= 64, prefixed || digits.utf8.count == 64 else {
            throw ICError(.malformed, "\(label): a subaccount is 32 bytes: 64 hex digits, or 0x and at most 64 (got \(digits.utf8.count))")
        }
        let padded = String(repeating: "0", count: 64 - digits.utf8.count) + digits
        return try Subaccount(hex: padded)
    }

    /// `--root-key` of the offline checks (certificate verify, verify-delegation); the networked commands have
    /// their own, which also reads the environment and the config file.
    static let offlineRootKey = Option<String>(
        "root-key", valueName: "mainnet|HEX|@FILE",
        help: "The root of trust certificates verify under: the pinned mainnet key, or a local replica's key (hex of "
            + "the DER or the raw point, or @FILE).",
        defaultDescription: "mainnet", source: .content)

    /// A `--root-key` value: `mainnet`, hex of the 133-byte DER or of the 96-byte point, or a file (@FILE) holding
    /// either or the DER bytes themselves; nil when the option is not set. The command line's bytes are read once.
    static func rootKey(_ invocation: Invocation, option: Option<String>) throws -> ICRootKey? {
        let raw: [UInt8]
        if let given = try invocation.bytes(of: option) {
            raw = given
        } else if let text = try invocation.value(option) {
            raw = Array(text.utf8)
        } else {
            return nil
        }
        let text = String(decoding: raw, as: UTF8.self).trimmingWhitespaceAndNewlines()
        if text == "mainnet" { return .mainnet }
        do throws(ICError) {
            // Binary DER starts with a SEQUENCE byte and is 133 bytes; hex text of a key never has that length.
            if raw.count == BLS.icPublicKeyDERPrefix.count + BLS.publicKeyLength, raw.first == 0x30 { return try ICRootKey(der: raw) }
            return try ICRootKey(hex: text)
        } catch {
            throw ICError(error.kind, "--root-key: \(error.message)")
        }
    }

    /// An instant: RFC 3339 or nanoseconds since the epoch.
    static func time(_ text: String, label: String) throws -> UInt64 {
        do { return try ICTime.parse(text) } catch {
            throw ICError(.malformed, "\(label): \(error.message)")
        }
    }

    /// A command-line duration in nanoseconds (saturating).
    static func nanoseconds(_ duration: Duration) -> UInt64 {
        let (seconds, attoseconds) = duration.components
        guard seconds >= 0 else { return 0 }
        let (scaled, overflow) = UInt64(seconds).multipliedReportingOverflow(by: 1_000_000_000)
        if overflow { return UInt64.max }
        let (sum, overflow2) = scaled.addingReportingOverflow(UInt64(attoseconds / 1_000_000_000))
        return overflow2 ? UInt64.max : sum
    }

    /// At most 80 printable characters of untrusted text, for messages.
    static func sample(_ text: String) -> String {
        let printable = text.unicodeScalars.prefix(80).map { scalar -> String in
            scalar.isASCII && scalar.value >= 0x20 && scalar.value != 0x7f ? String(scalar) : "?"
        }.joined()
        return text.unicodeScalars.count > 80 ? printable + "…" : printable
    }

    /// Reads a small local file (keys, session files, .did files), `-` meaning stdin.
    static func file(_ path: String, label: String, invocation: Invocation, maxBytes: Int = 1 << 20) throws -> [UInt8] {
        let bytes: [UInt8]
        if path == "-" {
            if invocation.streams.stdinIsTerminal {
                throw CLIError.usage("\(label) is '-' but stdin is a terminal; pipe the file in", commandPath: invocation.commandPath)
            }
            bytes = try invocation.streams.stdinBytes()
        } else {
            bytes = try FileInput.read(path, label: label)
        }
        guard bytes.count <= maxBytes else {
            throw ICError(.malformed, "\(label): larger than \(maxBytes) bytes", location: path)
        }
        return bytes
    }

    /// The DER of the first `PUBLIC KEY` block of a PEM text, nil when there is none.
    static func publicKeyDER(pem: String, label: String) throws -> [UInt8]? {
        do { return try PEM.blocks(in: pem).first(where: { $0.label == "PUBLIC KEY" })?.der } catch { throw error.labelled(label) }
    }

    /// A Candid failure as malformed input, labelled with where the text came from.
    static func candid(_ error: CandidError, _ label: String) -> ICError {
        ICError(.malformed, "\(label): \(error)")
    }
}

extension UInt8 {
    var isHexDigitASCII: Bool {
        (0x30...0x39).contains(self) || (0x41...0x46).contains(self) || (0x61...0x66).contains(self)
    }
}

/// The store every identity command works on.
enum ICIdentityStore {
    static func open(_ invocation: Invocation) -> IdentityStore {
        IdentityStore(directories: Directories(environment: invocation.environment))
    }
}

/// `--identity NAME` / `--pem FILE`: who signs, for every command that signs (offline and networked). Without
/// either, the default identity, else anonymous.
enum ICIdentitySelection {
    /// A global option (valid on every command line, as dfx's): every command that signs reads it, and only those.
    static let identity = Option<String>(
        "identity", valueName: "NAME",
        help: "Sign as this stored identity ('anonymous' for none; see 'omni ic identity list').",
        absentMeans: "the one chosen with 'omni ic identity use', else anonymous",
        environment: "OMNI_IDENTITY", config: "ic.identity", completion: .dynamic("identities"))
    static let pem = Option<String>(
        "pem", valueName: "FILE",
        help: "Sign with the private key in this PEM file (Ed25519, secp256k1 or P-256; dfx's identity.pem works as is).",
        source: .path, group: "Identity")

    /// The per-command part of the selection (`--identity` itself is global).
    static let options: [any OptionDeclaration] = [pem]
    /// Declared by every command that signs: a PEM file and a stored identity are two answers to one question.
    static let relations: [Relation] = [.conflicting(identity, pem)]

    /// Stored identity names, for completions (plus `anonymous`).
    static func names(_ invocation: Invocation) throws -> [String] {
        try ICIdentityStore.open(invocation).names() + ["anonymous"]
    }

    /// The signing identity and a description of where it came from.
    static func resolve(_ invocation: Invocation) throws -> (identity: ICIdentity, source: String) {
        if invocation.isGiven(identity) && invocation.isGiven(pem) {
            throw CLIError.usage("--identity and --pem cannot be combined", commandPath: invocation.commandPath)
        }
        if let path = try invocation.value(pem) {
            let bytes = try ICInput.file(path, label: "--pem", invocation: invocation, maxBytes: 1 << 16)
            do {
                return (try ICIdentity(pem: String(decoding: bytes, as: UTF8.self)), "PEM file \(path)")
            } catch {
                throw error.labelled("--pem", location: path)
            }
        }
        let store = ICIdentityStore.open(invocation)
        if let name = try invocation.value(identity) {
            return name == "anonymous" ? (.anonymous, "anonymous") : (try store.load(name), "identity \(name)")
        }
        if let name = try store.defaultName() { return (try store.load(name), "identity \(name) (the default)") }
        return (.anonymous, "anonymous (no default identity)")
    }
}

/// Facts about one principal, for JSON output.
enum ICPrincipalFacts {
    static func json(_ principal: Principal) -> JSONObject {
        var object = JSONObject()
        object.append("principal", .string(principal.text))
        object.append("bytes", .string(Hex.encode(principal.bytes)))
        object.append("length", .int(principal.bytes.count))
        object.append("class", .string(principal.principalClass.rawValue))
        return object
    }

    /// The kind of DER public key, in words scripts can match: ed25519, ecdsa_p256, ecdsa_secp256k1,
    /// canister_signature, bls12_381 (IC root and subnet keys), or nil when omni does not recognise it.
    static func keyAlgorithm(der: [UInt8]) -> String? { ICKeyAlgorithm(der: der)?.rawValue }
}

/// Instants in output: nanoseconds as a decimal string (64-bit) and RFC 3339.
enum ICTimeFields {
    static func add(_ name: String, _ nanoseconds: UInt64, to object: inout JSONObject) {
        object.append(name, .string(String(nanoseconds)))
        object.append(name + "_rfc3339", .string(ICTime.format(nanoseconds)))
    }
}

/// Key/value lines for people; the JSON form is given separately so it can nest.
struct ICReport: Renderable {
    var lines: [(label: String, text: String)] = []
    /// Lines printed as they are after the aligned ones (e.g. lookups, whose paths are too long to align).
    var trailer: [String] = []
    var json: JSONValue

    init(json: JSONValue) { self.json = json }

    mutating func line(_ label: String, _ text: String) { lines.append((label, text)) }

    func text(style: TextStyle) -> String {
        let width = lines.map(\.label.count).max() ?? 0
        let aligned = lines.map { line in
            style.dim(line.label + ":") + String(repeating: " ", count: width - line.label.count + 1) + line.text
        }
        return (aligned + trailer).joined(separator: "\n")
    }
}
