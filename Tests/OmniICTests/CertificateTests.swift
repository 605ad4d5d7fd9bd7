import Foundation
import OmniBLS
import OmniCandid
import OmniCodec
import OmniCrypto
import OmniTestSupport
import Testing
@testable import OmniIC

/// hash_tree.json, certificates.json (all 14, with real BLS), bls_signatures.json, query_signatures.json,
/// mainnet_root_key.json and the pinned key in Vendor/.
@Suite struct CertificateTests {
    @Test("hash_tree.json: root hashes of the full and pruned trees, every lookup, domain separators", .vectors("ic"))
    func hashTree() throws {
        let document = try icVector("hash_tree.json")
        guard let example = document["spec_example"], let separators = document["domain_separator_hex"]?.objectValue else {
            throw TestSupportError("hash_tree.json layout")
        }
        var count = 0
        let full = try HashTree(decoding: try hex(try example.string("full_tree_cbor_hex")))
        #expect(Hex.encode(full.digest) == (try example.string("root_hash")))
        #expect(full.isWellFormed)
        let pruned = try HashTree(decoding: try hex(try example.string("pruned_tree_cbor_hex")))
        #expect(Hex.encode(pruned.digest) == (try example.string("pruned_root_hash")))
        #expect(try pruned.cbor.encoded() == (try hex(try example.string("pruned_tree_cbor_hex"))))
        count += 2
        for lookup in try example.array("lookups_on_pruned_tree") {
            let path = StatePath(try lookup.array("path").map { Array(try #require($0.stringValue).utf8) })
            let result = pruned.lookup(path)
            switch try lookup.string("result") {
            case "Found": #expect(result == .found(Array(try lookup.string("value_utf8").utf8)), "\(path)")
            case "Absent": #expect(result == .absent, "\(path)")
            case "Unknown": #expect(result == .unknown, "\(path)")
            default: throw TestSupportError("result")
            }
            count += 1
        }
        let ours: [String: [UInt8]] = [
            "ic-hashtree-empty": DomainSeparator.hashTreeEmpty, "ic-hashtree-fork": DomainSeparator.hashTreeFork,
            "ic-hashtree-labeled": DomainSeparator.hashTreeLabeled, "ic-hashtree-leaf": DomainSeparator.hashTreeLeaf,
            "ic-state-root": DomainSeparator.stateRoot,
        ]
        for (name, value) in separators {
            #expect(Hex.encode(try #require(ours[name])) == value.stringValue, "\(name)")
            count += 1
        }
        #expect(count == 15)
        // The full tree answers the same paths with values where the pruned one says Unknown.
        #expect(full.lookup(["a", "x"]) == .found(Array("hello".utf8)))
        #expect(full.lookup(["b"]) == .found(Array("good".utf8)))
        #expect(full.lookup(["c"]) == .absent)
        #expect(full.lookup(["a"]) == .error)
        print("hash_tree.json: \(count) checks (2 root hashes, 8 lookups, 5 separators)")
    }

    @Test func hashTreeEdgeCases() throws {
        #expect(HashTree.empty.lookup([]) == .absent)
        #expect(HashTree.leaf([1]).lookup([]) == .found([1]))
        #expect(HashTree.pruned([UInt8](repeating: 0, count: 32)).lookup([]) == .unknown)
        #expect(HashTree.leaf([1]).lookup(["a"]) == .absent)
        #expect(HashTree.empty.lookup(["a"]) == .absent)
        #expect(HashTree.pruned([UInt8](repeating: 0, count: 32)).lookup(["a"]) == .unknown)
        let unsorted = HashTree.fork(.labeled([2], .leaf([])), .labeled([1], .leaf([])))
        #expect(!unsorted.isWellFormed)
        #expect(!HashTree.fork(.leaf([]), .labeled([1], .leaf([]))).isWellFormed)
        for bad: CBOR in [[], [9], [1, [0]], [4, .bytes([1])], [2, "label", [0]], "tree", [3, 7]] {
            expectICError(.malformed, "\(bad)") { _ = try HashTree(cbor: bad) }
        }
    }

    @Test("mainnet_root_key.json and Vendor/ic/mainnet_root_key.der equal the compiled-in key", .vectors("ic"))
    func pinnedRootKey() throws {
        let document = try icVector("mainnet_root_key.json")
        let der = try hex(try document.string("der_hex"))
        #expect(ICRootKey.mainnetDER == der)
        #expect(Array(der.prefix(37)) == (try hex(try document.string("der_prefix_hex"))))
        #expect(ICRootKey.mainnet.key.compressed == (try hex(try document.string("raw_g2_compressed_hex"))))
        #expect(ICRootKey.mainnet.subnetID.text == (try document.string("root_subnet_id")))
        let vendored = try #require(FileManager.default.contents(atPath: Repository.root.appendingPathComponent("Vendor/ic/mainnet_root_key.der").path))
        #expect(Array(vendored) == ICRootKey.mainnetDER)
        let sources = try String(contentsOf: Repository.root.appendingPathComponent("Vendor/SOURCES.md"), encoding: .utf8)
        #expect(sources.contains(Hex.encode(SHA256.hash(Array(vendored)))))
        #expect(try ICRootKey(hex: try document.string("raw_g2_compressed_hex")) == .mainnet)
        #expect(try ICRootKey(hex: try document.string("der_hex")).isMainnet)
        expectICError(.malformed, "short key") { _ = try ICRootKey(der: Array(der.prefix(100))) }
    }

    struct Vector {
        let id: String
        let json: JSONValue
        let bytes: [UInt8]
        let certificate: ICCertificate
        var derived: JSONValue { get throws { try #require(json["derived"]) } }
        var time: UInt64 { get throws { try derived.uint("time_ns") } }
    }

    static func vectors() throws -> [Vector] {
        try icVector("certificates.json").array("certificates").map { entry in
            let bytes = try hex(try entry.string("certificate_cbor_hex"))
            return Vector(id: try entry.string("id"), json: entry, bytes: bytes, certificate: try ICCertificate(decoding: bytes))
        }
    }

    /// What certificates.json's derived facts hold: every key is known here, so a misspelt or new key fails the test
    /// instead of turning into zero checks.
    static let derivedKeys: Set<String> = ["root_hash", "signature_hex", "signature_len", "time_ns", "time_iso", "top_level_labels",
                                           "delegation_subnet_id", "delegation", "subnet", "canister_ranges_tree", "request_status"]
    static let delegationKeys: Set<String> = ["root_hash", "signature_hex", "signature_len", "time_ns", "time_iso", "top_level_labels",
                                              "subnet", "canister_ranges_tree", "delegation"]
    static let subnetKeys: Set<String> = ["public_key_der_hex", "node_public_keys", "canister_ranges_flat", "other"]

    static func requireOnlyKnownKeys(_ object: JSONValue, _ known: Set<String>, _ what: String) throws {
        guard let keys = object.objectValue?.keys else { throw TestSupportError("\(what) is not an object") }
        let unknown = Set(keys).subtracting(known)
        guard unknown.isEmpty else { throw TestSupportError("\(what): unknown keys \(unknown.sorted()) (misspelt, or new facts to check)") }
    }

    /// How many facts of each kind were checked; compared with what the vector file holds.
    struct FactCount: Equatable, CustomStringConvertible {
        var certificates = 0, responseBodies = 0, delegations = 0, requestStatus = 0
        var subnetKeys = 0, nodeKeys = 0, flatRanges = 0, shards = 0, otherLabels = 0
        var description: String {
            "\(certificates) certificates, \(responseBodies) response bodies, \(delegations) delegations, \(requestStatus) request "
                + "statuses, \(subnetKeys) subnet keys, \(nodeKeys) node keys, \(flatRanges) flat range lists, \(shards) shards, "
                + "\(otherLabels) other-label lists"
        }
    }

    /// The root hash, signature, time, labels of a certificate (or of its delegation's) and their derived facts.
    static func checkHeader(_ facts: JSONValue, _ certificate: ICCertificate, id: String) throws {
        #expect(Hex.encode(certificate.rootHash) == (try facts.string("root_hash")), "\(id)")
        #expect(Hex.encode(certificate.signature) == (try facts.string("signature_hex")), "\(id)")
        #expect(UInt64(certificate.signature.count) == (try facts.uint("signature_len")) && certificate.signature.count == 48, "\(id)")
        #expect(try certificate.certifiedTime() == (try facts.uint("time_ns")), "\(id)")
        #expect(ICTime.format(try certificate.certifiedTime()) == (try facts.string("time_iso")), "\(id)")
        #expect(certificate.tree.children.map { String(decoding: $0.label, as: UTF8.self) }
            == (try facts.array("top_level_labels").map { try #require($0.stringValue) }), "\(id)")
    }

    @Test("certificates.json: decoded facts of all 14 certificates (root hash, signature, time, delegation, labels, ranges, node keys, request status)", .vectors("ic"))
    func certificateFacts() throws {
        var count = FactCount()
        let vectors = try CertificateTests.vectors()
        #expect(vectors.count == 14)
        for vector in vectors {
            let derived = try vector.derived
            try CertificateTests.requireOnlyKnownKeys(derived, CertificateTests.derivedKeys, "\(vector.id) derived")
            let certificate = vector.certificate
            try CertificateTests.checkHeader(derived, certificate, id: vector.id)
            count.certificates += 1
            if let body = vector.json["response_body_cbor_hex"] {
                #expect(try ReadStateResponse.certificate(from: try hex(try #require(body.stringValue))) == vector.bytes, "\(vector.id)")
                count.responseBodies += 1
            }
            try CertificateTests.checkSubnets(derived, tree: certificate.tree, id: vector.id, count: &count)
            #expect((derived["delegation_subnet_id"] != nil) == (derived["delegation"] != nil), "\(vector.id)")
            if let subnet = derived["delegation_subnet_id"] {
                let delegation = try #require(certificate.delegation, "\(vector.id)")
                #expect(delegation.subnetID.text == subnet.stringValue)
                let inner = try #require(derived["delegation"])
                try CertificateTests.requireOnlyKnownKeys(inner, CertificateTests.delegationKeys, "\(vector.id) delegation")
                try CertificateTests.checkHeader(inner, delegation.certificate, id: vector.id + " delegation")
                // A null delegation field inside the delegation certificate is no delegation.
                #expect(inner["delegation"] == nil || inner["delegation"] == .null, "\(vector.id)")
                #expect(delegation.hasNestedDelegation == false, "\(vector.id)")
                count.delegations += 1
                try CertificateTests.checkSubnets(inner, tree: delegation.certificate.tree, id: vector.id + " delegation", count: &count)
            } else {
                #expect(certificate.delegation == nil, "\(vector.id)")
            }
            if let statuses = derived["request_status"] {
                for status in try #require(statuses.arrayValue, "\(vector.id) request_status") {
                    let labels = try status.array("path").map { try #require($0.stringValue) }
                    try #require(labels.count == 2, "\(vector.id) request_status path")
                    let path = StatePath([Array("request_status".utf8), try hex(labels[0]), Array(labels[1].utf8)])
                    #expect(certificate.tree.lookup(path) == .found(try hex(try status.string("value_hex"))), "\(vector.id) \(path)")
                    count.requestStatus += 1
                }
            }
        }
        // Exactly what the file holds (counted once with a separate script): a fact skipped by mistake shows here.
        let expected = FactCount(certificates: 14, responseBodies: 7, delegations: 10, requestStatus: 9, subnetKeys: 240, nodeKeys: 221,
                                 flatRanges: 186, shards: 4, otherLabels: 5)
        #expect(count == expected)
        print("certificates.json: \(count) checked")
    }

    /// `subnet` (public keys, node keys, flat ranges, other labels) and `canister_ranges_tree` facts of one tree.
    static func checkSubnets(_ facts: JSONValue, tree: HashTree, id: String, count: inout FactCount) throws {
        if let subnets = facts["subnet"] {
            for (text, subnet) in try #require(subnets.objectValue, "\(id) subnet") {
                try requireOnlyKnownKeys(subnet, subnetKeys, "\(id) subnet \(text)")
                let subnetID = try principal(text)
                let key = try subnet.string("public_key_der_hex")
                #expect(tree.lookup(.subnetPublicKey(subnetID.bytes)) == .found(try hex(key)), "\(id) \(text)")
                count.subnetKeys += 1
                if let nodes = subnet["node_public_keys"] {
                    let list = try #require(nodes.arrayValue, "\(id) \(text) node_public_keys")
                    #expect(!list.isEmpty, "\(id) \(text)")
                    for node in list {
                        let nodeID = try principal(try node.string("node_id"))
                        let der = try hex(try node.string("public_key_der_hex"))
                        let path = StatePath([Array("subnet".utf8), subnetID.bytes, Array("node".utf8), nodeID.bytes, Array("public_key".utf8)])
                        #expect(tree.lookup(path) == .found(der), "\(id) \(path)")
                        #expect(nodeID.isSelfAuthenticating(for: der))
                        count.nodeKeys += 1
                    }
                }
                if let flat = subnet["canister_ranges_flat"] {
                    let expected = try #require(flat.arrayValue, "\(id) \(text) canister_ranges_flat").map { range in
                        let parts = try #require(range.arrayValue)
                        try #require(parts.count == 4, "\(id) \(text): a flat range is [lo hex, hi hex, lo text, hi text]")
                        return CanisterRange(lowest: try principal(try #require(parts[2].stringValue)),
                                             highest: try principal(try #require(parts[3].stringValue)))
                    }
                    let path = StatePath([Array("subnet".utf8), subnetID.bytes, Array("canister_ranges".utf8)])
                    guard case .found(let value) = tree.lookup(path) else { throw TestSupportError("\(id): no \(path)") }
                    #expect(try CanisterRange.list(from: value, location: "test") == expected, "\(id) \(text)")
                    count.flatRanges += 1
                }
                if let other = subnet["other"] {
                    // Labels under the subnet besides those checked above, e.g. metrics: revealed in the tree.
                    let labels = try #require(other.arrayValue, "\(id) \(text) other").map { try #require($0.stringValue) }
                    let path = StatePath([Array("subnet".utf8), subnetID.bytes])
                    guard case .found(let subtree) = tree.subtree(at: path) else { throw TestSupportError("\(id): no \(path)") }
                    let present = Set(subtree.children.map { String(decoding: $0.label, as: UTF8.self) })
                    #expect(!labels.isEmpty && Set(labels).isSubset(of: present), "\(id) \(text): \(labels) in \(present.sorted())")
                    count.otherLabels += 1
                }
            }
        }
        if let shards = facts["canister_ranges_tree"] {
            for shard in try #require(shards.arrayValue, "\(id) canister_ranges_tree") {
                let subnetID = try principal(try shard.string("subnet"))
                let expected = try shard.array("ranges").map { range in
                    let parts = try #require(range.arrayValue)
                    return CanisterRange(lowest: try Principal.fromBytes(try hex(try #require(parts[0].stringValue))),
                                         highest: try Principal.fromBytes(try hex(try #require(parts[1].stringValue))))
                }
                let path = StatePath([Array("canister_ranges".utf8), subnetID.bytes, try hex(try shard.string("shard_label"))])
                guard case .found(let value) = tree.lookup(path) else { throw TestSupportError("\(id): no \(path)") }
                let listed = try CanisterRange.list(from: value, location: "test")
                #expect(!expected.isEmpty && listed == expected, "\(id) \(path)")
                #expect(try tree.canisterRanges(of: subnetID) == expected, "\(id) sharded")
                count.shards += 1
            }
        }
    }

    /// The expected outcome of each certificate, from its upstream tests: valid with real BLS at its own time, or
    /// refused for the reason upstream expects.
    @Test("certificates.json: verification outcomes with real BLS at each certificate's time", .vectors("ic"))
    func verificationOutcomes() throws {
        let byID = Dictionary(uniqueKeysWithValues: try CertificateTests.vectors().map { ($0.id, $0) })
        var verdicts = 0
        func check(_ id: String, _ scope: CertificateScope, _ expected: ICError.Reason?, rootKey: ICRootKey = .mainnet) throws {
            let vector = try #require(byID[id], "\(id)")
            let freshness = Freshness.at(try vector.time)
            if let expected {
                expectICError(.verificationFailed, reason: expected, "\(id) for \(scope)") {
                    _ = try vector.certificate.verify(scope: scope, rootKey: rootKey, freshness: freshness)
                }
            } else {
                let verified = try vector.certificate.verify(scope: scope, rootKey: rootKey, freshness: freshness)
                #expect(verified.time == (try vector.time))
                let derived = try vector.derived
                #expect(verified.subnetID.text == derived["delegation_subnet_id"]?.stringValue ?? ICRootKey.mainnet.subnetID.text)
                #expect(verified.isDelegated == (derived["delegation_subnet_id"] != nil))
            }
            verdicts += 1
        }
        let ivg37 = CertificateScope.canister(try principal("ivg37-qiaaa-aaaab-aaaga-cai"))
        let ledger = CertificateScope.canister(try principal("ryjl3-tyaaa-aaaaa-aaaba-cai"))
        // agent-rs: check_subnet_range_with_valid_range / _unauthorized_range / _pruned_range (sharded layout).
        try check("agent-rs/ivg37_time", ivg37, nil)
        try check("agent-rs/ivg37_time", ledger, .range)
        try check("agent-rs/ivg37_time_pruned_ranges", ivg37, .range)
        // agent-rs: check_subnet_range_fallback_* (flat layout).
        try check("agent-rs/ivg37_delegated_v2", ivg37, nil)
        try check("agent-rs/ivg37_delegated_v2", ledger, .range)
        try check("agent-rs/ivg37_delegated_v2_pruned_subnet", ivg37, .range)
        // agent-rs: wrong_subnet_query_certificate; the certificate itself is fine for its own canister.
        try check("agent-rs/224od_subnet", .canister(try principal("224od-giaaa-aaaao-ae5vq-cai")), nil)
        try check("agent-rs/224od_subnet", .canister(try principal("rdmx6-jaaaa-aaaaa-aaadq-cai")), .range)
        // Subnet read_state responses: scoped to their subnet; their delegations certify no ranges for canisters.
        let uzr34 = try principal("uzr34-akd3s-xrdag-3ql62-ocgoh-ld2ao-tamcv-54e7j-krwgb-2gm4z-oqe")
        let o3ow2 = try principal("o3ow2-2ipam-6fcjo-3j5vt-fzbge-2g7my-5fz2m-p4o2t-dwlc4-gt2q7-5ae")
        try check("agent-rs/uzr34_node_keys", .subnet(uzr34), nil)
        try check("agent-rs/uzr34_node_keys", .subnet(o3ow2), .delegation)
        try check("agent-rs/o3ow2_subnet_key", .subnet(o3ow2), nil)
        try check("agent-rs/o3ow2_subnet_key", .canister(try principal("v7pvf-xyaaa-aaaao-aaaaa-cai")), .range)
        // agent-js golden certificates (mainnet; the "local" ones are signed by the mainnet root key too).
        try check("agent-js/goldenCertificates.mainnetApplication", .canister(try principal("erxue-5aaaa-aaaab-qaagq-cai")), nil)
        try check("agent-js/goldenCertificates.mainnetApplication", ledger, .range)
        for name in ["mainnetSystem", "localApplication", "localSystem"] {
            try check("agent-js/goldenCertificates." + name, ledger, nil)
            // Root-signed, revealing the root subnet's ranges: a canister on another subnet is outside them.
            try check("agent-js/goldenCertificates." + name, .canister(try principal("erxue-5aaaa-aaaab-qaagq-cai")), .range)
            try check("agent-js/goldenCertificates." + name, .subnet(try principal("pae4o-o6dxf-xki7q-ezclx-znyd6-fnk6w-vkv5z-5lfwh-xym2i-otrrw-fqe")),
                      .delegation)
        }
        // agent-js certificate.test.ts: ids inside and outside the delegation's range.
        for inside in ["00000000002000000101", "000000000020000C0101", "00000000002FFFFF0101"] {
            try check("agent-js/SAMPLE_CERT_BYTES", .canister(try Principal.fromBytes(try hex(inside))), nil)
        }
        for outside in ["00000000000000020101", "00000000003000020101"] {
            try check("agent-js/SAMPLE_CERT_BYTES", .canister(try Principal.fromBytes(try hex(outside))), .range)
        }
        // A local replica (dfx 0.10) certificate: not signed by the mainnet key.
        try check("agent-js/canisterStatus.testCases[0]", .canister(try principal("rrkah-fqaaa-aaaaa-aaaaq-cai")), .signature)
        try check("agent-js/bin/with_subnet_key.bin", .canister(try principal("rdmx6-jaaaa-aaaaa-aaadq-cai")), nil)
        // A custom root key that did not sign anything here: every mainnet certificate fails on its signature.
        try check("agent-rs/ivg37_time", ivg37, .signature, rootKey: try TestBLSKey(seed: 9).rootKey)
        #expect(verdicts == 31)
        print("certificates.json: \(verdicts) verification verdicts")
    }

    @Test("certificates.json: attacks on real certificates — zero signature, nested delegation, stale time, wrong subnet", .vectors("ic"))
    func attacks() throws {
        let byID = Dictionary(uniqueKeysWithValues: try CertificateTests.vectors().map { ($0.id, $0) })
        let sample = try #require(byID["agent-js/SAMPLE_CERT_BYTES"])
        let ivg37 = CertificateScope.canister(try principal("ivg37-qiaaa-aaaab-aaaga-cai"))
        // agent-js: an all-zero 48-byte signature is refused.
        var fields = try #require(CBOR.decode(sample.bytes, options: .init(stripSelfDescribeTag: true)).map)
        fields = fields.map { $0.key == "signature" ? (key: $0.key, value: .bytes([UInt8](repeating: 0, count: 48))) : $0 }
        let zeroed = try ICCertificate(decoding: try CBOR.map(fields).encoded())
        expectICError(.verificationFailed, reason: .signature, "zero signature") {
            _ = try zeroed.verify(scope: ivg37, freshness: .at(try sample.time))
        }
        // agent-rs too_many_delegations / agent-js nested delegations: a delegated certificate re-wrapped as the
        // delegation of another certificate.
        for id in ["agent-rs/uzr34_node_keys", "agent-js/bin/with_subnet_key.bin"] {
            let vector = try #require(byID[id])
            let subnet = try #require(vector.certificate.delegation?.subnetID)
            let outer = try TestCertificates.encode(tree: .leaf([]), key: TestBLSKey(seed: 1),
                                                    delegation: (subnet: subnet, certificate: vector.bytes))
            expectICError(.verificationFailed, reason: .delegation, "\(id) nested") {
                _ = try ICCertificate(decoding: outer).verify(scope: .subnet(subnet), freshness: nil)
            }
        }
        // Stale and future times around a real certificate's /time.
        let time = try sample.time
        _ = try sample.certificate.verify(scope: ivg37, freshness: .at(time + Freshness.defaultTolerance))
        _ = try sample.certificate.verify(scope: ivg37, freshness: .at(time - Freshness.defaultTolerance))
        for reference in [time + Freshness.defaultTolerance + 1, time - Freshness.defaultTolerance - 1, IngressExpiry.currentTime()] {
            expectICError(.verificationFailed, reason: .time, "reference \(reference)") {
                _ = try sample.certificate.verify(scope: ivg37, freshness: .at(reference))
            }
        }
        _ = try sample.certificate.verify(scope: ivg37, freshness: .at(time + 3_600_000_000_000, tolerance: 3_600_000_000_000))
        // A subnet-scoped check of a canister certificate names the wrong subnet.
        expectICError(.verificationFailed, reason: .delegation, "subnet scope") {
            _ = try sample.certificate.verify(scope: .subnet(try principal("tdb26-jop6k-aogll-7ltgs-eruif-6kk7m-qpktf-gdiqx-mxtrf-vb5e6-eqe")),
                                              freshness: .at(time))
        }
    }

    @Test("certificates.json: request status of the rejected call in SAMPLE_CERT_BYTES", .vectors("ic"))
    func requestStatusFromRealCertificate() throws {
        let vector = try #require(try CertificateTests.vectors().first { $0.id == "agent-js/SAMPLE_CERT_BYTES" })
        let verified = try vector.certificate.verify(scope: .canister(try principal("ivg37-qiaaa-aaaab-aaaga-cai")),
                                                     freshness: .at(try vector.time))
        let id = try RequestID(hex: "edad510eaaa08ed2acd4781324e6446269da6753ec17760f206bbe81c465ff52")
        guard case .rejected(let reject) = try verified.requestStatus(id) else { throw TestSupportError("not rejected") }
        #expect(reject.code == .destinationInvalid && reject.certified && reject.errorCode == nil)
        #expect(reject.message.hasPrefix("Canister ivg37-qiaaa-aaaab-aaaga-cai"))
        // Another request id is proven absent: unknown to the IC.
        #expect(try verified.requestStatus(try RequestID(bytes: [UInt8](repeating: 0xff, count: 32))) == .unknown)
    }

    @Test("certificates.json: subnet facts for the node-key cache (224od_subnet, mainnetSystem, uzr34, with_subnet_key)", .vectors("ic"))
    func subnetInfo() throws {
        let byID = Dictionary(uniqueKeysWithValues: try CertificateTests.vectors().map { ($0.id, $0) })
        let vector = try #require(byID["agent-rs/224od_subnet"])
        let canister = try principal("224od-giaaa-aaaao-ae5vq-cai")
        let verified = try vector.certificate.verify(scope: .canister(canister), freshness: .at(try vector.time))
        let info = try verified.subnetInfo()
        #expect(info.subnetID.text == "o3ow2-2ipam-6fcjo-3j5vt-fzbge-2g7my-5fz2m-p4o2t-dwlc4-gt2q7-5ae")
        #expect(info.publicKeyDER == verified.signingKeyDER)
        let otherCanister = try principal("rdmx6-jaaaa-aaaaa-aaadq-cai")
        #expect(info.serves(canister) && !info.serves(otherCanister))
        let expectedNodes = try #require(try vector.derived["subnet"]?[info.subnetID.text]?.array("node_public_keys"))
        #expect(info.nodeKeys.count == expectedNodes.count)
        for node in expectedNodes {
            #expect(info.nodeKeys[try principal(try node.string("node_id"))] == (try hex(try node.string("public_key_der_hex"))))
        }
        #expect(try SubnetInfo(json: try JSONValue.parse(info.json.serialized())) == info)
        // Root-signed: the NNS subnet, whose key is the root key itself.
        let system = try #require(byID["agent-js/goldenCertificates.mainnetSystem"])
        let nns = try system.certificate.verify(scope: .canister(try principal("ryjl3-tyaaa-aaaaa-aaaba-cai")), freshness: .at(try system.time))
        let nnsInfo = try nns.subnetInfo()
        #expect(nnsInfo.subnetID == ICRootKey.mainnet.subnetID && nnsInfo.publicKeyDER == ICRootKey.mainnetDER)
        let ledgerCanister = try principal("ryjl3-tyaaa-aaaaa-aaaba-cai")
        #expect(!nnsInfo.nodeKeys.isEmpty && nnsInfo.serves(ledgerCanister))
        // A subnet read: the subnet's own tree lists its ranges (sharded layout), but only the root-signed delegation
        // may say which canisters a subnet serves, and this delegation lists none: the node keys serve no canister.
        let uzr34 = try #require(byID["agent-rs/uzr34_node_keys"])
        let uzr34ID = try principal("uzr34-akd3s-xrdag-3ql62-ocgoh-ld2ao-tamcv-54e7j-krwgb-2gm4z-oqe")
        let uzr34Verified = try uzr34.certificate.verify(scope: .subnet(uzr34ID), freshness: .at(try uzr34.time))
        let rdmx6 = try principal("rdmx6-jaaaa-aaaaa-aaadq-cai")
        #expect(try uzr34Verified.tree.canisterRanges(of: uzr34ID)?.contains { $0.contains(rdmx6) } == true)
        let uzr34Info = try uzr34Verified.subnetInfo()
        #expect(!uzr34Info.serves(rdmx6) && uzr34Info.canisterRanges.isEmpty && uzr34Info.nodeKeys.count == 34)
        let internetIdentity = try #require(byID["agent-js/bin/with_subnet_key.bin"])
        let iiInfo = try internetIdentity.certificate.verify(scope: .canister(try principal("rdmx6-jaaaa-aaaaa-aaadq-cai")),
                                                             freshness: .at(try internetIdentity.time)).subnetInfo()
        let iiNodes = try #require(try internetIdentity.derived["subnet"]?[uzr34ID.text]?.array("node_public_keys"))
        #expect(iiInfo.subnetID == uzr34ID && iiInfo.nodeKeys.count == iiNodes.count)
        // A delegated certificate speaks only for its own subnet.
        expectICError(.verificationFailed, reason: .delegation) { _ = try verified.subnetInfo(uzr34ID) }
        // A root-signed one speaks for any subnet, but must certify the one asked about.
        expectICError(.verificationFailed, reason: .lookup) { _ = try nns.subnetInfo(uzr34ID) }
    }

    @Test("bls_signatures.json: each triple is a certificate or delegation signature in certificates.json and verifies as labelled", .vectors("ic"))
    func blsSignatures() throws {
        let document = try icVector("bls_signatures.json")
        let vectors = try CertificateTests.vectors()
        var signed: [String: [UInt8]] = [:]  // signature hex → the certificate's signed message
        for vector in vectors {
            signed[Hex.encode(vector.certificate.signature)] = vector.certificate.signedMessage
            if let delegation = vector.certificate.delegation {
                signed[Hex.encode(delegation.certificate.signature)] = delegation.certificate.signedMessage
            }
        }
        var count = 0
        for entry in try document.array("vectors") {
            let key = try hex(try entry.string("public_key_g2_hex"))
            let message = try hex(try entry.string("message_hex"))
            let signature = try hex(try entry.string("signature_g1_hex"))
            let valid = (try? BLS.verify(signature: signature, publicKey: key, message: message)) == .valid
            let id = try entry.string("id")
            if try entry.string("expected") == "valid" {
                #expect(valid, "\(id)")
                #expect(signed[Hex.encode(signature)] == message, "\(id): message is 0x0D ic-state-root ‖ root hash")
            } else {
                #expect(!valid, "\(id)")
            }
            count += 1
        }
        #expect(count == 12)
        print("bls_signatures.json: \(count) vectors")
    }

    @Test("query_signatures.json: the wrong-canister node signature is refused", .vectors("ic"))
    func querySignatures() throws {
        let document = try icVector("query_signatures.json")
        let negative = try #require(document["upstream_negative_vector"])
        let vector = try #require(try CertificateTests.vectors().first { $0.id == "agent-rs/224od_subnet" })
        // The subnet certificate does not cover the canister the response was for.
        expectICError(.verificationFailed, reason: .range, "subnet certificate for rdmx6") {
            _ = try vector.certificate.verify(scope: .canister(try principal("rdmx6-jaaaa-aaaaa-aaadq-cai")), freshness: .at(try vector.time))
        }
        // And its node keys do not verify the signature: the signing node is not in that subnet.
        let info = try vector.certificate.verify(scope: .canister(try principal("224od-giaaa-aaaao-ae5vq-cai")),
                                                 freshness: .at(try vector.time)).subnetInfo()
        let signature = NodeSignature(timestamp: try negative.uint("timestamp"), signature: try hex(try negative.string("signature_hex")),
                                      identity: try principal(try negative.string("identity")))
        let response = QueryResponse(outcome: .replied(try hex(try negative.string("reply_arg_hex"))), signatures: [signature])
        // The vector has no request content, so no request id: the refusal must be for the node itself (not in
        // this subnet), which no request id could change; a failed signature check would prove nothing.
        let requestID = try RequestID(bytes: [UInt8](repeating: 0, count: 32))
        #expect(info.subnetID.text.hasPrefix("o3ow2") && info.nodeKeys[signature.identity] == nil && info.nodeKeys.count == 13)
        let wrongSubnet = expectICError(.verificationFailed, reason: .nodeSignature, "wrong subnet") {
            try response.verify(requestID: requestID, subnet: info)
        }
        #expect(wrongSubnet?.message == "node \(signature.identity) is not a node of subnet \(info.subnetID)", "\(String(describing: wrongSubnet))")
        // agent-rs no_cert: an empty signature list.
        let missing = expectICError(.verificationFailed, reason: .nodeSignature, "no signature") {
            try QueryResponse(outcome: response.outcome, signatures: []).verify(requestID: requestID, subnet: info)
        }
        #expect(missing?.message == "the query response carries no node signature")
    }
}
