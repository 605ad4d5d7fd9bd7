/// How the document's operations become `omni ird <area> <operation>` commands. The rules, in order:
///
/// 1. The area is the operation's first tag in kebab-case; an operation without tags goes to `other`.
/// 2. The name is the operationId in kebab-case (camelCase, snake_case, dots and spaces split into words); without
///    an operationId it is the method and the path's literal segments (`get-domains-pins`).
/// 3. The first place the area's words appear in the name is dropped, the area also in the singular (`domains` →
///    `domain`, `registrations` → `registration`; words of three letters or fewer such as `dns` and `vps` stay as
///    they are), unless nothing would be left: `checkDomain` in `domains` is `check`, `listApiKeys` in `api-keys` is
///    `list`, `getCreditBalance` in `credits` is `get-balance`.
/// 4. When two operations of an area end up with the same name, or with the name of a command omni adds there
///    (`auth status`, say), they keep their whole kebab-case operationId; any that still clash get `-2`, `-3`, … in
///    document order.
/// 5. An area named like one of omni's own commands that is not a group (`api`) becomes `<name>-2`.
public struct IrdOperationIndex: Sendable {
    public struct Entry: Sendable {
        public let name: String
        public let operation: Operation
    }

    public struct Area: Sendable {
        public let name: String
        /// The tag it comes from and the tag's description.
        public let tag: String
        public let description: String?
        public let entries: [Entry]
    }

    public let areas: [Area]

    /// - Parameters:
    ///   - reservedNames: per area, the names of commands omni adds itself there (they win).
    ///   - reservedAreas: names of omni's own commands that are not groups (an area cannot take them).
    public init(document: OpenAPIDocument, reservedNames: [String: Set<String>] = [:], reservedAreas: Set<String> = []) {
        var order: [String] = []
        var grouped: [String: [Operation]] = [:]
        var tagOf: [String: String] = [:]
        for operation in document.operations {
            let tag = operation.tags.first ?? "other"
            var area = Self.kebab(tag)
            if area.isEmpty { area = "other" }
            if reservedAreas.contains(area) { area += "-2" }
            if grouped[area] == nil { order.append(area); tagOf[area] = tag }
            grouped[area, default: []].append(operation)
        }
        areas = order.map { area in
            let operations = grouped[area]!
            let reserved = reservedNames[area] ?? []
            let full = operations.map(Self.fullName)
            var names = zip(operations, full).map { Self.shortened($1, area: area) }
            var counts: [String: Int] = [:]
            for name in names { counts[name, default: 0] += 1 }
            for index in names.indices where counts[names[index]]! > 1 || reserved.contains(names[index]) {
                names[index] = full[index]
            }
            var taken = reserved
            for index in names.indices {
                var candidate = names[index]
                var suffix = 2
                while taken.contains(candidate) {
                    candidate = names[index] + "-\(suffix)"
                    suffix += 1
                }
                taken.insert(candidate)
                names[index] = candidate
            }
            let tag = tagOf[area]!
            return Area(name: area, tag: tag, description: document.tags.first { $0.name == tag }?.description,
                        entries: zip(names, operations).map { Entry(name: $0, operation: $1) })
        }
    }

    public func area(named name: String) -> Area? { areas.first { $0.name == name } }

    /// The command path (area, name) of an operation id.
    public func command(for operationId: String) -> (area: String, name: String)? {
        for area in areas {
            if let entry = area.entries.first(where: { $0.operation.operationId == operationId }) { return (area.name, entry.name) }
        }
        return nil
    }

    static func fullName(_ operation: Operation) -> String {
        if let id = operation.operationId, !kebab(id).isEmpty { return kebab(id) }
        let literal = operation.path.split(separator: "/").filter { !$0.hasPrefix("{") }.joined(separator: " ")
        return kebab(operation.method.lowercased() + " " + literal)
    }

    static func shortened(_ name: String, area: String) -> String {
        let words = name.split(separator: "-").map(String.init)
        for form in Set([area, singular(area)]).sorted(by: { $0.count > $1.count }) {
            let formWords = form.split(separator: "-").map(String.init)
            guard words.count > formWords.count else { continue }
            for start in 0...(words.count - formWords.count) where Array(words[start..<(start + formWords.count)]) == formWords {
                return (words[..<start] + words[(start + formWords.count)...]).joined(separator: "-")
            }
        }
        return name
    }

    /// `registrations` → `registration`, `policies` → `policy`; short words (`dns`, `vps`) and `…ss` stay.
    static func singular(_ word: String) -> String {
        let last = word.split(separator: "-").last.map(String.init) ?? word
        guard last.count >= 4 else { return word }
        if word.hasSuffix("ies") { return String(word.dropLast(3)) + "y" }
        if word.hasSuffix("s"), !word.hasSuffix("ss") { return String(word.dropLast()) }
        return word
    }

    /// `listDomainPins` → `list-domain-pins`, `mint_mailbox.Credentials` → `mint-mailbox-credentials`,
    /// `getHTTPStatus` → `get-http-status`; digits stay with their word (`p2pApps` → `p2p-apps`).
    public static func kebab(_ text: String) -> String {
        var words: [String] = []
        var current = ""
        let characters = Array(text)
        for (index, character) in characters.enumerated() {
            guard character.isLetter || character.isNumber, character.isASCII else {
                if !current.isEmpty { words.append(current); current = "" }
                continue
            }
            if character.isUppercase, !current.isEmpty {
                let previous = characters[index - 1]
                let nextIsLower = index + 1 < characters.count && characters[index + 1].isLowercase
                if previous.isLowercase || previous.isNumber || (previous.isUppercase && nextIsLower) {
                    words.append(current)
                    current = ""
                }
            }
            current.append(character)
        }
        if !current.isEmpty { words.append(current) }
        return words.map { $0.lowercased() }.joined(separator: "-")
    }
}
