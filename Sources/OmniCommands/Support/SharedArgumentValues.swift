import OmniCandid
import OmniCLI
import OmniTransport

// Command-line value types more than one tree uses: one home each.

/// A listener address, `HOST:PORT`, parsed by the one HOST:PORT parser (OmniTransport.HostPort).
struct ListenAddress: ArgumentValue {
    let address: HostPort

    init(_ address: HostPort) { self.address = address }

    init?(argument: String) {
        guard let parsed = try? HostPort(parsing: argument) else { return nil }
        address = parsed
    }

    static var expectation: String { "HOST:PORT, e.g. 127.0.0.1:8080 or [::1]:8080" }

    static func problem(with text: String) -> String? {
        do throws(TransportError) { _ = try HostPort(parsing: text) } catch { return error.message }
        return nil
    }

    var argumentText: String { address.description }
}

/// Canisters given to `--target`: one principal, or several separated by commas; the option may be repeated.
struct PrincipalList: ArgumentValue {
    let principals: [Principal]

    init?(argument: String) {
        var list: [Principal] = []
        for part in argument.split(separator: ",", omittingEmptySubsequences: false) {
            guard let principal = Principal(argument: String(part)) else { return nil }
            list.append(principal)
        }
        principals = list
    }

    static var expectation: String { "principals separated by commas, like ryjl3-tyaaa-aaaaa-aaaba-cai,rrkah-fqaaa-aaaaa-aaaaq-cai" }
    static var isData: Bool { true }

    static func problem(with text: String) -> String? {
        for (index, part) in text.split(separator: ",", omittingEmptySubsequences: false).enumerated() {
            if let problem = Principal.problem(with: String(part)) { return "entry \(index + 1): \(problem)" }
        }
        return nil
    }

    var argumentText: String { principals.map(\.text).joined(separator: ",") }
}
