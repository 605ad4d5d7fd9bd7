import OmniCandid
import OmniCodec
import OmniCrypto
import OmniIC

/// The IC client's parsers: certificates (decoded and verified under the pinned mainnet root key, the key the
/// shared real certificates verify under), hash trees, request envelopes, signed request files, delegation chains.
let icHarnesses: [Harness] = [icCertificate, icHashTree, icEnvelope, icSignedRequest, icDelegationCBOR, icDelegationJSON]

/// The clock of every verification here: late 2023, inside the lifetime of the seeds' delegations.
private let fuzzTime: UInt64 = 1_700_000_000_000_000_000

// MARK: - Fixed signers for seeds (test keys, generated from constant seeds)

private enum SeedIdentities {
    static let ed25519 = ICIdentity(ed25519: try! Ed25519.PrivateKey(seed: [UInt8](repeating: 7, count: 32)))
    static let secp256k1 = try! ICIdentity(ecdsa: try! ECDSA.PrivateKey(rawRepresentation: [UInt8](repeating: 3, count: 32), curve: .secp256k1))
    static let p256 = try! ICIdentity(ecdsa: try! ECDSA.PrivateKey(rawRepresentation: [UInt8](repeating: 5, count: 32), curve: .p256))
    static var all: [(String, ICIdentity)] { [("ed25519", ed25519), ("secp256k1", secp256k1), ("p256", p256)] }
    static let ledger = try! Principal(text: "ryjl3-tyaaa-aaaaa-aaaba-cai")

    /// A call, a query and a read_state of `identity`, signed (or anonymous), with their envelopes.
    static func envelopes(_ identity: ICIdentity, name: String) -> [(String, ICEnvelope)] {
        let bodies: [(String, ICRequest.Body)] = [
            ("call", .call(canister: ledger, method: "icrc1_transfer", arg: Array("DIDL\u{0}\u{0}".utf8))),
            ("query", .query(canister: ledger, method: "icrc1_balance_of", arg: Array("DIDL\u{0}\u{1}\u{7d}\u{2a}".utf8))),
            ("read-state", .readState(paths: [["time"], StatePath([Array("canister".utf8), ledger.bytes, Array("module_hash".utf8)])])),
        ]
        return bodies.compactMap { kind, body in
            guard let request = try? ICRequest(body, sender: identity.principal, ingressExpiry: fuzzTime + 240_000_000_000, nonce: [1, 2, 3]),
                  let envelope = try? identity.envelope(for: request, at: fuzzTime) else { return nil }
            return ("\(name)-\(kind)", envelope)
        }
    }

    /// Envelopes of every key type, the anonymous identity, and a two-link delegated session.
    static var allEnvelopes: [(String, ICEnvelope)] {
        var result = envelopes(.anonymous, name: "anonymous")
        for (name, identity) in all { result += envelopes(identity, name: name) }
        if let session = delegatedSession { result += envelopes(ICIdentity(session: session), name: "delegated") }
        return result
    }

    /// secp256k1 → P-256-signed session → Ed25519 session, restricted to the ledger.
    static var delegatedSession: DelegatedSession? {
        guard let first = try? DelegatedSession.create(root: secp256k1, targets: [ledger], now: fuzzTime) else { return nil }
        return try? DelegatedSession.create(root: ICIdentity(session: first), now: fuzzTime)
    }
}

// MARK: - Certificates and hash trees

/// A tree with `/time`, a subnet's public key and canister ranges, the shapes verification looks up.
private var builtInTree: HashTree {
    let subnet = ICRootKey.mainnet.subnetID.bytes
    let ranges = (try? CBOR.array([.array([.bytes([0, 0, 0, 0, 0, 0, 0, 0, 1, 1]), .bytes([0, 0, 0, 0, 0, 0xff, 0xff, 0xff, 1, 1])])]).encoded()) ?? []
    return .fork(.labeled(Array("subnet".utf8), .labeled(subnet, .fork(.labeled(Array("canister_ranges".utf8), .leaf(ranges)),
                                                                         .labeled(Array("public_key".utf8), .leaf(ICRootKey.mainnetDER))))),
                 .fork(.labeled(Array("time".utf8), .leaf(LEB128.encoded(fuzzTime))), .pruned([UInt8](repeating: 9, count: 32))))
}

