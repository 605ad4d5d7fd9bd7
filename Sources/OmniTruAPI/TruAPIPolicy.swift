import OmniCodec

/// What the host does when a product asks for something a user would be asked about.
public enum TruAPIDecision: String, Sendable, CaseIterable {
    case allow, deny, prompt
}

/// One thing a product can be granted (reference §6 permission model and §8 `confirmUserAction` reviews). Its
/// `key` names it in the policy file and in the state directory's stored decisions.
public enum TruAPIPermissionSubject: Hashable, Sendable, CustomStringConvertible {
    /// `HostDevicePermissionRequest`, by its policy name (`camera`, `open_url`).
    case device(String)
    /// `RemotePermission` other than `Remote { domains }` (`web_rtc`, `chain_submit`, …).
    case remote(String)
    /// One domain of `Remote { domains }`; also gates http(s) navigation to that host.
    case domain(String)
    case identityDisclosure
    /// Using another product's account (`accountAccess(targetProductId)`), by the target's product id.
    case accountAccess(String)
    /// A `confirmUserAction` review other than identity disclosure and account access (`sign_raw`, …).
    case confirmation(String)

    /// Device permissions: the wire variants of `HostDevicePermissionRequest` and their policy names.
    public static let devicePermissions: [(wire: String, name: String)] = [
        ("Notifications", "notifications"), ("Camera", "camera"), ("Microphone", "microphone"), ("Bluetooth", "bluetooth"),
        ("NFC", "nfc"), ("Location", "location"), ("Clipboard", "clipboard"), ("OpenUrl", "open_url"), ("Biometrics", "biometrics"),
    ]
    /// `RemotePermission` variants besides `Remote { domains }`.
    public static let remotePermissions: [(wire: String, name: String)] = [
        ("WebRtc", "web_rtc"), ("ChainSubmit", "chain_submit"), ("PreimageSubmit", "preimage_submit"), ("StatementSubmit", "statement_submit"),
    ]
    /// The reviews of `NativeUserConfirmationReview` that are not identity disclosure or account access.
    public static let confirmations = [
        "sign_payload", "sign_raw", "create_transaction", "sign_vrf", "statement_store_product_sign", "account_alias",
        "create_proof", "resource_allocation", "preimage_submit", "product_subtree",
    ]

    /// `device:camera`, `domain:example.com`, `identity_disclosure`, `account_access:other.dot`, `confirmation:sign_raw`.
    public var key: String {
        switch self {
        case .device(let name): "device:" + name
        case .remote(let name): "remote:" + name
        case .domain(let host): "domain:" + host
        case .identityDisclosure: "identity_disclosure"
        case .accountAccess(let product): "account_access:" + product
        case .confirmation(let name): "confirmation:" + name
        }
    }

    /// The subject a stored key names (nil for a key this version does not know).
    public init?(key: String) {
        let parts = key.split(separator: ":", maxSplits: 1).map(String.init)
        switch (parts.first, parts.count) {
        case ("identity_disclosure", 1): self = .identityDisclosure
        case ("device", 2): self = .device(parts[1])
        case ("remote", 2): self = .remote(parts[1])
        case ("domain", 2): self = .domain(parts[1])
        case ("account_access", 2): self = .accountAccess(parts[1])
        case ("confirmation", 2): self = .confirmation(parts[1])
        default: return nil
        }
    }

    /// For prompts and logs: "the camera", "the domain example.com".
    public var description: String {
        switch self {
        case .device(let name): "device permission \(name)"
        case .remote(let name): "remote permission \(name)"
        case .domain(let host): "the domain \(host)"
        case .identityDisclosure: "disclosing the user's identity"
        case .accountAccess(let product): "the account of \(product)"
        case .confirmation(let name): name.replacing("_", with: " ")
        }
    }
}

/// The host policy that stands in for the reference's UI callbacks (`--policy FILE`): for each device permission,
/// remote permission, domain, identity disclosure, account access and confirmation kind, allow, deny or prompt.
///
/// ```json
/// {"default": "prompt",
///  "device": {"camera": "allow", "*": "deny"},
///  "remote": {"web_rtc": "deny", "chain_submit": "prompt"},
///  "domains": {"example.com": "allow", "*.example.org": "allow", "*": "deny"},
///  "identity_disclosure": "deny",
///  "account_access": {"other.dot": "allow", "*": "deny"},
///  "confirmations": {"sign_raw": "prompt", "*": "deny"}}
/// ```
/// A subject without an entry takes its section's `*`, then `default`, then prompt.
public struct TruAPIPolicy: Sendable, Equatable {
    public var fallback: TruAPIDecision
    public var device: [String: TruAPIDecision]
    public var remote: [String: TruAPIDecision]
    public var domains: [String: TruAPIDecision]
    public var identityDisclosure: TruAPIDecision?
    public var accountAccess: [String: TruAPIDecision]
    public var confirmations: [String: TruAPIDecision]

    public init(fallback: TruAPIDecision = .prompt) {
        self.fallback = fallback
        device = [:]
        remote = [:]
        domains = [:]
        identityDisclosure = nil
        accountAccess = [:]
        confirmations = [:]
    }

    /// Prompt for everything (no policy file).
    public static let promptEverything = TruAPIPolicy()

