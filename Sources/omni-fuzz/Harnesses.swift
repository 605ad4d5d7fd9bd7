/// Every fuzz target, by name. A new parser gets a target by adding its harness to one of these lists (one file per
/// area beside this one); `make fuzz`, the seeder and the regression replay take the names from here. The ird tree's
/// OpenAPI reader is not on main yet: its harness goes in an `IrdHarnesses.swift` with an `irdHarnesses` list here.
enum Harnesses {
    static let all: [Harness] = codecHarnesses + candidHarnesses + icHarnesses + keyHarnesses + attestHarnesses + connectHarnesses + truapiHarnesses + transportHarnesses

    static var names: [String] { all.map(\.name) }

    static func named(_ name: String) -> Harness? { all.first { $0.name == name } }
}
