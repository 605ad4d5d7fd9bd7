import Foundation
import Testing
import OmniCLI
import OmniCodec

@Suite(.serialized, .offPool) struct HelpTests {
    @Test func everyFormOfHelpPrintsTheSameTextToStdout() {
        let forms = [["help", "sample", "echo"], ["sample", "echo", "--help"], ["sample", "echo", "-h"],
                     ["sample", "--help", "echo"]]
        let outputs = forms.map { run($0) }
        for (form, output) in zip(forms, outputs) {
            #expect(output.status == 0, "\(form)")
            #expect(output.stdout == outputs[0].stdout, "\(form)")
        }
        let text = outputs[0].stdout
        #expect(text.contains("OVERVIEW: Echo parameters back as JSON."))
        #expect(text.contains("USAGE: tool sample echo"))
        #expect(text.contains("ARGUMENTS:"))
        #expect(text.contains("-n, --count <count>"))
        #expect(text.contains("default: 1; env: OMNI_COUNT"))
        #expect(text.contains("values: fast, slow"))
        #expect(text.contains("EXAMPLES:"))
    }

    @Test func rootHelpListsSectionsAndTopics() {
        for arguments in [[], ["--help"], ["help"]] {
            let result = run(arguments)
            #expect(result.status == 0)
            #expect(result.stdout.contains("SAMPLES:"))
            #expect(result.stdout.contains("sample"))
            #expect(result.stdout.contains("HELP TOPICS:"))
            #expect(result.stdout.contains("GLOBAL OPTIONS:"))
            #expect(!result.stdout.contains("__dump-help"), "hidden commands stay hidden")
        }
    }

    @Test func helpTopicsAndUnknownHelp() {
        #expect(run(["help", "exit-codes"]).stdout.contains("0 ok"))
        let unknown = run(["help", "sampel"])
        #expect(unknown.status == 2)
        #expect(unknown.stderr.contains("did you mean 'tool help sample'"))
    }

    @Test func dumpHelpIsVersionedJSON() throws {
        let result = run(["__dump-help", "-o", "json"])
        let json = try #require(result.json)
        #expect(json["serialization_version"] == 1)
        #expect(json["command"]?["subcommands"]?.arrayValue?.first?["name"] == "sample")
    }
}

@Suite(.serialized, .offPool) struct CompletionTests {
    @Test(arguments: Shell.allCases)
    func scriptsMentionEveryCommandAndOption(shell: Shell) {
        let result = run(["completions", shell.rawValue])
        #expect(result.status == 0)
        for word in ["sample", "echo", "--count", "--mode", "fast", "--output"] {
            #expect(result.stdout.contains(word), "\(shell) script lacks \(word)")
        }
    }

    /// Drives the generated bash script in a real bash: COMP_WORDS in, COMPREPLY out.
    @Test func bashScriptCompletesInARealShell() throws {
        let script = run(["completions", "bash"]).stdout
        func complete(_ words: [String]) throws -> [String] {
            let quoted = words.map { "'\($0)'" }.joined(separator: " ")
            let program = script + "\nCOMP_WORDS=(\(quoted)); COMP_CWORD=\(words.count - 1); _tool; printf '%s\\n' \"${COMPREPLY[@]}\""
            let result = try Subprocess.run("/bin/bash", ["-c", program])
            return result.stdoutText.split(separator: "\n").map(String.init)
        }
        #expect(try complete(["tool", "sa"]) == ["sample"])
        #expect(try complete(["tool", "sample", ""]).sorted() == ["crash", "echo", "fail"])
        #expect(try complete(["tool", "sample", "echo", "--mo"]) == ["--mode"])
        #expect(try complete(["tool", "sample", "echo", "--mode", ""]).sorted() == ["fast", "slow"])
        #expect(try complete(["tool", "--output", "json", "sample", "echo", "--co"]).sorted() == ["--color", "--config", "--count"])
        #expect(try complete(["tool", "sample", "echo", "--data", ""]).isEmpty, "free-form values offer nothing")
        #expect(try complete(["tool", "sample", "echo", "--count", "3", ""]).isEmpty == false, "after a value: files")
    }
}

import OmniTestSupport

@Suite(.serialized, .offPool) struct ShellSyntaxTests {
    /// zsh and fish parse their scripts (`-n`), and fish completes through the real `complete -C`.
    @Test func zshAndFishAcceptTheScripts() throws {
        for (shell, path) in [("zsh", "/usr/bin/zsh"), ("fish", "/usr/bin/fish")] {
            #expect(FileManager.default.isExecutableFile(atPath: path), "\(shell) is needed: make test-deps installs it")
            let script = FileManager.default.temporaryDirectory.appendingPathComponent("omni-\(shell)-\(UUID())")
            try run(["completions", shell]).stdout.write(to: script, atomically: true, encoding: .utf8)
            defer { try? FileManager.default.removeItem(at: script) }
            let check = try Subprocess.run(path, ["-n", script.path])
            #expect(check.status == 0, "\(shell) -n: \(check.stderrText)")
        }
        let script = run(["completions", "fish"]).stdout
        let file = FileManager.default.temporaryDirectory.appendingPathComponent("omni-fish-\(UUID()).fish")
        try script.write(to: file, atomically: true, encoding: .utf8)
        defer { try? FileManager.default.removeItem(at: file) }
        let completed = try Subprocess.run("/usr/bin/fish", ["-c", "source \(file.path); complete -C 'tool sample echo --mode '"])
        #expect(completed.stdoutText.split(separator: "\n").map { String($0.split(separator: "\t")[0]) }.sorted() == ["fast", "slow"])
    }
}