private func certificateSeeds(_ sources: SeedSources) -> [Seed] {
    let json = sources.vectorJSON("ic/certificates.json")
    // Unsigned (a zero signature): decoding and the tree are exercised, verification refuses it.
    let unsigned = CBOR.map([("tree", builtInTree.cbor), ("signature", .bytes([UInt8](repeating: 0, count: 48)))]).selfDescribed
    let delegated = CBOR.map([("tree", builtInTree.cbor), ("signature", .bytes([UInt8](repeating: 0, count: 48))),
                              ("delegation", .map([("subnet_id", .bytes(ICRootKey.mainnet.subnetID.bytes)),
                                                   ("certificate", .bytes((try? unsigned.encoded()) ?? []))]))]).selfDescribed
    var seeds = [unsigned, delegated].enumerated().compactMap { index, value in (try? value.encoded()).map { Seed("built-in-\(index)", $0) } }
    seeds += VectorStrings.hex(json, keys: ["certificate_cbor_hex"]).enumerated().map { Seed("certificate-\($0.offset)", $0.element) }
    // read_state bodies wrap the certificate: `{certificate: bytes}`.
    for (index, body) in VectorStrings.hex(json, keys: ["response_body_cbor_hex"]).enumerated() {
        if let certificate = (try? CBOR.decode(body))?.untagged["certificate"]?.bytes { seeds.append(Seed("read-state-\(index)", certificate)) }
    }
    return seeds
}

private let icCertificate = Harness(
    "ic-certificate",
    "ICCertificate(decoding:) then verify under the mainnet root key (scope: subnet for even lengths, a canister in the certified ranges for odd); the tree re-encodes to the same root hash",
    seeds: certificateSeeds,
    parse: { bytes in
        // Verification fails for the hostile inputs (no valid signature); what is measured is reading them.
        guard let certificate = try? ICCertificate(decoding: bytes) else { return false }
        _ = try? certificate.verify(scope: .subnet(ICRootKey.mainnet.subnetID), rootKey: .mainnet, freshness: nil)
        return true
    }
) { bytes in
    guard let certificate = try? ICCertificate(decoding: bytes) else { return }
    checkTreeRoundTrip(certificate.tree)
    if let delegation = certificate.delegation { checkTreeRoundTrip(delegation.certificate.tree) }
    _ = try? certificate.certifiedTime()
    let subnet = certificate.delegation?.subnetID ?? ICRootKey.mainnet.subnetID
    let scope: CertificateScope
    if bytes.count % 2 == 0 {
        scope = .subnet(subnet)
    } else {
        let tree = certificate.delegation?.certificate.tree ?? certificate.tree
        let ranges = (try? tree.canisterRanges(of: subnet)) ?? nil
        scope = .canister(ranges?.first?.lowest ?? .managementCanister)
    }
    guard let verified = try? certificate.verify(scope: scope, rootKey: .mainnet, freshness: nil) else { return }
    FuzzCheck.require(verified.rootHash == certificate.tree.digest && verified.signingKeyDER.count == 133,
                      "a verified certificate reports another root hash or signing key")
}

