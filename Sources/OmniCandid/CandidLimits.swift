/// Limits that keep hostile input from costing more than a bounded amount of time, memory and stack.
/// Exceeding any of them is a `CandidError` of kind `.limitExceeded`; nothing traps.
///
/// Work budget cost model (units are roughly "one small step of decoding"):
/// - type table: 1 per entry plus 1 per field, method or argument reference;
/// - every value decoded or skipped: 1, plus 1 per 64 bytes of text, blob or future data and 1 per 8 bytes of
///   a `nat`/`int` encoding;
/// - vectors: their length, charged up front before any element is read;
/// - values of zero-sized types (null, reserved, records of only those), which cost nothing on the wire: 8 per
///   null/reserved and 8 per record plus 1 per field, charged for a whole vector before any element is read and
///   for a skipped value without walking it, so `vec null` of length 2^60 or a record tree with 2^20 null
///   leaves is refused at once;
/// - subtype checks for function and service references: 1 per pair of types compared.
public struct CandidLimits: Sendable, Equatable {
    /// Total work units one message may use (type table, subtype checks and values together).
    public var workBudget: Int
    /// Maximum nesting of values and types (also bounds recursion in text parsing, printing and subtyping).
    public var maxDepth: Int
    /// Maximum entries in a message's type table.
    public var maxTypeTableEntries: Int
    /// Maximum fields of one record or variant type, methods of a service, or arguments of a function.
    public var maxFieldsPerType: Int
    /// Maximum values in the argument list.
    public var maxArguments: Int
    /// Maximum elements of one vector.
    public var maxVectorLength: Int
    /// Maximum encoded bytes of one `nat` or `int` (and digits of one in text).
    public var maxNumberBytes: Int
    /// Maximum tokens of Candid text or of one `.did` file (with its imports, each): the lexer's token array and the
    /// values and types built from it are what text costs in memory, about 100 bytes a token.
    public var maxTextTokens: Int
    /// Maximum type definitions of an interface with its imports.
    public var maxDefinitions: Int

    public init(workBudget: Int = 1_000_000, maxDepth: Int = 256, maxTypeTableEntries: Int = 10_000,
                maxFieldsPerType: Int = 10_000, maxArguments: Int = 1_000, maxVectorLength: Int = 16_777_216,
                maxNumberBytes: Int = 1_024, maxTextTokens: Int = 1 << 19, maxDefinitions: Int = 10_000) {
        self.workBudget = workBudget
        self.maxDepth = maxDepth
        self.maxTypeTableEntries = maxTypeTableEntries
        self.maxFieldsPerType = maxFieldsPerType
        self.maxArguments = maxArguments
        self.maxVectorLength = maxVectorLength
        self.maxNumberBytes = maxNumberBytes
        self.maxTextTokens = maxTextTokens
        self.maxDefinitions = maxDefinitions
    }

    public static let `default` = CandidLimits()
}
