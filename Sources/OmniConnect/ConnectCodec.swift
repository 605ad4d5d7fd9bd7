import OmniCodec

/// Norito encoding of Connect frames (bare, as sent in one WebSocket binary message) and of envelopes
/// (NRT0-framed, as sealed inside the AEAD), for one generation.
///
/// Frame layout: `field(sid)` ‖ `field(dir u32)` ‖ `field(seq u64)` ‖ `field(kind)`, where kind is
/// `u32 tag` ‖ `u64 body length` ‖ body: Control (0) carries `u32 control tag` ‖ `u64 length` ‖ the control's
/// fields; Ciphertext (1) carries `field(dir)` ‖ `field(aead)`. Derived enums inside envelopes (`ConnectPayloadV1`,
/// `ControlAfterKeyV1`, `ServerEventV1`) are `u32 tag` followed directly by their fields.
public struct ConnectCodec: Sendable {
    /// Torii's `frame_max_bytes`: larger frames are never accepted.
    public static let defaultMaxFrameBytes = 64_000

    public let generation: ConnectGeneration
    public var maxFrameBytes: Int
    public var limits: NoritoLimits

    public init(generation: ConnectGeneration, maxFrameBytes: Int = ConnectCodec.defaultMaxFrameBytes,
                limits: NoritoLimits = NoritoLimits(maxDepth: 16, maxSequenceCount: 1024, maxByteLength: 1 << 20)) {
        self.generation = generation
        self.maxFrameBytes = maxFrameBytes
        self.limits = limits
    }

    // MARK: - Frames

    public func encode(_ frame: ConnectFrame) -> [UInt8] {
        var writer = NoritoWriter(capacity: 160)
        writer.field { generation.writeFixedBytes(frame.sid, to: &$0) }
        writer.field { $0.u32(frame.direction.rawValue) }
        writer.field { $0.u64(frame.sequence) }
        writer.field { writer in
            switch frame.kind {
            case .control(let control):
                writer.taggedBody(tag: 0) { writeControl(control, to: &$0) }
            case .ciphertext(let ciphertext):
                writer.taggedBody(tag: 1) { writer in
                    writer.field { $0.u32(ciphertext.direction.rawValue) }
                    writer.field { $0.byteVector(ciphertext.aead) }
                }
            }
        }
        return writer.bytes
    }

    public func decodeFrame(_ bytes: [UInt8]) throws(CodecError) -> ConnectFrame {
        var reader = NoritoReader(bytes, limits: limits)
        return try decodeFrame(bytes, reader: &reader)
    }

    /// Decodes and records every item with its byte offset. On failure the items read so far come back with
    /// the error.
    public func annotateFrame(_ bytes: [UInt8]) -> (frame: ConnectFrame?, annotations: [NoritoAnnotation], error: CodecError?) {
        var reader = NoritoReader(bytes, limits: limits, recordAnnotations: true)
        do {
            let frame = try decodeFrame(bytes, reader: &reader)
            return (frame, reader.annotations ?? [], nil)
        } catch {
            return (nil, reader.annotations ?? [], error)
        }
    }

    private func decodeFrame(_ bytes: [UInt8], reader: inout NoritoReader) throws(CodecError) -> ConnectFrame {
        guard bytes.count <= maxFrameBytes else {
            throw CodecError(.limitExceeded, format: "Norito", "frame of \(bytes.count) bytes exceeds \(maxFrameBytes)", offset: 0)
        }
        let generation = generation
        let sid = try reader.field("sid") { (reader: inout NoritoReader) throws(CodecError) in
            try generation.readFixedBytes(32, "bytes", from: &reader)
        }
        let direction = try reader.field("dir") { (reader: inout NoritoReader) throws(CodecError) in try Self.readDirection(&reader) }
        let sequence = try reader.field("seq") { (reader: inout NoritoReader) throws(CodecError) in try reader.u64("value") }
        let kind = try reader.field("kind") { (reader: inout NoritoReader) throws(CodecError) -> ConnectFrame.Kind in
            try reader.taggedBody("body") { (reader: inout NoritoReader, tag: UInt32) throws(CodecError) -> ConnectFrame.Kind in
                switch tag {
                case 0:
                    return .control(try readControl(&reader))
                case 1:
                    let inner = try reader.field("dir") { (reader: inout NoritoReader) throws(CodecError) in try Self.readDirection(&reader) }
                    let aead = try reader.field("aead") { (reader: inout NoritoReader) throws(CodecError) in try reader.byteVector("bytes") }
                    return .ciphertext(ConnectCiphertext(direction: inner, aead: aead))
                default:
                    throw reader.error("unknown frame kind tag \(tag)", at: reader.position - 12)
                }
            }
        }
        try reader.finish()
        return ConnectFrame(sid: sid, direction: direction, sequence: sequence, kind: kind)
    }

