import Foundation
import OmniConnect
import OmniTestSupport

/// Reads the Connect vector files (`../shared/vectors/connect`); a missing file or key fails the test.
struct VectorFile {
    let name: String
    let root: [String: Any]

    init(_ relativePath: String) throws {
        name = relativePath
        guard let object = try Vectors.json("connect/" + relativePath) as? [String: Any] else {
            throw TestSupportError("connect/\(relativePath) is not a JSON object")
        }
        root = object
    }

    static func object(_ value: Any?, _ what: String) throws -> [String: Any] {
        guard let object = value as? [String: Any] else { throw TestSupportError("\(what) is not an object") }
        return object
    }

    static func string(_ value: Any?, _ what: String) throws -> String {
        guard let text = value as? String else { throw TestSupportError("\(what) is not a string") }
        return text
    }

    static func hex(_ value: Any?, _ what: String) throws -> [UInt8] {
        try ConnectText.parseHex(try string(value, what), what: what)
    }

    static func int(_ value: Any?, _ what: String) throws -> Int {
        guard let number = value as? NSNumber else { throw TestSupportError("\(what) is not a number") }
        return number.intValue
    }

    static func array(_ value: Any?, _ what: String) throws -> [[String: Any]] {
        guard let items = value as? [[String: Any]] else { throw TestSupportError("\(what) is not an array of objects") }
        return items
    }

    func object(_ key: String) throws -> [String: Any] { try Self.object(root[key], "\(name): \(key)") }
    func string(_ key: String) throws -> String { try Self.string(root[key], "\(name): \(key)") }
    func hex(_ key: String) throws -> [UInt8] { try Self.hex(root[key], "\(name): \(key)") }
}

extension Dictionary where Key == String, Value == Any {
    func string(_ key: String) throws -> String { try VectorFile.string(self[key], key) }
    func hex(_ key: String) throws -> [UInt8] { try VectorFile.hex(self[key], key) }
    func int(_ key: String) throws -> Int { try VectorFile.int(self[key], key) }
    func object(_ key: String) throws -> [String: Any] { try VectorFile.object(self[key], key) }
    func array(_ key: String) throws -> [[String: Any]] { try VectorFile.array(self[key], key) }
}

func hex(_ bytes: [UInt8]) -> String { ConnectText.hex(bytes) }
