import Foundation
import Testing
import OmniCLI
import OmniCodec

/// A command's own names for the global `--output` (`Command(…, outputAliases:)`).
@Suite struct OutputAliasTests {
    static let show = Command(
        "show", abstract: "Show a value.", outputAliases: [OutputAlias("pretty", as: .text, meaning: "prettier text"),
                                                          OutputAlias("machine", as: .json, meaning: "for machines")]
    ) { _ in
        .output(SimpleOutput(text: "shown", json: ["shown": true]))
    }

    static let plain = Command("plain", abstract: "No aliases.") { _ in
        .output(SimpleOutput(text: "plain", json: ["plain": true]))
    }

    static let tool = CommandLineTool(
        name: "tool", version: "1",
        root: Command("tool", abstract: "A test tool.", subcommands: [
            Command("group", abstract: "Commands.", subcommands: [show, plain]),
        ]),
        errorMapper: { _ in nil })

    @Test func aliasesSelectTheirFormatWhereverTheyAppear() {
        for arguments in [["group", "show", "--output", "pretty"], ["--output", "pretty", "group", "show"],
                          ["-o", "pretty", "group", "show"], ["group", "show", "--output=pretty"]] {
            let result = run(arguments, tool: Self.tool)
            #expect(result.status == 0, "\(arguments): \(result.stderr)")
            #expect(result.stdout == "shown\n", "\(arguments)")
        }
        let machine = run(["group", "show", "-o", "machine"], tool: Self.tool)
        #expect(machine.json?["shown"] == true)
        let global = run(["group", "show", "-o", "json"], tool: Self.tool)
        #expect(global.json?["shown"] == true, "the global names still work")
    }

    @Test func anAliasIsRefusedWhereTheCommandDoesNotDeclareIt() {
        let result = run(["group", "plain", "--output", "pretty"], tool: Self.tool)
        #expect(result.status == 2)
        #expect(result.stderr.contains("invalid value 'pretty' for --output: expected one of text, json"))
        let unknown = run(["group", "show", "--output", "yaml"], tool: Self.tool)
        #expect(unknown.status == 2)
        #expect(unknown.stderr.contains("expected one of text, json, jsonl, machine, pretty"))
    }

    @Test func theEnvironmentKeepsTheGlobalNames() {
        let result = run(["group", "show"], environment: ["HOME": "/nonexistent", "OMNI_OUTPUT": "pretty"], tool: Self.tool)
        #expect(result.status == 7, "\(result.stderr)")
    }

    @Test func helpDocsAndCompletionsListTheAliases() throws {
        let help = run(["group", "show", "--help"], tool: Self.tool)
        #expect(help.stdout.contains("-o, --output <format>"))
        let words = help.stdout.split(whereSeparator: \.isWhitespace).joined(separator: " ")
        #expect(words.contains("Also accepted here: machine (for machines), pretty (prettier text)."))
        #expect(!run(["group", "plain", "--help"], tool: Self.tool).stdout.contains("prettier text"))
        let bash = run(["completions", "bash"], tool: Self.tool)
        #expect(bash.stdout.contains("'tool group show|--output') echo 'text json jsonl machine pretty'"))
        #expect(bash.stdout.contains("'tool group plain|--output') echo 'text json jsonl'"))
        let dump = try #require(try? JSONValue.parse(run(["__dump-help"], tool: Self.tool).stdout))
        let group = dump["command"]?["subcommands"]?.arrayValue?.first
        let show = group?["subcommands"]?.arrayValue?.first
        #expect(show?["output_aliases"]?["machine"]?["format"] == "json")
        #expect(show?["output_aliases"]?["pretty"]?["meaning"] == "prettier text")
    }
}
