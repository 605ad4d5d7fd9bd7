import Foundation
import OmniCandid
import OmniCodec
import OmniCrypto
import OmniTestSupport
import Testing
@testable import OmniIC

/// Certificates, query responses and call responses built with test keys: the cases no real certificate covers
/// (every request status, sharded ranges next to pruned shards, custom root keys, node signatures that verify).
@Suite struct SyntheticCertificateTests {
    let root = TestBLSKey(seed: 1)
    let subnetKey = TestBLSKey(seed: 2)
    let time: UInt64 = 1_750_000_000_000_000_000

    var subnet: Principal { get throws { try principal("qxesv-zoxpm-vc64m-zxguk-5sj74-35vrb-tbgwg-pcird-5gr26-62oxl-cae") } }
    var canister: Principal { get throws { try principal("ivg37-qiaaa-aaaab-aaaga-cai") } }
    var rangeLow: Principal { get throws { try Principal.fromBytes(try hex("00000000002000000101")) } }
    var rangeHigh: Principal { get throws { try Principal.fromBytes(try hex("00000000002fffff0101")) } }

    /// A delegated certificate over `tree` (with /time added) for the test subnet.
    func delegated(_ children: [(String, HashTree)], sharded: Bool = false, signature: [UInt8]? = nil) throws -> ICCertificate {
        let delegation = try TestCertificates.delegation(root: root, subnet: try subnet, subnetKey: subnetKey,
                                                         ranges: [(try rangeLow, try rangeHigh)], time: time, sharded: sharded)
        let tree = TestCertificates.node(children + [("time", .leaf(TestCertificates.leb128(time)))])
        return try ICCertificate(decoding: try TestCertificates.encode(tree: tree, key: subnetKey, delegation: (try subnet, delegation),
                                                                       signature: signature))
    }

    func verify(_ certificate: ICCertificate) throws -> VerifiedCertificate {
        try certificate.verify(scope: .canister(try canister), rootKey: try root.rootKey, freshness: .at(time))
    }

    @Test func customRootKeyBothLayouts() throws {
        for sharded in [false, true] {
            let verified = try verify(try delegated([], sharded: sharded))
            #expect(verified.subnetID == (try subnet) && verified.isDelegated && verified.signingKeyDER == subnetKey.der)
            expectICError(.verificationFailed, reason: .range, "outside, sharded: \(sharded)") {
                _ = try delegated([], sharded: sharded).verify(scope: .canister(try principal("ryjl3-tyaaa-aaaaa-aaaba-cai")),
                                                               rootKey: try root.rootKey, freshness: .at(time))
            }
            expectICError(.verificationFailed, reason: .signature, "mainnet key") {
                _ = try delegated([], sharded: sharded).verify(scope: .canister(try canister), freshness: .at(time))
            }
        }
        expectICError(.verificationFailed, reason: .signature, "signature of another tree") {
            _ = try verify(try delegated([], signature: subnetKey.sign([1, 2, 3])))
        }
        expectICError(.malformed, "short signature") { _ = try verify(try delegated([], signature: [1, 2, 3])) }
    }

    @Test func shardedRangesNextToPrunedShards() throws {
        let subnet = try subnet
        let rangesCBOR = try CBOR.array([[.bytes(try rangeLow.bytes), .bytes(try rangeHigh.bytes)]]).encoded()
        let shard = HashTree.labeled(try rangeLow.bytes, .leaf(rangesCBOR))
        let shards = HashTree.fork(.pruned([UInt8](repeating: 7, count: 32)), .fork(shard, .pruned([UInt8](repeating: 8, count: 32))))
        let tree = TestCertificates.node([("canister_ranges", TestCertificates.node([(subnet.bytes, shards)]))])
        #expect(try tree.canisterRanges(of: subnet) == [CanisterRange(lowest: try rangeLow, highest: try rangeHigh)])
        // Every shard pruned: no range is certified there, so the flat layout decides; absent → nil.
        let allPruned = TestCertificates.node([("canister_ranges", TestCertificates.node([(subnet.bytes, HashTree.pruned([UInt8](repeating: 7, count: 32)))]))])
        #expect(try allPruned.canisterRanges(of: subnet) == nil)
        let bad = TestCertificates.node([("canister_ranges", TestCertificates.node([(subnet.bytes, TestCertificates.node([(try rangeLow.bytes, HashTree.leaf([0x01]))]))]))])
        expectICError(.malformed, "ranges not CBOR") { _ = try bad.canisterRanges(of: subnet) }
    }

