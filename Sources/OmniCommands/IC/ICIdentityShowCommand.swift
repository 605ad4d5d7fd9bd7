import OmniCLI
import OmniCandid
import OmniCodec
import OmniIC

/// `omni ic identity show [NAME]`: everything about an identity except its secret.
enum ICIdentityShowCommand {
    static let name = Argument<String>("NAME", help: "The identity; default: the default identity.", optional: true)

    /// The delegation chain of a session identity (nil for keys).
    static func chain(of identity: ICIdentity) -> DelegationChain? { identity.delegatedSession?.chain }

    static let command = Command(
        "show", abstract: "Show an identity: type, principal, public key, and for a delegated session its delegation.",
        arguments: [name.spec],
        examples: [Example("omni ic identity show alice --output json", "Public facts only; the private key is never shown.")]
    ) { invocation in
        let store = ICIdentityStore.open(invocation)
        let defaultName = try store.defaultName()
        guard let chosen = try invocation.argument(name) ?? defaultName else {
            throw ICError(.configuration, "no default identity; name one (see 'omni ic identity list')")
        }
        let identity = try store.load(chosen)
        var json = ICIdentityFacts.json(name: chosen, identity: identity, isDefault: chosen == defaultName)
        json.append("directory", .string(store.directory))
        json.append("public_key", identity.publicKeyDER.map { .string(Hex.encode($0)) } ?? .null)
        var report = ICReport(json: .null)
        report.line("name", chosen + (chosen == defaultName ? " (default)" : ""))
        report.line("type", identity.keyType.rawValue)
        report.line("principal", identity.principal.text)
        if let der = identity.publicKeyDER {
            report.line(chain(of: identity) == nil ? "public key" : "root public key", Hex.encode(der))
        }
        if let chain = chain(of: identity) {
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
