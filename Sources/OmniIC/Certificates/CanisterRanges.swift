import OmniCandid
import OmniCodec

/// A closed interval of canister ids, compared bytewise (how subnets own canisters).
public struct CanisterRange: Hashable, Sendable, CustomStringConvertible {
    public let lowest: Principal
    public let highest: Principal

    public init(lowest: Principal, highest: Principal) {
        self.lowest = lowest
        self.highest = highest
    }

    public func contains(_ canister: Principal) -> Bool {
        !canister.bytes.lexicographicallyPrecedes(lowest.bytes) && !highest.bytes.lexicographicallyPrecedes(canister.bytes)
    }

    public var description: String { "\(lowest)…\(highest)" }

    /// Reads a CBOR list of `[lowest, highest]` pairs (self-describe tag optional), as stored in
    /// `/subnet/<id>/canister_ranges` and in each `/canister_ranges/<id>/<shard>` leaf.
    static func list(from bytes: [UInt8], location: String) throws(ICError) -> [CanisterRange] {
        let value = try ICCBOR.decode(bytes, what: "canister ranges at \(location)", maxBytes: bytes.count, maxDepth: 8)
        guard let items = value.array else {
            throw ICError.malformed("canister ranges are \(value.kindName), expected an array", location: location)
        }
        var ranges: [CanisterRange] = []
        ranges.reserveCapacity(items.count)
        for item in items {
            guard let pair = item.array, pair.count == 2, let low = pair[0].bytes, let high = pair[1].bytes else {
                throw ICError.malformed("a canister range is not a pair of byte strings", location: location)
            }
            ranges.append(CanisterRange(lowest: try Principal.fromBytes(low, what: "range start"),
                                        highest: try Principal.fromBytes(high, what: "range end")))
        }
        return ranges
    }
}

extension HashTree {
    /// The canister ranges this tree certifies for `subnet`: every visible leaf under the sharded
    /// `/canister_ranges/<subnet>` (the specification's `lookup*`), or, when that subtree is absent, pruned or
    /// holds no visible leaf, `/subnet/<subnet>/canister_ranges` (agent-rs falls back the same way). nil when
    /// neither layout certifies any range.
    public func canisterRanges(of subnet: Principal) throws(ICError) -> [CanisterRange]? {
        let shardedPath = StatePath([Array("canister_ranges".utf8), subnet.bytes])
        if case .found(let shards) = subtree(at: shardedPath) {
            var ranges: [CanisterRange] = []
            var sawLeaf = false
            for (label, child) in shards.children {
                guard case .leaf(let value) = child else { continue }
                sawLeaf = true
                ranges += try CanisterRange.list(from: value, location: shardedPath.appending(label).description)
            }
            if sawLeaf { return ranges }
        }
        let flatPath = StatePath([Array("subnet".utf8), subnet.bytes, Array("canister_ranges".utf8)])
        if case .found(let value) = lookup(flatPath) {
            return try CanisterRange.list(from: value, location: flatPath.description)
        }
        return nil
    }
}

extension ICCertificate {
    /// The range check of a delegated certificate: `canister` must lie in the ranges the delegation certifies.
    static func checkRange(_ canister: Principal, subnet: Principal, tree: HashTree) throws(ICError) {
        guard let ranges = try tree.canisterRanges(of: subnet) else {
            throw ICError.verification(.range, "the delegation certifies no canister ranges for subnet \(subnet) "
                                       + "(neither /canister_ranges/\(subnet) nor /subnet/\(subnet)/canister_ranges)")
        }
        guard ranges.contains(where: { $0.contains(canister) }) else {
            throw ICError.verification(.range, "canister \(canister) is outside the canister ranges of subnet \(subnet)")
        }
    }
}