    /// The subnet's own tree claims more canisters than the root-signed delegation gives it: the node keys it
    /// reveals must serve only the delegated ranges, or a subnet could vouch for queries to other subnets' canisters.
    @Test func subnetInfoRangesComeFromTheDelegation() throws {
        let subnet = try subnet
        let ledger = try principal("ryjl3-tyaaa-aaaaa-aaaba-cai")
        let claimed = try CBOR.array([[.bytes(try rangeLow.bytes), .bytes(try rangeHigh.bytes)],
                                      [.bytes(ledger.bytes), .bytes(ledger.bytes)]]).encoded()
        let node = try principal("2vxsx-fae")
        let subnetTree = TestCertificates.node([(subnet.bytes, TestCertificates.node([
            ("canister_ranges", HashTree.leaf(claimed)),
            ("node", TestCertificates.node([(node.bytes, TestCertificates.node([("public_key", HashTree.leaf([1, 2, 3]))]))])),
        ]))])
        let info = try verify(try delegated([("subnet", subnetTree)])).subnetInfo()
        #expect(info.serves(try canister) && !info.serves(ledger), "\(info.canisterRanges)")
        #expect(info.canisterRanges == [CanisterRange(lowest: try rangeLow, highest: try rangeHigh)])
        #expect(info.publicKeyDER == subnetKey.der && info.nodeKeys[node] == [1, 2, 3])
    }

    /// Without a delegation the root subnet signed: it speaks for its own canisters, so ranges it certifies that
    /// exclude the canister refute the certificate, and its node keys serve only those ranges.
    @Test func rootSignedCertificatesKeepToTheRootSubnetsRanges() throws {
        let rootSubnet = try root.rootKey.subnetID
        let node = try principal("2vxsx-fae")
        func rootSigned(ranges: [(Principal, Principal)]?) throws -> ICCertificate {
            var subnetChildren: [(String, HashTree)] = [
                ("node", TestCertificates.node([(node.bytes, TestCertificates.node([("public_key", HashTree.leaf([4, 5, 6]))]))])),
            ]
            if let ranges {
                let cbor = try CBOR.array(ranges.map { .array([.bytes($0.0.bytes), .bytes($0.1.bytes)]) }).encoded()
                subnetChildren.append(("canister_ranges", .leaf(cbor)))
            }
            let tree = TestCertificates.node([("subnet", TestCertificates.node([(rootSubnet.bytes, TestCertificates.node(subnetChildren))])),
                                              ("time", .leaf(TestCertificates.leb128(time)))])
            return try ICCertificate(decoding: try TestCertificates.encode(tree: tree, key: root))
        }
        let foreign = try principal("ryjl3-tyaaa-aaaaa-aaaba-cai")
        let own = try rootSigned(ranges: [(try rangeLow, try rangeHigh)])
        let info = try verify(own).subnetInfo()
        let inside = try canister
        #expect(info.subnetID == rootSubnet && info.serves(inside) && !info.serves(foreign))
        let refused = expectICError(.verificationFailed, reason: .range, "root-signed, canister outside its ranges") {
            _ = try own.verify(scope: .canister(foreign), rootKey: try root.rootKey, freshness: .at(time))
        }
        #expect(refused?.message.contains("outside the canister ranges it certifies for the root subnet") == true)
        // Ranges not revealed: the root key's word is taken, but its node keys serve no canister.
        let silent = try rootSigned(ranges: nil)
        let unranged = try silent.verify(scope: .canister(foreign), rootKey: try root.rootKey, freshness: .at(time)).subnetInfo()
        #expect(unranged.canisterRanges.isEmpty && !unranged.serves(foreign))
        // A subnet scope must name the root subnet.
        _ = try own.verify(scope: .subnet(rootSubnet), rootKey: try root.rootKey, freshness: .at(time))
        expectICError(.verificationFailed, reason: .delegation, "root-signed for another subnet") {
            _ = try own.verify(scope: .subnet(try subnet), rootKey: try root.rootKey, freshness: .at(time))
        }
    }

