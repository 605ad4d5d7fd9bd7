import OmniCLI
import OmniCandid
import OmniCodec
import OmniIC

/// `omni ic metadata CANISTER [NAME]`: a canister's public metadata section, from a verified certificate.
enum ICMetadataCommand {
    static let canister = Argument<Principal>("CANISTER", help: "The canister id.")
    static let name = OptionalArgument<String>("NAME", help: "The section: candid:service (default), candid:args, dfx, …")

    static let command = Command(
        "metadata", abstract: "Read a canister's metadata section (candid:service by default), verified.",
        discussion: """
            Reads /canister/<id>/metadata/<name> with a verified read_state and prints it as text (hex if it is \
            not UTF-8). Exit 1 when the canister has no such public section (the certificate proves its absence) \
            or the certificate does not reveal it.
            """,
        options: ICNetworkOptions.connection + ICNetworkOptions.signing,
        arguments: [canister, name],
        relations: ICNetworkOptions.relations,
        examples: [
            Example("omni ic metadata ryjl3-tyaaa-aaaaa-aaaba-cai > ledger.did", "Save the ledger's Candid interface."),
            Example("omni ic metadata bkyz2-fmaaa-aaaaa-qaaaq-cai candid:args --network local --root-key @root.hex",
                    "Another section, from a local replica."),
        ]
    ) { invocation in
        let target = try invocation.value(canister)
        let section = try invocation.value(name) ?? "candid:service"
        let connection = try ICNetworkOptions.prepare(invocation)
        let progress = invocation.progress("Reading")
        defer { progress.finish() }
        let agent = try connection.agent(invocation, progress: progress)
        let (lookup, read) = try agent.metadata(canister: target, name: section)
        let (verification, verificationText) = ReplyContext.certificateVerification(read.certificate)
        invocation.detail(verificationText)
        var object = JSONObject([("canister_id", .string(target.text)), ("name", .string(section)), ("verification", verification)])
        switch lookup {
        case .found(let bytes):
            object["found"] = .bool(true)
            object["hex"] = .string(Hex.encode(bytes))
            if let text = StateEntry.decode(bytes, at: ["metadata"])?.text {
                object["text"] = .string(text)
                return .output(SimpleOutput(text: text.hasSuffix("\n") ? String(text.dropLast()) : text, json: .object(object)))
            }
            return .output(SimpleOutput(text: Hex.encode(bytes), json: .object(object)))
        case .absent:
            object["found"] = .bool(false)
            return .output(SimpleOutput(text: "\(target) has no public metadata section \"\(section)\"", json: .object(object)),
                           exitCode: .failure)
        case .unknown, .error:
            object["found"] = .null
            return .output(SimpleOutput(text: "the certificate does not reveal \(target)'s metadata section \"\(section)\"",
                                        json: .object(object)), exitCode: .failure)
        }
    }
}
