/// How Candid names become Swift names (docs/bindings.md states the same rules for users).
///
/// - A Candid name that is an ASCII Swift identifier (`[A-Za-z_][A-Za-z0-9_]*`) is kept as it is; Swift keywords are
///   written in backticks (`` `protocol` ``).
/// - Any other character becomes `_`, and a name that starts with a digit gets a leading `_` (`"fee-rate"` →
///   `fee_rate`, `"1st"` → `_1st`). A numeric field id is `_<id>` (`_0`, `_1` for tuple fields).
/// - Names Swift reserves even in backticks (`init`, `self`, `Type`, …) get a trailing `_`; the names generated code
///   uses itself (`candidValue` in a record, `binding` in a client, …) count as taken (see the next rule).
/// - Within one scope (a type's members and nested types, the client's methods) no two names are equal: names that
///   needed no mapping are placed first, then the others in declaration order, each taking the first free name of
///   `name`, `name_2`, `name_3`, …
/// - Types written for inline records, variants and references are named after where they are: the field or case
///   in PascalCase (`status` → `Status`), or else with the kind added (`Err` → `ErrRecord`); a method's argument
///   and result types are `<Method>Arg`, `<Method>Result` (numbered when there are several).
enum SwiftNames {
    /// Swift's reserved words: legal as names only in backticks.
    static let keywords: Set<String> = [
        "associatedtype", "borrowing", "class", "consuming", "deinit", "enum", "extension", "fileprivate", "func",
        "import", "init", "inout", "internal", "let", "nonisolated", "open", "operator", "private", "precedencegroup",
        "protocol", "public", "rethrows", "static", "struct", "subscript", "typealias", "var", "break", "case", "catch",
        "continue", "default", "defer", "do", "else", "fallthrough", "for", "guard", "if", "in", "repeat", "return",
        "throw", "switch", "where", "while", "Any", "as", "await", "false", "is", "nil", "self", "Self", "super",
        "throws", "true", "try", "_", "package", "some", "any", "macro", "discard", "copy", "each", "consume",
    ]

    /// Names that backticks do not make usable as members or types.
    static let unusable: Set<String> = ["init", "deinit", "subscript", "self", "Self", "super", "Type", "Protocol", "_"]

    /// The Swift identifier for a Candid name, without backticks (see the rules above).
    static func identifier(_ name: String) -> String {
        var result = ""
        for scalar in name.unicodeScalars {
            let value = scalar.value
            let isAlphanumeric = (value >= 0x30 && value <= 0x39) || (value >= 0x41 && value <= 0x5A) || (value >= 0x61 && value <= 0x7A)
            result.unicodeScalars.append(isAlphanumeric || value == 0x5F ? scalar : "_")
        }
        if result.isEmpty { return "_" }
        if let first = result.unicodeScalars.first, first.value >= 0x30 && first.value <= 0x39 { result = "_" + result }
        return result
    }

    /// Whether `name` is already an ASCII identifier (so `identifier(name) == name`).
    static func isIdentifier(_ name: String) -> Bool { !name.isEmpty && identifier(name) == name }

    /// `identifier(name)`, with `_` added to a name Swift cannot use even in backticks.
    static func memberName(_ name: String) -> String {
        let base = identifier(name)
        return unusable.contains(base) ? base + "_" : base
    }

    /// The name as written in code: in backticks when it is a keyword.
    static func escaped(_ identifier: String) -> String {
        keywords.contains(identifier) ? "`" + identifier + "`" : identifier
    }

    /// `icrc1_transfer` → `Icrc1Transfer`, `ok` → `Ok`, `BadFee` → `BadFee`; a type name built from a Candid name.
    static func pascal(_ name: String) -> String {
        var result = ""
        var startOfWord = true
        for scalar in name.unicodeScalars {
            let value = scalar.value
            let isDigit = value >= 0x30 && value <= 0x39
            let isLetter = (value >= 0x41 && value <= 0x5A) || (value >= 0x61 && value <= 0x7A)
            guard isDigit || isLetter else {
                startOfWord = true
                continue
            }
            if startOfWord && isLetter {
                result += String(scalar).uppercased()
            } else {
                result.unicodeScalars.append(scalar)
            }
            startOfWord = false
        }
        if result.isEmpty { return "Value" }
        if let first = result.unicodeScalars.first, first.value >= 0x30 && first.value <= 0x39 { result = "_" + result }
        return unusable.contains(result) ? result + "_" : result
    }
}

/// One scope of Swift names: a type's members and nested types, the namespace, a client's methods.
final class NameScope {
    private var taken: Set<String>

    init(reserved: Set<String> = []) { taken = reserved }

    func isTaken(_ name: String) -> Bool { taken.contains(name) }

    /// `base`, or the first free `base_2`, `base_3`, …
    func claim(_ base: String) -> String {
        if taken.insert(base).inserted { return base }
        var suffix = 2
        while !taken.insert("\(base)_\(suffix)").inserted { suffix += 1 }
        return "\(base)_\(suffix)"
    }

    /// The first of `candidates` that is free, else `candidates[0]` with a number.
    func claim(firstFreeOf candidates: [String]) -> String {
        for candidate in candidates where taken.insert(candidate).inserted { return candidate }
        return claim(candidates[0])
    }

    /// Names for Candid names in one scope: those that are identifiers already are placed first, then the rest in
    /// order (see `SwiftNames`). `map` turns a Candid name into its Swift base name.
    func claimAll(_ names: [String], map: (String) -> String) -> [String] {
        var result = [String](repeating: "", count: names.count)
        for (index, name) in names.enumerated() where map(name) == name { result[index] = claim(name) }
        for (index, name) in names.enumerated() where result[index].isEmpty { result[index] = claim(map(name)) }
        return result
    }
}