    @Test func requestStatusInterpretation() throws {
        let id = try RequestID(bytes: [UInt8](repeating: 0xab, count: 32))
        func status(_ fields: [(String, HashTree)]) throws -> RequestStatus {
            let tree: [(String, HashTree)] = [("request_status", TestCertificates.node([(id.bytes, TestCertificates.node(fields))]))]
            return try verify(try delegated(tree)).requestStatus(id)
        }
        #expect(try status([("status", .leaf(Array("replied".utf8))), ("reply", .leaf([0x44, 0x49]))]) == .replied([0x44, 0x49]))
        #expect(try status([("status", .leaf(Array("replied".utf8))), ("reply", .leaf([]))]) == .replied([]))
        #expect(try status([("status", .leaf(Array("done".utf8)))]) == .done)
        #expect(try status([("status", .leaf(Array("processing".utf8)))]) == .processing)
        #expect(try status([("status", .leaf(Array("received".utf8)))]) == .received)
        let rejected = try status([("status", .leaf(Array("rejected".utf8))), ("reject_code", .leaf([4])),
                                   ("reject_message", .leaf(Array("no".utf8))), ("error_code", .leaf(Array("IC0503".utf8)))])
        #expect(rejected == .rejected(Reject(code: .canisterReject, message: "no", errorCode: "IC0503", certified: true)))
        #expect(RequestStatus.done.isTerminal && !RequestStatus.processing.isTerminal)
        expectICError(.verificationFailed, reason: .lookup, "replied without reply") {
            _ = try status([("status", .leaf(Array("replied".utf8)))])
        }
        expectICError(.verificationFailed, reason: .lookup, "pruned reply") {
            _ = try status([("status", .leaf(Array("replied".utf8))), ("reply", .pruned([UInt8](repeating: 1, count: 32)))])
        }
        expectICError(.verificationFailed, reason: .lookup, "rejected without code") {
            _ = try status([("status", .leaf(Array("rejected".utf8))), ("reject_message", .leaf([]))])
        }
        expectICError(.malformed, "unknown status") { _ = try status([("status", .leaf(Array("exploded".utf8)))]) }
        expectICError(.malformed, "code not LEB128") {
            _ = try status([("status", .leaf(Array("rejected".utf8))), ("reject_code", .leaf([0x80])), ("reject_message", .leaf([]))])
        }
        // The status itself pruned away: not knowable.
        let pruned: [(String, HashTree)] = [("request_status", TestCertificates.node([(id.bytes, HashTree.pruned([UInt8](repeating: 3, count: 32)))]))]
        expectICError(.verificationFailed, reason: .lookup, "pruned status") { _ = try verify(try delegated(pruned)).requestStatus(id) }
        #expect(try verify(try delegated([])).requestStatus(id) == .unknown)
    }

    @Test func timeMustBeCertified() throws {
        let tree = TestCertificates.node([("other", HashTree.leaf([]))])
        let certificate = try ICCertificate(decoding: try TestCertificates.encode(tree: tree, key: root))
        expectICError(.verificationFailed, reason: .lookup, "no /time") {
            _ = try certificate.verify(scope: .canister(try canister), rootKey: try root.rootKey, freshness: nil)
        }
        let badTime = TestCertificates.node([("time", HashTree.leaf([0xff, 0xff]))])
        expectICError(.malformed, "bad /time") {
            _ = try ICCertificate(decoding: try TestCertificates.encode(tree: badTime, key: root))
                .verify(scope: .canister(try canister), rootKey: try root.rootKey, freshness: nil)
        }
    }

    @Test func delegationProblems() throws {
        let subnet = try subnet
        // Delegation certificate without the subnet's key.
        let noKey = try TestCertificates.encode(tree: TestCertificates.node([("time", HashTree.leaf(TestCertificates.leb128(time)))]), key: root)
        let tree = TestCertificates.node([("time", HashTree.leaf(TestCertificates.leb128(time)))])
        let certificate = try ICCertificate(decoding: try TestCertificates.encode(tree: tree, key: subnetKey, delegation: (subnet, noKey)))
        expectICError(.verificationFailed, reason: .delegation, "no subnet key") {
            _ = try certificate.verify(scope: .subnet(subnet), rootKey: try root.rootKey, freshness: nil)
        }
        // Delegation certificate signed by someone else than the root.
        let forged = try TestCertificates.delegation(root: TestBLSKey(seed: 5), subnet: subnet, subnetKey: subnetKey,
                                                     ranges: [(try rangeLow, try rangeHigh)], time: time)
        let forgedCertificate = try ICCertificate(decoding: try TestCertificates.encode(tree: tree, key: subnetKey, delegation: (subnet, forged)))
        expectICError(.verificationFailed, reason: .signature, "forged delegation") {
            _ = try forgedCertificate.verify(scope: .subnet(subnet), rootKey: try root.rootKey, freshness: nil)
        }
        // A subnet key that is not a BLS key.
        let badKey = TestCertificates.node([("subnet", TestCertificates.node([(subnet.bytes, TestCertificates.node([("public_key", HashTree.leaf([1, 2, 3]))]))])),
                                            ("time", .leaf(TestCertificates.leb128(time)))])
        let badKeyDelegation = try TestCertificates.encode(tree: badKey, key: root)
        let badKeyCertificate = try ICCertificate(decoding: try TestCertificates.encode(tree: tree, key: subnetKey, delegation: (subnet, badKeyDelegation)))
        expectICError(.verificationFailed, reason: .delegation, "bad subnet key") {
            _ = try badKeyCertificate.verify(scope: .subnet(subnet), rootKey: try root.rootKey, freshness: nil)
        }
    }

