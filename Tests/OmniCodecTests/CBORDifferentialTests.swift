import Foundation
import OmniCodec
import OmniTestSupport
import Testing

/// The canonical description shared with Tests/Peers/cbor_peer.py: structure and values only (no float widths,
/// no definite/indefinite distinction), so two independent decoders can be compared line by line.
func peerDescription(_ item: CBOR) -> String {
    switch item {
    case .unsigned(let n): return "i\(n)"
    case .negative(let n): return n == .max ? "i-18446744073709551616" : "i-\(n + 1)"
    case .bytes, .byteChunks: return "b" + Hex.encode(item.bytes ?? [])
    case .text, .textChunks: return "t" + Hex.encode(Array((item.text ?? "").utf8))
    case .array, .indefiniteArray: return "[" + (item.array ?? []).map(peerDescription).joined(separator: ",") + "]"
    case .map, .indefiniteMap:
        return "{" + (item.map ?? []).map { peerDescription($0.key) + ":" + peerDescription($0.value) }
            .joined(separator: ",") + "}"
    case .tagged(let number, let content): return "#\(number)(" + peerDescription(content) + ")"
    case .bool(let b): return b ? "T" : "F"
    case .null: return "N"
    case .undefined: return "U"
    case .simple(let n): return "s\(n)"
    case .float(let value, _):
        if value.isNaN { return "fnan" }
        return "f" + Hex.encode((0..<8).map { UInt8(truncatingIfNeeded: value.bitPattern >> (56 - 8 * UInt64($0))) })
    }
}

/// Random CBOR values covering every major type, all float widths and specials, indefinite lengths, tags and
/// unicode text. Map keys are drawn from kinds Python hashes without collisions (no bool/float keys, since
/// Python treats `1`, `1.0` and `True` as the same key).
struct RandomCBOR {
    var rng: SeededGenerator

    private mutating func int(_ range: ClosedRange<Int>) -> Int { Int.random(in: range, using: &rng) }
    private mutating func chance(_ percent: Int) -> Bool { int(0...99) < percent }

    mutating func unsignedValue() -> UInt64 {
        switch int(0...4) {
        case 0: return [0, 1, 23, 24, 255, 256, 65535, 65536, 0xFFFF_FFFF, 0x1_0000_0000, UInt64(Int64.max), .max][int(0...11)]
        case 1: return UInt64(int(0...23))
        case 2: return UInt64.random(in: 0 ... .max, using: &rng) >> UInt64(int(0...63))
        default: return UInt64(int(0...70000))
        }
    }

    mutating func text() -> String {
        let pools: [[Character]] = [Array("abcxyz"), ["é", "水", "𐅑", "\u{0}", "\u{7F}", "\u{FEFF}", "\u{10FFFF}"],
                                    ["\"", "\\", "\n", "\t", " "], ["ü", "ß", "😀", "\u{301}"]]
        let length = [0, 1, 3, 10, 40][int(0...4)]
        return String((0..<length).map { _ in let pool = pools[int(0...3)]; return pool[int(0...pool.count - 1)] })
    }

    mutating func byteString() -> [UInt8] {
        (0..<[0, 1, 5, 23, 24, 100][int(0...5)]).map { _ in UInt8.random(in: 0 ... 255, using: &rng) }
    }

    mutating func float() -> CBOR {
        let width = CBOR.FloatWidth.allCases[int(0...2)]
        switch int(0...5) {
        case 0:
            let special: [Double] = [0, -0.0, .infinity, -.infinity, .nan, -.nan, 1.5, 65504, 5.960464477539063e-8,
                                     Double(Float.greatestFiniteMagnitude), .leastNonzeroMagnitude, .greatestFiniteMagnitude]
            let value = special[int(0...special.count - 1)]
            return .float(value, width: width)
        case 1:
            // Any half bit pattern, NaN payloads included.
            let bits = UInt16.random(in: 0 ... .max, using: &rng)
            let value = (try? CBOR.decode([0xF9, UInt8(bits >> 8), UInt8(bits & 0xFF)]).double) ?? 0
            return .float(value, width: width)
        case 2:
            let bits = UInt32.random(in: 0 ... .max, using: &rng)
            let encoded: [UInt8] = [0xFA] + (0..<4).map { UInt8(truncatingIfNeeded: bits >> (24 - 8 * $0)) }
            let value = (try? CBOR.decode(encoded).double) ?? 0
            return .float(value, width: width == .half ? .single : width)
        case 3:
            return .float(Double(bitPattern: UInt64.random(in: 0 ... .max, using: &rng)), width: .double)
        default:
            return .float(Double.random(in: -1e6...1e6, using: &rng), width: .double)
        }
    }

