/// Splits a shell command line the way POSIX sh would for simple commands: quotes, backslashes, pipelines and
/// lists (`|`, `&&`, `||`, `;`), redirections (their targets dropped) and command substitutions (`$(…)`, `<(…)`,
/// whose inner command lines are returned too). Enough to check that every example in omni's help is a command line
/// omni accepts; not a shell.
public enum ShellWords {
    public struct Failure: Error, CustomStringConvertible {
        public let description: String
    }

    /// Every simple command in `line` (substituted ones included), as its words.
    public static func commands(_ line: String) throws -> [[String]] {
        var commands: [[String]] = []
        var current: [String] = []
        var word = ""
        var inWord = false
        var dropNextWord = false
        let characters = Array(line)
        var index = 0

        func endWord() {
            guard inWord else { return }
            if dropNextWord { dropNextWord = false } else { current.append(word) }
            word = ""
            inWord = false
        }
        func endCommand() {
            endWord()
            if !current.isEmpty { commands.append(current) }
            current = []
        }
        /// The text up to the `)` that closes a substitution opened just before `start`.
        func substitution(from start: Int) throws -> (String, Int) {
            var depth = 1, position = start
            var quote: Character?
            while position < characters.count {
                let character = characters[position]
                if let open = quote {
                    if character == open { quote = nil }
                } else if character == "'" || character == "\"" {
                    quote = character
                } else if character == "(" {
                    depth += 1
                } else if character == ")" {
                    depth -= 1
                    if depth == 0 { return (String(characters[start..<position]), position + 1) }
                }
                position += 1
            }
            throw Failure(description: "unclosed substitution in: \(line)")
        }

        while index < characters.count {
            let character = characters[index]
            switch character {
            case " ", "\t", "\n":
                endWord()
                index += 1
            case "'":
                guard let close = characters[(index + 1)...].firstIndex(of: "'") else {
                    throw Failure(description: "unclosed ' in: \(line)")
                }
                word += String(characters[(index + 1)..<close])
                inWord = true
                index = close + 1
            case "\"":
                index += 1
                inWord = true
                var closed = false
                while index < characters.count {
                    let inner = characters[index]
                    if inner == "\"" { closed = true; index += 1; break }
                    if inner == "\\", index + 1 < characters.count, "\"\\$`".contains(characters[index + 1]) {
                        word.append(characters[index + 1])
                        index += 2
                        continue
                    }
                    if inner == "$", index + 1 < characters.count, characters[index + 1] == "(" {
                        let (inner, next) = try substitution(from: index + 2)
                        commands += try Self.commands(inner)
                        word += "SUBSTITUTED"
                        index = next
                        continue
                    }
                    word.append(inner)
                    index += 1
                }
                if !closed { throw Failure(description: "unclosed \" in: \(line)") }
            case "\\":
                if index + 1 < characters.count { word.append(characters[index + 1]); inWord = true }
                index += 2
            case "$" where index + 1 < characters.count && characters[index + 1] == "(",
                 "<" where index + 1 < characters.count && characters[index + 1] == "(":
                let (inner, next) = try substitution(from: index + 2)
                commands += try Self.commands(inner)
                word += "SUBSTITUTED"
                inWord = true
                index = next
            case "|", "&", ";":
                endCommand()
                index += 1
                if index < characters.count, characters[index] == character { index += 1 }
            case ">", "<":
                // `2>` and `2>&1`: a lone digit before the operator belongs to it.
                if inWord, word.count == 1, word.first?.isNumber == true { word = ""; inWord = false }
                endWord()
                index += 1
                if index < characters.count, characters[index] == ">" { index += 1 }
                if index < characters.count, characters[index] == "&" {
                    index += 1
                    while index < characters.count, characters[index].isNumber { index += 1 }
                } else {
                    dropNextWord = true
                }
            case "#" where !inWord:
                index = characters.count
            default:
                word.append(character)
                inWord = true
                index += 1
            }
        }
        endCommand()
        // Leading NAME=value words are environment assignments, not the command.
        return commands.map { words in
            Array(words.drop { word in
                guard let equals = word.firstIndex(of: "="), equals != word.startIndex else { return false }
                return word[..<equals].allSatisfy { $0.isLetter || $0.isNumber || $0 == "_" }
            })
        }.filter { !$0.isEmpty }
    }
}
