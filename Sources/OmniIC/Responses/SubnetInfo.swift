import OmniCandid
import OmniCodec

/// What a verified `/subnet` read tells about one subnet: its BLS key, its nodes' Ed25519 keys (to check query
/// signatures) and its canister ranges (to know which canisters it serves). Cacheable: `json` / `init(json:)`.
public struct SubnetInfo: Sendable, Equatable {
    public let subnetID: Principal
    /// DER BLS public key (133 bytes).
    public let publicKeyDER: [UInt8]
    /// Node id → DER Ed25519 public key (44 bytes).
    public let nodeKeys: [Principal: [UInt8]]
    /// Empty when the certificate did not reveal them.
    public let canisterRanges: [CanisterRange]
    /// The certified `/time` of the certificate the facts come from.
    public let certifiedAt: UInt64

    public init(subnetID: Principal, publicKeyDER: [UInt8], nodeKeys: [Principal: [UInt8]], canisterRanges: [CanisterRange],
                certifiedAt: UInt64) {
        self.subnetID = subnetID
        self.publicKeyDER = publicKeyDER
        self.nodeKeys = nodeKeys
        self.canisterRanges = canisterRanges
        self.certifiedAt = certifiedAt
    }

    /// Whether the subnet serves `canister` according to the certified ranges.
    public func serves(_ canister: Principal) -> Bool { canisterRanges.contains { $0.contains(canister) } }

    /// The cache form: `{"subnet_id", "public_key", "node_keys": {id: hex}, "canister_ranges": [[lo, hi]],
    /// "certified_at"}` (principals as text, keys as hex, time as a decimal string).
    public var json: JSONValue {
        var keys = JSONObject()
        for (node, der) in nodeKeys.sorted(by: { $0.key < $1.key }) { keys.append(node.text, .string(Hex.encode(der))) }
        return .object([
            "subnet_id": .string(subnetID.text),
            "public_key": .string(Hex.encode(publicKeyDER)),
            "node_keys": .object(keys),
            "canister_ranges": .array(canisterRanges.map { .array([.string($0.lowest.text), .string($0.highest.text)]) }),
            "certified_at": .string(String(certifiedAt)),
        ])
    }

    public init(json: JSONValue) throws(ICError) {
        func string(_ value: JSONValue?, _ what: String) throws(ICError) -> String {
            guard let text = value?.stringValue else { throw ICError.malformed("subnet info: \(what) is missing or not a string") }
            return text
        }
        func hex(_ text: String, _ what: String) throws(ICError) -> [UInt8] {
            do { return try Hex.decode(text) } catch { throw ICError.codec(error, "subnet info \(what)") }
        }
        subnetID = try Principal(icText: try string(json["subnet_id"], "subnet_id"))
        publicKeyDER = try hex(try string(json["public_key"], "public_key"), "public_key")
        guard let keys = json["node_keys"]?.objectValue else { throw ICError.malformed("subnet info: node_keys is not an object") }
        var nodes: [Principal: [UInt8]] = [:]
        for (node, value) in keys {
            nodes[try Principal(icText: node)] = try hex(try string(value, "node key"), "node key")
        }
        nodeKeys = nodes
        guard let ranges = json["canister_ranges"]?.arrayValue else { throw ICError.malformed("subnet info: canister_ranges is not an array") }
        var parsed: [CanisterRange] = []
        for range in ranges {
            guard let pair = range.arrayValue, pair.count == 2 else { throw ICError.malformed("subnet info: a canister range is not a pair") }
            parsed.append(CanisterRange(lowest: try Principal(icText: try string(pair[0], "range start")),
                                        highest: try Principal(icText: try string(pair[1], "range end"))))
        }
        canisterRanges = parsed
        guard let time = UInt64(try string(json["certified_at"], "certified_at")) else {
            throw ICError.malformed("subnet info: certified_at is not a decimal nanosecond count")
        }
        certifiedAt = time
    }
}

extension VerifiedCertificate {
    /// The subnet facts this certificate reveals (read with paths `["subnet"]` or `["subnet", id]`): `subnet`
    /// defaults to the subnet that signed the certificate. Node keys and ranges decide whose signatures omni accepts
    /// for which canisters, so each fact must rest on the root of trust: a root-signed tree speaks for every subnet;
    /// a delegated subnet's tree speaks only for that subnet, whose key is the one the delegation certifies and
    /// whose canister ranges are read from the root-signed delegation (as agent-rs does), never from the subnet's
    /// own claims. Node keys come from `/subnet/<id>/node/<node>/public_key`; ranges from either layout.
    public func subnetInfo(_ subnet: Principal? = nil) throws(ICError) -> SubnetInfo {
        let subnet = subnet ?? subnetID
        let subnetPath = StatePath([Array("subnet".utf8), subnet.bytes])
        let rangesTree: HashTree
        if let delegation = certificate.delegation {
            guard subnet == delegation.subnetID else {
                throw ICError.verification(.delegation, "a certificate delegated to subnet \(delegation.subnetID) does not speak "
                                           + "for subnet \(subnet)", location: subnetPath.description)
            }
            rangesTree = delegation.certificate.tree
        } else {
            rangesTree = tree
        }
        let publicKey: [UInt8]
        if subnet == subnetID {
            publicKey = signingKeyDER
        } else {
            guard case .found(let der) = tree.lookup(subnetPath.appending("public_key")) else {
                throw ICError.verification(.lookup, "the certificate does not certify subnet \(subnet)'s public key",
                                           location: subnetPath.appending("public_key").description)
            }
            publicKey = der
        }
        var nodes: [Principal: [UInt8]] = [:]
        let nodePath = subnetPath.appending("node")
        if case .found(let nodeTree) = tree.subtree(at: nodePath) {
            for (label, child) in nodeTree.children {
                guard case .found(let der) = child.lookup(["public_key"]) else { continue }
                nodes[try Principal.fromBytes(label, what: "node id")] = der
            }
        }
        if nodes.isEmpty {
            throw ICError.verification(.lookup, "the certificate reveals no node keys of subnet \(subnet)", location: nodePath.description)
        }
        let ranges = try rangesTree.canisterRanges(of: subnet) ?? []
        return SubnetInfo(subnetID: subnet, publicKeyDER: publicKey, nodeKeys: nodes, canisterRanges: ranges, certifiedAt: time)
    }
}
