import Foundation
import Testing
import OmniCLI
import OmniCodec

@Suite struct ParsingTests {
    @Test func longShortAndEqualsFormsAreEquivalent() throws {
        for arguments in [["--count", "5"], ["--count=5"], ["-n", "5"], ["-n5"]] {
            let result = run(["sample", "echo", "x"] + arguments + ["-o", "json"])
            #expect(result.status == 0, "\(arguments): \(result.stderr)")
            #expect(result.json?["count"] == .number("5"), "\(arguments)")
        }
    }

    @Test func globalOptionsWorkAnywhere() {
        let before = run(["--output", "json", "sample", "echo", "x"])
        let after = run(["sample", "echo", "x", "--output=json"])
        #expect(before.json != nil && before.json == after.json)
    }

    @Test func repeatedOptionsKeepOrder() {
        let result = run(["sample", "echo", "x", "-t", "a", "--tag", "b", "--tag=c", "-o", "json"])
        #expect(result.json?["tags"] == ["a", "b", "c"])
    }

    @Test func nonRepeatingOptionTwiceIsAUsageError() {
        let result = run(["sample", "echo", "x", "--count", "1", "--count", "2"])
        #expect(result.status == 2)
        #expect(result.stderr.contains("--count given more than once"))
    }

    @Test func typedValuesAreValidated() {
        let bad = run(["sample", "echo", "x", "--count", "many"])
        #expect(bad.status == 2)
        #expect(bad.stderr.contains("invalid value 'many' for --count: expected an integer"))
        let badEnum = run(["sample", "echo", "x", "--mode", "medium"])
        #expect(badEnum.status == 2)
        #expect(badEnum.stderr.contains("expected one of fast, slow"))
        let duration = run(["sample", "echo", "x", "--timeout", "5m", "-o", "json"])
        #expect(duration.json?["timeout"] == .number("300"))
    }

    @Test func negativeNumbersAreValuesNotOptions() {
        let result = run(["sample", "echo", "x", "--count", "-3", "-o", "json"])
        #expect(result.json?["count"] == .number("-3"))
    }

    @Test func pemBlocksAreValuesNotOptions() {
        let pem = "-----BEGIN PUBLIC KEY-----\nMFkw\n-----END PUBLIC KEY-----"
        let result = run(["sample", "echo", pem, "--data", pem, "-o", "json"])
        #expect(result.status == 0, "\(result.stderr)")
        #expect(result.json?["input"] == .string(pem))
        #expect(result.json?["data"] == .string(pem))
    }

    @Test func doubleDashEndsOptions() {
        let result = run(["sample", "echo", "-o", "json", "--", "--not-an-option", "-x"])
        #expect(result.status == 0, "\(result.stderr)")
        #expect(result.json?["input"] == "--not-an-option")
        #expect(result.json?["extra"] == ["-x"])
    }

    @Test func clusteredShortFlags() {
        let result = run(["sample", "echo", "x", "-lq", "-o", "json"])
        #expect(result.json?["loud"] == true)
    }

    @Test func flagRejectsAValue() {
        let result = run(["sample", "echo", "x", "--loud=yes"])
        #expect(result.status == 2)
        #expect(result.stderr.contains("--loud takes no value"))
    }

    @Test func missingValueAndMissingArgument() {
        #expect(run(["sample", "echo", "x", "--count"]).stderr.contains("--count needs a value"))
        // A value starting with '-' (a base64url id, 1 in 64 of them) is an option after a space: the hint spells it.
        let dashValue = run(["sample", "echo", "x", "--count", "-onSt"])
        #expect(dashValue.status == 2)
        #expect(dashValue.stderr.contains("--count needs a value") && dashValue.stderr.contains("did you mean '--count=-onSt'?"),
                "\(dashValue.stderr)")
        let missing = run(["sample", "echo"])
        #expect(missing.status == 2)
        #expect(missing.stderr.contains("missing argument <input>"))
    }

    @Test func unknownCommandSuggestsTheClosest() {
        let result = run(["sampel", "echo"])
        #expect(result.status == 2)
        #expect(result.stderr.contains("unknown command 'sampel'"))
        #expect(result.stderr.contains("did you mean 'tool sample'?"))
        #expect(result.stderr.split(separator: "\n").count == 1, "one concise line")
        let nested = run(["sample", "ecoh"])
        #expect(nested.stderr.contains("did you mean 'tool sample echo'?"))
    }

    @Test func unknownOptionSuggestsTheClosest() {
        let result = run(["sample", "echo", "x", "--cuont", "3"])
        #expect(result.status == 2)
        #expect(result.stderr.contains("unknown option '--cuont'"))
        #expect(result.stderr.contains("did you mean '--count'?"))
        let global = run(["sample", "echo", "x", "--ouput", "json"])
        #expect(global.stderr.contains("did you mean '--output'?"))
    }

    @Test func usageErrorsInJSONModeAreOneObjectOnStderr() throws {
        let result = run(["nosuch", "-o", "json"])
        #expect(result.status == 2)
        #expect(result.stdout.isEmpty)
        let error = try #require(result.errorJSON?["error"])
        #expect(error["kind"] == "usage")
        #expect(error["exit_code"] == .number("2"))
        #expect(error["message"]?.stringValue?.contains("unknown command 'nosuch'") == true)
    }

    @Test func tooManyArgumentsForAFixedCommand() {
        let result = run(["sample", "fail", "extra"])
        #expect(result.status == 2)
        #expect(result.stderr.contains("unexpected argument 'extra'"))
    }
}

