/// Every fuzz target, by name. A new parser gets a target by adding its harness to one of these lists (one file per
/// area beside this one); `make fuzz`, the seeder and the regression replay take the names from here.
enum Harnesses {
    static let all: [Harness] = codecHarnesses + candidHarnesses + icHarnesses + keyHarnesses + attestHarnesses + connectHarnesses + truapiHarnesses + transportHarnesses + irdHarnesses

    static var names: [String] { all.map(\.name) }

    static func named(_ name: String) -> Harness? { all.first { $0.name == name } }
}
