/// Every fuzz target, by name. A new parser gets a target by adding its harness here (one file per area beside
/// this one); `make fuzz`, the seeder and the regression replay pick it up from this list.
enum Harnesses {
    static let all: [Harness] = codecHarnesses

    static var names: [String] { all.map(\.name) }

    static func named(_ name: String) -> Harness? { all.first { $0.name == name } }
}
