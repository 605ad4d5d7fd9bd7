import OmniBLS
import OmniCandid
import OmniCLI
import OmniCodec
import OmniIC

// The values `omni ic` commands take, as typed command-line values. Ids, keys, hex and paths are data: a value that
// does not parse is malformed input (exit 3), and the framework checks it before the command runs, so nothing goes
// on the network with a bad one. Networks and encodings are choices (exit 2).

/// A principal in text form (any letter case). The message names the rule the text breaks.
extension Principal: ArgumentValue {
    public init?(argument: String) {
        guard let principal = try? Principal(icText: argument.trimmingWhitespaceAndNewlines()) else { return nil }
        self = principal
    }

    public static var expectation: String { "a principal like ryjl3-tyaaa-aaaaa-aaaba-cai" }
    public static var isData: Bool { true }

    public static func problem(with text: String) -> String? {
        let trimmed = text.trimmingWhitespaceAndNewlines()
        if let problem = Principal.textProblem(trimmed) { return "not a principal: it \(problem) (rule: \(problem.rawValue))" }
        do { _ = try Principal(icText: trimmed) } catch { return error.message }
        return nil
    }

    public var argumentText: String { text }
}

/// A subaccount: a decimal index (big-endian in the last 8 bytes, the ledger convention), 64 hex digits, or `0x` and
/// up to 64 hex digits (left-padded with zeros).
extension Subaccount: ArgumentValue {
    public init?(argument: String) {
        guard case .success(let subaccount) = Subaccount.parse(argument) else { return nil }
        self = subaccount
    }

    public static var expectation: String { "a subaccount: an index, 64 hex digits, or 0x and up to 64 hex digits" }
    public static var isData: Bool { true }

    public static func problem(with text: String) -> String? {
        if case .failure(let problem) = parse(text) { return problem.message }
        return nil
    }

    public var argumentText: String { hex }

    struct Problem: Error { let message: String }

    static func parse(_ text: String) -> Result<Subaccount, Problem> {
        let trimmed = text.trimmingWhitespaceAndNewlines()
        if !trimmed.isEmpty, trimmed.utf8.allSatisfy({ (0x30...0x39).contains($0) }), trimmed.utf8.count < 64 {
            guard let index = UInt64(trimmed) else {
                return .failure(Problem(message: "subaccount index \(trimmed) does not fit in 64 bits; give 64 hex digits instead"))
            }
            return .success(Subaccount(index: index))
        }
        var digits = Substring(trimmed)
        let prefixed = digits.hasPrefix("0x") || digits.hasPrefix("0X")
        if prefixed { digits = digits.dropFirst(2) }
        guard !digits.isEmpty, digits.utf8.allSatisfy({ $0.isHexDigitASCII }) else {
            return .failure(Problem(message: "neither a subaccount index nor hex"))
        }
        guard digits.utf8.count <= 64, prefixed || digits.utf8.count == 64 else {
            return .failure(Problem(message: "a subaccount is 32 bytes: 64 hex digits, or 0x and at most 64 (got \(digits.utf8.count))"))
        }
        let padded = String(repeating: "0", count: 64 - digits.utf8.count) + digits
        do { return .success(try Subaccount(hex: padded)) } catch { return .failure(Problem(message: error.message)) }
    }
}

/// `ic`, `local` or an http(s) URL: a choice of the command line (exit 2 when it is none of them).
extension ICNetwork: ArgumentValue {
    public init?(argument: String) {
        guard let network = try? ICNetwork(argument) else { return nil }
        self = network
    }

    public static var expectation: String { "ic, local or an http(s):// URL" }

    public static func problem(with text: String) -> String? {
        do { _ = try ICNetwork(text) } catch { return error.message }
        return nil
    }

    public var argumentText: String { name ?? url }
}

/// A request id: 64 hex digits, with or without 0x.
extension RequestID: ArgumentValue {
    public init?(argument: String) {
        guard let id = try? RequestID(hex: argument.trimmingWhitespaceAndNewlines()) else { return nil }
        self = id
    }

    public static var expectation: String { "a request id: 64 hex digits, with or without 0x" }
    public static var isData: Bool { true }

    public static func problem(with text: String) -> String? {
        do { _ = try RequestID(hex: text.trimmingWhitespaceAndNewlines()) } catch { return error.message }
        return nil
    }

    public var argumentText: String { prefixedHex }
}

/// A state-tree path as people write it (`/time`, `/canister/<id>/module_hash`); it starts with `/`.
extension StatePath: ArgumentValue {
    public init?(argument: String) {
        guard case .success(let path) = StatePath.parse(argument) else { return nil }
        self = path
    }

    public static var expectation: String { "a state path like /time or /canister/<id>/module_hash" }
    public static var isData: Bool { true }

    public static func problem(with text: String) -> String? {
        if case .failure(let error) = parse(text) { return error.message }
        return nil
    }

    public var argumentText: String { description }

    static func parse(_ text: String) -> Result<StatePath, ICError> {
        let trimmed = text.trimmingWhitespaceAndNewlines()
        guard trimmed.hasPrefix("/") else {
            return .failure(ICError(.malformed, "\"\(TerminalText.escaped(String(trimmed.prefix(80))))\" is not a path; paths start with / (e.g. /time)"))
        }
        do { return .success(try StatePath(text: trimmed)) } catch { return .failure(error) }
    }
}

