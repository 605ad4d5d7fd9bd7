import Foundation
import OmniCodec
import OmniConnect
import OmniCrypto
import Testing

/// The per-side session rules: sequences, directions, keys, tampering, one request in flight.
@Suite struct SessionRuleTests {
    /// An approved session pair with real keys.
    struct Pair {
        let codec = ConnectCodec(generation: .genB)
        let sid = SecureRandom.bytes(32)
        var app: ConnectSession
        var wallet: ConnectSession

        init() throws {
            app = ConnectSession(role: .app, sid: sid, codec: codec)
            wallet = ConnectSession(role: .wallet, sid: sid, codec: codec)
            let appKey = X25519.PrivateKey(), walletKey = X25519.PrivateKey()
            try app.establishKeys(privateKey: appKey, peerPublicKey: walletKey.publicKey.rawRepresentation)
            try wallet.establishKeys(privateKey: walletKey, peerPublicKey: appKey.publicKey.rawRepresentation)
        }
    }

    @Test func encryptedRequestRoundTrip() throws {
        var pair = try Pair()
        let open = pair.app.frame(.ping(nonce: 1))
        #expect(try pair.wallet.receive(pair.codec.encode(open)) == .control(.ping(nonce: 1), fromServer: false))
        let request = try pair.app.encrypt(.signRequestRaw(domainTag: "t", bytes: [1, 2]))
        #expect(request.sequence == 2)
        #expect(try pair.wallet.receive(pair.codec.encode(request)) == .payload(.signRequestRaw(domainTag: "t", bytes: [1, 2]), sequence: 2))
        #expect(pair.app.requestInFlight)
        let result = try pair.wallet.encrypt(.signResultErr(code: "USER_DENIED", message: "no"))
        #expect(result.sequence == 1)
        _ = try pair.app.receive(pair.codec.encode(result))
        #expect(!pair.app.requestInFlight)
    }

    @Test func replayAndGapAreRefused() throws {
        var pair = try Pair()
        let first = pair.codec.encode(pair.app.frame(.ping(nonce: 1)))
        let second = pair.codec.encode(pair.app.frame(.ping(nonce: 2)))
        let third = pair.codec.encode(pair.app.frame(.ping(nonce: 3)))
        _ = try pair.wallet.receive(first)
        let gap = try #require(throws: ConnectError.self) { try pair.wallet.receive(third) }
        #expect(gap.kind == .protocolViolation)
        #expect(gap.message.contains("sequence gap: expected 2"))
        _ = try pair.wallet.receive(second)
        let replay = try #require(throws: ConnectError.self) { try pair.wallet.receive(second) }
        #expect(replay.message.contains("replayed frame: sequence 2"))
    }

    @Test func misdirectedAndForeignFramesAreRefused() throws {
        var pair = try Pair()
        let own = pair.codec.encode(pair.wallet.frame(.ping(nonce: 1)))
        let misdirected = try #require(throws: ConnectError.self) { try pair.wallet.receive(own) }
        #expect(misdirected.message.contains("misdirected frame"))
        var other = ConnectSession(role: .app, sid: SecureRandom.bytes(32), codec: pair.codec)
        let foreign = try #require(throws: ConnectError.self) { try pair.wallet.receive(pair.codec.encode(other.frame(.ping(nonce: 1)))) }
        #expect(foreign.message.contains("another session"))
    }

    @Test func ciphertextBeforeKeysIsRefused() throws {
        var pair = try Pair()
        var fresh = ConnectSession(role: .wallet, sid: pair.sid, codec: pair.codec)
        let frame = try pair.app.encrypt(.displayRequest(title: "a", body: "b"))
        let error = try #require(throws: ConnectError.self) { try fresh.receive(pair.codec.encode(frame)) }
        #expect(error.kind == .protocolViolation)
        #expect(error.message.contains("missing decryption keys"))
        let unkeyed = try #require(throws: ConnectError.self) { try fresh.encrypt(.displayRequest(title: "a", body: "b")) }
        #expect(unkeyed.message.contains("missing encryption keys"))
    }

