import OmniCodec
import OmniIC
import Testing

/// The certificate item limit (docs/security.md, "Limits"): the CBOR value and the hash tree built from it cost
/// about 90 bytes an item, so 256 Ki items bound a certificate's memory at about 25 MiB whatever its byte size.
@Suite struct CertificateLimitTests {
    /// A balanced fork tree of `leaves` labelled leaves: 8 CBOR items per leaf, less 2.
    static func tree(leaves: Int) -> CBOR {
        var level: [CBOR] = (0..<leaves).map { index in
            .array([2, .bytes([UInt8(index >> 8), UInt8(index & 0xff)]), .array([3, .bytes([1])])])
        }
        while level.count > 1 {
            level = stride(from: 0, to: level.count, by: 2).map { $0 + 1 < level.count ? .array([1, level[$0], level[$0 + 1]]) : level[$0] }
        }
        return level[0]
    }

    @Test func hashTreesAndCertificatesHaveAtMost256KiItems() throws {
        #expect(CertificateLimits.default.maxItems == 1 << 18)
        let limits = CertificateLimits(maxItems: 8 * 64 - 2)
        let fits = try Self.tree(leaves: 64).encoded()
        let tree = try HashTree(decoding: fits, limits: limits)
        #expect(tree.children.count == 64)
        let over = try #require(throws: ICError.self) { try HashTree(decoding: try Self.tree(leaves: 65).encoded(), limits: limits) }
        #expect(over.message.contains("more than 510 data items"))
        let certificate = try CBOR.map([("tree", Self.tree(leaves: 65)), ("signature", .bytes([UInt8](repeating: 0, count: 48)))]).encoded()
        #expect(throws: ICError.self) { try ICCertificate(decoding: certificate, limits: limits) }
        #expect(try ICCertificate(decoding: certificate).tree.children.count == 65)
    }
}
