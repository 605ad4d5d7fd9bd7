import Foundation
import OmniCandid
import OmniCodec
import OmniCrypto
import OmniTestSupport
import Testing
@testable import OmniIC

/// The rules an Internet Identity answer must pass before a login stores it (`IILoginAnswer.verifiedSession`).
@Suite struct IILoginVerificationTests {
    let ledger: Principal
    let governance: Principal

    init() throws {
        ledger = try principal("ryjl3-tyaaa-aaaaa-aaaba-cai")
        governance = try principal("rrkah-fqaaa-aaaaa-aaaaq-cai")
    }

    @Test func aCanisterSignedAnswerGivesTheUsersPrincipal() throws {
        let ii = try IIFixture()
        let session = try ii.verify(try ii.chain())
        #expect(session.principal == Principal.selfAuthenticating(publicKeyDER: ii.userKey))
        #expect(session.chain.sessionPublicKey == ii.sessionPublicKey)
        // It signs requests that verify as the IC checks them.
        let identity = ICIdentity(session: session)
        let request = try ICRequest(.query(canister: ledger, method: "m", arg: []), sender: identity.principal, ingressExpiry: ii.now)
        try identity.envelope(for: request, at: ii.now).verifySender(at: ii.now, rootKey: try ii.rootKey)
    }

    @Test func aTamperedCanisterSignatureIsRefused() throws {
        let ii = try IIFixture()
        var chain = try ii.chain()
        chain.delegations[0].delegation.expiration += 1  // no longer what the canister signed
        let error = expectICError(.verificationFailed, reason: .delegationChain) { _ = try ii.verify(chain) }
        #expect(error?.message.contains("does not contain the signed message") == true, "\(String(describing: error))")
        // Under another root key the certificate itself fails.
        let other = try TestBLSKey(seed: 22).rootKey
        expectICError(.verificationFailed, reason: .delegationChain) {
            _ = try IILoginAnswer.verifiedSession(chain: try ii.chain(), sessionKey: ii.sessionKey, request: try ii.request(),
                                                  at: ii.now, rootKey: other)
        }
    }

    @Test func anExpiredAnswerIsRefused() throws {
        let ii = try IIFixture()
        let error = expectICError(.verificationFailed, reason: .expired) { _ = try ii.verify(try ii.chain(expiration: ii.now - 1)) }
        #expect(error?.message.contains("expired") == true)
    }

    @Test func anAnswerLongerLivedThanAskedIsRefused() throws {
        let ii = try IIFixture()
        let request = try ii.request(ttl: DelegatedSession.hour)
        _ = try ii.verify(try ii.chain(expiration: ii.now + DelegatedSession.hour + IILoginRequest.expiryAllowance), request: request)
        let error = expectICError(.verificationFailed, reason: .delegationChain) {
            _ = try ii.verify(try ii.chain(expiration: ii.now + 2 * DelegatedSession.hour), request: request)
        }
        #expect(error?.message.contains("longer than") == true)
    }

    @Test func theChainMustEndInThisLoginsSessionKey() throws {
        let ii = try IIFixture()
        let stranger = try ICIdentity.generate(.ed25519)
        let error = expectICError(.verificationFailed, reason: .delegationChain) {
            _ = try ii.verify(try ii.chain(to: stranger.publicKeyDER))
        }
        #expect(error?.message.contains("not to this login's session key") == true)
        expectICError(.verificationFailed, reason: .delegationChain, "no delegations") {
            _ = try ii.verify(DelegationChain(publicKey: ii.userKey, delegations: []))
        }
    }

    /// Targets exactly as requested: none unless asked; a scoped request refuses unscoped, wider and narrower answers.
    @Test func targetsMustBeExactlyThoseRequested() throws {
        let ii = try IIFixture()
        let cases: [(requested: [Principal]?, granted: [Principal]?, accepted: Bool)] = [
            (nil, nil, true),
            (nil, [ledger], false),
            ([ledger], nil, false),
            ([ledger], [ledger, governance], false),
            ([ledger, governance], [ledger], false),
            ([ledger, governance], [governance, ledger], true),
            ([ledger], [ledger], true),
        ]
        for (requested, granted, accepted) in cases {
            let request = try ii.request(targets: requested)
            let chain = try ii.chain(targets: granted)
            if accepted {
                let session = try ii.verify(chain, request: request)
                #expect(session.chain.effectiveTargets == requested.map(Set.init))
            } else {
                expectICError(.verificationFailed, reason: .target, "requested \(String(describing: requested)), granted \(String(describing: granted))") {
                    _ = try ii.verify(chain, request: request)
                }
            }
        }
    }

    /// What the session may call is what every link allows together (the IC's rule), so a chain whose links each
    /// list more but together allow exactly the request passes.
    @Test func targetsAreWhatTheLinksAllowTogether() throws {
        let ii = try IIFixture()
        let middle = try ICIdentity.generate(.ed25519)
        let chain = try ii.chain(through: [middle], targets: [[ledger, governance], [ledger]])
        _ = try ii.verify(chain, request: try ii.request(targets: [ledger]))
        expectICError(.verificationFailed, reason: .target) { _ = try ii.verify(chain, request: try ii.request(targets: [ledger, governance])) }
    }

