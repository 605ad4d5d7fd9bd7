import OmniCodec
import Testing

@Suite("Error messages: one location style, long paths elided")
struct ErrorStyleTests {
    /// A JSON error 256 objects deep: the message keeps the path's start and end and stays short, while the
    /// error still carries the whole path for code that wants it.
    @Test("a 256-deep path is elided in the middle")
    func deepPathIsElided() throws {
        let depth = 255
        let text = (0..<depth).map { "{\"k\($0)\":" }.joined() + "tru" + String(repeating: "}", count: depth)
        var thrown: CodecError?
        do { _ = try JSONValue.parse(text) } catch { thrown = error }
        let error = try #require(thrown)
        let fullPath = "$" + (0..<depth).map { ".k\($0)" }.joined()
        #expect(error.path == fullPath)
        #expect(fullPath.count > 1000)
        let description = error.description
        #expect(description.count < 200, "\(description.count) characters: \(description)")
        #expect(description.contains("at $.k0.k1.k2"), "\(description)")
        #expect(description.contains(".k253.k254)"), "\(description)")
        #expect(description.contains("…"))
    }

    @Test("elision keeps short paths, cuts at component boundaries, and bounds one huge component")
    func elision() {
        #expect(InputLocation.elided("$.a[3].b") == "$.a[3].b")
        let long = "$" + String(repeating: ".field", count: 40) + "[7].last"
        let short = InputLocation.elided(long)
        #expect(short.count <= InputLocation.maximumPathLength)
        #expect(short.hasPrefix("$.field.field") && short.hasSuffix("[7].last"))
        // The cut lands just before a component: "….field" or "…[7]", never inside a name.
        let tail = short[short.index(after: short.firstIndex(of: "…")!)...]
        #expect(tail.hasPrefix(".") || tail.hasPrefix("["), "\(short)")
        let oneKey = "$." + String(repeating: "x", count: 5000)
        #expect(InputLocation.elided(oneKey).count <= InputLocation.maximumPathLength)
    }

    @Test("binary input says byte N, text says line and column, never both")
    func oneLocationStyle() {
        #expect(InputLocation(offset: 12).description == "byte 12")
        #expect(InputLocation(offset: 12, line: 2, column: 5, path: "$.a").description == "line 2, column 5, at $.a")
        #expect(InputLocation().description.isEmpty)
        let error = CodecError(.malformed, format: "JSON", "bad", offset: 40, line: 3, column: 7, path: "$.x")
        #expect(error.description == "malformed JSON (line 3, column 7, at $.x): bad")
        #expect(error.summary == "malformed JSON: bad")
        let labelled = error.labelled("ARGS", hint: "try again")
        #expect(labelled.description == "malformed JSON (line 3, column 7, at $.x): ARGS: bad (try again)")
        #expect(CodecError(.limitExceeded, format: "DER", "deep").summary == "DER limit exceeded: deep")
    }
}
