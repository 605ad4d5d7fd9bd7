import OmniCandid
import OmniCodec

extension Benchmark {
    /// The realistic message both Candid benchmarks use: 1,000 ledger-like entries
    /// `vec record { id : nat; name : text; owner : principal; memo : opt text; amount : nat64 }`
    /// (the same content as Tests/Peers/candid_bench.py builds for ic-py).
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
