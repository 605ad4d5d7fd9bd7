import OmniCandid
import Testing

@Suite struct TypeNameTests {
    /// The first name, in reading order and at any depth, that the environment does not define.
    @Test func firstUndefinedName() throws {
        let environment = try CandidTypeEnvironment([("Known", .nat)])
        let types: [CandidType] = [
            .opt(.named("Known")),
            .record([CandidField("a", .vec(.named("Known"))), CandidField("b", .variant([CandidField("x", .named("Missing1"))]))]),
            .named("Missing2"),
        ]
        #expect(environment.firstUndefinedName(in: types) == "Missing1")
        #expect(environment.firstUndefinedName(in: [.named("Known"), .text]) == nil)
        let function = CandidType.function(CandidFunctionType(arguments: [CandidArgument(.named("Known"))], results: [CandidArgument(.named("R"))]))
        #expect(environment.firstUndefinedName(in: [function]) == "R")
        #expect(CandidTypeEnvironment().firstUndefinedName(in: [.service(CandidServiceType([.init("m", .named("S"))]))]) == "S")
    }
}
