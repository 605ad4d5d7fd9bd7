import OmniCLI
import OmniCodec
import OmniIrd
import OmniTransport

/// One document operation as a command: path parameters positional, query and header parameters as flags typed by
/// their schemas, the JSON body from `--json` and `-F`/`-f`, help from the document's descriptions.
enum IrdOperationCommand {
    static let json = Option<String>(
        "json", valueName: "JSON",
        help: "The request body as JSON; fields given with -F/-f are set on top of it.",
        source: .content, group: "Body")
    static let field = RepeatedOption<String>(
        "field", short: "F", valueName: "KEY=VALUE",
        help: "Set a body field, typed: the schema's type where it knows the field, else true/false/null/numbers as JSON; "
            + "@FILE reads a file; a.b= nests, a[]= appends.",
        group: "Body")
    static let rawField = RepeatedOption<String>(
        "raw-field", short: "f", valueName: "KEY=VALUE", help: "Set a body field to a string, as typed.", group: "Body")

    static let all = Flag(
        "all",
        help: "Read every page: follow the cursor, or walk the offset until a short page. The page-size flag (--limit) then caps "
            + "the items in all; -o json prints one array of items, -o jsonl one item a line as pages arrive.",
        group: "Pages")

    /// How one parameter is read from the command line.
    enum Input {
        case positional(Argument<String>)
        case optional(Option<String>)
        case required(RequiredOption<String>)
        case repeated(RepeatedOption<String>)

        var display: String {
            switch self {
            case .positional(let argument): argument.displayName
            case .optional(let option): option.displayName
            case .required(let option): option.displayName
            case .repeated(let option): option.displayName
            }
        }

        var declaration: any OptionDeclaration {
            switch self {
            case .optional(let option): option
            case .required(let option): option
            case .repeated(let option): option
            case .positional: fatalError("a positional argument is not an option")
            }
        }
    }

