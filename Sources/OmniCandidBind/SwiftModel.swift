import OmniCandid

/// A Swift type as generated code refers to it; rendered once every generated name is known (a generated type may
/// shadow a standard name, which then has to be written with its module).
indirect enum SwiftTypeRef {
    /// A type of a module the generated file imports: `Swift.Bool`, `OmniCodec.BigUInt`, `OmniBindings.CandidNull`.
    case library(module: String, name: String)
    case optional(SwiftTypeRef)
    case array(SwiftTypeRef)
    /// A definition of the interface (index into the generator's definitions).
    case definition(Int)
    /// A type generated for an inline record, variant or reference, declared in the scope that uses it.
    case nested(SwiftNode)

    static func swift(_ name: String) -> SwiftTypeRef { .library(module: "Swift", name: name) }

    /// `opt` payloads that are `null`, `reserved`: a field or argument of that type may be left out.
    var isOptional: Bool {
        if case .optional = self { return true }
        return false
    }
}

/// A generated nominal type: a record (struct, or final class when boxed), a variant (enum, indirect when boxed), a
/// function or service reference, or a wrapper class for a recursive alias.
final class SwiftNode {
    enum Kind {
        case record(fields: [SwiftMember], isTuple: Bool)
        case variant(cases: [SwiftMember])
        case function(CandidFunctionType)
        case service(CandidServiceType)
        case wrapper(SwiftTypeRef)
    }

    let name: String
    /// What the type is called in Candid, for messages of the generated code (`Account`, `Account.owner`).
    let candidName: String
    var kind: Kind = .wrapper(.swift("Never"))
    var isBoxed = false
    var documentation: String?
    /// The type's own names: members and nested types together, as Swift requires.
    let scope: NameScope
    var nested: [SwiftNode] = []
    let depth: Int

    init(name: String, candidName: String, scope: NameScope, depth: Int) {
        self.name = name
        self.candidName = candidName
        self.scope = scope
        self.depth = depth
    }
}

/// A record field or variant case.
struct SwiftMember {
    let label: CandidLabel
    let name: String
    /// nil for a variant case without payload (`null`).
    let type: SwiftTypeRef?
    let documentation: String?
    /// The Candid type, for the default values of initializers.
    let candidType: CandidType
}

/// A definition of the interface as Swift: a type alias or a nominal type.
struct SwiftDefinition {
    enum Form {
        case alias(SwiftTypeRef)
        case nominal(SwiftNode)
    }

    let candidName: String
    let name: String
    var form: Form
    /// Types generated for inline records and variants of an alias, declared beside it.
    var siblings: [SwiftNode] = []
    let documentation: String?
}

/// A method of the client.
struct SwiftMethod {
    struct Parameter {
        let label: String?
        let type: SwiftTypeRef
    }

    let candidName: String
    let name: String
    let function: CandidFunctionType
    let parameters: [Parameter]
    let results: [SwiftTypeRef]
    /// Result tuple labels (from named results), when every result has a usable distinct one.
    let resultLabels: [String]?
    let documentation: String?
}