private let icHashTree = Harness(
    "ic-hash-tree",
    "HashTree(decoding:) with the certificate limits; CBOR round trip keeps the root hash, and in a well-formed tree every leaf is Found at its own path",
    seeds: { sources in
        var seeds = [(try? builtInTree.cbor.encoded()).map { Seed("built-in", $0) }].compactMap { $0 }
        seeds += VectorStrings.hex(sources.vectorJSON("ic/hash_tree.json"), keys: ["full_tree_cbor_hex", "pruned_tree_cbor_hex"])
            .enumerated().map { Seed("spec-\($0.offset)", $0.element) }
        for seed in certificateSeeds(sources) {
            if let tree = (try? ICCertificate(decoding: seed.bytes))?.tree, let bytes = try? tree.cbor.encoded() { seeds.append(Seed(seed.name + "-tree", bytes)) }
        }
        return seeds
    },
    parse: { bytes in (try? HashTree(decoding: bytes)) != nil }
) { bytes in
    guard let tree = try? HashTree(decoding: bytes) else { return }
    checkTreeRoundTrip(tree)
    guard tree.isWellFormed else { return }
    var leaves: [(path: [[UInt8]], value: [UInt8])] = []
    collectLeaves(tree, path: [], into: &leaves)
    for leaf in leaves {
        FuzzCheck.require(tree.lookup(StatePath(leaf.path)) == .found(leaf.value), "a leaf of a well-formed tree is not Found at its path")
    }
}

private func checkTreeRoundTrip(_ tree: HashTree) {
    guard let encoded = try? tree.cbor.encoded() else { FuzzCheck.fail("a decoded hash tree does not encode") }
    guard let again = try? HashTree(decoding: encoded) else { FuzzCheck.fail("a re-encoded hash tree does not decode") }
    FuzzCheck.require(again == tree && again.digest == tree.digest, "a hash tree changed in a CBOR round trip")
}

/// Leaves reachable through labels only (at most 64, paths of at most 8 labels: lookups cost the tree's size).
private func collectLeaves(_ tree: HashTree, path: [[UInt8]], into leaves: inout [(path: [[UInt8]], value: [UInt8])]) {
    guard leaves.count < 64, path.count <= 8 else { return }
    if case .leaf(let value) = tree, !path.isEmpty { leaves.append((path, value)); return }
    for child in tree.children { collectLeaves(child.tree, path: path + [child.label], into: &leaves) }
}

// MARK: - Envelopes and signed request files

private let icEnvelope = Harness(
    "ic-envelope",
    "ICEnvelope(decoding:) and verifySender at a fixed time; an envelope re-encodes and decodes to itself with the same request id",
    seeds: { _ in SeedIdentities.allEnvelopes.compactMap { name, envelope in (try? envelope.encoded()).map { Seed(name, $0) } } },
    parse: { bytes in
        guard let envelope = try? ICEnvelope(decoding: bytes) else { return false }
        _ = try? envelope.verifySender(at: fuzzTime)
        return true
    }
) { bytes in
    guard let envelope = try? ICEnvelope(decoding: bytes) else { return }
    guard let encoded = try? envelope.encoded() else { FuzzCheck.fail("a decoded envelope does not encode") }
    guard let again = try? ICEnvelope(decoding: encoded) else { FuzzCheck.fail("a re-encoded envelope does not decode") }
    FuzzCheck.require(again == envelope && again.requestID == envelope.requestID, "an envelope changed in a round trip")
    do throws(ICError) {
        try envelope.verifySender(at: fuzzTime, delegationTarget: DelegationTarget.explicit(SeedIdentities.ledger))
    } catch {
        FuzzCheck.require(error.kind != .internalFailure, "verifying a sender failed internally: \(error)")
    }
}

private let icSignedRequest = Harness(
    "ic-signed-request",
    "SignedRequestFile(text:) (JSON, envelope hex, mirrors checked against the signed content); a file re-serializes and reads back equal",
    seeds: { _ in
        SeedIdentities.allEnvelopes.compactMap { name, envelope in
            var status: ICEnvelope?
            if case .call = envelope.content.body, let request = try? ICRequest(.readState(paths: [.requestStatus(envelope.requestID)]),
                                                                                  sender: envelope.content.sender, ingressExpiry: envelope.content.ingressExpiry) {
                status = ICEnvelope(content: request, senderPublicKey: envelope.senderPublicKey, senderSignature: envelope.senderSignature,
                                    senderDelegation: envelope.senderDelegation)
            }
            guard let file = try? SignedRequestFile(envelope: envelope, effectiveCanisterID: SeedIdentities.ledger, network: "ic",
                                                    requestStatus: status) else { return nil }
            return Seed(name, text: file.text)
        }
    },
    parse: { bytes in utf8Text(bytes).flatMap { try? SignedRequestFile(text: $0) } != nil }
) { bytes in
    guard let text = utf8Text(bytes), let file = try? SignedRequestFile(text: text) else { return }
    guard let again = try? SignedRequestFile(text: file.text) else { FuzzCheck.fail("a signed request file does not read back its own text") }
    FuzzCheck.require(again == file, "a signed request file changed in a round trip")
}