    static func make(_ entry: IrdOperationIndex.Entry, area: String, loaded: IrdLoadedDocument) -> Command {
        let operation = entry.operation
        let document = loaded.document
        var collected: [(Parameter, Input)] = []
        var taken = IrdOptions.reservedFlagNames
        let totpPlacement = IrdTOTPPlacement.of(operation, in: document)
        for parameter in operation.parameters where parameter.location != .cookie {
            let schema = parameter.schema.map { document[$0] }
            let help = parameterHelp(parameter, schema, document)
            let values = schema.flatMap(enumValues) ?? []
            let completion: CompletionHint? = values.isEmpty ? nil : .values(values)
            switch parameter.location {
            case .path:
                collected.append((parameter, .positional(Argument<String>(parameter.name.uppercased(), help: help, completion: completion))))
            case .query, .header:
                if case .parameter(let name, let location) = totpPlacement, name == parameter.name, location == parameter.location { continue }
                var flag = IrdOperationIndex.kebab(parameter.name)
                if flag.isEmpty || taken.contains(flag) {
                    flag = (parameter.location == .header ? "header-" : "param-") + (flag.isEmpty ? "value" : flag)
                }
                var suffix = 2
                let base = flag
                while taken.contains(flag) { flag = base + "-\(suffix)"; suffix += 1 }
                taken.insert(flag)
                let valueName = IrdOperationIndex.kebab(parameter.name).uppercased().replacing("-", with: "_")
                let group = parameter.location == .header ? "Header parameters" : "Query parameters"
                if schema?.types?.contains(.array) == true {
                    let items = schema?.items.map { document[$0] }
                    let itemValues = items.flatMap(enumValues) ?? []
                    collected.append((parameter, .repeated(RepeatedOption<String>(
                        flag, valueName: valueName, help: help, completion: itemValues.isEmpty ? nil : .values(itemValues), group: group))))
                } else if parameter.required {
                    collected.append((parameter, .required(RequiredOption<String>(flag, valueName: valueName, help: help, completion: completion, group: group))))
                } else {
                    let absent = schema?.defaultValue.map { "the service's default, " + IrdAnswerOutput.scalar($0) } ?? "not sent"
                    collected.append((parameter, .optional(Option<String>(flag, valueName: valueName, help: help, absentMeans: absent,
                                                                      completion: completion, group: group))))
                }
            case .cookie:
                continue
            }
        }
        let inputs = collected
        let arguments: [any ArgumentDeclaration] = inputs.compactMap {
            if case .positional(let argument) = $0.1 { return argument }
            return nil
        }
        var options: [any OptionDeclaration] = inputs.compactMap {
            if case .positional = $0.1 { return nil }
            return $0.1.declaration
        }
        let takesBody = operation.requestBody?.json != nil
        if takesBody { options += [json, field, rawField] }
        options += IrdOptions.connection
        if totpPlacement != nil { options.append(IrdOptions.totp) }
        if IrdDomainGate.plan(operation, in: document) != nil { options += IrdGate.options }
        let queued = IrdWaiter.isQueued(operation)
        if queued { options += [IrdOptions.wait] + IrdOptions.waiting }
        let pagination = IrdPagination.of(operation, in: document)
        if pagination != nil { options.append(all) }
        options += [IrdOptions.noValidate, IrdOptions.checkDrift]
        let labels = Dictionary(inputs.map { ("\($0.0.location.rawValue) \($0.0.name)", $0.1.display) }, uniquingKeysWith: { (first: String, _: String) in first })

        let abstract = oneLine(operation.summary ?? operation.description ?? operation.display)
        return Command(
            entry.name, abstract: abstract + (operation.deprecated ? " (deprecated)" : ""),
            discussion: discussion(operation, document: document, index: loaded.index),
            options: options, arguments: arguments,
            streaming: pagination != nil ? .when(all) : .never
        ) { invocation in
            var input = IrdCallInput()
            for (parameter, declaration) in inputs {
                switch declaration {
                case .positional(let argument): input.path[parameter.name] = try invocation.value(argument)
                case .optional(let option):
                    guard let text = try invocation.value(option) else { continue }
                    if parameter.location == .header { input.headers[parameter.name] = text } else { input.query[parameter.name] = [text] }
                case .required(let option):
                    let text = try invocation.value(option)
                    if parameter.location == .header { input.headers[parameter.name] = text } else { input.query[parameter.name] = [text] }
                case .repeated(let option):
                    let texts = try invocation.value(option).flatMap { $0.split(separator: ",").map(String.init) }
                    if !texts.isEmpty { input.query[parameter.name] = texts }
                }
            }
            for (parameter, declaration) in inputs where SecretNames.looksSecret(parameter.name) {
                if case .positional = declaration { continue }
                if invocation.isGiven(declaration.declaration) {
                    invocation.warnSecretOnCommandLine(declaration.display, instead: "the service offers no other way to send it, so "
                                                       + "prefer 'omni ird api' with the request in a file")
                }
            }
            if takesBody {
                var body: JSONValue?
                if let text = try invocation.text(of: json) {
                    do throws(CodecError) { body = try JSONValue.parse(text) } catch { throw error.labelled("--json") }
                    if invocation.isGivenLiterally(json), let key = body.flatMap(IrdFields.secretKey(in:)) {
                        invocation.warnSecretOnCommandLine("--json field '\(TerminalText.escaped(key))'", instead: "pass the body as --json @FILE or -")
                    }
                }
                let fields = try invocation.value(field).map { IrdFields.Field(text: $0, typed: true) }
                    + invocation.value(rawField).map { IrdFields.Field(text: $0, typed: false) }
                for field in fields {
                    guard let key = field.secretKeyGivenLiterally else { continue }
                    invocation.warnSecretOnCommandLine("field '\(TerminalText.escaped(key))'", instead: "read it from a file with -F \(TerminalText.escaped(key))=@FILE")
                }
                input.body = try IrdFields.apply(fields, to: body, schema: operation.requestBody?.json?.schema, document: document,
                                                 invocation: invocation)
            }
            let validates = !(try invocation.value(IrdOptions.noValidate))
            if totpPlacement != nil, let code = try invocation.value(IrdOptions.totp) {
                input = totpPlacement!.applying(code, to: input)
            }
            let client = try IrdOptions.client(invocation, document: loaded, validates: validates)
            let label: @Sendable (Parameter) -> String = { parameter in
                labels["\(parameter.location.rawValue) \(parameter.name)"] ?? "\(parameter.location.rawValue) parameter '\(parameter.name)'"
            }
            try IrdGate.check(invocation, operation, input, client: client)
            if let pagination, try invocation.value(all) {
                let drift = try IrdPager(client: client, operation: operation, pagination: pagination)
                    .run(input, label: label, cancellation: IrdOptions.cancellation(invocation)) { item in
                        invocation.emitItem(IrdAnswerOutput(value: item))
                    }
                return try IrdAnswers.driftResult(drift, invocation: invocation)
            }
            let answer = try client.call(operation, input, label: label, cancellation: IrdOptions.cancellation(invocation)) { error in
                try IrdPrompt.freshCode(invocation, after: error, operation: operation)
            }
            if queued, try invocation.value(IrdOptions.wait) {
                return try IrdWaiting.waitOn(answer, of: operation, request: input, client: client, invocation: invocation)
            }
            return try IrdAnswers.result(answer, invocation: invocation)
        }
    }

