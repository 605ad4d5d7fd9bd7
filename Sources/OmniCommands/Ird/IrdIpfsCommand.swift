import OmniCLI
import OmniCodec
import OmniIrd
import OmniSystem
import OmniTransport

/// `omni ird ipfs add FILE [--format car]`: an upload grant, the file streamed to the node with the grant's bearer,
/// then the upload polled until it completed (300 s unless --deadline says otherwise).
enum IrdIpfsCommand {
    static let file = Argument<String>("FILE", help: "The file to upload (streamed from disk: any size, constant memory).", completion: .file)
    static let format = Option<String>("format", valueName: "FORMAT", help: "What the bytes are: file, or car (a CAR archive).",
                                       absentMeans: "the service's default (file)", completion: .values(["file", "car"]))
    static let uploadTimeout = DefaultedOption<Duration>("upload-timeout", valueName: "DURATION", help: "Timeout of the upload request itself.",
                                                          default: .seconds(3600), group: "Waiting")

    static let add = Command(
        "add", abstract: "Upload a file to IPFS: a grant, the bytes streamed to the node, then wait until it is pinned.",
        discussion: """
            The grant comes from the document's POST that answers upload_url and token; the bytes go to upload_url \
            as application/octet-stream with the grant's own bearer (the account credential is never sent there), read \
            from disk as they are sent. The upload is then polled through the grant's link until it completed \
            (--deadline, 300 s). Progress is shown on stderr when it is a terminal.
            """,
        options: [format, uploadTimeout] + IrdOptions.waiting + IrdOptions.connection,
        arguments: [file]
    ) { invocation in
        let path = try invocation.value(file)
        guard let size = LocalFile.regularFileSize(path) else {
            throw IrdError(.configuration, LocalFile.exists(path) ? "\(path) is not a regular file"
                                                                : "\(path): cannot read it (no such file, or no permission)")
        }
        let loaded = try IrdDocumentLoader.require(invocation.environment)
        let flow = try IrdUpload(document: loaded.document)
        let client = try IrdOptions.client(invocation, document: loaded)
        let cancellation = IrdOptions.cancellation(invocation)
        let name = String(path.split(separator: "/").last ?? Substring(path))
        let request = flow.request(name: name, size: size, format: try invocation.value(format), document: loaded.document)
        let grant = try flow.obtain(client, request, cancellation: cancellation)
        let progress = invocation.progress("uploading \(name)")
        let total = size
        let body = HTTPBodyFile(path: path, size: size) { sent in
            // About every 4 MiB (libcurl asks for at most 64 KiB at a time) and at the end.
            if sent == total || sent % (4 << 20) < 65536 { progress.update("\(total == 0 ? 100 : sent * 100 / total)% of \(total) bytes") }
        }
        try flow.send(body, to: grant, client: client, timeout: try invocation.value(uploadTimeout), cancellation: cancellation)
        progress.finish()
        let (poll, input) = try IrdWaiter.poll(for: grant.answer, of: flow.grant, request: request, in: loaded.document)
        let schedule = try IrdOptions.schedule(invocation, deadline: .seconds(300))
        let final = try IrdWaiter.wait(client: client, poll: poll, input: input, schedule: schedule, cancellation: cancellation)
        let printed = try IrdAnswers.result(final.answer, invocation: invocation)
        guard final.outcome == .succeeded else {
            invocation.warn("the upload ended \(final.outcome.rawValue)")
            return CommandResult(output: printed.output, exitCode: .failure)
        }
        return printed
    }
}
