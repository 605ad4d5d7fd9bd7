// ConsumerApp: calls the loopback test replica through the client CandidBindPlugin generated from Candid/demo.did,
// checks every typed answer, and prints one line per check. Exit 0 when all hold, 1 (with the reason) when one does
// not. Usage: ConsumerApp REPLICA_URL ROOT_KEY_HEX CANISTER_ID
import OmniBindings
import OmniCandid
import OmniCodec
import OmniIC

#if canImport(Glibc)
import Glibc
#endif

struct CheckFailed: Error, CustomStringConvertible {
    let description: String
}

func check(_ condition: Bool, _ what: @autoclosure () -> String) throws {
    if !condition { throw CheckFailed(description: what()) }
}

func run(_ arguments: [String]) throws {
    guard arguments.count == 4 else { throw CheckFailed(description: "usage: ConsumerApp REPLICA_URL ROOT_KEY_HEX CANISTER_ID") }
    var configuration = ICAgent.Configuration(network: try ICNetwork(arguments[1]), rootKey: try ICRootKey(hex: arguments[2]))
    configuration.pollInterval = .milliseconds(50)
    let agent = try ICAgent(configuration: configuration)
    let client = try Demo.Client(agent: agent, canisterID: try Principal(text: arguments[3]))
    let caller = try ICIdentity.generate(.ed25519)

    // A query.
    let greeting: String = try client.greet("omni")
    try check(greeting == "Hello, omni!", "greet returned \(greeting)")
    print("query greet: \(greeting)")

    // An update call, signed by an identity; its reply read from a certified state tree.
    let first: BigUInt = try client.counter(as: caller)
    let second = try client.counter(as: caller)
    try check(second == first + 1, "counter went from \(first) to \(second)")
    let seen = try client.get_counter()
    try check(seen == second, "get_counter says \(seen) after counter returned \(second)")
    print("update counter: \(first) then \(second)")

    // A reject, certified for the call, node-signed for the query.
    do {
        try client.fail(as: caller)
        throw CheckFailed(description: "fail did not reject")
    } catch let error as CandidBindingError where error.kind == .rejected {
        let reject = try error.reject.map { $0 } ?? { throw CheckFailed(description: "a reject without its details") }()
        try check(reject.code == .canisterReject && reject.certified, "fail rejected with \(reject)")
        print("update reject: \(reject.code.rawValue) \(reject.code.name) \(reject.message) (certified)")
    }
    do {
        try client.fail_query()
        throw CheckFailed(description: "fail_query did not reject")
    } catch let error as CandidBindingError where error.kind == .rejected {
        try check(error.reject?.code == .canisterReject && error.method == "fail_query", "fail_query rejected with \(error)")
        print("query reject: \(error.reject?.code.name ?? "?") \(error.reject?.message ?? "")")
    }

    // A reply whose record has more fields than the interface: they are skipped.
    let profile: Demo.Profile = try client.profile()
    try check(profile == Demo.Profile(name: "Ada", age: 36), "profile returned \(profile)")
    print("extended record: \(profile.name), \(profile.age)")

    // Typed values there and back: a variant with a record, a principal, a vector and an option.
    let shape = Demo.Shape.labelled(.init(owner: caller.principal, tags: ["a", "b"], note: nil, score: -7))
    let echoed = try client.echo_shape(shape)
    try check(echoed == shape, "echo_shape returned \(echoed)")
    try check(try client.echo_shape(.circle(.init(radius: 9))) == .circle(.init(radius: 9)), "echo_shape changed a circle")
    print("echo: \(caller.principal == (echoed.labelledOwner ?? .anonymous) ? "same" : "different") owner, tags \(echoed.labelledTags)")
    print("ok")
}

extension Demo.Shape {
    var labelledOwner: Principal? { if case .labelled(let value) = self { return value.owner }; return nil }
    var labelledTags: [String] { if case .labelled(let value) = self { return value.tags }; return [] }
}

do {
    try run(CommandLine.arguments)
} catch {
    print("failed: \(error)")
    exit(1)
}
