import OmniCLI
import OmniCandid
import OmniCodec
import OmniIC

/// `omni ic identity verify-delegation CHAIN`: check a delegation chain as the IC would before accepting it.
enum ICIdentityVerifyDelegationCommand {
    static let chainArgument = OptionalArgument<String>(
        "CHAIN", help: "A delegation chain as JSON (agent-js DelegationChain.toJSON, e.g. from Internet Identity) or a "
            + "session file; read from stdin when omitted.",
        source: .content)
    static let at = Option<Instant>("at", valueName: "INSTANT", help: "Check expiry at this time: RFC 3339 or Unix seconds.",
                                    absentMeans: "now")
    static let canister = Option<Principal>("canister", valueName: "ID", help: "Also check that the chain may call this canister.")

    static let command = Command(
        "verify-delegation", abstract: "Verify a delegation chain or session file (exit 0 valid, 1 not valid with the reason).",
        discussion: """
            Checks what the IC checks: at most 20 delegations, no key twice, each delegation signed by the key \
            before it (Ed25519, ECDSA P-256/secp256k1, or a canister signature checked against --root-key), none \
            expired at --at, and with --canister that every restricting delegation lists the canister. A session \
            file's chain must also end in its session key; a session file read with @FILE must be readable by its \
            owner only (it holds the session key). Reasons: delegation_chain, expired, target.
            """,
        options: [at, canister, ICOfflineOptions.rootKey], arguments: [chainArgument],
        examples: [
            Example("omni ic identity verify-delegation @ci.session.json --canister ryjl3-tyaaa-aaaaa-aaaba-cai",
                    "Is the session still good for the ledger?"),
            Example("omni ic identity verify-delegation @ii-chain.json --at 2026-01-01T00:00:00Z", "Check an Internet Identity chain."),
        ]
    ) { invocation in
        let raw = try invocation.bytes(of: chainArgument) ?? invocation.read(.standardInput, label: "CHAIN")
        let json: JSONValue
        do throws(CodecError) { json = try JSONValue.parse(raw, limits: JSONLimits(maxDepth: 16, maxBytes: 1 << 20)) } catch {
            throw error.labelled("CHAIN")
        }
        let chain: DelegationChain
        let kind: String
        if json["kind"] != nil {
            // A session file holds the session's secret key: a file others may read is refused, as for --pem.
            if let file = invocation.sourceName(of: chainArgument), file != "<stdin>" {
                _ = try invocation.readSecret(.path(file), label: "CHAIN")
            }
            chain = try DelegatedSession(sessionFile: json).chain
            kind = "session_file"
        } else {
            chain = try DelegationChain(json: json)
            kind = "delegation_chain"
        }
        let time = try invocation.value(at)?.unixNanoseconds ?? IngressExpiry.currentTime()
        let target = try invocation.value(canister)
        let key = try ICOfflineOptions.rootKey(invocation)

        var object = JSONObject()
        object.append("input", .string(kind))
        do {
            try chain.verify(at: time, canister: target, rootKey: key)
        } catch let error as ICError where error.kind == .verificationFailed {
            object.append("valid", false)
            object.append("reason", .string(error.reason?.rawValue ?? "unknown"))
            object.append("message", .string(error.message))
            var report = ICReport(json: .object(object))
            report.line("valid", invocation.stdoutStyle.bad("no") + " (\(error.reason?.rawValue ?? "unknown"))")
            report.line("reason", error.message)
            return .output(report, exitCode: .failure)
        }
        object.append("valid", true)
        object.append("principal", .string(chain.principal.text))
        object.append("session_public_key", .string(Hex.encode(chain.sessionPublicKey)))
        object.append("delegations", .int(chain.delegations.count))
        if let expiration = chain.expiration { ICTimeFields.add("expiration", expiration, to: &object) }
        let targets = chain.effectiveTargets.map { $0.sorted() }
        object.append("targets", targets.map { .array($0.map { .string($0.text) }) } ?? .null)
        ICTimeFields.add("checked_at", time, to: &object)
        var report = ICReport(json: .object(object))
        report.line("valid", invocation.stdoutStyle.good("yes"))
        report.line("principal", chain.principal.text)
        report.line("delegations", "\(chain.delegations.count)")
        if let expiration = chain.expiration { report.line("expires", ICTime.format(expiration)) }
        report.line("targets", targets.map { $0.map(\.text).joined(separator: ", ") } ?? "any canister")
        return .output(report)
    }
}