    mutating func key(depth: Int) -> CBOR {
        switch int(0...6) {
        case 0: return .unsigned(unsignedValue())
        case 1: return .negative(unsignedValue())
        case 2: return .bytes(Array(byteString().prefix(6)))
        case 3 where depth < 3: return .array((0..<int(0...2)).map { _ in key(depth: depth + 1) })
        case 4 where depth < 3: return .tagged([5, 99, 1000, 1 << 40][int(0...3)], key(depth: depth + 1))
        case 5: return .textChunks((0..<int(0...3)).map { _ in String(text().prefix(4)) })
        default: return .text(String(text().prefix(20)))
        }
    }

    mutating func value(depth: Int) -> CBOR {
        switch int(0...(depth < 4 ? 17 : 11)) {
        case 0: return .unsigned(unsignedValue())
        case 1: return .negative(unsignedValue())
        case 2, 3: return float()
        case 4: return .bytes(byteString())
        case 5: return .text(text())
        case 6: return [.bool(false), .bool(true), .null, .undefined][int(0...3)]
        case 7: return .simple(chance(50) ? UInt8(int(0...19)) : UInt8(int(32...255)))
        case 8: return .byteChunks((0..<int(0...3)).map { _ in Array(byteString().prefix(7)) })
        case 9: return .textChunks((0..<int(0...3)).map { _ in String(text().prefix(5)) })
        case 10, 11: return chance(50) ? .unsigned(unsignedValue()) : .text(String(text().prefix(5)))
        case 12, 13:
            let items = (0..<[0, 1, 2, 5, 12][int(0...4)]).map { _ in value(depth: depth + 1) }
            return chance(25) ? .indefiniteArray(items) : .array(items)
        case 14, 15:
            var pairs: [CBOR.Pair] = []
            var seen = Set<String>()
            for _ in 0..<[0, 1, 3, 6][int(0...3)] {
                let k = key(depth: depth + 1)
                if seen.insert(peerDescription(k)).inserted { pairs.append((k, value(depth: depth + 1))) }
            }
            return chance(25) ? .indefiniteMap(pairs) : .map(pairs)
        default:
            let tags: [UInt64] = [0, 1, 2, 3, 24, 32, 55799, 256, 1000, 65536, 1 << 32, .max]
            return .tagged(tags[int(0...tags.count - 1)], value(depth: depth + 1))
        }
    }
}

private let faithful = CBORDecodingOptions(preserveIndefiniteLength: true)

/// Items per direction; each direction is one peer process.
private let itemCount = 10_000

@Suite("CBOR differential against Python cbor2", .serialized, .offPool)
struct CBORDifferentialTests {
    @Test("Swift-encoded random items decode identically in cbor2")
    func swiftToPeer() throws {
        let seed = SeededGenerator.freshSeed()
        var generator = RandomCBOR(rng: SeededGenerator(seed: seed))
        var items: [CBOR] = []
        var lines: [String] = []
        let optionSets: [CBOREncodingOptions] = [.default, CBOREncodingOptions(floatWidths: .shortest), .canonical]
        for index in 0..<itemCount {
            let options = optionSets[index % optionSets.count]
            // What a decoder must see: with sorted keys, the pairs arrive in key-encoding order.
            let item = try options.sortMapKeys ? sortingMaps(generator.value(depth: 0)) : generator.value(depth: 0)
            let encoded = try item.encoded(options: options)
            // Our own round trip: decode what we wrote, and writing it again gives the same bytes.
            let decoded = try CBOR.decode(encoded, options: faithful)
            let reencoded = try decoded.encoded(options: options)
            if peerDescription(decoded) != peerDescription(item) || reencoded != encoded {
                Issue.record("self round trip of item \(index) failed (seed \(seed)): \(item)")
            }
            items.append(item)
            lines.append(Hex.encode(encoded))
        }
        let answers = try peer(["decode"], lines)
        try #require(answers.count == items.count, "peer answered \(answers.count) of \(items.count) (seed \(seed))")
        var mismatches = 0
        for (index, answer) in answers.enumerated() where answer != "ok " + peerDescription(items[index]) {
            mismatches += 1
            if mismatches <= 5 {
                Issue.record("item \(index) (seed \(seed)): hex \(lines[index])\n ours: \(peerDescription(items[index]))\n cbor2: \(answer)")
            }
        }
        #expect(mismatches == 0, "\(mismatches) of \(items.count) items differ (seed \(seed))")
    }

