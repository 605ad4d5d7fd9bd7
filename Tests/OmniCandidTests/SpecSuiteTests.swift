import Foundation
import OmniCandid
import OmniTestSupport
import Testing

/// Runs every assertion of the official Candid test suite (`/work/shared/vectors/candid/*.test.did`).
/// Blob inputs are decoded twice: with the library's default work budget (1,000,000 units, see `CandidLimits`)
/// and with the 20,000,000 units the reference Rust runner configures for spacebomb/overshoot; every assertion
/// must hold at both (the bombs are refused either way, every valid message fits either way).
@Suite(.vectors("candid")) struct SpecSuiteTests {
    static let files = ["prim", "construct", "subtypes", "reference", "spacebomb", "overshoot"]
    /// `assert` statements per file (467 in all). SOURCES.md counts 62 for subtypes.test.did by matching lines; four of
    /// those are templates with `XX` placeholders inside the file's header comment, so 58 are real assertions.
    static let expectedCounts = ["prim": 168, "construct": 164, "subtypes": 58, "reference": 50, "spacebomb": 17, "overshoot": 10]

    enum Outcome {
        case values([CandidValue])
        case failure(CandidError)

        var values: [CandidValue]? { if case .values(let values) = self { return values }; return nil }
        var error: CandidError? { if case .failure(let error) = self { return error }; return nil }
    }

    static let budgets = [CandidLimits.default.workBudget, 20_000_000]

    static func evaluate(_ input: CandidTestAssertion.Input, _ types: [CandidType], _ environment: CandidTypeEnvironment,
                         budget: Int = CandidLimits.default.workBudget) -> Outcome {
        var limits = CandidLimits.default
        limits.workBudget = budget
        do {
            switch input {
            case .text(let text): return .values(try Candid.parseArguments(text, types: types, environment: environment))
            case .blob(let bytes): return .values(try Candid.decode(bytes, types: types, environment: environment, limits: limits))
            }
        } catch {
            return .failure(error)
        }
    }

    /// Runs one assertion; returns nil when it holds, else why not.
    static func failure(of assertion: CandidTestAssertion, in environment: CandidTypeEnvironment, budget: Int) -> String? {
        let left = evaluate(assertion.input, assertion.types, environment, budget: budget)
        switch assertion.kind {
        case .accepts:
            return left.error.map { "expected acceptance, got \($0)" }
        case .rejects:
            return left.values.map { "expected rejection, decoded \(Candid.print(arguments: $0, style: .compact))" }
        case .equal(let other), .notEqual(let other):
            let right = evaluate(other, assertion.types, environment, budget: budget)
            guard let a = left.values, let b = right.values else {
                return "both sides must decode: left \(left.error.map(String.init(describing:)) ?? "ok"), right \(right.error.map(String.init(describing:)) ?? "ok")"
            }
            let wantEqual = assertion.kind == .equal(other)
            if (a == b) == wantEqual { return nil }
            return "expected \(wantEqual ? "equal" : "different") values: \(Candid.print(arguments: a, style: .compact)) vs \(Candid.print(arguments: b, style: .compact))"
        }
    }

    @Test(arguments: files, budgets)
    func specFile(_ name: String, budget: Int) throws {
        let file = try CandidTestFile.parse(try Vectors.text("candid/\(name).test.did"))
        #expect(file.assertions.count == Self.expectedCounts[name], "assertion count of \(name).test.did")
        var passed = 0
        var failures: [String] = []
        for assertion in file.assertions {
            if let failure = Self.failure(of: assertion, in: file.environment, budget: budget) {
                failures.append("line \(assertion.line) \(assertion.description ?? ""): \(failure)")
            } else {
                passed += 1
            }
        }
        print("candid spec suite \(name).test.did (work budget \(budget)): \(passed)/\(file.assertions.count) assertions passed")
        #expect(failures.isEmpty, "\(name).test.did failures:\n\(failures.joined(separator: "\n"))")
    }

    /// Resource bombs must be refused by the work budget (not by running out of memory or time), and
    /// oversized lengths by plausibility checks against the remaining input.
    @Test(arguments: [("spacebomb", CandidError.Kind.limitExceeded), ("overshoot", .malformed)], budgets)
    func bombsAreRefusedForTheRightReason(_ file: (name: String, kind: CandidError.Kind), budget: Int) throws {
        let parsed = try CandidTestFile.parse(try Vectors.text("candid/\(file.name).test.did"))
        for assertion in parsed.assertions {
            guard case .blob = assertion.input, assertion.kind == .rejects else { continue }
            let error = try #require(Self.evaluate(assertion.input, assertion.types, parsed.environment, budget: budget).error)
            #expect(error.kind == file.kind, "\(file.name) line \(assertion.line): \(error)")
        }
    }
}
