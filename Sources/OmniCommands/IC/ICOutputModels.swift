import OmniCandid
import OmniCLI
import OmniCodec
import OmniIC

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

/// How identities are shown: name, type, principal, default, and for sessions their delegation; never a secret.
enum ICIdentityFacts {
    static func json(name: String?, identity: ICIdentity, isDefault: Bool) -> JSONObject {
        var object = JSONObject()
        object.append("name", name.map { .string($0) } ?? .null)
        object.append("type", .string(identity.keyType.rawValue))
        object.append("principal", .string(identity.principal.text))
        object.append("default", .bool(isDefault))
        return object
    }

    static func report(name: String, identity: ICIdentity, store: IdentityStore, isDefault: Bool) -> ICReport {
        var json = json(name: name, identity: identity, isDefault: isDefault)
        json.append("directory", .string(store.directory))
        var report = ICReport(json: .object(json))
        report.line("name", name + (isDefault ? " (default)" : ""))
        report.line("type", identity.keyType.rawValue)
        report.line("principal", identity.principal.text)
        return report
    }

    /// The delegation chain of a session identity (nil for keys).
    static func chain(of identity: ICIdentity) -> DelegationChain? { identity.delegatedSession?.chain }
}