    public func decision(for subject: TruAPIPermissionSubject) -> TruAPIDecision {
        switch subject {
        case .device(let name): device[name] ?? device["*"] ?? fallback
        case .remote(let name): remote[name] ?? remote["*"] ?? fallback
        case .domain(let host): Self.domainDecision(host, domains) ?? fallback
        case .identityDisclosure: identityDisclosure ?? fallback
        case .accountAccess(let product): accountAccess[product] ?? accountAccess["*"] ?? fallback
        case .confirmation(let name): confirmations[name] ?? confirmations["*"] ?? fallback
        }
    }

    /// An exact host first, then the longest `*.suffix` that covers it (a subdomain, not the suffix itself), then `*`.
    static func domainDecision(_ host: String, _ table: [String: TruAPIDecision]) -> TruAPIDecision? {
        if let exact = table[host] { return exact }
        let wildcard = table.keys.filter { $0.hasPrefix("*.") && host.hasSuffix($0.dropFirst()) }.max { $0.count < $1.count }
        return wildcard.flatMap { table[$0] } ?? table["*"]
    }

    // MARK: - Reading

    static let sections = ["default", "device", "remote", "domains", "identity_disclosure", "account_access", "confirmations"]

    /// Reads a policy file's text. Syntax errors name the line and column, the others the field path
    /// (`$.device.camra: unknown device permission`); `source` names the file in messages.
    public static func parse(_ text: String, source: String) throws(TruAPIError) -> TruAPIPolicy {
        let json: JSONValue
        do { json = try JSONValue.parse(text, limits: JSONLimits(maxDepth: 8, maxBytes: 1 << 20)) } catch {
            throw TruAPIError(.configuration, "policy \(source): \(error.description)")
        }
        func failure(_ path: String, _ problem: String) -> TruAPIError {
            TruAPIError(.configuration, "policy \(source): at \(path): \(problem)")
        }
        guard let object = json.objectValue else { throw failure("$", "expected a JSON object of sections (\(sections.joined(separator: ", ")))") }
        var policy = TruAPIPolicy()

        func decision(_ value: JSONValue, _ path: String) throws(TruAPIError) -> TruAPIDecision {
            guard let word = value.stringValue, let decision = TruAPIDecision(rawValue: word) else {
                throw failure(path, "expected \"allow\", \"deny\" or \"prompt\", got \(value.serialized().prefix(40))")
            }
            return decision
        }
        func table(_ value: JSONValue, _ path: String, known: [String]?, what: String,
                   normalize: (String) -> String? = { $0 }) throws(TruAPIError) -> [String: TruAPIDecision] {
            guard let entries = value.objectValue else { throw failure(path, "expected an object of \(what) → allow, deny or prompt") }
            var result: [String: TruAPIDecision] = [:]
            for (key, entry) in entries {
                let entryPath = path + "." + key
                let name: String
                if key == "*" {
                    name = key
                } else if let known {
                    guard known.contains(key) else {
                        throw failure(entryPath, "unknown \(what) (expected one of \(known.joined(separator: ", ")) or *)")
                    }
                    name = key
                } else {
                    guard let normalized = normalize(key) else { throw failure(entryPath, "not a valid \(what)") }
                    name = normalized
                }
                guard result[name] == nil else { throw failure(entryPath, "\(what) \(name) is listed twice") }
                result[name] = try decision(entry, entryPath)
            }
            return result
        }

        for (key, value) in object {
            let path = "$." + key
            switch key {
            case "default":
                policy.fallback = try decision(value, path)
            case "device":
                policy.device = try table(value, path, known: TruAPIPermissionSubject.devicePermissions.map(\.name), what: "device permission")
            case "remote":
                policy.remote = try table(value, path, known: TruAPIPermissionSubject.remotePermissions.map(\.name),
                                          what: "remote permission (domains have their own section)")
            case "domains":
                policy.domains = try table(value, path, known: nil, what: "domain", normalize: Self.domainPattern)
            case "identity_disclosure":
                policy.identityDisclosure = try decision(value, path)
            case "account_access":
                if value.stringValue != nil {
                    policy.accountAccess = ["*": try decision(value, path)]
                } else {
                    policy.accountAccess = try table(value, path, known: nil, what: "product id") { text in
                        (try? TruAPIProductID(text))?.value
                    }
                }
            case "confirmations":
                policy.confirmations = try table(value, path, known: TruAPIPermissionSubject.confirmations, what: "confirmation kind")
            default:
                throw failure(path, "unknown section (expected \(sections.joined(separator: ", ")))")
            }
        }
        return policy
    }

    /// A host name, `*.suffix`, an IPv4 address or a bracketed IPv6 address, lowercased.
    static func domainPattern(_ text: String) -> String? {
        let lower = text.lowercased()
        let host = lower.hasPrefix("*.") ? String(lower.dropFirst(2)) : lower
        guard !host.isEmpty, host.utf8.count <= 253 else { return nil }
        if host.hasPrefix("["), host.hasSuffix("]") {
            return host.dropFirst().dropLast().allSatisfy({ $0.isHexDigit || $0 == ":" || $0 == "." }) ? lower : nil
        }
        let labels = host.split(separator: ".", omittingEmptySubsequences: false)
        let valid = labels.allSatisfy { label in
            !label.isEmpty && label.utf8.allSatisfy { (0x30...0x39).contains($0) || (0x61...0x7A).contains($0) || $0 == UInt8(ascii: "-") || $0 >= 0x80 }
        }
        return valid ? lower : nil
    }
}
