import OmniCLI
import OmniCandid
import OmniCodec
import OmniIC

/// `omni ic identity show [NAME]`: everything about an identity except its secret.
enum ICIdentityShowCommand {
    static let name = OptionalArgument<String>(
        "NAME", help: "The identity; default: the selected one (see 'omni ic identity whoami').", completion: .dynamic("identities"))

    static let command = Command(
        "show", abstract: "Show an identity: type, principal, public key, and for a delegated session its delegation.",
        arguments: [name],
        examples: [Example("omni ic identity show alice --output json", "Public facts only; the private key is never shown.")]
    ) { invocation in
        let store = ICIdentityStore.open(invocation)
        let defaultName = try store.defaultName()
        let chosen: (name: String?, identity: ICIdentity)
        if let given = try invocation.value(name) {
            chosen = (given, try store.load(given))
        } else {
            let choice = try ICIdentitySelection.resolve(invocation)
            if choice.origin == .anonymous { invocation.note("no identity chosen: requests are anonymous") }
            chosen = (choice.name, choice.identity)
        }
        let identity = chosen.identity
        let isDefault = chosen.name != nil && chosen.name == defaultName
        var json = ICIdentityFacts.json(name: chosen.name, identity: identity, isDefault: isDefault)
        json.append("directory", .string(store.directory))
        json.append("public_key", identity.publicKeyDER.map { .string(Hex.encode($0)) } ?? .null)
        var report = ICReport(json: .null)
        report.line("name", (chosen.name ?? "anonymous") + (isDefault ? " (default)" : ""))
        report.line("type", identity.keyType.rawValue)
        report.line("principal", identity.principal.text)
        let chain = ICIdentityFacts.chain(of: identity)
        if let der = identity.publicKeyDER {
            report.line(chain == nil ? "public key" : "root public key", Hex.encode(der))
        }
        if let chain {
            let now = IngressExpiry.currentTime()
            var session = JSONObject()
            session.append("session_public_key", identity.signingPublicKeyDER.map { .string(Hex.encode($0)) } ?? .null)
            session.append("delegations", .int(chain.delegations.count))
            if let expiration = chain.expiration {
                ICTimeFields.add("expiration", expiration, to: &session)
                session.append("expired", .bool(expiration < now))
                report.line("expires", ICTime.format(expiration) + (expiration < now ? " (expired)" : ""))
            }
            let targets = chain.effectiveTargets.map { $0.sorted() }
            session.append("targets", targets.map { .array($0.map { .string($0.text) }) } ?? .null)
            report.line("targets", targets.map { $0.isEmpty ? "none (no canister may be called)" : $0.map(\.text).joined(separator: ", ") } ?? "any canister")
            report.line("delegations", "\(chain.delegations.count)")
            session.append("delegation_chain", chain.json)
            json.append("session", .object(session))
        }
        report.json = .object(json)
        return .output(report)
    }
}