@Suite struct ValueSourceTests {
    @Test func contentValuesReadFilesAndStdin() throws {
        let file = FileManager.default.temporaryDirectory.appendingPathComponent("omni-cli-\(UUID()).txt")
        try "from file\n".write(to: file, atomically: true, encoding: .utf8)
        defer { try? FileManager.default.removeItem(at: file) }

        let literal = run(["sample", "echo", "plain", "-o", "json"])
        #expect(literal.json?["input"] == "plain")
        let fromFile = run(["sample", "echo", "@" + file.path, "--data", "@" + file.path, "-o", "json"])
        #expect(fromFile.json?["input"] == "from file\n")
        #expect(fromFile.json?["data"] == "from file\n")
        let fromStdin = run(["sample", "echo", "-", "-o", "json"], stdin: "piped")
        #expect(fromStdin.json?["input"] == "piped")
        let escaped = run(["sample", "echo", "@@handle", "-o", "json"])
        #expect(escaped.json?["input"] == "@handle")
    }

    @Test func missingFileIsMalformedInputWithThePath() {
        let result = run(["sample", "echo", "@/nonexistent/file.txt"])
        #expect(result.status == 3)
        #expect(result.stderr.contains("no such file '/nonexistent/file.txt'"))
    }

    /// Reading /proc/self/mem at offset 0 fails with EIO: a read error must not become an empty value.
    @Test func unreadableFileIsMalformedInputNotEmpty() {
        let result = run(["sample", "echo", "@/proc/self/mem", "-o", "json"])
        #expect(result.status == 3, "\(result.stdout)")
        #expect(result.stderr.contains("cannot read '/proc/self/mem'"), "\(result.stderr)")
    }

    @Test func stdinFromATerminalIsRefused() {
        let result = run(["sample", "echo", "-"], stdin: nil)
        #expect(result.status == 2)
        #expect(result.stderr.contains("stdin is a terminal"))
    }
}

@Suite struct PrecedenceTests {
    func withConfig(_ text: String, _ body: (String) -> Void) throws {
        let file = FileManager.default.temporaryDirectory.appendingPathComponent("omni-config-\(UUID()).toml")
        try text.write(to: file, atomically: true, encoding: .utf8)
        defer { try? FileManager.default.removeItem(at: file) }
        body(file.path)
    }

    @Test func flagBeatsEnvBeatsConfigBeatsDefault() throws {
        try withConfig("[sample]\ncount = 7\nmode = \"slow\"") { path in
            let base = ["sample", "echo", "x", "-o", "json", "--config", path]
            #expect(run(base).json?["count"] == .number("7"), "config beats default")
            #expect(run(base).json?["mode"] == "slow")
            #expect(run(base, environment: ["OMNI_COUNT": "8"]).json?["count"] == .number("8"), "env beats config")
            #expect(run(base + ["-n", "9"], environment: ["OMNI_COUNT": "8"]).json?["count"] == .number("9"))
        }
        #expect(run(["sample", "echo", "x", "-o", "json"]).json?["count"] == .number("1"), "default")
    }

    @Test func configFileFromXDGAndEnvironment() throws {
        let dir = FileManager.default.temporaryDirectory.appendingPathComponent("omni-xdg-\(UUID())")
        try FileManager.default.createDirectory(at: dir.appendingPathComponent("omni"), withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: dir) }
        try "output = \"json\"".write(to: dir.appendingPathComponent("omni/config.toml"), atomically: true, encoding: .utf8)
        let result = run(["sample", "echo", "x"], environment: ["XDG_CONFIG_HOME": dir.path])
        #expect(result.json != nil, "output = json from the XDG config: \(result.stdout)")
    }

    @Test func badEnvironmentAndConfigValuesAreConfigurationErrors() throws {
        let env = run(["sample", "echo", "x"], environment: ["OMNI_COUNT": "lots"])
        #expect(env.status == 7)
        #expect(env.stderr.contains("OMNI_COUNT='lots' is invalid"))
        try withConfig("sample.count = \"lots\"") { path in
            let result = run(["sample", "echo", "x", "--config", path])
            #expect(result.status == 7)
            #expect(result.stderr.contains("config key 'sample.count'"))
        }
        try withConfig("not a toml line") { path in
            #expect(run(["sample", "echo", "x", "--config", path]).status == 7)
        }
        #expect(run(["sample", "echo", "x", "--config", "/nonexistent/config.toml"]).status == 7)
    }

    @Test func flagsFallBackToEnvironment() {
        #expect(run(["sample", "echo", "x", "-o", "json"], environment: ["OMNI_LOUD": "1"]).json?["loud"] == true)
        #expect(run(["sample", "echo", "x", "-o", "json"], environment: ["OMNI_LOUD": "0"]).json?["loud"] == false)
    }
}

@Suite struct OutcomeTests {
    @Test func negativeAnswerExitsOneWithItsOutput() {
        let result = run(["sample", "fail", "-o", "json"])
        #expect(result.status == 1)
        #expect(result.json?["valid"] == false)
    }

    @Test func unknownErrorsAreInternal() {
        let text = run(["sample", "crash"])
        #expect(text.status == 70)
        #expect(text.stderr.hasPrefix("tool: internal error"))
        let json = run(["sample", "crash", "-o", "json"])
        #expect(json.errorJSON?["error"]?["kind"] == "internal")
    }

    @Test func colorFollowsTerminalNoColorAndFlag() {
        let tty = run(["sample", "crash"], tty: true)
        #expect(tty.stderr.contains("\u{1B}["))
        let noColor = run(["sample", "crash"], environment: ["NO_COLOR": "1"], tty: true)
        #expect(!noColor.stderr.contains("\u{1B}["))
        let forced = run(["sample", "crash", "--color", "always"], environment: ["NO_COLOR": "1"])
        #expect(forced.stderr.contains("\u{1B}["))
        let pipe = run(["sample", "crash"])
        #expect(!pipe.stderr.contains("\u{1B}["))
    }
}
