import Foundation
import Testing
@testable import OmniCLI
import OmniCodec
import OmniTestSupport

private func tool(_ arguments: [String], environment: [String: String] = ["HOME": "/nonexistent"], stdin: [UInt8]? = nil,
                  tty: Bool = false) -> Run {
    run(arguments, environment: environment, stdinBytes: stdin, tty: tty, tool: Framework.tool)
}

private func temporaryFile(_ bytes: [UInt8], mode: Int = 0o644) throws -> URL {
    let url = FileManager.default.temporaryDirectory.appendingPathComponent("omni-fw-\(UUID())")
    try Data(bytes).write(to: url)
    try FileManager.default.setAttributes([.posixPermissions: mode], ofItemAtPath: url.path)
    return url
}

@Suite(.serialized, .offPool) struct TypedValueTests {
    @Test func defaultsEnvironmentAndConfigResolveInOrder() throws {
        #expect(run(["sample", "echo", "x", "-o", "json"]).json?["count"] == 1)
        #expect(run(["sample", "echo", "x", "-o", "json"], environment: ["HOME": "/nonexistent", "OMNI_COUNT": "4"]).json?["count"] == 4)
        let config = try temporaryFile(Array("[sample]\ncount = 7\n".utf8))
        defer { try? FileManager.default.removeItem(at: config) }
        #expect(run(["sample", "echo", "x", "-o", "json", "--config", config.path]).json?["count"] == 7)
        #expect(run(["sample", "echo", "x", "-o", "json", "--config", config.path, "-n", "2"]).json?["count"] == 2)
    }

    @Test func aChoiceOutsideItsListIsAUsageErrorButBadDataIsMalformedInput() {
        let choice = tool(["choose", "--choice", "blue"])
        #expect(choice.status == 2, "\(choice.stderr)")
        #expect(choice.stderr.contains("expected one of red, green"))
        let time = tool(["time", "--at", "yesterday"])
        #expect(time.status == 3, "\(time.stderr)")
        #expect(time.stderr.contains("is not a time"))
    }

    @Test func oneTimeSyntaxWithPlausibleRange() {
        #expect(tool(["time", "--at", "1763796900", "-o", "json"]).json?["seconds"] == 1_763_796_900)
        #expect(tool(["time", "--at", "2025-11-22T07:35:00Z", "-o", "json"]).json?["seconds"] == 1_763_796_900)
        #expect(tool(["time", "--at", "2025-11-22T08:35:00+01:00", "-o", "json"]).json?["seconds"] == 1_763_796_900)
        let nanoseconds = tool(["time", "--at", "1763796900000000000"])
        #expect(nanoseconds.status == 3)
        let milliseconds = tool(["time", "--at", "1763796900000"])
        #expect(milliseconds.status == 3)
        #expect(milliseconds.stderr.contains("milliseconds or nanoseconds"), "\(milliseconds.stderr)")
        #expect(tool(["time", "--at", "1999-12-31T23:59:59Z"]).status == 3)
        #expect(tool(["time", "--at", "2200-01-01T00:00:00Z"]).status == 3)
        #expect(tool(["time", "--at", "946684800"]).status == 0, "2000-01-01 itself is accepted")
    }

    @Test func durationsPrintAsTheyAreTyped() {
        #expect(Duration.seconds(300).argumentText == "5m")
        #expect(Duration.milliseconds(1500).argumentText == "1500ms")
        #expect(Duration.seconds(30).argumentText == "30s")
        #expect(ByteCount(bytes: 10 << 20).argumentText == "10MiB")
        #expect(run(["sample", "echo", "--help"]).stdout.contains("default: 30s"))
    }
}

@Suite(.serialized, .offPool) struct RelationTests {
    @Test func conflictingOptionsAreRefusedBeforeTheCommandRuns() {
        let both = tool(["relations", "--alpha", "a", "--beta", "b"])
        #expect(both.status == 2)
        #expect(both.stderr.contains("--alpha and --beta cannot be combined"))
        let requires = tool(["relations", "--gamma"])
        #expect(requires.status == 2)
        #expect(requires.stderr.contains("--gamma needs --beta"))
        #expect(tool(["relations", "--gamma", "--beta", "b"]).status == 0)
        #expect(tool(["exactly"]).stderr.contains("give one of --one or --other"))
        #expect(tool(["exactly", "--one", "1", "--other", "2"]).status == 2)
        #expect(tool(["exactly", "--other", "2"]).status == 0)
    }

