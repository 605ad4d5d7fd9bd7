import OmniCLI
import OmniCodec
import OmniIrd

/// `omni ird jobs run KIND`: enqueue a job, poll it (1 s doubling to 8 s, 120 s unless told), fetch its result.
/// The operations come from the document: the POST whose body has a `kind` enum (the kinds), the poll and result
/// operations its 202 links to (else the override table, then the poll path's `/result`).
enum IrdJobsCommand {
    static let kind = Argument<String>("KIND", help: "The job's kind, one of the document's (domain-availability-bulk, embedding, llm-chat, …).")
    static let input = Option<String>("json", valueName: "JSON", help: "The job's input as a JSON object; -F/-f fields are set on top of it.",
                                      source: .content, group: "Input")
    static let field = RepeatedOption<String>("field", short: "F", valueName: "KEY=VALUE", help: "Set a field of the job's input, typed (true/false/null/numbers as JSON).",
                                              group: "Input")
    static let rawField = RepeatedOption<String>("raw-field", short: "f", valueName: "KEY=VALUE", help: "Set a field of the job's input to a string.",
                                                 group: "Input")

    static let run = Command(
        "run", abstract: "Run a job: enqueue it, wait for it (1 s doubling to 8 s, at most 120 s), print its result.",
        discussion: """
            The job is the document's POST whose body has a 'kind' enum; KIND must be one of its values. Polling \
            follows the 202's links (else omni's reviewed override table); a job that fails prints its final state \
            and exits 1; one still running at the deadline exits 5 (it may still finish: 'omni ird jobs get ID').
            """,
        options: [input, field, rawField] + IrdOptions.waiting + IrdOptions.connection,
        arguments: [kind],
        examples: [Example("omni ird jobs run nlp-detect-language -f text='Bună ziua'", "The language of a text.")]
    ) { invocation in
        let loaded = try IrdDocumentLoader.require(invocation.environment)
        let document = loaded.document
        let wanted = try invocation.value(kind)
        guard let (enqueue, kinds) = enqueueOperation(document) else {
            throw IrdError(.invalidDocument, "the document has no POST operation whose body takes a 'kind' enum: omni cannot tell how to enqueue a job")
        }
        guard kinds.contains(wanted) else {
            throw CLIError.usage("unknown job kind '\(TerminalText.escaped(wanted))'; the document's kinds: \(kinds.joined(separator: ", "))",
                                 suggestion: Suggestions.closest(to: wanted, in: kinds).map { "omni ird jobs run \($0)" },
                                 commandPath: invocation.commandPath)
        }
        var jobInput: JSONValue = .object(JSONObject())
        if let text = try invocation.text(of: input) {
            do throws(CodecError) { jobInput = try JSONValue.parse(text) } catch { throw error.labelled("--json") }
        }
        let fields = try invocation.value(field).map { IrdFields.Field(text: $0, typed: true) }
            + invocation.value(rawField).map { IrdFields.Field(text: $0, typed: false) }
        jobInput = try IrdFields.apply(fields, to: jobInput, schema: nil, document: nil, invocation: invocation) ?? jobInput
        let client = try IrdOptions.client(invocation, document: loaded)
        let request = IrdCallInput(body: .object(JSONObject([("kind", .string(wanted)), ("input", jobInput)])))
        try IrdGate.check(invocation, enqueue, request, client: client)
        let cancellation = IrdOptions.cancellation(invocation)
        let queued = try client.call(enqueue, request, cancellation: cancellation)
        let (poll, pollInput) = try IrdWaiter.poll(for: queued, of: enqueue, request: request, in: document)
        let schedule = try IrdOptions.schedule(invocation, deadline: IrdPollSchedule.standard.deadline)
        let final = try IrdWaiter.wait(client: client, poll: poll, input: pollInput, schedule: schedule, first: queued,
                                       cancellation: cancellation) { state in
            if invocation.streams.stderrIsTerminal { invocation.note("job: \(state)") }
        }
        guard final.outcome == .succeeded else {
            invocation.warn("the job ended \(final.outcome.rawValue)")
            let printed = try IrdAnswers.result(final.answer, invocation: invocation)
            return CommandResult(output: printed.output, exitCode: .failure)
        }
        let (resultOperation, resultInput) = try resultOperation(queued, enqueue: enqueue, poll: poll, pollInput: pollInput, request: request,
                                                                  document: document)
        return try IrdAnswers.result(try client.call(resultOperation, resultInput, cancellation: cancellation), invocation: invocation)
    }

    /// The POST whose body has a `kind` property with an enum, and the enum's values.
    static func enqueueOperation(_ document: OpenAPIDocument) -> (Operation, [String])? {
        for operation in document.operations where operation.method == "POST" {
            guard let body = operation.requestBody?.json?.schema, let kindRef = document[body].property("kind") else { continue }
            let values = document[kindRef].enumValues?.compactMap(\.stringValue) ?? []
            if !values.isEmpty { return (operation, values) }
        }
        return nil
    }

    /// The result: the enqueue answer's link named `result`, else the GET at the poll path + `/result`.
    static func resultOperation(_ queued: IrdAnswer, enqueue: Operation, poll: Operation, pollInput: IrdCallInput, request: IrdCallInput,
                                document: OpenAPIDocument) throws -> (Operation, IrdCallInput) {
        let documented = enqueue.responses.first { $0.matches(queued.status) } ?? enqueue.success
        if let link = documented?.links.first(where: { $0.name == "result" }) {
            return try IrdLinks.follow(link, from: queued, request: request, in: document)
        }
        guard let target = document.operations.first(where: { $0.method == "GET" && $0.path == poll.path + "/result" }) else {
            throw IrdError(.invalidDocument, "\(enqueue.display): the document links to no result operation and has no GET \(poll.path)/result")
        }
        return (target, pollInput)
    }
}
