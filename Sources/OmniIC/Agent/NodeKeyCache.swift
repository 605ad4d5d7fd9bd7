import FoundationEssentials
import OmniCandid
import OmniCodec
import OmniCrypto
import OmniSystem

/// Subnet facts (node keys, canister ranges) from verified `/subnet` reads, kept on disk for an hour so that a
/// verified query does not cost a second round trip every time.
///
/// Layout: `<directory>/<root key id>/<subnet id>.json`, where the root key id is the first 16 hex digits of
/// SHA-256 of the root key's DER: facts learnt under one root of trust never serve another network. Files are
/// written atomically, 0600 in 0700 directories. A file that cannot be read or parsed is a miss, never an error:
/// the cache only saves round trips, it is not a source of trust beyond what was verified when it was written.
public struct NodeKeyCache: Sendable {
    public static let defaultLifetime: UInt64 = 3600 * IngressExpiry.nanosecondsPerSecond
    /// Cache files larger than this are ignored (a subnet has at most a few dozen nodes).
    static let maxFileBytes = 1 << 20
    /// 2: ranges come only from the root-signed delegation (entries of version 1 may hold a subnet's own claims).
    static let formatVersion = 2

    public let directory: String
    /// How long an entry is used after it was fetched, in nanoseconds.
    public let lifetime: UInt64

    public init(directory: String, lifetime: UInt64 = NodeKeyCache.defaultLifetime) {
        self.directory = directory
        self.lifetime = lifetime
    }

    /// `$XDG_CACHE_HOME/omni/ic-subnets` (or `~/.cache/omni/ic-subnets`).
    public init(directories: Directories, lifetime: UInt64 = NodeKeyCache.defaultLifetime) {
        self.init(directory: directories.cache + "/ic-subnets", lifetime: lifetime)
    }

    func rootDirectory(_ rootKey: ICRootKey) -> String {
        directory + "/" + Hex.encode(SHA256.hash(rootKey.der).prefix(8))
    }

    func path(subnet: Principal, rootKey: ICRootKey) -> String {
        rootDirectory(rootKey) + "/" + subnet.text + ".json"
    }

    /// The unexpired entry of the subnet that serves `canister` under `rootKey`, if any.
    public func load(serving canister: Principal, rootKey: ICRootKey, now: UInt64 = IngressExpiry.currentTime()) -> SubnetInfo? {
        let folder = rootDirectory(rootKey)
        guard let files = try? FileManager.default.contentsOfDirectory(atPath: folder) else { return nil }
        for file in files.sorted() where file.hasSuffix(".json") && !file.hasPrefix(".") {
            guard let info = read(folder + "/" + file, now: now), info.serves(canister),
                  file == info.subnetID.text + ".json" else { continue }
            return info
        }
        return nil
    }

    /// The unexpired entry of `subnet`, if any.
    public func load(subnet: Principal, rootKey: ICRootKey, now: UInt64 = IngressExpiry.currentTime()) -> SubnetInfo? {
        guard let info = read(path(subnet: subnet, rootKey: rootKey), now: now), info.subnetID == subnet else { return nil }
        return info
    }

    /// Stores `info`, fetched at local time `fetchedAt`.
    public func store(_ info: SubnetInfo, rootKey: ICRootKey, fetchedAt: UInt64 = IngressExpiry.currentTime()) throws(ICError) {
        let entry: JSONValue = .object([
            "version": .int(NodeKeyCache.formatVersion),
            "fetched_at": .string(String(fetchedAt)),
            "subnet": info.json,
        ])
        let target = path(subnet: info.subnetID, rootKey: rootKey)
        do {
            try AtomicFile.write(Array((entry.serialized(pretty: true) + "\n").utf8), to: target, mode: 0o600,
                                 createDirectories: true, directoryMode: 0o700)
        } catch {
            throw ICError.system(error)
        }
    }

    /// Removes every entry (all networks).
    public func clear() throws(ICError) {
        guard FileManager.default.fileExists(atPath: directory) else { return }
        do { try FileManager.default.removeItem(atPath: directory) } catch {
            throw ICError(.storage, "cannot remove the node key cache: \(SystemError.reason(for: error))", location: directory)
        }
    }

    private func read(_ path: String, now: UInt64) -> SubnetInfo? {
        // The size is checked while reading (a FileManager attribute's Swift type depends on which Foundation is linked).
        guard case .success(let data) = LocalFile.read(path, limit: NodeKeyCache.maxFileBytes),
              let json = try? JSONValue.parse(data, limits: JSONLimits(maxDepth: 8, maxBytes: NodeKeyCache.maxFileBytes)),
              json["version"]?.int64Value == Int64(NodeKeyCache.formatVersion),
              let fetchedText = json["fetched_at"]?.stringValue, let fetchedAt = UInt64(fetchedText),
              let subnet = json["subnet"], let info = try? SubnetInfo(json: subnet)
        else { return nil }
        // Expired, or written "in the future" by a clock that has since been corrected: fetch again.
        guard fetchedAt <= now &+ Freshness.defaultTolerance, now < fetchedAt &+ lifetime else { return nil }
        return info
    }
}