    @Test func aFlagBeatsTheEnvironmentOfTheOptionItConflictsWith() {
        let environment = ["HOME": "/nonexistent", "OMNI_ALPHA": "from-env"]
        let result = tool(["relations", "--beta", "b", "-o", "json"], environment: environment)
        #expect(result.status == 0, "\(result.stderr)")
        #expect(result.json?["alpha"] == .null, "the environment's --alpha does not conflict with the command line's --beta")
        #expect(tool(["relations", "-o", "json"], environment: environment).json?["alpha"] == "from-env")
    }

    @Test func helpStatesTheRules() {
        let help = tool(["relations", "--help"]).stdout
        #expect(help.contains("RULES:"))
        #expect(help.contains("--alpha and --beta cannot be combined."))
    }
}

@Suite(.serialized, .offPool) struct FileParameterTests {
    @Test func stdinIsRefusedWhenItIsATerminal() {
        let result = tool(["files", "-"])
        #expect(result.status == 2)
        #expect(result.stderr.contains("stdin is a terminal"))
        #expect(tool(["files", "-", "-o", "json"], stdin: Array("hello".utf8)).json?["bytes"] == 5)
    }

    @Test func anAtSignOnAPathIsAccepted() throws {
        let file = try temporaryFile(Array("abc".utf8))
        defer { try? FileManager.default.removeItem(at: file) }
        #expect(tool(["files", "@" + file.path, "-o", "json"]).json?["bytes"] == 3)
        let missing = tool(["files", "/nonexistent/q.json"])
        #expect(missing.status == 3)
        #expect(missing.stderr.contains("no such file '/nonexistent/q.json'"))
    }

    @Test func aDashOutputPathIsStdoutAndAFileIsWrittenPrivately() throws {
        let file = try temporaryFile(Array("payload".utf8))
        defer { try? FileManager.default.removeItem(at: file) }
        let toStdout = tool(["files", file.path, "--out-file", "-"])
        #expect(toStdout.stdout.hasPrefix("payload"))
        #expect(!FileManager.default.fileExists(atPath: "-"), "no file named '-'")
        let target = file.path + ".out"
        defer { try? FileManager.default.removeItem(atPath: target) }
        #expect(tool(["files", file.path, "--out-file", target]).status == 0)
        #expect(try String(contentsOfFile: target, encoding: .utf8) == "payload")
        let mode = try FileManager.default.attributesOfItem(atPath: target)[.posixPermissions] as? Int
        #expect(mode == 0o600)
    }

    @Test func invalidUTF8IsMalformedInputAtItsRealOffset() throws {
        let bytes: [UInt8] = [0x28, 0x22, 0xFF, 0x22, 0x29]
        let file = try temporaryFile(bytes)
        defer { try? FileManager.default.removeItem(at: file) }
        for result in [tool(["files", file.path]), tool(["files", "-"], stdin: bytes)] {
            #expect(result.status == 3, "\(result.stderr)")
            #expect(result.stderr.contains("invalid UTF-8 (0xff) at byte 2"), "\(result.stderr)")
        }
        let content = run(["sample", "echo", "@" + file.path])
        #expect(content.status == 3)
        #expect(content.stderr.contains("byte 2"))
        let piped = run(["sample", "echo", "-"], stdinBytes: bytes)
        #expect(piped.status == 3)
        let config = try temporaryFile([0x6f, 0x75, 0x74, 0x70, 0x75, 0x74, 0x20, 0x3d, 0x20, 0x22, 0xC0, 0x22, 0x0a])
        defer { try? FileManager.default.removeItem(at: config) }
        let badConfig = run(["sample", "echo", "x", "--config", config.path])
        #expect(badConfig.status == 7)
        #expect(badConfig.stderr.contains("UTF-8"), "\(badConfig.stderr)")
    }

