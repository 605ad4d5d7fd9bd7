/// The comments of a `.did` interface that document it: a comment block on the lines just before a definition,
/// record field, variant case or method (no blank line in between), or else a comment after it on the same line
/// (`amount : nat; // in e8s`). Comment markers and the ` * ` margin of block comments are removed. Binding
/// generators carry them into the code they write.
public struct CandidDocumentation: Sendable, Equatable {
    /// Comments on type definitions, by name.
    public var definitions: [String: String] = [:]
    /// Comments on the record fields and variant cases inside a definition's type: the definition's name, then the
    /// label ids from its type down to the member, one per nested record or variant (`opt` and `vec` add no
    /// step). Members inside function and service types are not recorded.
    public var members: [String: [[UInt32]: String]] = [:]
    /// Comments on the main service's methods, by name.
    public var methods: [String: String] = [:]

    /// No comments.
    public init() {}

    /// The comment on a member of `definition` at `path` (label ids, outermost first).
    public func member(_ definition: String, _ path: [UInt32]) -> String? { members[definition]?[path] }

    /// True when the interface documents nothing.
    public var isEmpty: Bool { definitions.isEmpty && members.isEmpty && methods.isEmpty }
}
