import Foundation
import Testing
import OmniCodec
import OmniTestSupport

/// Rules the whole command tree keeps, checked on the real binary's `__dump-help`.
@Suite(.serialized, .offPool) struct CommandTreeTests {
    static func tree() throws -> JSONValue {
        let result = try Omni.run(["__dump-help"])
        guard result.status == 0 else { throw TestSupportError("__dump-help failed: \(result.stderrText)") }
        return try JSONValue.parse(Array(result.stdout))
    }

    /// Every command, depth first, with its path.
    static func commands(_ tree: JSONValue) -> [(path: String, command: JSONValue)] {
        var result: [(String, JSONValue)] = []
        func visit(_ command: JSONValue) {
            result.append((command["path"]?.stringValue ?? "?", command))
            for sub in command["subcommands"]?.arrayValue ?? [] { visit(sub) }
        }
        if let root = tree["command"] { visit(root) }
        return result
    }

    /// `-o` is the output format on every line: no command may take a global's short or long name for itself.
    @Test func noCommandReusesAGlobalOptionName() throws {
        let tree = try Self.tree()
        let globals = tree["global_options"]?.arrayValue ?? []
        let longs = Set(globals.compactMap { $0["name"]?.stringValue } + ["--help"])
        let shorts = Set(globals.compactMap { $0["short"]?.stringValue } + ["-h"])
        #expect(shorts.isSuperset(of: ["-o", "-q", "-v"]))
        var clashes: [String] = []
        for (path, command) in Self.commands(tree) {
            for option in command["options"]?.arrayValue ?? [] {
                if let name = option["name"]?.stringValue, longs.contains(name) { clashes.append("\(path): \(name)") }
                if let short = option["short"]?.stringValue, shorts.contains(short) {
                    clashes.append("\(path): \(short) (\(option["name"]?.stringValue ?? ""))")
                }
            }
        }
        #expect(clashes.isEmpty, "options reusing a global's name: \(clashes)")
    }

    /// Programs an example may pipe into or wrap omni with; any other word in command position is a quoting mistake.
    static let knownPrograms: Set<String> = [
        "omni", "jq", "cat", "echo", "printf", "xxd", "base64", "head", "tail", "grep", "sha256sum", "source", "curl",
        "sort", "wc", "diff", "tee", "xargs", "openssl", "cut", "awk", "sed", "chmod", "export", "eval", "xdg-open",
        "python3", "chromium",
    ]

    /// Each example is split like a shell would, and every omni command in it is parsed by omni's own parser.
    @Test func everyHelpExampleIsACommandLineOmniAccepts() throws {
        var failures: [String] = []
        var checked = 0
        for (path, command) in Self.commands(try Self.tree()) {
            for example in command["examples"]?.arrayValue ?? [] {
                let line = example["command"]?.stringValue ?? ""
                let simple: [[String]]
                do { simple = try ShellWords.commands(line) } catch {
                    failures.append("\(path): \(line): \(error)")
                    continue
                }
                for words in simple where words.first == "omni" {
                    checked += 1
                    let result = try Omni.run(["__parse", "--"] + words.dropFirst())
                    if result.status != 0 { failures.append("\(path): \(line)\n    → \(result.stderrText)") }
                }
                if !simple.contains(where: { $0.first == "omni" }) {
                    failures.append("\(path): \(line): no omni command in the example (an unquoted metacharacter?)")
                }
                for words in simple where !Self.knownPrograms.contains(words[0]) {
                    failures.append("\(path): \(line): runs '\(words[0])' (an unquoted |, ; or & in a value?)")
                }
            }
        }
        #expect(checked > 50)
        #expect(failures.isEmpty, Comment(rawValue: "examples omni refuses:\n" + failures.joined(separator: "\n")))
    }

    /// Help text the renderer builds on: it adds "repeatable", so help strings never say it; prose is written in
    /// whole lines (a line break mid-sentence shows up as a ragged paragraph in every terminal).
    @Test func helpTextIsWrittenForTheRenderer() throws {
        var problems: [String] = []
        for (path, command) in Self.commands(try Self.tree()) {
            for option in command["options"]?.arrayValue ?? [] {
                let help = option["help"]?.stringValue ?? ""
                if help.lowercased().contains("(repeatable)") { problems.append("\(path) \(option["name"] ?? ""): says (repeatable)") }
            }
            let prose = [command["discussion"]?.stringValue ?? ""]
                + (command["examples"]?.arrayValue ?? []).compactMap { $0["explanation"]?.stringValue }
            for text in prose {
                let lines = text.split(separator: "\n", omittingEmptySubsequences: false)
                for (line, next) in zip(lines, lines.dropFirst()) {
                    guard let last = line.last, let first = next.first else { continue }
                    if first.isLowercase, !".:;!?)\"'".contains(last), !line.hasPrefix(" "), !next.hasPrefix(" ") {
                        problems.append("\(path): a line ends mid-sentence: \"…\(line.suffix(30))⏎\(next.prefix(30))…\"")
                    }
                }
            }
        }
        #expect(problems.isEmpty, Comment(rawValue: "\n" + problems.joined(separator: "\n")))
    }

    @Test func shellWordsSplitLikeAShell() throws {
        #expect(try ShellWords.commands("omni a 'b c' \"d\\\"e\" f\\ g") == [["omni", "a", "b c", "d\"e", "f g"]])
        #expect(try ShellWords.commands("omni x | jq .a && omni y > out.txt 2>&1") == [["omni", "x"], ["jq", ".a"], ["omni", "y"]])
        #expect(try ShellWords.commands("omni --allow-domain omni|demo") == [["omni", "--allow-domain", "omni"], ["demo"]])
        #expect(try ShellWords.commands("source <(omni completions zsh)") == [["omni", "completions", "zsh"], ["source", "SUBSTITUTED"]])
        #expect(try ShellWords.commands("OMNI_IDENTITY=k1 omni ic account-id < in") == [["omni", "ic", "account-id"]])
    }
}