    /// The first sentence or line of a description, for a one-line abstract.
    static func oneLine(_ text: String) -> String {
        let line = text.split(separator: "\n").first.map(String.init) ?? text
        if let end = line.firstRange(of: ". ") { return String(line[..<end.lowerBound]) + "." }
        return line
    }

    static func enumValues(_ schema: Schema) -> [String]? {
        schema.enumValues?.map { $0.stringValue ?? $0.serialized() }
    }

    /// "Page size. An integer, at least 1, at most 100. Default: 20." from the parameter and its schema.
    static func parameterHelp(_ parameter: Parameter, _ schema: Schema?, _ document: OpenAPIDocument) -> String {
        var parts: [String] = []
        if let description = parameter.description ?? schema?.description { parts.append(description.trimmingWhitespaceAndNewlines()) }
        if let schema { parts.append(typeSummary(schema, document, withDefault: false)) }
        if parameter.deprecated { parts.append("Deprecated.") }
        var text = parts.filter { !$0.isEmpty }.joined(separator: " ")
        if let last = text.last, !".!?)".contains(last), !text.isEmpty { text += "." }
        return text.isEmpty ? parameter.name : text
    }

    /// A short account of a schema for help: type, format, values, bounds.
    static func typeSummary(_ schema: Schema, _ document: OpenAPIDocument, withDefault: Bool = true) -> String {
        var words: [String] = []
        let types = (schema.types ?? []).filter { $0 != .null }
        if types == [.array], let items = schema.items {
            words.append("A list of " + String(typeSummary(document[items], document).lowercased().reversed().drop { $0 == "." }.reversed()) + "; repeat the flag or separate with commas")
        } else if let first = types.first {
            let article: String = switch first {
            case .integer: "An integer"
            case .number: "A number"
            case .boolean: "true or false"
            case .object: "A JSON object"
            case .array: "A list"
            case .string: "Text"
            case .null: "null"
            }
            words.append(article + (schema.format.map { " (\($0))" } ?? ""))
        }
        if let values = enumValues(schema) { words.append("one of " + values.joined(separator: ", ")) }
        if let minimum = schema.minimum { words.append("at least \(minimum)") }
        if let maximum = schema.maximum { words.append("at most \(maximum)") }
        if let minimum = schema.minLength, minimum > 0 { words.append("\(minimum) characters or more") }
        if let maximum = schema.maxLength { words.append("up to \(maximum) characters") }
        var text = words.joined(separator: ", ")
        if withDefault, let value = schema.defaultValue { text += (text.isEmpty ? "" : ". ") + "Default: \(IrdAnswerOutput.scalar(value))" }
        return text.isEmpty ? "" : text + "."
    }

    /// The operation's description, the body's fields with required marks, the one success answer and its links,
    /// and what credential it takes.
    static func discussion(_ operation: Operation, document: OpenAPIDocument, index: IrdOperationIndex) -> String {
        var paragraphs: [String] = []
        if let description = operation.description, oneLine(description) != description || operation.summary != nil {
            paragraphs.append(description.trimmingWhitespaceAndNewlines())
        }
        var request = "Sends \(operation.display)"
        if let id = operation.operationId { request += " (operationId \(id))" }
        request += "."
        if document.isAnonymous(operation) { request += " Anonymous: no credential is ever sent." }
        else if document.credentialIsOptional(operation) { request += " A credential is sent when there is one." }
        else { request += " Needs an API key or an account session." }
        paragraphs.append(request)
        if let body = operation.requestBody, let schema = body.json?.schema {
            let fields = bodyFields(schema, document)
            var text = "Body (\(body.json!.type)\(body.required ? ", required" : "")):"
            let shapes = document[schema].oneOf + document[schema].anyOf
            if !shapes.isEmpty {
                text += " one of " + shapes.enumerated().map { document[$1].componentName ?? "shape \($0 + 1)" }.joined(separator: ", ")
                    + "; their fields:"
            }
            text += fields.isEmpty ? " " + typeSummary(document[schema], document) : "\n" + fields.joined(separator: "\n")
            paragraphs.append(text)
        }
        if let success = operation.success {
            var text = "Answers \(success.status)" + (success.description.map { ": \(oneLine($0))" } ?? ".")
            if let last = text.last, !".!?".contains(last) { text += "." }
            for link in success.links {
                if let target = link.operationId, let command = index.command(for: target) {
                    text += " Link '\(link.name)': 'omni ird \(command.area) \(command.name)'."
                }
            }
            paragraphs.append(text)
        }
        return paragraphs.joined(separator: "\n\n")
    }