    @Test func secretFilesReadableByOthersAreRefused() throws {
        let data = try temporaryFile(Array("x".utf8))
        let open = try temporaryFile(Array("secret".utf8), mode: 0o644)
        let closed = try temporaryFile(Array("secret".utf8), mode: 0o600)
        defer { [data, open, closed].forEach { try? FileManager.default.removeItem(at: $0) } }
        let refused = tool(["files", data.path, "--key-file", open.path])
        #expect(refused.status == 7)
        #expect(refused.stderr.contains("is accessible by group and others (mode 0644)"))
        #expect(refused.stderr.contains("chmod 600"))
        #expect(tool(["files", data.path, "--key-file", closed.path]).status == 0)
    }
}

@Suite(.serialized, .offPool) struct StreamTests {
    @Test func jsonIsOneDocumentAndJsonlOneLinePerItem() throws {
        let json = tool(["stream", "-n", "3", "-o", "json"])
        let document = try JSONValue.parse(json.stdout)
        #expect(document.arrayValue?.count == 4, "three items and the final result, in one array")
        #expect(document.arrayValue?.last?["done"] == true)
        let lines = tool(["stream", "-n", "3", "-o", "jsonl"]).stdout.split(separator: "\n")
        #expect(lines.count == 4)
        #expect(try lines.allSatisfy { try JSONValue.parse(String($0)).objectValue != nil })
        #expect(tool(["stream", "-n", "0", "-o", "json"]).stdout == "[\n{\"done\":true}\n]\n")
        #expect(tool(["stream", "-n", "2"]).stdout == "item 0\nitem 1\ndone\n")
    }

    @Test func linesAreReadAsTheyComeAndBadOnesReportedInPlace() throws {
        let input: [UInt8] = Array("one\r\ntwo\n".utf8) + [0xFF] + Array("\nfour".utf8)
        let result = tool(["lines", "-", "-o", "jsonl"], stdin: input)
        let items = try result.stdout.split(separator: "\n").map { try JSONValue.parse(String($0)) }
        #expect(items.count == 4)
        #expect(items[0]["text"] == "one")
        #expect(items[2]["error"]?.stringValue?.contains("line 3") == true)
        #expect(items[3]["text"] == "four")
        let long = tool(["lines", "-"], stdin: Array(String(repeating: "x", count: 200).utf8))
        #expect(long.status == 3)
        #expect(long.stderr.contains("line 1 is longer than 64"))
    }
}

@Suite(.serialized, .offPool) struct BatchRunnerTests {
    @Test(arguments: [1, 2, 100])
    func everyLineGetsOneResultInOrder(chunk: Int) throws {
        let input = "{\"n\": 2, \"id\": \"a\"}\n\n{\"n\": 4}\r\n{\"n\": 6}\n"
        let ok = tool(["batch", "-", "--chunk", String(chunk), "-o", "jsonl"], stdin: Array(input.utf8))
        #expect(ok.status == 0, "\(ok.stderr)")
        let results = try ok.stdout.split(separator: "\n").map { try JSONValue.parse(String($0)) }
        #expect(results.map { $0["line"] } == [1, 3, 4], "blank lines are skipped but counted")
        #expect(results[0]["id"] == "a")
        let negative = tool(["batch", "-", "--chunk", String(chunk), "-o", "jsonl"], stdin: Array("{\"n\": 2}\n{\"n\": 3}\n".utf8))
        #expect(negative.status == 1)
        let unusable = tool(["batch", "-", "--chunk", String(chunk), "-o", "json"],
                            stdin: Array("{\"n\": 3}\nnot json\n[1]\n{\"m\": 1}\n{\"n\": 8}\n".utf8))
        #expect(unusable.status == 3, "an unusable line outranks a negative verdict")
        let document = try JSONValue.parse(unusable.stdout)
        #expect(document.arrayValue?.map { $0["line"] } == [1, 2, 3, 4, 5], "one document, every line in order")
        #expect(document.arrayValue?[1]["error"]?["kind"] == "malformed_input")
        #expect(document.arrayValue?[2]["error"]?["message"] == "line is not a JSON object")
        #expect(document.arrayValue?[4]["valid"] == true)
    }
}

