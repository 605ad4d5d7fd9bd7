import OmniCodec
import OmniTestSupport
import Testing

private func pemError(_ text: String) -> CodecError? {
    caughtError { () throws(CodecError) in _ = try PEM.blocks(in: text) }
}

@Suite("PEM")
struct PEMTests {
    /// SEQUENCE { INTEGER 5 }.
    static let der: [UInt8] = [0x30, 0x03, 0x02, 0x01, 0x05]

    @Test("blocks in order, with explanatory text, indentation and CRLF line ends")
    func readsBlocks() throws {
        let text = "Subject: whatever\r\n  -----BEGIN A-----\r\n  MAMCAQU=\r\n-----END A-----\r\nnote\n-----BEGIN B C-----\nMAMC\nAQU=\n-----END B C-----\n"
        let blocks = try PEM.blocks(in: text)
        #expect(blocks.map(\.label) == ["A", "B C"])
        #expect(blocks.map(\.der) == [Self.der, Self.der])
        #expect(blocks.map(\.line) == [2, 6])
        #expect(try PEM.blocks(in: "no blocks here").isEmpty)
    }

    @Test("encode writes 64 columns and reads back")
    func encodeRoundTrip() throws {
        let der = (0..<100).map { UInt8($0) }
        let text = PEM.encode(label: "PUBLIC KEY", der: der)
        let lines = text.split(separator: "\n")
        #expect(lines.first == "-----BEGIN PUBLIC KEY-----" && lines.last == "-----END PUBLIC KEY-----")
        #expect(lines.dropFirst().dropLast().map(\.count) == [64, 64, 8])
        #expect(text.hasSuffix("-----\n"))
        #expect(try PEM.singleBlock(in: text, labels: ["PUBLIC KEY"], what: "key").der == der)
    }

    /// A bad body character is placed by line and column in the text, not by its offset in the joined body.
    @Test("a base64 error names the line and column of the bad character")
    func base64ErrorLocation() throws {
        let error = try #require(pemError("-----BEGIN X-----\nMAMC\n  AQ*=\n-----END X-----\n"))
        #expect(error.format == "PEM")
        #expect(error.line == 3 && error.column == 5, "\(error)")
        #expect(error.offset == nil)
        #expect(error.description == "malformed PEM (line 3, column 5): block X: body is not base64: invalid base64 character '*'")
    }

    @Test("base64 is strict: padding required, unused bits zero")
    func strictBase64() throws {
        // 'V' carries a set unused bit: the same bytes as "MAMCAQU=", in a second spelling.
        #expect(pemError("-----BEGIN X-----\nMAMCAQV=\n-----END X-----\n")?.message.contains("non-zero unused bits") == true)
        #expect(pemError("-----BEGIN X-----\nMAMCAQU\n-----END X-----\n")?.message.contains("missing padding") == true)
        #expect(pemError("-----BEGIN X-----\n-----END X-----\n")?.message == "block X is empty")
    }

    @Test("structure errors say where")
    func structureErrors() throws {
        let mismatch = try #require(pemError("-----BEGIN A-----\nMAMCAQU=\n-----END B-----\n"))
        #expect(mismatch.line == 3 && mismatch.message == "-----END B----- does not close BEGIN A (line 1)")
        let unclosed = try #require(pemError("x\n-----BEGIN A-----\nMAMCAQU=\n"))
        #expect(unclosed.line == 2 && unclosed.message == "block A has no END line")
        let nested = try #require(pemError("-----BEGIN A-----\n-----BEGIN B-----\n"))
        #expect(nested.line == 2 && nested.message.hasPrefix("unexpected -----BEGIN B-----"))
        let encrypted = try #require(pemError("-----BEGIN A-----\nProc-Type: 4,ENCRYPTED\n\nMAMCAQU=\n-----END A-----\n"))
        #expect(encrypted.kind == .unsupported && encrypted.line == 2)
    }

    @Test("singleBlock: exactly one of the labels")
    func singleBlock() throws {
        let one = PEM.encode(label: "A", der: Self.der)
        let other = PEM.encode(label: "B", der: Self.der)
        #expect(try PEM.singleBlock(in: other + one, labels: ["A"], what: "key").line == 4)
        #expect(throws: CodecError.self) { try PEM.singleBlock(in: one + one, labels: ["A"], what: "key") }
        do {
            _ = try PEM.singleBlock(in: other, labels: ["A", "C"], what: "key")
            Issue.record("no A block, yet accepted")
        } catch {
            #expect(error.message == "no A or C block found for key (found: B)")
        }
        #expect(PEM.containsBlock(one) && !PEM.containsBlock("MAMCAQU="))
    }

    @Test("limits: input size and block count")
    func limits() {
        let big = String(repeating: "x", count: PEM.maximumInputByteCount + 1)
        #expect(pemError(big)?.kind == .limitExceeded)
        let many = String(repeating: PEM.encode(label: "A", der: [1]), count: PEM.maximumBlockCount + 1)
        #expect(pemError(many)?.kind == .limitExceeded)
    }
}