    @Test func responsesAndNodeSignatures() throws {
        let nodeKey = Ed25519.PrivateKey()
        let node = Principal.selfAuthenticating(publicKeyDER: nodeKey.publicKey.derRepresentation)
        let info = SubnetInfo(subnetID: try subnet, publicKeyDER: subnetKey.der, nodeKeys: [node: nodeKey.publicKey.derRepresentation],
                              canisterRanges: [CanisterRange(lowest: try rangeLow, highest: try rangeHigh)], certifiedAt: time)
        let request = try ICRequest(.query(canister: try canister, method: "greet", arg: [0x44, 0x49, 0x44, 0x4c, 0, 0]),
                                    sender: .anonymous, ingressExpiry: time)
        for outcome in [QueryResponse.Outcome.replied([1, 2]),
                        .rejected(Reject(code: .canisterError, message: "trap", errorCode: "IC0502", certified: false)),
                        .rejected(Reject(code: .canisterReject, message: "no", errorCode: nil, certified: false))] {
            let unsigned = QueryResponse(outcome: outcome, signatures: [])
            let signature = nodeKey.signature(for: unsigned.signedMessage(timestamp: time, requestID: request.requestID))
            var pairs: [CBOR.Pair]
            switch outcome {
            case .replied(let arg): pairs = [("status", "replied"), ("reply", ["arg": .bytes(arg)])]
            case .rejected(let reject):
                pairs = [("status", "rejected"), ("reject_code", .unsigned(reject.code.rawValue)), ("reject_message", .text(reject.message))]
                if let code = reject.errorCode { pairs.append(("error_code", .text(code))) }
            }
            pairs.append(("signatures", [["timestamp": .unsigned(time), "signature": .bytes(signature), "identity": .bytes(node.bytes)]]))
            let response = try QueryResponse(decoding: try CBOR.map(pairs).selfDescribed.encoded())
            #expect(response.outcome == outcome)
            try response.verify(requestID: request.requestID, subnet: info, freshness: .at(time))
            expectICError(.verificationFailed, reason: .time, "old signature") {
                try response.verify(requestID: request.requestID, subnet: info, freshness: .at(time + 10 * Freshness.defaultTolerance))
            }
            let otherRequest = try RequestID(bytes: [UInt8](repeating: 1, count: 32))
            expectICError(.verificationFailed, reason: .nodeSignature, "other request") { try response.verify(requestID: otherRequest, subnet: info) }
            let stranger = SubnetInfo(subnetID: info.subnetID, publicKeyDER: info.publicKeyDER, nodeKeys: [:], canisterRanges: [], certifiedAt: 0)
            expectICError(.verificationFailed, reason: .nodeSignature, "unknown node") { try response.verify(requestID: request.requestID, subnet: stranger) }
        }
        // Call responses: v3/v4 certificate, non-replicated reject, v2 reject body.
        #expect(try CallResponse(decoding: try CBOR.map([("status", "replied"), ("certificate", .bytes([1]))]).encoded()) == .certificate([1]))
        let nonReplicated = try CallResponse(decoding: try CBOR.map([("status", "non_replicated_rejection"), ("reject_code", 3),
                                                                     ("reject_message", "gone"), ("error_code", "IC0301")]).encoded())
        #expect(nonReplicated == .rejected(Reject(code: .destinationInvalid, message: "gone", errorCode: "IC0301", certified: false)))
        #expect(try CallResponse(decoding: try CBOR.map([("reject_code", 5), ("reject_message", "trap")]).encoded())
            == .rejected(Reject(code: .canisterError, message: "trap", errorCode: nil, certified: false)))
        expectICError(.malformed, "status") { _ = try CallResponse(decoding: try CBOR.map([("status", "accepted")]).encoded()) }
        expectICError(.malformed, "query status") { _ = try QueryResponse(decoding: try CBOR.map([("status", "weird")]).encoded()) }
        expectICError(.malformed, "too big") { _ = try QueryResponse(decoding: [UInt8](repeating: 0, count: 2000), maxBytes: 1000) }
        #expect(RejectCode(rawValue: 5).description == "5 CANISTER_ERROR" && RejectCode(rawValue: 77).name == "UNKNOWN")
    }
}