/// `BatchRunner.run(…, workers:judgeEach:)`: lines judged in parallel, results exactly as a sequential run gives them.
@Suite(.serialized, .offPool) struct ParallelBatchTests {
    /// Later lines finish first (each waits less than the one before), yet every result comes in input order, blank
    /// and unusable lines included, and the output is byte for byte what one worker gives.
    @Test func resultsKeepInputOrderWhateverFinishesFirst() throws {
        var lines: [String] = []
        for n in 0..<40 {
            lines.append(n % 13 == 5 ? "not json" : n % 11 == 3 ? "" : "{\"n\": \(n), \"ms\": \(40 - n)}")
        }
        let input = Array((lines.joined(separator: "\n") + "\n").utf8)
        let parallel = tool(["parallel", "-", "--workers", "4", "-o", "jsonl"], stdin: input)
        let sequential = tool(["parallel", "-", "--workers", "1", "-o", "jsonl"], stdin: input)
        #expect(parallel.status == 3 && sequential.status == 3, "an unusable line: \(parallel.stderr)")
        let results = try parallel.stdout.split(separator: "\n").map { try JSONValue.parse(String($0)) }
        let expected = lines.indices.filter { !lines[$0].isEmpty }.map { JSONValue.int($0 + 1) }
        #expect(results.map { $0["line"] } == expected, "every non-blank line once, in input order")
        #expect(results.filter { $0["error"] != nil }.count == lines.filter { $0 == "not json" }.count)
        func withoutAtOnce(_ text: String) -> [String] {
            text.split(separator: "\n").map { String($0).replacingOccurrences(of: #","at_once":\d+"#, with: "", options: .regularExpression) }
        }
        #expect(withoutAtOnce(parallel.stdout) == withoutAtOnce(sequential.stdout))
        let text = tool(["parallel", "-", "--workers", "4"], stdin: input)
        let textSequential = tool(["parallel", "-", "--workers", "1"], stdin: input)
        #expect(text.stdout == textSequential.stdout && text.stdout.hasPrefix("line 1: "), "\(text.stdout)")
    }

    /// Lines run in parallel, never more than the workers at once (sleeping lines overlap whatever the load).
    @Test func atMostTheWorkersJudgeAtOnce() throws {
        let input = Array((0..<32).map { "{\"n\": \($0 * 2), \"ms\": 30}" }.joined(separator: "\n").utf8)
        for workers in [1, 3] {
            let result = tool(["parallel", "-", "--workers", String(workers), "-o", "jsonl"], stdin: input)
            #expect(result.status == 0, "\(result.stderr)")
            let atOnce = try result.stdout.split(separator: "\n").compactMap { try JSONValue.parse(String($0))["at_once"]?.int64Value }
            #expect(atOnce.count == 32)
            #expect(atOnce.max() == Int64(workers), "workers \(workers): \(atOnce)")
        }
    }

    /// An error from the judge ends the run as a sequential run would: what came before is out, nothing after.
    @Test func anErrorStopsTheRunAfterTheLinesBeforeIt() throws {
        var lines = (0..<30).map { "{\"n\": \($0 * 2), \"ms\": \(30 - $0)}" }
        lines[12] = "{\"fail\": true, \"ms\": 40}"
        let result = tool(["parallel", "-", "--workers", "4", "-o", "jsonl"], stdin: Array(lines.joined(separator: "\n").utf8))
        #expect(result.status == 3, "\(result.stderr)")
        #expect(result.stderr.contains("line 13 failed on purpose"))
        let results = try result.stdout.split(separator: "\n").map { try JSONValue.parse(String($0)) }
        #expect(results.map { $0["line"] } == (1...12).map { JSONValue.int($0) })
    }
}

@Suite(.serialized, .offPool) struct ConditionalStreamTests {
    @Test func aSingleVerdictStaysOneObjectAndABatchIsOneArray() throws {
        #expect(try JSONValue.parse(tool(["judge", "-o", "json"]).stdout).objectValue != nil)
        let batch = tool(["judge", "--batch", "-", "-o", "json"], stdin: Array("{}\n{}\n".utf8))
        #expect(try JSONValue.parse(batch.stdout).arrayValue?.count == 2, "\(batch.stdout)")
    }
}

@Suite(.serialized, .offPool) struct PromptTests {
    @Test func promptsOnlyOnATerminalAndNeverHang() {
        let yes = run(["confirm"], stdin: "y\n", tty: true, tool: Framework.tool)
        #expect(yes.status == 0 && yes.stderr.contains("Really? [y/N]"), "\(yes.stderr)")
        #expect(run(["confirm"], stdin: "n\n", tty: true, tool: Framework.tool).status == 1)
        let script = run(["confirm"], stdin: "y\n", tty: false, tool: Framework.tool)
        #expect(script.status == 2 && script.stderr.contains("add --yes"), "\(script.stderr)")
        let disabled = run(["confirm", "--no-input"], stdin: "y\n", tty: true, tool: Framework.tool)
        #expect(disabled.status == 2, "--no-input never asks")
        #expect(run(["confirm", "--yes"], tool: Framework.tool).status == 0)
    }
}

@Suite(.serialized, .offPool) struct DynamicGroupTests {
    let environment = ["HOME": "/nonexistent", "FW_OPERATIONS": "ping,pong"]

    @Test func commandsReadAtRunTimeFollowEachRunsEnvironment() {
        let ping = tool(["api", "ping", "--shade", "green", "-o", "json"], environment: environment)
        #expect(ping.json?["operation"] == "ping" && ping.json?["shade"] == "green", "\(ping.stderr)")
        let absent = tool(["api", "ping"], environment: ["HOME": "/nonexistent"])
        #expect(absent.status == 2, "another run with another environment sees no such command")
        #expect(tool(["api", "--help"], environment: environment).stdout.contains("pong"))
    }

    @Test func theProgramCompletesWhatNoScriptCanKnow() {
        func complete(_ words: [String]) -> [String] {
            tool(["__complete-line", "--"] + words, environment: environment).stdout.split(separator: "\n").map(String.init)
        }
        #expect(complete(["api", "p"]) == ["ping", "pong"])
        #expect(complete(["api", "ping", "--sh"]) == ["--shade"])
        #expect(complete(["api", "ping", "--shade", ""]) == ["red", "green"])
        #expect(complete(["api", "ping", "--shade", "g"]) == ["green"])
        #expect(complete(["named", "--name", ""]) == ["alice", "bob"], "dynamic value lists too")
        #expect(complete(["files", ""]) == ["__file__"])
    }

    @Test func bashDelegatesBelowADynamicGroup() throws {
        let script = tool(["completions", "bash"]).stdout
        let program = script + """

            tool() { [ "$1" = __complete-line ] && shift 2 && [ "$*" = "api p" ] && printf 'ping\\npong\\n'; }
            COMP_WORDS=(tool api p); COMP_CWORD=2; _tool; printf '%s\\n' "${COMPREPLY[@]}"
            """
        let result = try Subprocess.run("/bin/bash", ["-c", program])
        #expect(result.stdoutText == "ping\npong\n", "\(result.stderrText)")
    }
}

@Suite(.serialized, .offPool) struct CapturingGroupTests {
    @Test func wordsAfterTheFirstUnknownOneAreAllPositional() {
        let captured = tool(["catchall", "domains", "list", "--limit", "5", "-Fx", "-o", "json", "--", "-q"])
        #expect(captured.status == 0, "\(captured.stderr)")
        #expect(captured.json?["words"] == ["domains", "list", "--limit", "5", "-Fx", "--", "-q"], "global options still apply")
        #expect(tool(["catchall", "-o", "json", "say", "--help"]).stdout.contains("USAGE: tool catchall say"), "subcommands still resolve")
        let help = tool(["catchall"])
        #expect(help.status == 0 && help.stdout.contains("OVERVIEW: Answers unknown words."), "no words: its help")
    }
}

@Suite(.serialized, .offPool) struct InterruptTests {
    @Test func anInterruptedCommandExits130ForSIGINTAnd143ForSIGTERM() {
        let int = tool(["interrupted", "int", "-o", "json"])
        #expect(int.status == 130)
        #expect(int.json?["cleaned_up"] == true, "the command still reported what it did")
        #expect(tool(["interrupted", "term"]).status == 143)
    }
}

@Suite(.serialized, .offPool) struct ConfigurationTests {
    @Test func profilesOverrideTopLevelKeys() throws {
        let config = try temporaryFile(Array("[sample]\ncount = 3\n[profiles.work.sample]\ncount = 9\n".utf8))
        defer { try? FileManager.default.removeItem(at: config) }
        let base = ["sample", "echo", "x", "-o", "json", "--config", config.path]
        #expect(run(base).json?["count"] == 3)
        #expect(run(base + ["--profile", "work"]).json?["count"] == 9)
        #expect(run(base, environment: ["HOME": "/nonexistent", "OMNI_PROFILE": "work"]).json?["count"] == 9)
        let unknown = run(base + ["--profile", "play"])
        #expect(unknown.status == 7)
        #expect(unknown.stderr.contains("unknown profile 'play'"))
        #expect(unknown.stderr.contains("it defines work"))
    }

    @Test func unknownKeysAreReportedWithASuggestion() throws {
        let config = try temporaryFile(Array("[sample]\ncont = 3\n".utf8))
        defer { try? FileManager.default.removeItem(at: config) }
        let result = run(["sample", "echo", "x", "--config", config.path])
        #expect(result.status == 0)
        #expect(result.stderr.contains("unknown key 'sample.cont'"), "\(result.stderr)")
        #expect(result.stderr.contains("did you mean 'sample.count'"))
    }
}

@Suite(.serialized, .offPool) struct TextOutputTests {
    @Test func tablesAlignOnATerminalAndAreTabSeparatedOtherwise() {
        let piped = tool(["table"]).stdout
        #expect(piped == "alice\tkey\nbob smith\tdelegated\n")
        let terminal = tool(["table"], tty: true).stdout
        #expect(terminal.contains("NAME"))
        #expect(terminal.contains("alice      key"))
    }

    @Test func controlCharactersNeverReachTheTerminal() {
        let hostile = "title\u{1B}]0;pwned\u{07}\u{1B}[2Jend\u{9B}31m"
        let result = tool(["say", hostile])
        #expect(!result.stdout.contains("\u{1B}"), "\(result.stdout.debugDescription)")
        #expect(result.stdout.contains("\\x1B]0;pwned\\x07"))
        #expect(result.stdout.contains("\\x9B"))
        #expect(!result.stderr.contains("\u{1B}"))
        let json = tool(["say", hostile, "-o", "json"])
        #expect(json.json?["text"]?.stringValue == hostile, "JSON carries the exact text, escaped by JSON")
        #expect(TerminalText.sanitized("\u{1B}[31mred\u{1B}[0m", styled: true) == "\u{1B}[31mred\u{1B}[0m")
        #expect(TerminalText.sanitized("\u{1B}[8mhidden", styled: true) == "\\x1B[8mhidden", "only our own codes pass")
    }
}

@Suite(.serialized, .offPool) struct BuiltinParsingTests {
    @Test func parseChecksACommandLineWithoutRunningIt() {
        let ok = tool(["__parse", "--", "stream", "-n", "3", "-o", "json"])
        #expect(ok.status == 0, "\(ok.stderr)")
        #expect(ok.stdout.contains("tool stream"))
        #expect(tool(["__parse", "--", "relations", "--alpha", "a", "--beta", "b"]).status == 2)
        #expect(tool(["__parse", "--", "stream", "--bogus"]).status == 2)
    }

    @Test func dynamicCompletionsListTheirValues() {
        #expect(tool(["__complete", "names"]).stdout == "alice\nbob\n")
        #expect(tool(["__complete", "nothing"]).status == 2)
    }

    /// `source <(tool completions zsh)` registers the function, as kubectl's script does.
    @Test func zshScriptWorksWhenSourced() throws {
        guard FileManager.default.fileExists(atPath: "/usr/bin/zsh") else {
            Issue.record("zsh is not installed (make test-deps installs it)")
            return
        }
        let script = tool(["completions", "zsh"]).stdout
        let file = try temporaryFile(Array(script.utf8))
        defer { try? FileManager.default.removeItem(at: file) }
        let program = "autoload -Uz compinit && compinit -u -D; source \(file.path); print -r -- ${_comps[tool]}"
        let result = try Subprocess.run("/usr/bin/zsh", ["-f", "-c", program])
        #expect(result.stdoutText.trimmingCharacters(in: .whitespacesAndNewlines) == "_tool", "\(result.stderrText)")
    }

    @Test func bashAsksTheProgramForDynamicValues() throws {
        let script = tool(["completions", "bash"]).stdout
        let program = script + """

            tool() { [ "$1" = __complete ] && [ "$2" = names ] && printf 'alice\\nbob\\n'; }
            COMP_WORDS=(tool named --name a); COMP_CWORD=3; _tool; printf '%s\\n' "${COMPREPLY[@]}"
            """
        let result = try Subprocess.run("/bin/bash", ["-c", program])
        #expect(result.stdoutText == "alice\n", "\(result.stderrText)")
    }
}
