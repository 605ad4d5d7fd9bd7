import OmniCodec
import OmniSystem

/// Where seeding reads shared test data at run time (`../shared/vectors`, `../shared/realworld`). Anything absent
/// or unreadable gives no seeds, never an error: the built-in seeds still start the corpus.
struct SeedSources: Sendable {
    let vectors: String?
    let realworld: String?

    /// The bytes of `vectors/<path>`.
    func vectorBytes(_ path: String) -> [UInt8]? {
        guard let vectors, case .success(let bytes) = LocalFile.read(vectors + "/" + path, limit: 64 << 20) else { return nil }
        return bytes
    }

    /// `vectors/<path>` parsed as JSON.
    func vectorJSON(_ path: String) -> JSONValue? {
        vectorBytes(path).flatMap { try? JSONValue.parse($0) }
    }

    /// `vectors/<path>` read as JSON Lines.
    func vectorJSONLines(_ path: String) -> [JSONValue] {
        guard let bytes = vectorBytes(path), let text = utf8Text(bytes) else { return [] }
        return (try? JSONValue.parseLines(text)) ?? []
    }

    /// Every file under `vectors/<directory>` whose name ends with `suffix`, as (file name, bytes).
    func vectorFiles(_ directory: String, suffix: String) -> [(name: String, bytes: [UInt8])] {
        files(vectors.map { $0 + "/" + directory }, suffix: suffix)
    }

    /// Every file under `realworld/<directory>` whose name ends with `suffix`.
    func realworldFiles(_ directory: String, suffix: String) -> [(name: String, bytes: [UInt8])] {
        files(realworld.map { $0 + "/" + directory }, suffix: suffix)
    }

    private func files(_ root: String?, suffix: String) -> [(name: String, bytes: [UInt8])] {
        guard let root, let paths = Directory.files(in: root) else { return [] }
        return paths.filter { $0.hasSuffix(suffix) }.compactMap { path in
            guard case .success(let bytes) = LocalFile.read(path, limit: 64 << 20) else { return nil }
            return (String(path.dropFirst(root.count + 1)), bytes)
        }
    }
}

/// Walks a JSON document for seeding: every string under the keys `keys` (at any depth), decoded as hex or base64.
enum VectorStrings {
    /// Strings found under any of `keys`, anywhere in `json`, in document order.
    static func strings(_ json: JSONValue?, keys: Set<String>) -> [String] {
        var found: [String] = []
        func walk(_ value: JSONValue) {
            switch value {
            case .object(let object):
                for (key, member) in object {
                    if keys.contains(key), case .string(let text) = member { found.append(text) }
                    walk(member)
                }
            case .array(let items):
                items.forEach(walk)
            default:
                break
            }
        }
        json.map(walk)
        return found
    }

    static func hex(_ json: JSONValue?, keys: Set<String>) -> [[UInt8]] {
        strings(json, keys: keys).compactMap { try? Hex.decode($0) }
    }

    static func base64(_ json: JSONValue?, keys: Set<String>) -> [[UInt8]] {
        strings(json, keys: keys).compactMap { try? Base64.decode($0) }
    }
}
