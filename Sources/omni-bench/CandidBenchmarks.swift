import OmniCandid
import OmniCodec

extension Benchmark {
    /// The realistic message both Candid benchmarks use: 1,000 ledger-like entries
    /// `vec record { id : nat; name : text; owner : principal; memo : opt text; amount : nat64 }`
    /// (the same content as Tests/Peers/bench_candid.py builds for ic-py).
    static func candidEntries() throws -> (types: [CandidType], values: [CandidValue]) {
        let entry = try Candid.parseType("record { id : nat; name : text; owner : principal; memo : opt text; amount : nat64 }")
        let entries = try (0..<1000).map { index -> CandidValue in
            let owner = try Principal(bytes: (0..<10).map { UInt8(truncatingIfNeeded: index &* 7 &+ $0) })
            return .record([
                "id": .nat(BigUInt(UInt64(index))),
                "name": .text("entry number \(index)"),
                "owner": .principal(owner),
                "memo": index % 2 == 0 ? .opt(.text("memo \(index)")) : .opt(nil),
                "amount": .nat64(UInt64(index) &* 1_000_003),
            ])
        }
        return ([.vec(entry)], [.vec(entries)])
    }

    /// Decodes the 1,000-entry message at its type with a prepared decoder.
    static let candidDecode = Benchmark(name: "candid-decode", defaultIterations: 200) {
        let (types, values) = try candidEntries()
        let message = try Candid.encode(values, types: types)
        let decoder = try CandidDecoder(types: types)
        return { _ = try? decoder.decode(message) }
    }

    /// Encodes the same 1,000 entries.
    static let candidEncode = Benchmark(name: "candid-encode", defaultIterations: 200) {
        let (types, values) = try candidEntries()
        return { _ = try? Candid.encode(values, types: types) }
    }
}

// MARK: The issue's `make bench` workloads (Tests/Peers/bench_candid.py runs the same in ic-py)

/// Where benchmark results go so that computing them cannot be optimised away.
nonisolated(unsafe) var candidSink = 0

extension Benchmark {
    /// Large enough for every workload below: these messages are trusted, the point is raw speed.
    static let candidBenchLimits = CandidLimits(workBudget: 1 << 40)

    /// 10 MiB of bytes as `(blob)`.
    static func candidBlob() -> (types: [CandidType], values: [CandidValue]) {
        let bytes = (0..<(10 << 20)).map { UInt8(truncatingIfNeeded: $0 &* 31 &+ 7) }
        return ([.blob], [.blob(bytes)])
    }

    /// `(vec nat32)` with 1,000,000 elements.
    static func candidNat32s() -> (types: [CandidType], values: [CandidValue]) {
        let elements = (0..<1_000_000).map { CandidValue.nat32(UInt32(truncatingIfNeeded: $0 &* 2_654_435_761)) }
        return ([.vec(.nat32)], [.vec(elements)])
    }

    /// `(vec record { id : nat64; name : text; owner : opt principal })` with 1,000,000 records; every fourth
    /// owner is null, the others are 10-byte principals.
    static func candidRecords(count: Int = 1_000_000) throws -> (types: [CandidType], values: [CandidValue]) {
        let record = try Candid.parseType("record { id : nat64; name : text; owner : opt principal }")
        let records = try (0..<count).map { index -> CandidValue in
            let owner: CandidValue = index % 4 == 0
                ? .opt(nil) : .opt(.principal(try Principal(bytes: (0..<10).map { UInt8(truncatingIfNeeded: index >> ($0 % 4 * 8) &+ $0) })))
            return .record(["id": .nat64(UInt64(index) &* 1_000_003), "name": .text("record \(index)"), "owner": owner])
        }
        return ([.vec(record)], [.vec(records)])
    }

    static func decodeBenchmark(_ name: String, iterations: Int,
                                _ workload: @escaping () throws -> (types: [CandidType], values: [CandidValue])) -> Benchmark {
        Benchmark(name: name, defaultIterations: iterations) {
            let (types, values) = try workload()
            let message = try Candid.encode(values, types: types)
            let decoder = try CandidDecoder(types: types, limits: candidBenchLimits)
            guard try decoder.decode(message) == values else { throw CandidError(.malformed, "\(name): decoded values differ") }
            return { candidSink = (try? decoder.decode(message)).map(fingerprint) ?? 0 }
        }
    }

    /// Reads the last element of the decoded vector (and its first field or byte) so the optimiser cannot drop
    /// the work of building the values.
    static func fingerprint(_ values: [CandidValue]) -> Int {
        switch values.first {
        case .blob(let bytes)?: return bytes.count &+ Int(bytes.last ?? 0)
        case .vec(let elements)?:
            guard let last = elements.last else { return 0 }
            switch last {
            case .nat32(let number): return elements.count &+ Int(number)
            case .record(let fields): return elements.count &+ fields.count &+ Int(fields.first?.label.id ?? 0)
            default: return elements.count
            }
        default: return values.count
        }
    }

    static func encodeBenchmark(_ name: String, iterations: Int,
                                _ workload: @escaping () throws -> (types: [CandidType], values: [CandidValue])) -> Benchmark {
        Benchmark(name: name, defaultIterations: iterations) {
            let (types, values) = try workload()
            return { candidSink = (try? Candid.encode(values, types: types)).map { $0.count &+ Int($0.last ?? 0) } ?? 0 }
        }
    }

    static let candidDecodeBlob = decodeBenchmark("candid-decode-blob-10mib", iterations: 50, candidBlob)
    static let candidEncodeBlob = encodeBenchmark("candid-encode-blob-10mib", iterations: 50, candidBlob)
    static let candidDecodeNat32s = decodeBenchmark("candid-decode-vec-nat32-1m", iterations: 20, candidNat32s)
    static let candidEncodeNat32s = encodeBenchmark("candid-encode-vec-nat32-1m", iterations: 20, candidNat32s)
    static let candidDecodeRecords = decodeBenchmark("candid-decode-records-1m", iterations: 5) { try candidRecords() }
    static let candidEncodeRecords = encodeBenchmark("candid-encode-records-1m", iterations: 5) { try candidRecords() }
}