    // MARK: - Envelopes

    /// The NRT0-framed `EnvelopeV1`: the AEAD plaintext.
    public func encodeEnvelope(_ envelope: ConnectEnvelope) -> [UInt8] {
        var writer = NoritoWriter(capacity: 128)
        writer.field { $0.u64(envelope.sequence) }
        writer.field { writePayload(envelope.payload, to: &$0) }
        return NoritoHeader.frame(writer.bytes, schemaHash: generation.envelopeSchemaHash)
    }

    public func decodeEnvelope(_ bytes: [UInt8]) throws(CodecError) -> ConnectEnvelope {
        let (_, payload) = try NoritoHeader.unframe(bytes, expectedSchemaHash: generation.envelopeSchemaHash,
                                                    typeName: ConnectGeneration.envelopeTypeName)
        var reader = NoritoReader(payload, limits: limits)
        do {
            let sequence = try reader.field("seq") { (reader: inout NoritoReader) throws(CodecError) in try reader.u64("value") }
            let payload = try reader.field("payload") { (reader: inout NoritoReader) throws(CodecError) in try readPayload(&reader) }
            try reader.finish()
            return ConnectEnvelope(sequence: sequence, payload: payload)
        } catch {
            // Offsets inside the payload count from the start of the framed bytes.
            throw CodecError(error.kind, format: error.format, error.message, offset: error.offset.map { $0 + NoritoHeader.byteCount },
                             path: error.path)
        }
    }

    // MARK: - Controls

    private func writeControl(_ control: ConnectControl, to writer: inout NoritoWriter) {
        switch control {
        case .open(let open):
            writer.taggedBody(tag: 0) { writer in
                writer.field { generation.writeFixedBytes(open.appPublicKey, to: &$0) }
                writer.field { $0.option(open.appMetadata) { writeAppMetadata($1, to: &$0) } }
                writer.field { generation.writeConstraints(open.constraints, to: &$0) }
                writer.field { $0.option(open.permissions) { writePermissions($1, to: &$0) } }
            }
        case .approve(let approve):
            writer.taggedBody(tag: 1) { writer in
                writer.field { generation.writeFixedBytes(approve.walletPublicKey, to: &$0) }
                writer.field { $0.string(approve.accountID) }
                writer.field { $0.option(approve.permissions) { writePermissions($1, to: &$0) } }
                writer.field { $0.option(approve.proof) { writeProof($1, to: &$0) } }
                writer.field { writeWalletSignature(approve.signature, to: &$0) }
            }
        case .reject(let reject):
            writer.taggedBody(tag: 2) { writeReject(reject, to: &$0) }
        case .close(let close):
            writer.taggedBody(tag: 3) { writeClose(close, to: &$0) }
        case .ping(let nonce):
            writer.taggedBody(tag: 4) { writer in writer.field { $0.u64(nonce) } }
        case .pong(let nonce):
            writer.taggedBody(tag: 5) { writer in writer.field { $0.u64(nonce) } }
        case .serverEvent(let event):
            writer.taggedBody(tag: 6) { writer in writer.field { writeServerEvent(event, to: &$0) } }
        }
    }

