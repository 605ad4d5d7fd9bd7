import Foundation
import OmniCandid
import OmniCodec
import OmniTestSupport
import Testing
@testable import OmniIC

/// The offline-signing file (`SignedRequestFile`): what `omni ic sign` writes and `omni ic send` reads.
@Suite struct SignedRequestTests {
    static var ledger: Principal { get throws { try Principal(icText: "ryjl3-tyaaa-aaaaa-aaaba-cai") } }

    static func signedCall(_ identity: ICIdentity, expiry: UInt64 = 1_900_000_000_000_000_000) throws -> SignedRequestFile {
        let call = try ICRequest(.call(canister: try ledger, method: "transfer", arg: [0x44, 0x49, 0x44, 0x4c, 0x00, 0x00]),
                                 sender: identity.principal, ingressExpiry: expiry, nonce: [1, 2, 3])
        let status = try ICRequest(.readState(paths: [.requestStatus(call.requestID)]), sender: identity.principal, ingressExpiry: expiry)
        let now = expiry - 60_000_000_000
        return try SignedRequestFile(envelope: try identity.envelope(for: call, at: now), effectiveCanisterID: try ledger,
                                     requestStatus: try identity.envelope(for: status, at: now))
    }

    @Test func roundTripKeepsEnvelopesAndFacts() throws {
        for identity in [ICIdentity(ed25519: .init()), try ICIdentity.generate(.secp256k1), .anonymous] {
            let signed = try SignedRequestTests.signedCall(identity)
            let read = try SignedRequestFile(text: signed.text)
            #expect(read == signed)
            #expect(read.kind == "call" && read.json["method_name"] == "transfer")
            #expect(read.request.sender == identity.principal)
            #expect(read.json["request_id"]?.stringValue == signed.requestID.hex)
            try read.envelope.verifySender(at: 1_900_000_000_000_000_000 - 1)
            #expect(read.requestStatus != nil)
        }
    }

    @Test func editedFieldsAndForeignFilesAreRefused() throws {
        let signed = try SignedRequestTests.signedCall(ICIdentity(ed25519: .init()))
        guard case .object(let original) = signed.json else { Issue.record("not an object"); return }
        let edits: [(String, JSONValue)] = [
            ("method_name", "approve"), ("canister_id", "aaaaa-aa"), ("sender", "2vxsx-fae"),
            ("request_id", .string(String(repeating: "0", count: 64))), ("ingress_expiry", "1"), ("arg", "00"),
            ("request_type", "query"), ("format", "something-else"), ("version", 2), ("envelope", "zz"),
            ("effective_canister_id", "not a principal"),
        ]
        for (key, value) in edits {
            var object = original
            object[key] = value
            let kind: ICError.Kind = key == "version" ? .unsupported : .malformed
            expectICError(kind, "edited \(key)") { _ = try SignedRequestFile(json: .object(object)) }
        }
        expectICError(.malformed, "not JSON") { _ = try SignedRequestFile(text: "{") }
    }

    @Test func statusEnvelopeMustReadThisRequest() throws {
        let identity = ICIdentity(ed25519: .init())
        let signed = try SignedRequestTests.signedCall(identity)
        let expiry = signed.request.ingressExpiry
        let other = try ICRequest(.readState(paths: [["time"]]), sender: identity.principal, ingressExpiry: expiry)
        expectICError(.malformed, "wrong path") {
            _ = try SignedRequestFile(envelope: signed.envelope, effectiveCanisterID: try SignedRequestTests.ledger,
                                      requestStatus: try identity.envelope(for: other, at: 0))
        }
        let stranger = ICIdentity(ed25519: .init())
        let foreign = try ICRequest(.readState(paths: [.requestStatus(signed.requestID)]), sender: stranger.principal,
                                    ingressExpiry: expiry)
        expectICError(.malformed, "another sender") {
            _ = try SignedRequestFile(envelope: signed.envelope, effectiveCanisterID: try SignedRequestTests.ledger,
                                      requestStatus: try stranger.envelope(for: foreign, at: 0))
        }
    }
}