    @Test func tamperedCiphertextFailsAuthentication() throws {
        var pair = try Pair()
        var frame = try pair.app.encrypt(.displayRequest(title: "hello", body: "world"))
        let later = try pair.app.encrypt(.displayRequest(title: "later", body: "frame"))
        guard case .ciphertext(let ciphertext) = frame.kind else {
            Issue.record("not a ciphertext")
            return
        }
        for index in [0, ciphertext.aead.count / 2, ciphertext.aead.count - 1] {
            var tampered = ciphertext
            tampered.aead[index] ^= 0x01
            frame.kind = .ciphertext(tampered)
            var receiver = pair.wallet
            let error = try #require(throws: ConnectError.self) { try receiver.receive(pair.codec.encode(frame)) }
            #expect(error.kind == .verificationFailed)
        }
        // Frame 2's ciphertext relabelled as frame 1: the AAD and nonce bind the sequence, so it fails.
        var relabelled = later
        relabelled.sequence = 1
        let error = try #require(throws: ConnectError.self) { try pair.wallet.receive(pair.codec.encode(relabelled)) }
        #expect(error.kind == .verificationFailed)
        #expect(pair.wallet.lastInboundSequence == 0, "a refused frame does not advance the sequence")
    }

    @Test func innerDirectionMustMatch() throws {
        var pair = try Pair()
        var frame = try pair.app.encrypt(.displayRequest(title: "a", body: "b"))
        guard case .ciphertext(var ciphertext) = frame.kind else {
            Issue.record("an encrypted payload is not a ciphertext frame: \(frame.kind)")
            return
        }
        ciphertext.direction = .walletToApp
        frame.kind = .ciphertext(ciphertext)
        let error = try #require(throws: ConnectError.self) { try pair.wallet.receive(pair.codec.encode(frame)) }
        #expect(error.message.contains("dir_mismatch"))
    }

    @Test func oneRequestInFlight() throws {
        var pair = try Pair()
        _ = try pair.app.encrypt(.signRequestTx(txBytes: [1]))
        let error = try #require(throws: ConnectError.self) { try pair.app.encrypt(.signRequestTx(txBytes: [2])) }
        #expect(error.message.contains("REQUEST_IN_FLIGHT"))
    }

