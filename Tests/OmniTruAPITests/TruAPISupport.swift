import Foundation
import OmniCodec
import OmniTestSupport
import OmniTruAPI

/// A vector file of ../shared/vectors/truapi as omni's own JSON value.
func truapiVector(_ name: String) throws -> JSONValue {
    try JSONValue.parse([UInt8](try Vectors.data("truapi/" + name)))
}

/// Bytes from hex in test tables (a typo must fail loudly).
func hexBytes(_ hex: String) -> [UInt8] {
    do { return try Hex.decode(hex.filter { !$0.isWhitespace }, allowPrefix: true) } catch {
        preconditionFailure("bad hex literal in a test: \(error)")
    }
}

func method(_ name: String) -> TruAPIMethod {
    guard let method = TruAPIWireTable.method(named: name) else { preconditionFailure("no method \(name)") }
    return method
}

/// The reference document (its Appendix A is parsed at test time).
func referenceText() throws -> String {
    let url = Vectors.directory.deletingLastPathComponent().appendingPathComponent("reference/truapi.md")
    guard let data = FileManager.default.contents(atPath: url.path) else {
        throw TestSupportError("reference missing: \(url.path)")
    }
    return String(decoding: data, as: UTF8.self)
}
