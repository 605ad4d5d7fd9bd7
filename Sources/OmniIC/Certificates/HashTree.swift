import OmniCodec
import OmniCrypto

/// The IC's certified-data hash tree (interface spec § Certification › Encoding of certificates):
/// `[0]` Empty, `[1, l, r]` Fork, `[2, label, t]` Labeled, `[3, value]` Leaf, `[4, hash]` Pruned.
public indirect enum HashTree: Sendable, Equatable {
    case empty
    case fork(HashTree, HashTree)
    case labeled([UInt8], HashTree)
    case leaf([UInt8])
    /// A subtree replaced by its 32-byte root hash.
    case pruned([UInt8])

    /// Reads a tree from its CBOR form. Depth is bounded by the CBOR decoder's limit (recursion is safe).
    public init(cbor: CBOR) throws(ICError) {
        try self.init(cbor: cbor, location: "tree")
    }

    /// Decodes a CBOR-encoded tree (self-describe tag optional), with the certificate limits.
    public init(decoding bytes: [UInt8], limits: CertificateLimits = .default) throws(ICError) {
        try self.init(cbor: try ICCBOR.decode(bytes, what: "hash tree", maxBytes: limits.maxBytes, maxDepth: limits.maxDepth,
                                              maxItems: limits.maxItems))
    }

    private init(cbor: CBOR, location: String) throws(ICError) {
        guard let items = cbor.array, let tag = items.first?.uint else {
            throw ICError.malformed("hash tree node is \(cbor.kindName), expected an array starting with a node tag", location: location)
        }
        func bytes(_ index: Int) throws(ICError) -> [UInt8] {
            guard let value = items[index].bytes else {
                throw ICError.malformed("hash tree node field \(index) is \(items[index].kindName), expected bytes", location: location)
            }
            return value
        }
        let arity: [UInt64: Int] = [0: 1, 1: 3, 2: 3, 3: 2, 4: 2]
        guard let expected = arity[tag] else {
            throw ICError.malformed("unknown hash tree node tag \(tag)", location: location)
        }
        guard items.count == expected else {
            throw ICError.malformed("hash tree node \(tag) has \(items.count) elements, expected \(expected)", location: location)
        }
        switch tag {
        case 0: self = .empty
        case 1:
            self = .fork(try HashTree(cbor: items[1], location: location + ".l"),
                         try HashTree(cbor: items[2], location: location + ".r"))
        case 2:
            let label = try bytes(1)
            self = .labeled(label, try HashTree(cbor: items[2], location: location + "/" + StatePath.describe(label)))
        case 3: self = .leaf(try bytes(1))
        default:
            let hash = try bytes(1)
            guard hash.count == 32 else {
                throw ICError.malformed("pruned hash tree node holds \(hash.count) bytes, expected 32", location: location)
            }
            self = .pruned(hash)
        }
    }

    /// The CBOR form.
    public var cbor: CBOR {
        switch self {
        case .empty: return [0]
        case .fork(let left, let right): return .array([1, left.cbor, right.cbor])
        case .labeled(let label, let subtree): return .array([2, .bytes(label), subtree.cbor])
        case .leaf(let value): return .array([3, .bytes(value)])
        case .pruned(let hash): return .array([4, .bytes(hash)])
        }
    }

    /// `reconstruct(tree)`: the root hash the certificate signs.
    public var digest: [UInt8] {
        switch self {
        case .empty:
            return SHA256.hash(DomainSeparator.hashTreeEmpty)
        case .fork(let left, let right):
            var hasher = SHA256.Hasher()
            hasher.update(DomainSeparator.hashTreeFork)
            hasher.update(left.digest)
            hasher.update(right.digest)
            return hasher.finalize()
        case .labeled(let label, let subtree):
            var hasher = SHA256.Hasher()
            hasher.update(DomainSeparator.hashTreeLabeled)
            hasher.update(label)
            hasher.update(subtree.digest)
            return hasher.finalize()
        case .leaf(let value):
            var hasher = SHA256.Hasher()
            hasher.update(DomainSeparator.hashTreeLeaf)
            hasher.update(value)
            return hasher.finalize()
        case .pruned(let hash):
            return hash
        }
    }

    // MARK: Lookup (interface spec § Certification › Lookup)

    /// `lookup_path`: Found with the leaf's value, Absent when the tree proves there is no such path, Unknown when
    /// the answer was pruned away, Error when the path ends at an inner node.
    public func lookup(_ path: StatePath) -> LookupResult {
        switch subtree(at: path) {
        case .found(.leaf(let value)): return .found(value)
        case .found(.empty): return .absent
        case .found(.pruned): return .unknown
        case .found: return .error
        case .absent: return .absent
        case .unknown: return .unknown
        }
    }

    /// The subtree at `path` (for listing children, e.g. `/subnet/<id>/node`).
    public func subtree(at path: StatePath) -> SubtreeLookup {
        var tree = self
        for label in path.labels {
            switch tree.findLabel(label) {
            case .found(let subtree): tree = subtree
            case .absent: return .absent
            case .unknown: return .unknown
            }
        }
        return .found(tree)
    }

    /// The labelled children of this node in order (`flatten_forks` keeping only Labeled nodes).
    public var children: [(label: [UInt8], tree: HashTree)] {
        flattenedForks().compactMap { node in
            if case .labeled(let label, let subtree) = node { return (label, subtree) }
            return nil
        }
    }

    /// `flatten_forks`, iteratively (no recursion on attacker-chosen fork depth).
    func flattenedForks() -> [HashTree] {
        var result: [HashTree] = []
        var stack: [HashTree] = [self]
        while let node = stack.popLast() {
            switch node {
            case .empty: continue
            case .fork(let left, let right):
                stack.append(right)
                stack.append(left)
            default: result.append(node)
            }
        }
        return result
    }

    private enum LabelSearch {
        case found(HashTree)
        case absent
        case unknown
    }

    /// `find_label` over the flattened forks: certified absence needs the label to fall strictly between two
    /// *adjacent* labelled nodes, before the first or after the last.
    private func findLabel(_ label: [UInt8]) -> LabelSearch {
        let nodes = flattenedForks()
        for node in nodes {
            if case .labeled(let candidate, let subtree) = node, candidate == label { return .found(subtree) }
        }
        if nodes.isEmpty { return .absent }
        if nodes.count == 1, case .leaf = nodes[0] { return .absent }
        func labelOf(_ node: HashTree) -> [UInt8]? {
            if case .labeled(let candidate, _) = node { return candidate }
            return nil
        }
        if let first = labelOf(nodes[0]), label.lexicographicallyPrecedes(first) { return .absent }
        if let last = labelOf(nodes[nodes.count - 1]), last.lexicographicallyPrecedes(label) { return .absent }
        for index in 0..<(nodes.count - 1) {
            if let lower = labelOf(nodes[index]), let upper = labelOf(nodes[index + 1]),
               lower.lexicographicallyPrecedes(label), label.lexicographicallyPrecedes(upper) {
                return .absent
            }
        }
        return .unknown
    }

    /// `well_formed`: labels strictly increasing under every node, and no node mixes leaves with labels.
    public var isWellFormed: Bool {
        var stack: [HashTree] = [self]
        while let node = stack.popLast() {
            let flat = node.flattenedForks()
            var previous: [UInt8]?
            var sawLabel = false, sawLeaf = false
            for child in flat {
                switch child {
                case .labeled(let label, let subtree):
                    if let previous, !previous.lexicographicallyPrecedes(label) { return false }
                    previous = label
                    sawLabel = true
                    stack.append(subtree)
                case .leaf: sawLeaf = true
                default: continue
                }
            }
            if sawLeaf && (sawLabel || flat.count > 1) { return false }
        }
        return true
    }
}

/// The outcome of looking up a value (interface spec `lookup_path`).
public enum LookupResult: Equatable, Sendable, CustomStringConvertible {
    case found([UInt8])
    /// The tree proves the path does not exist.
    case absent
    /// The tree does not say (the relevant part was pruned).
    case unknown
    /// The path leads to an inner node, not a value.
    case error

    public var value: [UInt8]? { if case .found(let value) = self { return value }; return nil }

    public var description: String {
        switch self {
        case .found(let value): "Found(\(value.count) bytes)"
        case .absent: "Absent"
        case .unknown: "Unknown"
        case .error: "Error"
        }
    }
}

/// The outcome of looking up a subtree.
public enum SubtreeLookup: Equatable, Sendable {
    case found(HashTree)
    case absent
    case unknown
}