    @Test func relayClosesAreOutsideThePeerSequence() throws {
        var pair = try Pair()
        let close = ConnectFrame(sid: pair.sid, direction: .appToWallet, sequence: 1, kind: .control(.close(ConnectClose(
            who: .app, code: 4002, reason: "connect_sequence_violation"))))
        _ = pair.app.frame(.ping(nonce: 0))
        #expect(try pair.wallet.receive(pair.codec.encode(close)) == .control(.close(ConnectClose(who: .app, code: 4002,
                                                                                                         reason: "connect_sequence_violation")), fromServer: true))
        #expect(pair.wallet.lastInboundSequence == 0)
    }

    /// Close 4002 is the relay's: a peer's frame carrying it (on the peer's own counter) is refused, not taken for
    /// a termination that skips the sequence check.
    @Test func aCloseWithTheRelayCodeFromThePeerIsRefused() throws {
        var pair = try Pair()
        _ = try pair.wallet.receive(pair.codec.encode(pair.app.frame(.ping(nonce: 1))))
        let forged = ConnectFrame(sid: pair.sid, direction: .appToWallet, sequence: 2, kind: .control(.close(ConnectClose(
            who: .app, code: 4002, reason: "connect_session_purged"))))
        let error = try #require(throws: ConnectError.self) { try pair.wallet.receive(pair.codec.encode(forged)) }
        #expect(error.kind == .protocolViolation)
        #expect(error.message.contains("only the relay may send it"))
        #expect(!pair.wallet.terminatedByRelay)
        #expect(pair.wallet.lastInboundSequence == 1)
        // The refused frame consumed nothing: the peer's next frame is still number 2.
        #expect(try pair.wallet.receive(pair.codec.encode(pair.app.frame(.ping(nonce: 2)))) == .control(.ping(nonce: 2), fromServer: false))
    }

    /// The relay's own frames continue the relay's counter: a replayed or skipped one is refused, and nothing is
    /// accepted after the relay's termination.
    @Test func relayFramesFollowTheRelayCounter() throws {
        var pair = try Pair()
        func relayFrame(_ sequence: UInt64, _ control: ConnectControl) -> [UInt8] {
            pair.codec.encode(ConnectFrame(sid: pair.sid, direction: .appToWallet, sequence: sequence, kind: .control(control)))
        }
        let event = ConnectControl.serverEvent(.blockProofs(height: 7, entryHash: "00", proofsJSON: "{}"))
        #expect(try pair.wallet.receive(relayFrame(1, event)) == .control(event, fromServer: true))
        let close = ConnectControl.close(ConnectClose(who: .app, code: 4002, reason: "connect_sequence_violation"))
        let skipped = try #require(throws: ConnectError.self) { try pair.wallet.receive(relayFrame(3, close)) }
        #expect(skipped.message.contains("expected relay sequence 2"))
        #expect(try pair.wallet.receive(relayFrame(2, close)) == .control(close, fromServer: true))
        #expect(pair.wallet.terminatedByRelay)
        let replayed = try #require(throws: ConnectError.self) { try pair.wallet.receive(relayFrame(2, close)) }
        #expect(replayed.message.contains("after the relay terminated the session"))
        let later = try #require(throws: ConnectError.self) { try pair.wallet.receive(pair.codec.encode(pair.app.frame(.ping(nonce: 1)))) }
        #expect(later.kind == .protocolViolation)
    }

    @Test func approvalIsVerifiedAndOnlyOnce() throws {
        let network = try ConnectNetworkID(bytes: [UInt8](repeating: 0x41, count: 32))
        let appKey = X25519.PrivateKey(), walletKey = X25519.PrivateKey(), account = Ed25519.PrivateKey()
        let nonce = ConnectCrypto.makeNonce()
        let sid = ConnectCrypto.sid(generation: .genB, constraints: .network(network), appPublicKey: appKey.publicKey.rawRepresentation, nonce: nonce)
        let accountID = try IrohaAccountID(ed25519PublicKey: account.publicKey.rawRepresentation)
        let preimage = try ConnectGeneration.genB.approvalPreimage(ConnectApprovalInput(
            sid: sid, appPublicKey: appKey.publicKey.rawRepresentation, walletPublicKey: walletKey.publicKey.rawRepresentation,
            accountID: accountID.literal, constraints: .network(network), permissions: nil, proof: nil, relayToken: "relay"))
        let approve = ConnectApprove(walletPublicKey: walletKey.publicKey.rawRepresentation, accountID: accountID.literal,
                                     signature: ConnectWalletSignature(algorithm: .ed25519, bytes: account.signature(for: preimage)))
        var session = ConnectSession(role: .app, sid: sid, codec: ConnectCodec(generation: .genB))
        var wrongRelay = session
        let error = try #require(throws: ConnectError.self) {
            try wrongRelay.acceptApproval(approve, appPrivateKey: appKey, constraints: .network(network), relayToken: "other")
        }
        #expect(error.message.contains("INVALID_SIGNATURE"))
        #expect(try session.acceptApproval(approve, appPrivateKey: appKey, constraints: .network(network), relayToken: "relay") == accountID)
        #expect(session.keys != nil)
        let second = try #require(throws: ConnectError.self) {
            try session.acceptApproval(approve, appPrivateKey: appKey, constraints: .network(network), relayToken: "relay")
        }
        #expect(second.message.contains("second Approve"))
    }

    @Test func signRequestMessages() {
        #expect(ConnectSignRequest.raw(domainTag: "t", bytes: [1, 2]).signedMessage == [1, 2])
        let hash = ConnectSignRequest.transaction(txBytes: [1, 2, 3]).signedMessage
        #expect(hash.count == 32)
        #expect(hash.last.map { $0 & 1 } == 1)
        #expect(Array(hash.dropLast()) == Array(BLAKE2b.hash256([1, 2, 3]).dropLast()))
    }
}