    @Test("cbor2-encoded random items decode identically here and re-encode to the same bytes")
    func peerToSwift() throws {
        let seed = SeededGenerator.freshSeed() % 1_000_000_007
        let lines = try peer(["generate", String(seed), String(itemCount)], [])
        #expect(lines.count >= itemCount * 99 / 100, "peer generated only \(lines.count) items (seed \(seed))")
        var failures = 0
        for line in lines {
            let parts = line.split(separator: " ", maxSplits: 1).map(String.init)
            guard parts.count == 2 else { Issue.record("bad peer line \(line)"); continue }
            let encoded = try Hex.decode(parts[0])
            do {
                let item = try CBOR.decode(encoded, options: faithful)
                let reencoded = try item.encoded()
                if peerDescription(item) != parts[1] || reencoded != encoded {
                    failures += 1
                    if failures <= 5 {
                        Issue.record("seed \(seed): \(parts[0])\n ours: \(peerDescription(item))\n cbor2: \(parts[1])\n re-encoded: \(Hex.encode(reencoded))")
                    }
                }
            } catch {
                failures += 1
                if failures <= 5 { Issue.record("seed \(seed): \(parts[0]) refused: \(error)") }
            }
        }
        #expect(failures == 0, "\(failures) of \(lines.count) items differ (seed \(seed))")
    }

    @Test("corrupted inputs: whatever cbor2 refuses, we refuse; whatever both accept, both read alike")
    func corruptedInputs() throws {
        let seed = SeededGenerator.freshSeed()
        var generator = RandomCBOR(rng: SeededGenerator(seed: seed))
        var rng = SeededGenerator(seed: seed ^ 0x5EED)
        var inputs: [[UInt8]] = handWrittenInvalid.map(bytes)
        for index in 0..<3_000 {
            var encoded = try generator.value(depth: 0).encoded()
            if index % 3 == 0 || encoded.count < 2 {
                encoded = Array(encoded.prefix(Int.random(in: 0..<max(1, encoded.count), using: &rng)))
            } else {
                for _ in 0..<Int.random(in: 1...2, using: &rng) {
                    let position = Int.random(in: 0..<encoded.count, using: &rng)
                    encoded[position] = Int.random(in: 0...1, using: &rng) == 0
                        ? UInt8.random(in: 0...255, using: &rng) : encoded[position] ^ (1 << UInt8.random(in: 0...7, using: &rng))
                }
            }
            inputs.append(encoded)
        }
        let answers = try peer(["decode"], inputs.map { Hex.encode($0) })
        try #require(answers.count == inputs.count)
        var peerRefused = 0, bothAccepted = 0, disagreements = 0
        for (input, answer) in zip(inputs, answers) {
            let ours: Result<CBOR, CodecError>
            do throws(CodecError) { ours = .success(try CBOR.decode(input)) } catch { ours = .failure(error) }
            switch (ours, answer.hasPrefix("ok ")) {
            case (.failure, false):
                peerRefused += 1
            case (.success(let item), true):
                bothAccepted += 1
                if "ok " + peerDescription(item) != answer {
                    disagreements += 1
                    Issue.record("seed \(seed): \(Hex.encode(input)) read differently\n ours: \(peerDescription(item))\n cbor2: \(answer)")
                }
            case (.success(let item), false):
                // Python's dict sees 1, 1.0, True and simple(1) (and 0.0/-0.0) as one key; CBOR's data model does not.
                if answer.contains("Duplicate map key") && hasPythonEqualKeys(item) { continue }
                disagreements += 1
                Issue.record("seed \(seed): \(Hex.encode(input)) accepted here, cbor2: \(answer)")
            case (.failure(let error), true):
                // NaN keys: Python's NaN is unequal to itself, so cbor2 keeps both; CBOR equality says duplicate.
                if error.message.contains("duplicate map key") { continue }
                disagreements += 1
                Issue.record("seed \(seed): \(Hex.encode(input)) refused here (\(error)), cbor2: \(answer)")
            }
        }
        #expect(disagreements == 0, "seed \(seed)")
        // The corpus must really exercise both outcomes.
        #expect(peerRefused > 1_000 && bothAccepted > 300, "refused \(peerRefused), accepted \(bothAccepted)")
    }

