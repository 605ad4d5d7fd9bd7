import Foundation
import Testing
import OmniCodec
import OmniTestSupport

/// The acceptance lines of the foundation issue, checked against the real binary.
@Suite(.serialized, .offPool) struct FoundationEndToEndTests {
    @Test func helpListsTheTrees() throws {
        let result = try Omni.run(["--help"])
        #expect(result.status == 0)
        for word in ["OVERVIEW:", "USAGE:", "version", "completions", "help", "GLOBAL OPTIONS:", "--output"] {
            #expect(result.stdoutText.contains(word), "help lacks \(word)")
        }
        #expect(result.stderr.isEmpty)
    }

    @Test func unknownCommandExitsTwoWithASuggestion() throws {
        let result = try Omni.run(["nosuch"])
        #expect(result.status == 2)
        #expect(result.stdout.isEmpty)
        #expect(result.stderrText.contains("unknown command 'nosuch'"))
        let typo = try Omni.run(["verison"])
        #expect(typo.status == 2)
        #expect(typo.stderrText.contains("did you mean 'omni version'?"))
    }

    @Test func versionAsJSON() throws {
        let result = try Omni.run(["version", "--output", "json"])
        #expect(result.status == 0)
        let json = try JSONValue.parse(Array(result.stdout))
        #expect(json["format_version"] == 2)
        for key in ["version", "commit", "build_date", "target", "swift_version"] {
            #expect(json[key]?.stringValue?.isEmpty == false, "\(key) missing")
        }
        #expect(json["libraries"] == nil, "libraries only with --libraries")
        let full = try JSONValue.parse(Array(try Omni.run(["version", "--libraries", "--output", "json"]).stdout))
        for key in ["openssl", "libsodium", "libcurl", "sqlite"] {
            #expect(full["libraries"]?[key]?.stringValue?.isEmpty == false, "libraries.\(key) missing")
        }
        #expect(full["libraries"]?["openssl"]?.stringValue?.hasPrefix("OpenSSL 3") == true)
        let bare = try Omni.run(["--version"])
        #expect(bare.stdoutText == (json["version"]?.stringValue ?? "") + "\n")
    }

    @Test func exitCodesTopicMatchesTheTable() throws {
        let result = try Omni.run(["help", "exit-codes"])
        #expect(result.status == 0)
        for line in ["0    success", "2    usage error", "130  interrupted"] {
            #expect(result.stdoutText.contains(line), "missing '\(line)'")
        }
    }

    @Test func jsonErrorsAreOneObjectOnStderr() throws {
        let result = try Omni.run(["version", "--bogus", "--output", "json"])
        #expect(result.status == 2)
        #expect(result.stdout.isEmpty)
        let json = try JSONValue.parse(Array(result.stderr))
        #expect(json["error"]?["exit_code"] == 2)
        #expect(json["error"]?["kind"] == "usage")
    }

    @Test func completionFilesAreCurrent() throws {
        for (shell, file) in [("bash", "omni.bash"), ("zsh", "_omni"), ("fish", "omni.fish")] {
            let generated = try Omni.run(["completions", shell])
            #expect(generated.status == 0)
            let committed = try Data(contentsOf: Repository.root.appendingPathComponent("completions/" + file))
            #expect(generated.stdout == committed, "completions/\(file) is stale: run 'make completions'")
        }
    }

    @Test func referenceDocsAreCurrent() throws {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("omni-docs-\(UUID())")
        defer { try? FileManager.default.removeItem(at: directory) }
        let result = try Omni.run(["__generate-docs", directory.path, "--quiet"])
        #expect(result.status == 0, "\(result.stderrText)")
        let enumerator = FileManager.default.enumerator(atPath: directory.path)
        var count = 0
        while let relative = enumerator?.nextObject() as? String {
            guard relative.hasSuffix(".md") else { continue }
            count += 1
            let generated = try Data(contentsOf: directory.appendingPathComponent(relative))
            let committed = try? Data(contentsOf: Repository.root.appendingPathComponent("docs/" + relative))
            #expect(generated == committed, "docs/\(relative) is stale: run 'make docs'")
        }
        #expect(count >= 4)
    }

    @Test func noColorWhenPiped() throws {
        let result = try Omni.run(["nosuch"], environment: ["FORCE_COLOR": ""])
        #expect(!result.stderrText.contains("\u{1B}["))
    }
}

@Suite(.serialized, .offPool) struct InterruptEndToEndTests {
    /// True once /proc says the process is in the read system call (what a batch on an idle pipe waits in).
    static func waitUntilBlockedInRead(_ pid: Int32, timeout: TimeInterval = 10) -> Bool {
        #if arch(x86_64)
        let readSyscall = "0"
        #else
        let readSyscall = "63"
        #endif
        let deadline = Date().addingTimeInterval(timeout)
        while Date() < deadline {
            if let text = try? String(contentsOfFile: "/proc/\(pid)/syscall", encoding: .utf8),
               text.split(separator: " ").first.map(String.init) == readSyscall,
               text.split(separator: " ").dropFirst().first == "0x0" {
                return true
            }
            usleep(2000)
        }
        return false
    }

    /// A command blocked on stdin exits 130 promptly on SIGINT (and 143 on SIGTERM).
    @Test(arguments: [(SIGINT, Int32(130)), (SIGTERM, Int32(143))])
    func signalsExitQuickly(signal: Int32, expected: Int32) throws {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: Omni.executable)
        process.arguments = ["ic", "bls", "verify", "--batch", "-"]
        process.environment = Omni.environment()
        let input = Pipe()
        process.standardInput = input
        process.standardOutput = FileHandle.nullDevice
        process.standardError = FileHandle.nullDevice
        try process.run()
        defer { try? input.fileHandleForWriting.close() }
        // The signal must arrive while omni blocks reading stdin (handlers installed), not while it starts up:
        // wait for the kernel to report it inside read(2).
        #expect(Self.waitUntilBlockedInRead(process.processIdentifier), "omni never blocked reading stdin")
        kill(process.processIdentifier, signal)
        let deadline = Date().addingTimeInterval(5)
        while process.isRunning && Date() < deadline { Thread.sleep(forTimeInterval: 0.01) }
        #expect(!process.isRunning, "omni did not exit within 5 s of the signal")
        if process.isRunning { process.terminate() }
        process.waitUntilExit()
        #expect(process.terminationStatus == expected)
    }
}