    private func readControl(_ reader: inout NoritoReader) throws(CodecError) -> ConnectControl {
        try reader.taggedBody("control") { (reader: inout NoritoReader, tag: UInt32) throws(CodecError) -> ConnectControl in
            switch tag {
            case 0:
                let appPublicKey = try reader.field("app_pk") { (reader: inout NoritoReader) throws(CodecError) in
                    try generation.readFixedBytes(32, "bytes", from: &reader)
                }
                let metadata = try reader.field("app_meta") { (reader: inout NoritoReader) throws(CodecError) in
                    try reader.option("option") { (reader: inout NoritoReader) throws(CodecError) in try readAppMetadata(&reader) }
                }
                let constraints = try reader.field("constraints") { (reader: inout NoritoReader) throws(CodecError) in
                    try generation.readConstraints(from: &reader)
                }
                let permissions = try reader.field("permissions") { (reader: inout NoritoReader) throws(CodecError) in
                    try reader.option("option") { (reader: inout NoritoReader) throws(CodecError) in try readPermissions(&reader) }
                }
                return .open(ConnectOpen(appPublicKey: appPublicKey, appMetadata: metadata, constraints: constraints, permissions: permissions))
            case 1:
                let walletPublicKey = try reader.field("wallet_pk") { (reader: inout NoritoReader) throws(CodecError) in
                    try generation.readFixedBytes(32, "bytes", from: &reader)
                }
                let accountID = try reader.field("account_id") { (reader: inout NoritoReader) throws(CodecError) in try reader.string("text") }
                let permissions = try reader.field("permissions") { (reader: inout NoritoReader) throws(CodecError) in
                    try reader.option("option") { (reader: inout NoritoReader) throws(CodecError) in try readPermissions(&reader) }
                }
                let proof = try reader.field("proof") { (reader: inout NoritoReader) throws(CodecError) in
                    try reader.option("option") { (reader: inout NoritoReader) throws(CodecError) in try readProof(&reader) }
                }
                let signature = try reader.field("sig_wallet") { (reader: inout NoritoReader) throws(CodecError) in try readWalletSignature(&reader) }
                return .approve(ConnectApprove(walletPublicKey: walletPublicKey, accountID: accountID, permissions: permissions,
                                               proof: proof, signature: signature))
            case 2:
                return .reject(try readReject(&reader))
            case 3:
                return .close(try readClose(&reader))
            case 4:
                return .ping(nonce: try reader.field("nonce") { (reader: inout NoritoReader) throws(CodecError) in try reader.u64("value") })
            case 5:
                return .pong(nonce: try reader.field("nonce") { (reader: inout NoritoReader) throws(CodecError) in try reader.u64("value") })
            case 6:
                return .serverEvent(try reader.field("event") { (reader: inout NoritoReader) throws(CodecError) in try readServerEvent(&reader) })
            default:
                throw reader.error("unknown control tag \(tag)", at: reader.position - 12)
            }
        }
    }

    // MARK: - Payloads

    private func writePayload(_ payload: ConnectPayload, to writer: inout NoritoWriter) {
        switch payload {
        case .control(let control):
            writer.u32(0)
            writer.field { writer in
                switch control {
                case .close(let close):
                    writer.u32(0)
                    writeClose(close, to: &writer)
                case .reject(let reject):
                    writer.u32(1)
                    writeReject(reject, to: &writer)
                }
            }
        case .signRequestRaw(let domainTag, let bytes):
            writer.u32(1)
            writer.field { $0.string(domainTag) }
            writer.field { $0.byteVector(bytes) }
        case .signRequestTx(let txBytes):
            writer.u32(2)
            writer.field { $0.byteVector(txBytes) }
        case .signResultOk(let signature):
            writer.u32(3)
            writer.field { writeWalletSignature(signature, to: &$0) }
        case .signResultErr(let code, let message):
            writer.u32(4)
            writer.field { $0.string(code) }
            writer.field { $0.string(message) }
        case .displayRequest(let title, let body):
            writer.u32(5)
            writer.field { $0.string(title) }
            writer.field { $0.string(body) }
        }
    }