/// The root of trust: `mainnet` (the key pinned in omni), or hex of a root key's 133-byte DER or 96-byte G2 point.
/// On the command line the value may also be `@FILE` holding either, or the DER bytes themselves (`ICInput.rootKey`).
extension ICRootKey: ArgumentValue {
    public init?(argument: String) {
        guard case .success(let key) = ICRootKey.parse(text: argument) else { return nil }
        self = key
    }

    public static var expectation: String { "mainnet, or a root key as hex (266 digits of DER or 192 of the G2 point)" }
    public static var isData: Bool { true }

    public static func problem(with text: String) -> String? {
        if case .failure(let error) = parse(text: text) { return error.message }
        return nil
    }

    public var argumentText: String { isMainnet ? "mainnet" : Hex.encode(der) }

    static func parse(text: String) -> Result<ICRootKey, ICError> {
        let trimmed = text.trimmingWhitespaceAndNewlines()
        if trimmed == "mainnet" { return .success(.mainnet) }
        do { return .success(try ICRootKey(hex: trimmed)) } catch { return .failure(error) }
    }
}

/// Bytes given as hex (an optional 0x, surrounding whitespace ignored).
struct HexBytes: ArgumentValue, Sendable {
    let bytes: [UInt8]

    init?(argument: String) {
        guard let bytes = try? Hex.decode(argument.trimmingWhitespaceAndNewlines(), allowPrefix: true) else { return nil }
        self.bytes = bytes
    }

    static var expectation: String { "hex digits (0x allowed)" }
    static var isData: Bool { true }

    static func problem(with text: String) -> String? {
        do { _ = try Hex.decode(text.trimmingWhitespaceAndNewlines(), allowPrefix: true) } catch { return error.summary }
        return nil
    }

    var argumentText: String { Hex.encode(bytes) }
}

/// How binary input arrives on the command line (`--input-format`).
enum ICInputEncoding: String, CaseIterable, ArgumentValue {
    case hex
    case binary
}

/// Options of the offline checks (certificate verify, verify-delegation).
enum ICOfflineOptions {
    /// The networked commands have their own `--root-key`, which also reads the environment and the config file.
    static let rootKey = DefaultedOption<ICRootKey>(
        "root-key", valueName: "mainnet|HEX|@FILE",
        help: "The root of trust certificates verify under: the pinned mainnet key, or a local replica's key (hex of "
            + "the DER or the raw point, or @FILE).",
        default: .mainnet, source: .content)

    static func rootKey(_ invocation: Invocation) throws -> ICRootKey {
        try ICInput.rootKey(try invocation.bytes(of: rootKey)) ?? invocation.value(rootKey)
    }
}

/// Reading the inputs that need more than one value's text: bytes in an encoding, root keys from files, PEM blocks.
/// Failures are `ICError`s (malformed input, exit 3) naming the input they came from.
enum ICInput {
    /// Bytes given as hex (an optional 0x, whitespace around and between digits ignored) or, with `.binary`, as they
    /// are. Hex text must be UTF-8; binary given as hex is pointed out.
    static func bytes(_ raw: [UInt8], encoding: ICInputEncoding, label: String) throws -> [UInt8] {
        switch encoding {
        case .binary:
            return raw
        case .hex:
            let looksBinary = raw.starts(with: [0xd9, 0xd9, 0xf7]) || raw.starts(with: [0x30]) && raw.count > 1 && !raw[1].isHexDigitASCII
            let hint = looksBinary ? "the input looks binary; add --input-format binary" : nil
            do throws(CodecError) {
                let text = try UTF8Validation.string(raw)
                return try Hex.decode(text.filter { !$0.isWhitespace }, allowPrefix: true)
            } catch {
                throw error.labelled(label, hint: hint)
            }
        }
    }

    /// A root key as the command line gives it (`@FILE` already read: hex text or the binary DER); nil when the
    /// command line gives none (the option's environment, config or default value applies then).
    static func rootKey(_ bytes: [UInt8]?) throws -> ICRootKey? {
        guard let bytes else { return nil }
        do throws(ICError) {
            // Binary DER starts with a SEQUENCE byte and is 133 bytes; hex text of a key never has that length.
            if bytes.count == BLS.icPublicKeyDERPrefix.count + BLS.publicKeyLength, bytes.first == 0x30 {
                return try ICRootKey(der: bytes)
            }
            let text: String
            do { text = try UTF8Validation.string(bytes) } catch {
                throw ICError(.malformed, "not a root key: \(error.message)", offset: error.offset)
            }
            return try ICRootKey.parse(text: text).get()
        } catch {
            throw error.labelled("--root-key")
        }
    }

    /// The DER of the first `PUBLIC KEY` block of a PEM text, nil when there is none.
    static func publicKeyDER(pem: String, label: String) throws -> [UInt8]? {
        do { return try PEM.blocks(in: pem).first(where: { $0.label == "PUBLIC KEY" })?.der } catch { throw error.labelled(label) }
    }

    /// Text read from a file that must be UTF-8 (PEM, JSON).
    static func text(_ bytes: [UInt8], label: String) throws -> String {
        do throws(CodecError) { return try UTF8Validation.string(bytes) } catch { throw error.labelled(label) }
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
