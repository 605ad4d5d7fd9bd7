import Foundation
import OmniCandid
import OmniCodec
import OmniCrypto
import OmniTestSupport
import Testing
@testable import OmniIC

/// Delegated sessions, chain verification (Ed25519, ECDSA P-256/secp256k1, canister signatures), JSON.
@Suite struct DelegationTests {
    let now: UInt64 = 1_750_000_000_000_000_000
    var canister: Principal { get throws { try principal("ryjl3-tyaaa-aaaaa-aaaba-cai") } }

    @Test func sessionFromEachRootKeyType() throws {
        for type in [ICIdentity.KeyType.ed25519, .secp256k1, .p256] {
            let root = try ICIdentity.generate(type)
            let session = try DelegatedSession.create(root: root, now: now)
            #expect(session.principal == root.principal)
            #expect(session.expiration == now + DelegatedSession.defaultLifetime)
            #expect(session.chain.publicKey == root.publicKeyDER)
            try session.chain.verify(at: now, canister: try canister)
            let identity = ICIdentity(session: session)
            #expect(identity.keyType == .delegated && identity.principal == root.principal)
            #expect(identity.signingPublicKeyDER != root.publicKeyDER)
            let request = try ICRequest(.call(canister: try canister, method: "m", arg: []), sender: identity.principal,
                                        ingressExpiry: IngressExpiry.expiry(now: now))
            let envelope = try identity.envelope(for: request, at: now)
            #expect(envelope.senderDelegation == session.chain.delegations)
            try ICEnvelope(decoding: try envelope.encoded()).verifySender(at: now)
            // The root key is not in the session file.
            let file = try session.sessionFileJSON().serialized()
            let rootSecret: [UInt8]
            switch root.signer {
            case .ed25519(let key): rootSecret = key.seed
            case .ecdsa(let key): rootSecret = key.rawRepresentation
            default: throw TestSupportError("root type")
            }
            #expect(!file.contains(Hex.encode(rootSecret)))
            // The session's own secret appears only in the session file.
            let secretLine = try String(#require(try session.sessionKey.exportPrivateKeyPEM().split(separator: "\n").dropFirst().first))
            #expect(file.contains(secretLine))
            for text in [String(describing: session), String(reflecting: session), "\(identity)", String(reflecting: identity)] {
                #expect(!text.contains(secretLine) && !text.contains("PRIVATE"), "\(text)")
            }
        }
    }

    @Test func lifetimeAndTargets() throws {
        let root = try ICIdentity.generate()
        #expect(try DelegatedSession.create(root: root, lifetime: DelegatedSession.maxLifetime, now: now).expiration == now + DelegatedSession.maxLifetime)
        expectICError(.invalidArgument, "too long") { _ = try DelegatedSession.create(root: root, lifetime: DelegatedSession.maxLifetime + 1, now: now) }
        expectICError(.invalidArgument, "zero") { _ = try DelegatedSession.create(root: root, lifetime: 0, now: now) }
        expectICError(.invalidArgument, "anonymous") { _ = try DelegatedSession.create(root: .anonymous, now: now) }
        let other = try principal("rrkah-fqaaa-aaaaa-aaaaq-cai")
        let restricted = try DelegatedSession.create(root: root, targets: [try canister], now: now)
        try restricted.chain.verify(at: now, canister: try canister)
        expectICError(.verificationFailed, reason: .target, "other canister") { try restricted.chain.verify(at: now, canister: other) }
        expectICError(.verificationFailed, reason: .expired, "expired") { try restricted.chain.verify(at: restricted.expiration + 1) }
        let identity = ICIdentity(session: restricted)
        let call = try ICRequest(.call(canister: other, method: "m", arg: []), sender: identity.principal, ingressExpiry: now)
        expectICError(.unauthorized, reason: .target, "signing for a non-target") { _ = try identity.envelope(for: call, at: now) }
        let allowed = try ICRequest(.call(canister: try canister, method: "m", arg: []), sender: identity.principal, ingressExpiry: now)
        expectICError(.configuration, reason: .expired, "signing after expiry") {
            _ = try identity.envelope(for: allowed, at: restricted.expiration + 1)
        }
        // read_state: only request_status paths are restricted by targets, to the canister of the call they read.
        let read = try ICRequest(.readState(paths: [.time]), sender: identity.principal, ingressExpiry: now)
        let readEnvelope = try identity.envelope(for: read, at: now)
        try readEnvelope.verifySender(at: now)
        let status = try ICRequest(.readState(paths: [.requestStatus(call.requestID)]), sender: identity.principal, ingressExpiry: now)
        expectICError(.unauthorized, reason: .target, "the status of a call to a non-target") {
            _ = try identity.envelope(for: status, at: now, delegationTarget: .statusOf(call: other))
        }
        let statusEnvelope = try identity.envelope(for: status, at: now, delegationTarget: .statusOf(call: try canister))
        expectICError(.verificationFailed, reason: .target, "checked like the IC, given the call's canister") {
            try statusEnvelope.verifySender(at: now, delegationTarget: .statusOf(call: other))
        }
        // A session extending a session: one more link, never outliving its parent.
        let extended = try DelegatedSession.create(root: identity, lifetime: DelegatedSession.maxLifetime, now: now)
        #expect(extended.chain.delegations.count == 2 && extended.expiration == restricted.expiration)
        #expect(extended.principal == root.principal)
        try extended.chain.verify(at: now, canister: try canister)
    }

    /// A chain issued elsewhere to a P-256 session key (what browsers hold for Internet Identity sessions).
    @Test func foreignChainToAnECDSASessionKey() throws {
        let root = try ICIdentity.generate(.ed25519)
        let sessionKey = try ICIdentity.generate(.p256)
        let link = try root.delegate(Delegation(publicKey: try #require(sessionKey.publicKeyDER), expiration: now + DelegatedSession.hour))
        let chainText = DelegationChain(publicKey: try #require(root.publicKeyDER), delegations: [link]).json.serialized()
        let session = try DelegatedSession(sessionKey: sessionKey, chain: try DelegationChain(jsonText: chainText))
        let identity = ICIdentity(session: session)
        let request = try ICRequest(.call(canister: try canister, method: "m", arg: []), sender: root.principal, ingressExpiry: now)
        try identity.envelope(for: request, at: now).verifySender(at: now)
        let stored = try DelegatedSession(sessionFile: try JSONValue.parse(try session.sessionFileJSON().serialized()))
        #expect(stored.sessionKey.keyType == .p256 && stored.chain == session.chain)
    }

    @Test func chainRules() throws {
        let root = try ICIdentity.generate()
        let session = try DelegatedSession.create(root: root, now: now)
        // Bad signature.
        var forged = session.chain
        forged.delegations[0].signature[0] ^= 1
        // Every chain rule fails with reason delegation_chain: the message says which rule, and that is the point.
        let badSignature = expectICError(.verificationFailed, reason: .delegationChain, "bad signature") { try forged.verify(at: now) }
        #expect(badSignature?.message.contains("delegation 0 (Ed25519): the Ed25519 signature does not verify") == true,
                "\(String(describing: badSignature))")
        // Cycle: delegating back to the root key (validly signed, so only the cycle rule can refuse it).
        let cycle = try root.delegate(Delegation(publicKey: try #require(root.publicKeyDER), expiration: now + 1))
        let cycleError = expectICError(.verificationFailed, reason: .delegationChain, "cycle") {
            try DelegationChain(publicKey: try #require(root.publicKeyDER), delegations: [cycle]).verify(at: now)
        }
        #expect(cycleError?.message.contains("delegates to a key already in the chain (a cycle)") == true,
                "\(String(describing: cycleError))")
        // 21 links.
        var keys = [root]
        var links: [SignedDelegation] = []
        for _ in 0..<21 {
            let next = try ICIdentity.generate()
            links.append(try keys[keys.count - 1].delegate(Delegation(publicKey: try #require(next.publicKeyDER), expiration: now + 1)))
            keys.append(next)
        }
        let long = DelegationChain(publicKey: try #require(root.publicKeyDER), delegations: links)
        let tooLong = expectICError(.verificationFailed, reason: .delegationChain, "21 links") { try long.verify(at: now) }
        #expect(tooLong?.message.contains("the chain has 21 delegations, at most 20 are allowed") == true, "\(String(describing: tooLong))")
        try DelegationChain(publicKey: long.publicKey, delegations: Array(links.prefix(20))).verify(at: now)
        // A WebAuthn key is recognised and refused.
        let webAuthn = SenderPublicKey.webAuthnAlgorithm + [0x03, 0x02, 0x00, 0x01]
        let webAuthnDER = DERWriter.element(tag: 0x30, webAuthn)
        expectICError(.unsupported, "WebAuthn") { _ = try SenderPublicKey(der: webAuthnDER) }
        expectICError(.malformed, "garbage key") { _ = try SenderPublicKey(der: [0x30, 0x03, 0x01, 0x02]) }
    }

    /// A session file is only JSON until its chain is checked: `init(sessionFile:)` reads a forged chain, the
    /// verifying initialiser (what `identity import --session` uses) refuses it, naming the broken link.
    @Test func sessionFilesAreVerifiedBeforeImport() throws {
        let root = try ICIdentity.generate()
        let parent = ICIdentity(session: try DelegatedSession.create(root: root, now: now))
        let session = try DelegatedSession.create(root: parent, lifetime: DelegatedSession.hour, now: now)
        let file = try session.sessionFileJSON()
        let verified = try DelegatedSession(verifiedSessionFile: file, at: now + 1)
        #expect(verified.chain == session.chain && verified.principal == root.principal)

        guard case .object(var object) = file, case .object(var chain) = try #require(object["delegation_chain"]),
              case .array(var links) = try #require(chain["delegations"]), case .object(var second) = links[1],
              let signature = second["signature"]?.stringValue else {
            Issue.record("session file layout"); return
        }
        second["signature"] = .string((signature.hasPrefix("00") ? "01" : "00") + signature.dropFirst(2))
        links[1] = .object(second)
        chain["delegations"] = .array(links)
        object["delegation_chain"] = .object(chain)
        let forged = JSONValue.object(object)
        _ = try DelegatedSession(sessionFile: forged)
        let refused = expectICError(.verificationFailed, reason: .delegationChain, "forged link") {
            _ = try DelegatedSession(verifiedSessionFile: forged, at: now + 1)
        }
        #expect(refused?.message.contains("the session's delegation chain does not verify: delegation 1") == true,
                "\(String(describing: refused))")
        let expired = expectICError(.verificationFailed, reason: .expired, "expired") {
            _ = try DelegatedSession(verifiedSessionFile: file, at: session.expiration + 1)
        }
        #expect(expired?.message.contains("delegation 1 expired at") == true, "\(String(describing: expired))")
        // One session's key with another's chain: the file is inconsistent (malformed input, not a setup problem).
        guard case .object(var mixed) = file, case .object(let stranger) = try DelegatedSession.create(root: root, now: now).sessionFileJSON(),
              let strangerChain = stranger["delegation_chain"] else {
            Issue.record("session file layout"); return
        }
        mixed["delegation_chain"] = strangerChain
        let mismatch = expectICError(.malformed, "chain of another session") { _ = try DelegatedSession(sessionFile: .object(mixed)) }
        #expect(mismatch?.location == "delegation_chain" && mismatch?.message.contains("does not end in its session key") == true)
    }

    @Test func agentJSJSON() throws {
        let root = try ICIdentity.generate()
        let session = try DelegatedSession.create(root: root, targets: [try canister], now: now)
        let json = session.chain.json
        let link = try #require(json["delegations"]?.arrayValue?.first?["delegation"])
        #expect(link["expiration"]?.stringValue == String(now + DelegatedSession.defaultLifetime, radix: 16))
        #expect(link["targets"]?.arrayValue?.first?.stringValue == "00000000000000020101")
        #expect(json["publicKey"]?.stringValue == Hex.encode(try #require(root.publicKeyDER)))
        #expect(try DelegationChain(jsonText: json.serialized()) == session.chain)
        // The session file round-trips, secret included, and works afterwards.
        let restored = try DelegatedSession(sessionFile: try JSONValue.parse(try session.sessionFileJSON().serialized()))
        #expect(restored.chain == session.chain)
        #expect(restored.sessionKey.publicKeyDER == session.sessionKey.publicKeyDER)
        // Other producers: numeric expiration, null targets, 0x-prefixed hex.
        let text = """
            {"delegations":[{"delegation":{"expiration":\(now),"pubkey":"0x\(Hex.encode(session.chain.delegations[0].delegation.publicKey))","targets":null},
            "signature":"\(Hex.encode(session.chain.delegations[0].signature))"}],"publicKey":"\(Hex.encode(session.chain.publicKey))"}
            """
        let other = try DelegationChain(jsonText: text)
        #expect(other.delegations[0].delegation.expiration == now && other.delegations[0].delegation.targets == nil)
        for bad in ["[]", "{\"delegations\":[],\"publicKey\":\"zz\"}", "{\"delegations\":[{}],\"publicKey\":\"00\"}",
                    "{\"delegations\":[{\"delegation\":{\"expiration\":\"xyz\",\"pubkey\":\"00\"},\"signature\":\"00\"}],\"publicKey\":\"00\"}"] {
            expectICError(.malformed, bad) { _ = try DelegationChain(jsonText: bad) }
        }
        expectICError(.configuration, "chain for another key") {
            _ = try DelegatedSession(sessionKey: ICIdentity(ed25519: Ed25519.PrivateKey()), chain: session.chain)
        }
        expectICError(.invalidArgument, "anonymous session key") { _ = try DelegatedSession(sessionKey: .anonymous, chain: session.chain) }
    }

    /// A canister-signature root (as Internet Identity issues): the chain's first key is a canister signature
    /// key, its signature a certificate (from a test root key) plus the canister's signature tree.
    @Test func canisterSignatureChain() throws {
        let rootKey = TestBLSKey(seed: 3)
        let signingCanister = try principal("rdmx6-jaaaa-aaaaa-aaadq-cai")
        let seed: [UInt8] = Array("user 10000".utf8)
        let publicKey = SenderPublicKey.canisterSignatureDER(canister: signingCanister, seed: seed)
        #expect(try SenderPublicKey(der: publicKey) == .canisterSignature(canister: signingCanister, seed: seed))
        let sessionKey = Ed25519.PrivateKey()
        let delegation = Delegation(publicKey: sessionKey.publicKey.derRepresentation, expiration: now + DelegatedSession.hour)

        func signature(message: [UInt8], certifiedTree: HashTree? = nil, canisterInCertificate: Principal? = nil,
                       key: TestBLSKey? = nil) throws -> [UInt8] {
            let sigTree = TestCertificates.node([("sig", TestCertificates.node([(SHA256.hash(seed),
                                                                               TestCertificates.node([(SHA256.hash(message), HashTree.leaf([]))]))]))])
            let certified = certifiedTree ?? sigTree
            let stateTree = TestCertificates.node([
                ("canister", TestCertificates.node([((canisterInCertificate ?? signingCanister).bytes,
                                                     TestCertificates.node([("certified_data", HashTree.leaf(certified.digest))]))])),
                ("time", .leaf(TestCertificates.leb128(now - 1_000_000_000_000))),
            ])
            let certificate = try TestCertificates.encode(tree: stateTree, key: key ?? rootKey)
            return try CanisterSignature.encode(certificate: certificate, tree: sigTree)
        }

        let good = SignedDelegation(delegation: delegation, signature: try signature(message: delegation.signedMessage))
        let chain = DelegationChain(publicKey: publicKey, delegations: [good])
        try chain.verify(at: now, rootKey: try rootKey.rootKey)
        let session = try DelegatedSession(sessionKey: ICIdentity(ed25519: sessionKey), chain: chain)
        let identity = ICIdentity(session: session)
        #expect(identity.principal == Principal.selfAuthenticating(publicKeyDER: publicKey))
        let request = try ICRequest(.query(canister: try canister, method: "whoami", arg: []), sender: identity.principal, ingressExpiry: now)
        try identity.envelope(for: request, at: now).verifySender(at: now, rootKey: try rootKey.rootKey)

        let failures: [(String, [UInt8])] = [
            ("does not contain the signed message", try signature(message: [1, 2, 3])),
            ("is not the canister's certified data", try signature(message: delegation.signedMessage, certifiedTree: .leaf([9]))),
            ("has no certified data for", try signature(message: delegation.signedMessage, canisterInCertificate: try canister)),
            ("BLS signature does not verify", try signature(message: delegation.signedMessage, key: TestBLSKey(seed: 4))),
        ]
        for (name, bytes) in failures {
            let bad = DelegationChain(publicKey: publicKey, delegations: [SignedDelegation(delegation: delegation, signature: bytes)])
            let error = expectICError(.verificationFailed, reason: .delegationChain, name) { try bad.verify(at: now, rootKey: try rootKey.rootKey) }
            #expect(error?.message.contains(name) == true, "\(error?.message ?? "")")
        }
        let garbage = DelegationChain(publicKey: publicKey, delegations: [SignedDelegation(delegation: delegation, signature: [0xa0])])
        expectICError(.verificationFailed, reason: .delegationChain, "not a canister signature") {
            try garbage.verify(at: now, rootKey: try rootKey.rootKey)
        }
    }
}
