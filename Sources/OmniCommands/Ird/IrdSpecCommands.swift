import OmniCLI
import OmniCodec
import OmniIrd
import OmniSystem
import OmniTransport

/// `omni ird spec fetch|show|diff`: the OpenAPI document every operation command is built from.
enum IrdSpecCommands {
    static let spec = DefaultedOption<String>(
        "spec", valueName: "FILE|URL", help: "Where to read the OpenAPI document: an https:// URL or a local file.",
        default: IrdSpecSource.defaultURL, environment: "OMNI_IRD_SPEC", config: "ird.spec", completion: .file)

    static var group: Command {
        Command("spec", abstract: "Fetch, summarise and compare the ird OpenAPI document the operations come from.",
                discussion: """
                    Every 'omni ird AREA OPERATION' command is built from the cached OpenAPI document \
                    ($XDG_CACHE_HOME/omni/ird/openapi.json). 'fetch' reads it from the service (or --spec FILE|URL) and \
                    caches it, asking with the cached ETag so an unchanged document is not downloaded again.
                    """,
                subcommands: [fetch, show, diff])
    }

    // MARK: fetch

    static let fetch = Command(
        "fetch", abstract: "Fetch the OpenAPI document and cache it (revalidated with its ETag).",
        discussion: "A document that is not a usable OpenAPI 3.0/3.1 document is refused and the cached copy kept.",
        options: [spec, IrdOptions.requestTimeout],
        examples: [Example("omni ird spec fetch", "Fetch the service's document (https://api.ird.ro/openapi.json)."),
                   Example("omni ird spec fetch --spec ./openapi.json", "Cache a local copy instead.")]
    ) { invocation in
        let source = IrdSpecSource(try invocation.value(spec))
        let cache = IrdSpecCache(directories: Directories(environment: invocation.environment))
        let previous = try? cache.load()
        let client = HTTPClient(configuration: .init(userAgent: "omni/\(VersionCommand.version)", totalTimeout: try invocation.value(IrdOptions.requestTimeout)))
        let outcome = try IrdSpecFetcher.fetch(source, cached: previous?.metadata, client: client)
        var output = FieldList()
        output.add("source", .string(source.description))
        switch outcome {
        case .unchanged:
            let document = try OpenAPIReader.read(previous!.bytes)
            output.add("changed", .bool(false), text: "no (the cached copy is current)")
            output.add("operations", .int(document.operations.count))
            output.add("etag", previous?.metadata?.etag.map(JSONValue.string) ?? .null)
            output.add("cache", .string(cache.documentPath))
        case .fetched(let bytes, let etag, let lastModified):
            let document = try OpenAPIReader.read(bytes)
            let changed = previous.map { $0.bytes != bytes } ?? true
            try cache.store(bytes, metadata: .init(source: source.description, etag: etag, lastModified: lastModified,
                                                   fetchedAt: IrdSpecFetcher.now(), bytes: bytes.count))
            output.add("changed", .bool(changed), text: changed ? "yes" : "no (same bytes)")
            output.add("title", .string(document.title))
            output.add("version", .string(document.version))
            output.add("openapi", .string(document.openapiVersion))
            output.add("operations", .int(document.operations.count))
            output.add("etag", etag.map(JSONValue.string) ?? .null)
            output.add("cache", .string(cache.documentPath))
            if let previous, changed, let old = try? OpenAPIReader.read(previous.bytes) {
                let diff = IrdSpecDiff(from: old, to: document)
                output.add("operations_added", .array(diff.addedOperations.map(JSONValue.string)),
                           text: diff.addedOperations.isEmpty ? "none" : diff.addedOperations.joined(separator: ", "))
                output.add("operations_removed", .array(diff.removedOperations.map(JSONValue.string)),
                           text: diff.removedOperations.isEmpty ? "none" : diff.removedOperations.joined(separator: ", "))
                output.add("fields_added", .array(diff.addedFields.map(JSONValue.string)),
                           text: diff.addedFields.isEmpty ? "none" : diff.addedFields.joined(separator: ", "))
            }
        }
        return .output(output)
    }

    // MARK: show

    struct Summary: Renderable {
        let loaded: IrdLoadedDocument