    @Test("real IC certificates and App Attest objects read the same in cbor2", .vectors("ic", "attest"))
    func realObjects() throws {
        let vectors = try #require(try Vectors.json("ic/certificates.json") as? [String: Any])
        var inputs: [[UInt8]] = []
        for entry in try #require(vectors["certificates"] as? [[String: Any]]) {
            for field in ["certificate_cbor_hex", "response_body_cbor_hex"] {
                if let hex = entry[field] as? String { inputs.append(try Hex.decode(hex)) }
            }
        }
        let directory = Vectors.url("attest/real/attestation")
        for file in try FileManager.default.contentsOfDirectory(atPath: directory.path) where file.hasSuffix(".json") {
            let vector = try #require(try Vectors.json("attest/real/attestation/" + file) as? [String: Any])
            inputs.append(try Base64.decode(#require(vector["attestation_b64"] as? String)))
        }
        #expect(inputs.count >= 35)
        let answers = try peer(["decode"], inputs.map { Hex.encode($0) })
        try #require(answers.count == inputs.count)
        for (input, answer) in zip(inputs, answers) {
            #expect(answer == "ok " + peerDescription(try CBOR.decode(input)))
        }
    }
}

/// `item` with every map's pairs in the bytewise order of their encoded keys, as `sortMapKeys` writes them.
private func sortingMaps(_ item: CBOR) throws -> CBOR {
    func sorted(_ pairs: [CBOR.Pair]) throws -> [CBOR.Pair] {
        try pairs.map { (key: try sortingMaps($0.key), value: try sortingMaps($0.value)) }
            .map { (encodedKey: try $0.key.encoded(options: .canonical), pair: $0) }
            .sorted { $0.encodedKey.lexicographicallyPrecedes($1.encodedKey) }
            .map(\.pair)
    }
    switch item {
    case .map(let pairs): return .map(try sorted(pairs))
    case .indefiniteMap(let pairs): return .indefiniteMap(try sorted(pairs))
    case .array(let items): return .array(try items.map(sortingMaps))
    case .indefiniteArray(let items): return .indefiniteArray(try items.map(sortingMaps))
    case .tagged(let number, let content): return .tagged(number, try sortingMaps(content))
    default: return item
    }
}

/// Inputs RFC 8949 calls not well-formed; cbor2 must refuse them too (the corruption test checks we agree).
private let handWrittenInvalid = [
    "", "18", "1c", "1d", "1e", "1f", "3f", "5c", "7d", "9e", "bc", "dc", "fc", "fd", "fe", "f800", "f81f",
    "5f01ff", "5f5fffff", "7f4100ff", "9f", "bf01", "bf0102", "a1", "ff", "81ff", "c0", "5b0000000100000000",
    "62c328", "63eda080", "f9", "fa0000", "fb00000000000000", "d9d9", "0000", "a2616101616102",
]

private func hasPythonEqualKeys(_ item: CBOR) -> Bool {
    func pythonKey(_ key: CBOR) -> String {
        switch key {
        case .bool(let b): return b ? "n1" : "n0"
        case .float(let d, _) where d.isFinite && d == d.rounded() && abs(d) < 1e18: return "n\(Int64(d))"
        case .unsigned(let n): return "n\(n)"
        // cbor2's CBORSimpleValue is an int subclass: simple(1) == 1 == True as a dict key.
        case .simple(let n): return "n\(n)"
        case .negative(let n) where n < UInt64(Int64.max): return "n-\(n + 1)"
        case .array(let items), .indefiniteArray(let items): return "[" + items.map(pythonKey).joined(separator: ",") + "]"
        case .map(let pairs), .indefiniteMap(let pairs):
            return "{" + pairs.map { pythonKey($0.key) + ":" + pythonKey($0.value) }.sorted().joined(separator: ",") + "}"
        case .tagged(let n, let content): return "#\(n)(" + pythonKey(content) + ")"
        default: return peerDescription(key)
        }
    }
    switch item {
    case .map(let pairs), .indefiniteMap(let pairs):
        let keys = pairs.map { pythonKey($0.key) }
        if Set(keys).count < keys.count { return true }
        return pairs.contains { hasPythonEqualKeys($0.key) || hasPythonEqualKeys($0.value) }
    case .array(let items), .indefiniteArray(let items): return items.contains(where: hasPythonEqualKeys)
    case .tagged(_, let content): return hasPythonEqualKeys(content)
    default: return false
    }
}

/// Runs the cbor2 peer once with all `lines` on stdin and returns its output lines.
private func peer(_ arguments: [String], _ lines: [String]) throws -> [String] {
    let input = lines.joined(separator: "\n") + (lines.isEmpty ? "" : "\n")
    let result = try Subprocess.python("cbor_peer.py", arguments, stdin: Data(input.utf8))
    guard result.status == 0 else { throw TestSupportError("cbor_peer.py failed: \(result.stderrText)") }
    return result.stdoutText.split(separator: "\n", omittingEmptySubsequences: false).dropLast().map(String.init)
}
