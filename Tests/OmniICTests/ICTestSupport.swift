import Foundation
import OmniBLS
import OmniCandid
import OmniCodec
import OmniCrypto
import OmniTestSupport
import Testing
@testable import OmniIC

/// A vector file from `../shared/vectors/ic/` as a JSONValue (a missing file fails the test).
func icVector(_ name: String) throws -> JSONValue {
    try JSONValue.parse(try Vectors.text("ic/" + name))
}

func hex(_ text: String) throws -> [UInt8] { try Hex.decode(text) }

func principal(_ text: String) throws -> Principal { try Principal(icText: text) }

extension JSONValue {
    /// A required string field.
    func string(_ key: String) throws -> String {
        guard let value = self[key]?.stringValue else { throw TestSupportError("missing string field \(key)") }
        return value
    }

    func array(_ key: String) throws -> [JSONValue] {
        guard let value = self[key]?.arrayValue else { throw TestSupportError("missing array field \(key)") }
        return value
    }

    func uint(_ key: String) throws -> UInt64 {
        guard let text = self[key]?.numberText, let value = UInt64(text) else { throw TestSupportError("missing integer field \(key)") }
        return value
    }
}

/// Asserts that `body` throws an ICError of `kind` (and `reason`, when given) and returns it.
@discardableResult
func expectICError(_ kind: ICError.Kind, reason: ICError.Reason? = nil, _ comment: String = "",
                   _ body: () throws -> Void) -> ICError? {
    do {
        try body()
    } catch let error as ICError {
        if error.kind != kind || (reason != nil && error.reason != reason) {
            Issue.record("\(comment): expected \(kind)/\(reason?.rawValue ?? "-"), got \(error)")
        }
        return error
    } catch {
        Issue.record("\(comment): expected ICError, got \(error)")
        return nil
    }
    Issue.record("\(comment): expected \(kind)/\(reason?.rawValue ?? "-"), but nothing was thrown")
    return nil
}

/// A throw-away BLS key pair for building certificates in tests: pk = sk·g2, sig = sk·H(m).
struct TestBLSKey {
    let secret: [UInt8]

    init(seed: UInt8) {
        var secret = [UInt8](repeating: 0, count: 32)
        secret[31] = seed
        secret[0] = 0x11
        self.secret = secret
    }

    var publicKey: [UInt8] { BLSG2Point.generator.multiplied(by: secret).compressed }
    var der: [UInt8] { BLS.icPublicKeyDERPrefix + publicKey }
    var rootKey: ICRootKey { get throws { try ICRootKey(der: der) } }

    func sign(_ message: [UInt8]) -> [UInt8] { BLS.hashToG1(message).multiplied(by: secret).compressed }
}

/// Certificates signed by test keys.
enum TestCertificates {
    static func leb128(_ value: UInt64) -> [UInt8] { LEB128.encoded(value) }

    /// A labeled subtree from (label, subtree) pairs, sorted and joined with forks.
    static func node(_ children: [([UInt8], HashTree)]) -> HashTree {
        let sorted = children.sorted { $0.0.lexicographicallyPrecedes($1.0) }.map { HashTree.labeled($0.0, $0.1) }
        guard var tree = sorted.last else { return .empty }
        for child in sorted.dropLast().reversed() { tree = .fork(child, tree) }
        return tree
    }

    static func node(_ children: [(String, HashTree)]) -> HashTree {
        node(children.map { (Array($0.0.utf8), $0.1) })
    }

    /// CBOR of a certificate with `tree` signed by `key`, optionally with a delegation.
    static func encode(tree: HashTree, key: TestBLSKey, delegation: (subnet: Principal, certificate: [UInt8])? = nil,
                       signature: [UInt8]? = nil) throws -> [UInt8] {
        let message = DomainSeparator.stateRoot + tree.digest
        var pairs: [CBOR.Pair] = [("tree", tree.cbor), ("signature", .bytes(signature ?? key.sign(message)))]
        if let delegation {
            pairs.append(("delegation", .map([("subnet_id", .bytes(delegation.subnet.bytes)),
                                              ("certificate", .bytes(delegation.certificate))])))
        }
        return try CBOR.map(pairs).selfDescribed.encoded()
    }

    /// The root (NNS) certificate delegating `subnet` with key `subnetKey` and the given ranges (flat layout).
    static func delegation(root: TestBLSKey, subnet: Principal, subnetKey: TestBLSKey, ranges: [(Principal, Principal)],
                           time: UInt64, sharded: Bool = false) throws -> [UInt8] {
        let rangesCBOR = try CBOR.array(ranges.map { .array([.bytes($0.0.bytes), .bytes($0.1.bytes)]) }).encoded()
        var subnetChildren: [(String, HashTree)] = [("public_key", .leaf(subnetKey.der))]
        var top: [(String, HashTree)] = [("time", .leaf(leb128(time)))]
        if sharded {
            let shard = ranges.first?.0.bytes ?? []
            top.append(("canister_ranges", node([(subnet.bytes, node([(shard, HashTree.leaf(rangesCBOR))]))])))
        } else {
            subnetChildren.append(("canister_ranges", .leaf(rangesCBOR)))
        }
        top.append(("subnet", node([(subnet.bytes, node(subnetChildren))])))
        return try encode(tree: node(top), key: root)
    }
}