        var json: JSONValue {
            let document = loaded.document
            var object = JSONObject()
            object["title"] = .string(document.title)
            object["version"] = .string(document.version)
            object["openapi"] = .string(document.openapiVersion)
            object["servers"] = .array(document.servers.map(JSONValue.string))
            if let metadata = loaded.metadata {
                object["source"] = .string(metadata.source)
                object["fetched_at"] = .string(metadata.fetchedAt)
                object["etag"] = metadata.etag.map(JSONValue.string) ?? .null
            }
            object["operation_count"] = .int(document.operations.count)
            object["areas"] = .array(loaded.index.areas.map { area in
                .object(["name": .string(area.name), "tag": .string(area.tag),
                         "operations": .array(area.entries.map { entry in
                             var item = JSONObject()
                             item["command"] = .string(entry.name)
                             item["operation_id"] = entry.operation.operationId.map(JSONValue.string) ?? .null
                             item["method"] = .string(entry.operation.method)
                             item["path"] = .string(entry.operation.path)
                             item["success"] = entry.operation.success.map { .string($0.status) } ?? .null
                             item["anonymous"] = .bool(loaded.document.isAnonymous(entry.operation))
                             return .object(item)
                         })])
            })
            return .object(object)
        }

        func text(style: TextStyle) -> String {
            let document = loaded.document
            var lines = ["\(document.title) \(document.version) (OpenAPI \(document.openapiVersion)): "
                         + "\(document.operations.count) operations in \(loaded.index.areas.count) areas"]
            if let metadata = loaded.metadata { lines.append(style.dim("from \(metadata.source), fetched \(metadata.fetchedAt)")) }
            var table = Table(columns: ["area", "command", "method", "path", "success"])
            for area in loaded.index.areas {
                for entry in area.entries {
                    table.append([area.name, entry.name, entry.operation.method, entry.operation.path, entry.operation.success?.status ?? "-"])
                }
            }
            return (lines + [table.text(style: style)]).joined(separator: "\n")
        }
    }

    static let show = Command(
        "show", abstract: "Summarise the cached document: its areas, operations, their commands and success answers.",
        examples: [Example("omni ird spec show -o json | jq '.areas[].name'", "List the areas.")]
    ) { invocation in
        .output(Summary(loaded: try IrdDocumentLoader.require(invocation.environment)))
    }

    // MARK: diff

    struct DiffOutput: Renderable {
        let diff: IrdSpecDiff
        let source: String

        var json: JSONValue {
            .object(["source": .string(source), "identical": .bool(diff.isEmpty),
                     "operations_added": .array(diff.addedOperations.map(JSONValue.string)),
                     "operations_removed": .array(diff.removedOperations.map(JSONValue.string)),
                     "fields_added": .array(diff.addedFields.map(JSONValue.string)),
                     "fields_removed": .array(diff.removedFields.map(JSONValue.string))])
        }

        func text(style: TextStyle) -> String {
            if diff.isEmpty { return "no differences between the cached document and \(source)" }
            var lines: [String] = []
            for (title, items, mark) in [("operations added", diff.addedOperations, "+"), ("operations removed", diff.removedOperations, "-"),
                                         ("fields added", diff.addedFields, "+"), ("fields removed", diff.removedFields, "-")]
            where !items.isEmpty {
                lines.append(style.bold(title + ":"))
                lines += items.map { "  \(mark) \($0)" }
            }
            return lines.joined(separator: "\n")
        }
    }

    static let diff = Command(
        "diff", abstract: "Compare the cached document with the current one: operations added or removed, schema fields added.",
        discussion: "Nothing is cached. Exits 1 when the documents differ, 0 when they do not.",
        options: [spec, IrdOptions.requestTimeout],
        examples: [Example("omni ird spec diff", "What changed at the service since the last fetch."),
                   Example("omni ird spec diff --spec ./openapi-next.json", "Compare with a local file.")]
    ) { invocation in
        let cached = try IrdDocumentLoader.require(invocation.environment)
        let source = IrdSpecSource(try invocation.value(spec))
        let client = HTTPClient(configuration: .init(userAgent: "omni/\(VersionCommand.version)", totalTimeout: try invocation.value(IrdOptions.requestTimeout)))
        // Unconditional: a 304 would say nothing about the differences.
        let current: OpenAPIDocument
        switch try IrdSpecFetcher.fetch(source, cached: nil, client: client) {
        case .fetched(let bytes, _, _): current = try OpenAPIReader.read(bytes)
        case .unchanged: current = cached.document
        }
        let diff = IrdSpecDiff(from: cached.document, to: current)
        return .output(DiffOutput(diff: diff, source: source.description), exitCode: diff.isEmpty ? .ok : .failure)
    }
}