    private func readPayload(_ reader: inout NoritoReader) throws(CodecError) -> ConnectPayload {
        let start = reader.position
        let tag = try reader.u32("tag")
        switch tag {
        case 0:
            let control = try reader.field("control") { (reader: inout NoritoReader) throws(CodecError) -> ConnectControlAfterKey in
                let start = reader.position
                let tag = try reader.u32("tag")
                switch tag {
                case 0: return .close(try readClose(&reader))
                case 1: return .reject(try readReject(&reader))
                default: throw reader.error("unknown ControlAfterKeyV1 tag \(tag)", at: start)
                }
            }
            return .control(control)
        case 1:
            let domainTag = try reader.field("domain_tag") { (reader: inout NoritoReader) throws(CodecError) in try reader.string("text") }
            let bytes = try reader.field("bytes") { (reader: inout NoritoReader) throws(CodecError) in try reader.byteVector("bytes") }
            return .signRequestRaw(domainTag: domainTag, bytes: bytes)
        case 2:
            return .signRequestTx(txBytes: try reader.field("tx_bytes") { (reader: inout NoritoReader) throws(CodecError) in try reader.byteVector("bytes") })
        case 3:
            return .signResultOk(try reader.field("signature") { (reader: inout NoritoReader) throws(CodecError) in try readWalletSignature(&reader) })
        case 4:
            let code = try reader.field("code") { (reader: inout NoritoReader) throws(CodecError) in try reader.string("text") }
            let message = try reader.field("message") { (reader: inout NoritoReader) throws(CodecError) in try reader.string("text") }
            return .signResultErr(code: code, message: message)
        case 5:
            let title = try reader.field("title") { (reader: inout NoritoReader) throws(CodecError) in try reader.string("text") }
            let body = try reader.field("body") { (reader: inout NoritoReader) throws(CodecError) in try reader.string("text") }
            return .displayRequest(title: title, body: body)
        default:
            throw reader.error("unknown ConnectPayloadV1 tag \(tag)", at: start)
        }
    }

    // MARK: - Structs

    private func writeAppMetadata(_ metadata: ConnectAppMetadata, to writer: inout NoritoWriter) {
        writer.field { $0.string(metadata.name) }
        writer.field { $0.option(metadata.url) { $0.string($1) } }
        writer.field { $0.option(metadata.iconHash) { $0.string($1) } }
    }

    private func readAppMetadata(_ reader: inout NoritoReader) throws(CodecError) -> ConnectAppMetadata {
        let name = try reader.field("name") { (reader: inout NoritoReader) throws(CodecError) in try reader.string("text") }
        let url = try reader.field("url") { (reader: inout NoritoReader) throws(CodecError) in
            try reader.option("option") { (reader: inout NoritoReader) throws(CodecError) in try reader.string("text") }
        }
        let iconHash = try reader.field("icon_hash") { (reader: inout NoritoReader) throws(CodecError) in
            try reader.option("option") { (reader: inout NoritoReader) throws(CodecError) in try reader.string("text") }
        }
        return ConnectAppMetadata(name: name, url: url, iconHash: iconHash)
    }

    func writePermissions(_ permissions: ConnectPermissions, to writer: inout NoritoWriter) {
        writer.field { $0.sequence(permissions.methods) { $0.string($1) } }
        writer.field { $0.sequence(permissions.events) { $0.string($1) } }
        writer.field { $0.option(permissions.resources) { writer, resources in writer.sequence(resources) { $0.string($1) } } }
    }

    private func readPermissions(_ reader: inout NoritoReader) throws(CodecError) -> ConnectPermissions {
        let methods = try reader.field("methods") { (reader: inout NoritoReader) throws(CodecError) in try Self.readStrings(&reader) }
        let events = try reader.field("events") { (reader: inout NoritoReader) throws(CodecError) in try Self.readStrings(&reader) }
        let resources = try reader.field("resources") { (reader: inout NoritoReader) throws(CodecError) in
            try reader.option("option") { (reader: inout NoritoReader) throws(CodecError) in try Self.readStrings(&reader) }
        }
        return ConnectPermissions(methods: methods, events: events, resources: resources)
    }

    func writeProof(_ proof: ConnectSignInProof, to writer: inout NoritoWriter) {
        for value in [proof.domain, proof.uri, proof.statement, proof.issuedAt, proof.nonce] { writer.field { $0.string(value) } }
    }

    private func readProof(_ reader: inout NoritoReader) throws(CodecError) -> ConnectSignInProof {
        var values: [String] = []
        for name in ["domain", "uri", "statement", "issued_at", "nonce"] {
            values.append(try reader.field(name) { (reader: inout NoritoReader) throws(CodecError) in try reader.string("text") })
        }
        return ConnectSignInProof(domain: values[0], uri: values[1], statement: values[2], issuedAt: values[3], nonce: values[4])
    }

    private func writeWalletSignature(_ signature: ConnectWalletSignature, to writer: inout NoritoWriter) {
        writer.field { generation.writeAlgorithm(signature.algorithm, to: &$0) }
        writer.field { generation.writeSignatureBytes(signature.bytes, to: &$0) }
    }

