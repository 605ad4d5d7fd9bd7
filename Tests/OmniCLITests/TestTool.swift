import Foundation
import OmniCLI
import OmniCodec

/// A small tool tree exercising every parameter shape, and a harness that runs it with in-memory streams.
enum Sample {
    enum Mode: String, CaseIterable, ArgumentValue { case fast, slow }

    static let count = DefaultedOption<Int>("count", short: "n", help: "How many.", default: 1, environment: "OMNI_COUNT",
                                            config: "sample.count")
    static let mode = DefaultedOption<Mode>("mode", help: "Speed.", default: .fast, config: "sample.mode")
    static let tag = RepeatedOption<String>("tag", short: "t", help: "A tag.")
    static let data = Option<String>("data", help: "Some data.", source: .content)
    static let timeout = DefaultedOption<Duration>("timeout", help: "How long.", default: .seconds(30))
    static let loud = Flag("loud", short: "l", help: "Shout.", environment: "OMNI_LOUD")
    static let input = Argument<String>("INPUT", help: "The input.", source: .content)
    static let extra = VariadicArgument<String>("EXTRA", help: "More words.")

    static let echo = Command(
        "echo", abstract: "Echo parameters back as JSON.",
        options: [count, mode, tag, data, timeout, loud], arguments: [input, extra],
        examples: [Example("tool sample echo hello", "Echo hello.")]
    ) { invocation in
        var object = JSONObject()
        object["count"] = .int(try invocation.value(count))
        object["mode"] = .string(try invocation.value(mode).rawValue)
        object["tags"] = .array(try invocation.value(tag).map { .string($0) })
        object["data"] = try invocation.text(of: data).map { .string($0) } ?? .null
        object["timeout"] = .double(try invocation.value(timeout).secondsValue)
        object["loud"] = .bool(try invocation.value(loud))
        object["input"] = .string(try invocation.text(of: input) ?? "")
        object["extra"] = .array(try invocation.value(extra).map { .string($0) })
        return .output(SimpleOutput(text: "echoed", json: .object(object)))
    }

    static let fail = Command("fail", abstract: "Return a negative answer.") { _ in
        .output(SimpleOutput(text: "nope", json: ["valid": false]), exitCode: .failure)
    }

    static let crash = Command("crash", abstract: "Throw an unknown error.") { _ in
        struct Unknown: Error {}
        throw Unknown()
    }

    static let tool = CommandLineTool(
        name: "tool", version: "9.9.9",
        root: Command("tool", abstract: "A test tool.", subcommands: [
            Command("sample", abstract: "Sample commands.", subcommands: [echo, fail, crash], section: "Samples"),
        ]),
        topics: [HelpTopic("exit-codes", abstract: "Codes.", body: "0 ok")],
        errorMapper: { _ in nil })
}

struct Run {
    var status: Int32
    var stdout: String
    var stderr: String

    var json: JSONValue? { try? JSONValue.parse(stdout) }
    var errorJSON: JSONValue? { try? JSONValue.parse(stderr) }
}

func run(_ arguments: [String], environment: [String: String] = ["HOME": "/nonexistent"], stdin: String? = nil,
         stdinBytes: [UInt8]? = nil, tty: Bool = false, tool: CommandLineTool = Sample.tool) -> Run {
    final class Buffer: @unchecked Sendable { var out = "", err = "" }
    let buffer = Buffer()
    let streams = StandardStreams(
        stdoutIsTerminal: tty, stderrIsTerminal: tty, stdinIsTerminal: tty || (stdin == nil && stdinBytes == nil),
        terminalWidth: tty ? 80 : nil,
        writeOut: { buffer.out += $0 }, writeErr: { buffer.err += $0 },
        writeOutBytes: { buffer.out += String(decoding: $0, as: UTF8.self) },
        readIn: { stdinBytes ?? Array((stdin ?? "").utf8) })
    let status = tool.execute(arguments, environment: environment, streams: streams)
    return Run(status: status, stdout: buffer.out, stderr: buffer.err)
}