    /// `  domain (required)  Text. The name to register.` for each top-level field of a body schema.
    static func bodyFields(_ ref: SchemaRef, _ document: OpenAPIDocument) -> [String] {
        var rows: [(String, String)] = []
        var seen = Set<String>()
        var visited = Set<Int>()
        func visit(_ ref: SchemaRef) {
            guard visited.insert(ref.index).inserted else { return }
            let schema = document[ref]
            for property in schema.properties where seen.insert(property.name).inserted {
                let target = document[property.schema]
                if target.readOnly { continue }
                let name = property.name + (schema.required.contains(property.name) ? " (required)" : "")
                let help = [target.description?.trimmingWhitespaceAndNewlines(), typeSummary(target, document)].compactMap { $0 }
                    .filter { !$0.isEmpty }.joined(separator: " ")
                rows.append((name, help))
            }
            (schema.allOf + schema.oneOf + schema.anyOf).forEach(visit)
        }
        visit(ref)
        let width = rows.map(\.0.count).max() ?? 0
        return rows.map { "  " + $0.0 + String(repeating: " ", count: width - $0.0.count + 2) + $0.1 }
    }
}

/// Asking for an authenticator code when the service wants a (fresh) one: on a terminal only, once.
enum IrdPrompt {
    static func freshCode(_ invocation: Invocation, after error: IrdError, operation: Operation) throws -> String? {
        guard invocation.canPrompt else { return nil }
        let reason = error.kind == .invalidTotp ? "the code was not accepted" : "an authenticator code is required"
        invocation.streams.err("\(operation.display): \(reason). Authenticator code: ")
        guard let answer = invocation.streams.readAnswer()?.trimmingWhitespaceAndNewlines(), !answer.isEmpty else { return nil }
        return answer
    }
}

/// `--wait` and `jobs run`: polling queued work to its end, the final answer printed.
enum IrdWaiting {
    static func waitOn(_ answer: IrdAnswer, of operation: Operation, request: IrdCallInput, client: IrdClient,
                       invocation: Invocation, deadline: Duration? = nil) throws -> CommandResult {
        guard let document = client.document else { throw IrdError(.noDocument, "no OpenAPI document") }
        let (poll, input) = try IrdWaiter.poll(for: answer, of: operation, request: request, in: document)
        let final = try IrdWaiter.wait(client: client, poll: poll, input: input, schedule: try IrdOptions.schedule(invocation, deadline: deadline),
                                       first: answer, cancellation: IrdOptions.cancellation(invocation)) { state in
            if invocation.streams.stderrIsTerminal { invocation.note("\(poll.display): \(state)") }
        }
        var result = try IrdAnswers.result(final.answer, invocation: invocation)
        if final.outcome != .succeeded {
            invocation.warn("\(poll.display): the work ended \(final.outcome.rawValue)")
            result = CommandResult(output: result.output, exitCode: .failure)
        }
        return result
    }
}

/// What a successful answer becomes: its JSON printed, drift reported with --check-drift.
enum IrdAnswers {
    /// The end of a paged listing whose items were already emitted: drift reported as for one answer.
    static func driftResult(_ drift: [ValidationIssue], invocation: Invocation) throws -> CommandResult {
        let checksDrift = try invocation.value(IrdOptions.checkDrift)
        if checksDrift {
            for issue in drift { invocation.warn("drift: \(issue)") }
            if drift.isEmpty { invocation.note("no drift: the answers have nothing the document does not describe") }
        } else if !drift.isEmpty {
            invocation.detail("the answers have \(drift.count) field(s) or value(s) the document does not describe (see --check-drift)")
        }
        return CommandResult(exitCode: checksDrift && !drift.isEmpty ? .failure : .ok)
    }

    static func result(_ answer: IrdAnswer, invocation: Invocation) throws -> CommandResult {
        let drifted = !answer.drift.isEmpty
        if try invocation.value(IrdOptions.checkDrift) {
            for issue in answer.drift { invocation.warn("drift: \(issue)") }
            if !drifted { invocation.note("no drift: the answer has nothing the document does not describe") }
        } else if drifted {
            invocation.detail("the answer has \(answer.drift.count) field(s) or value(s) the document does not describe (see --check-drift)")
        }
        let checksDrift = try invocation.value(IrdOptions.checkDrift)
        let exitCode: ExitCode = drifted && checksDrift ? .failure : .ok
        guard let json = answer.json else {
            if answer.body.isEmpty { return CommandResult(output: IrdAnswerOutput(value: .object(["status": .int(answer.status)])), exitCode: exitCode) }
            let text = (try? UTF8Validation.string(answer.body)) ?? "(\(answer.body.count) bytes)"
            return CommandResult(output: IrdAnswerOutput(value: .string(text)), exitCode: exitCode)
        }
        return CommandResult(output: IrdAnswerOutput(value: json), exitCode: exitCode)
    }
}