    private func readWalletSignature(_ reader: inout NoritoReader) throws(CodecError) -> ConnectWalletSignature {
        let algorithm = try reader.field("algorithm") { (reader: inout NoritoReader) throws(CodecError) in
            try generation.readAlgorithm("tag", from: &reader)
        }
        let bytes = try reader.field("signature") { (reader: inout NoritoReader) throws(CodecError) in
            try generation.readSignatureBytes("bytes", from: &reader)
        }
        return ConnectWalletSignature(algorithm: algorithm, bytes: bytes)
    }

    private func writeReject(_ reject: ConnectReject, to writer: inout NoritoWriter) {
        writer.field { $0.u16(reject.code) }
        writer.field { $0.string(reject.codeID) }
        writer.field { $0.string(reject.reason) }
    }

    private func readReject(_ reader: inout NoritoReader) throws(CodecError) -> ConnectReject {
        let code = try reader.field("code") { (reader: inout NoritoReader) throws(CodecError) in try reader.u16("value") }
        let codeID = try reader.field("code_id") { (reader: inout NoritoReader) throws(CodecError) in try reader.string("text") }
        let reason = try reader.field("reason") { (reader: inout NoritoReader) throws(CodecError) in try reader.string("text") }
        return ConnectReject(code: code, codeID: codeID, reason: reason)
    }

    private func writeClose(_ close: ConnectClose, to writer: inout NoritoWriter) {
        writer.field { $0.u32(close.who.rawValue) }
        writer.field { $0.u16(close.code) }
        writer.field { $0.string(close.reason) }
        writer.field { $0.bool(close.retryable) }
    }

    private func readClose(_ reader: inout NoritoReader) throws(CodecError) -> ConnectClose {
        let who = try reader.field("who") { (reader: inout NoritoReader) throws(CodecError) -> ConnectRole in
            let start = reader.position
            let tag = try reader.u32("tag")
            guard let role = ConnectRole(rawValue: tag) else { throw reader.error("unknown role tag \(tag)", at: start) }
            return role
        }
        let code = try reader.field("code") { (reader: inout NoritoReader) throws(CodecError) in try reader.u16("value") }
        let reason = try reader.field("reason") { (reader: inout NoritoReader) throws(CodecError) in try reader.string("text") }
        let retryable = try reader.field("retryable") { (reader: inout NoritoReader) throws(CodecError) in try reader.bool("value") }
        return ConnectClose(who: who, code: code, reason: reason, retryable: retryable)
    }

    private func writeServerEvent(_ event: ConnectServerEvent, to writer: inout NoritoWriter) {
        switch event {
        case .blockProofs(let height, let entryHash, let proofsJSON):
            writer.u32(0)
            writer.field { $0.u64(height) }
            writer.field { $0.string(entryHash) }
            writer.field { $0.string(proofsJSON) }
        }
    }

    private func readServerEvent(_ reader: inout NoritoReader) throws(CodecError) -> ConnectServerEvent {
        let start = reader.position
        let tag = try reader.u32("tag")
        guard tag == 0 else { throw reader.error("unknown ServerEventV1 tag \(tag)", at: start) }
        let height = try reader.field("height") { (reader: inout NoritoReader) throws(CodecError) in try reader.u64("value") }
        let entryHash = try reader.field("entry_hash") { (reader: inout NoritoReader) throws(CodecError) in try reader.string("text") }
        let proofs = try reader.field("proofs_json") { (reader: inout NoritoReader) throws(CodecError) in try reader.string("text") }
        return .blockProofs(height: height, entryHash: entryHash, proofsJSON: proofs)
    }

    private static func readStrings(_ reader: inout NoritoReader) throws(CodecError) -> [String] {
        try reader.sequence("items") { (reader: inout NoritoReader) throws(CodecError) in try reader.string("text") }
    }

    private static func readDirection(_ reader: inout NoritoReader) throws(CodecError) -> ConnectDirection {
        let start = reader.position
        let tag = try reader.u32("tag")
        guard let direction = ConnectDirection(rawValue: tag) else { throw reader.error("unknown direction tag \(tag)", at: start) }
        return direction
    }
}