// MARK: - Delegation chains

/// CBOR form: `[root public key (bytes), [{delegation, signature}, …]]`, the chain an envelope carries as
/// `sender_pubkey` and `sender_delegation`.
private let icDelegationCBOR = Harness(
    "ic-delegation-cbor",
    "SignedDelegation(cbor:) for each link of `[root key, sender_delegation]`, then DelegationChain.verify at a fixed time; CBOR and JSON forms of the chain read back the same chain",
    seeds: { _ in
        guard let chain = SeedIdentities.delegatedSession?.chain else { return [] }
        let cbor = CBOR.array([.bytes(chain.publicKey), .array(chain.delegations.map(\.cbor))])
        return [(try? cbor.encoded()).map { Seed("two-links", $0) }].compactMap { $0 }
    }
) { bytes in
    guard let value = try? CBOR.decode(bytes, options: CBORDecodingOptions(maxDepth: 16, maxItems: 1 << 16)),
          let items = value.array, items.count == 2, let root = items[0].bytes, let links = items[1].array,
          links.count <= DelegationChain.maxLength else { return }
    var delegations: [SignedDelegation] = []
    for link in links {
        guard let delegation = try? SignedDelegation(cbor: link) else { return }
        guard let again = try? SignedDelegation(cbor: delegation.cbor) else { FuzzCheck.fail("a delegation's CBOR does not read back") }
        FuzzCheck.require(again == delegation, "a delegation changed in a CBOR round trip")
        delegations.append(delegation)
    }
    let chain = DelegationChain(publicKey: root, delegations: delegations)
    FuzzCheck.require((try? DelegationChain(json: chain.json)) == chain, "a chain read from CBOR does not survive its JSON form")
    verifyChain(chain)
}

private let icDelegationJSON = Harness(
    "ic-delegation-json",
    "DelegationChain(jsonText:) (agent-js form: hex keys, hex or decimal expirations) and DelegatedSession(sessionFile:), then verify at a fixed time; a chain's JSON reads back the same chain",
    seeds: { _ in
        guard let session = SeedIdentities.delegatedSession else { return [] }
        var seeds = [Seed("chain", text: session.chain.json.serialized(pretty: true))]
        if let file = try? session.sessionFileJSON() { seeds.append(Seed("session-file", text: file.serialized())) }
        return seeds
    },
    parse: { bytes in
        guard let chain = utf8Text(bytes).flatMap({ try? DelegationChain(jsonText: $0) }) else { return false }
        _ = try? chain.verify(at: fuzzTime)
        return true
    }
) { bytes in
    guard let text = utf8Text(bytes) else { return }
    if let chain = try? DelegationChain(jsonText: text) {
        FuzzCheck.require((try? DelegationChain(jsonText: chain.json.serialized())) == chain, "a chain changed in a JSON round trip")
        verifyChain(chain)
    }
    if let json = try? JSONValue.parse(text, limits: JSONLimits(maxDepth: 16, maxBytes: 1 << 20)),
       let session = try? DelegatedSession(sessionFile: json) {
        _ = try? session.verify(at: fuzzTime)
    }
}

private func verifyChain(_ chain: DelegationChain) {
    do throws(ICError) {
        try chain.verify(at: fuzzTime, canister: SeedIdentities.ledger)
    } catch {
        FuzzCheck.require(error.kind != .internalFailure, "verifying a delegation chain failed internally: \(error)")
    }
}