    @Test func aP256LinkNeedsRawSixtyFourByteSignatures() throws {
        let ii = try IIFixture()
        let middle = try ICIdentity.generate(.p256)
        var chain = try ii.chain(through: [middle])
        _ = try ii.verify(chain)
        let raw = chain.delegations[1].signature
        #expect(raw.count == 64)
        chain.delegations[1].signature = try ECDSA.Signature(rawRepresentation: raw, curve: .p256).derRepresentation
        let error = expectICError(.verificationFailed, reason: .delegationChain) { _ = try ii.verify(chain) }
        #expect(error?.message.contains("64 bytes") == true, "\(String(describing: error))")
    }

    /// Only the exact id-ecPublicKey/prime256v1 SPKI with an uncompressed point is a P-256 key here.
    @Test func aP256KeyMustHaveTheExactSPKI() throws {
        let ii = try IIFixture()
        let middle = try ICIdentity.generate(.p256)
        let der = try #require(middle.publicKeyDER)
        let point = Array(der.suffix(65))
        let prefix = Array(der.dropLast(65).dropLast(3))  // SEQUENCE … up to (not including) the BIT STRING
        let compressed = DERWriter.element(tag: 0x30, Array(prefix.dropFirst(2)) + DERWriter.element(tag: 0x03, [0x00, point[64] & 1 == 0 ? 0x02 : 0x03] + point[1...32]))
        let trailing = DERWriter.element(tag: 0x30, Array(prefix.dropFirst(2)) + DERWriter.element(tag: 0x03, [0x00] + point + [0x00]))
        for variant in [compressed, trailing] {
            var chain = try ii.chain(through: [middle])
            chain.delegations[0] = SignedDelegation(
                delegation: Delegation(publicKey: variant, expiration: chain.delegations[0].delegation.expiration),
                signature: try ii.canisterSignature(Delegation(publicKey: variant, expiration: chain.delegations[0].delegation.expiration).signedMessage))
            let error = expectICError(.verificationFailed, reason: .delegationChain, Hex.encode(variant)) { _ = try ii.verify(chain) }
            #expect(error?.message.contains("P-256") == true, "\(String(describing: error))")
        }
    }

    /// The IC accepts secp256k1 links; an identity provider never sends them, so a login refuses them.
    @Test func aSecp256k1LinkIsRefused() throws {
        let ii = try IIFixture()
        let chain = try ii.chain(through: [try ICIdentity.generate(.secp256k1)])
        try chain.verify(at: ii.now, rootKey: try ii.rootKey)  // valid for the IC
        let error = expectICError(.verificationFailed, reason: .delegationChain) { _ = try ii.verify(chain) }
        #expect(error?.message.contains("secp256k1") == true, "\(String(describing: error))")
    }

    @Test func atMostTwentyLinks() throws {
        let ii = try IIFixture()
        let twenty = try ii.chain(through: (0..<19).map { _ in try ICIdentity.generate(.ed25519) })
        #expect(twenty.delegations.count == 20)
        _ = try ii.verify(twenty)
        let twentyOne = try ii.chain(through: (0..<20).map { _ in try ICIdentity.generate(.ed25519) })
        expectICError(.verificationFailed, reason: .delegationChain) { _ = try ii.verify(twentyOne) }
        // As JSON from the page, 21 links are refused while reading.
        expectICError(.malformed) { _ = try IILoginAnswer(json: ii.answerJSON(twentyOne)) }
    }

    @Test func theAnswerIsReadFromThePagesJSON() throws {
        let ii = try IIFixture()
        let chain = try ii.chain(targets: [ledger])
        #expect(try IILoginAnswer(json: ii.answerJSON(chain)) == .success(chain: chain, authenticationMethod: "passkey"))
        #expect(try IILoginAnswer(json: ii.answerJSON(chain, method: nil)) == .success(chain: chain, authenticationMethod: nil))
        #expect(try IILoginAnswer(json: ["kind": "authorize-client-failure", "text": "UserInterrupt"]) == .failure(text: "UserInterrupt"))

        let malformed: [(JSONValue, String)] = [
            ("not an object", "answer"),
            (["kind": "authorize-client-maybe"], "answer.kind"),
            (["delegations": []], "answer.kind"),
            (["kind": "authorize-client-success", "delegations": []], "answer.userPublicKey"),
            (["kind": "authorize-client-success", "userPublicKey": "00"], "answer.delegations"),
            (["kind": "authorize-client-success", "userPublicKey": "zz", "delegations": []], "answer.userPublicKey"),
            (["kind": "authorize-client-success", "userPublicKey": "00", "delegations": [["delegation": ["pubkey": "00"], "signature": "00"]]],
             "answer.delegations"),
        ]
        for (json, location) in malformed {
            let error = expectICError(.malformed, json.serialized()) { _ = try IILoginAnswer(json: json) }
            #expect(error?.location == location, "\(String(describing: error))")
        }
    }
}
