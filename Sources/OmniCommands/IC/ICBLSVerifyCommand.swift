import OmniBLS
import OmniCLI
import OmniCodec

/// `omni ic bls verify`: one signature, or a JSONL batch, checked with omni's own BLS12-381.
enum ICBLSVerifyCommand {
    static let publicKey = Option<HexBytes>(
        "public-key", valueName: "HEX",
        help: "Public key: 96-byte compressed G2 point, or the 133-byte DER form IC certificates carry, as hex.",
        source: .content)
    static let signature = Option<HexBytes>("signature", valueName: "HEX",
                                            help: "Signature: 48-byte compressed G1 point, as hex.", source: .content)
    static let message = Option<HexBytes>("message", valueName: "HEX", help: "The signed message, as hex.", source: .content)
    static let dst = DefaultedOption<String>(
        "dst", valueName: "STRING", help: "Domain separation tag for hashing the message to G1.",
        default: String(decoding: BLS.icDST, as: UTF8.self))
    static let batch = Option<InputFile>(
        "batch", valueName: "FILE",
        help: "Verify many: a JSON Lines file (or - for stdin) of {\"public_key\",\"signature\",\"message\"} in hex; "
            + "one verdict per line, in order, as --output says (jsonl: one line each).")

    /// Lines checked together with one randomised batch verification: big enough to pay off, small enough that a
    /// 100,000-line file runs in flat memory.
    static let chunkSize = 1024

    static let command = Command(
        "verify", abstract: "Verify a BLS signature (exit 0 valid, 1 invalid with the reason, 3 malformed input).",
        discussion: """
            Checks e(signature, g2) = e(H(message), public key) with the ciphersuite \
            BLS_SIG_BLS12381G1_XMD:SHA-256_SSWU_RO_NUL_. Both points are decoded strictly (compression and \
            infinity flags, canonical coordinates, on the curve, in the prime-order subgroup); the point at \
            infinity is refused. A point that decodes but fails a check is an invalid signature (exit 1) with \
            the reason; bad hex or a wrong length is malformed input (exit 3).
            With --batch, each line is judged on its own and the usable lines of each 1024 are checked with one \
            randomised batch verification (failures are then checked singly to name them). A line that is not \
            JSON or has bad hex or a wrong length is reported in place as unusable and the run goes on. Exit 0 \
            when every line is valid, 1 when any is invalid, 3 when any line was unusable.
            """,
        options: [publicKey, signature, message, dst, batch],
        relations: [.exactlyOne(batch, publicKey), .conflicting(batch, signature), .conflicting(batch, message),
                    .requires(publicKey, signature, message)],
        examples: [
            Example("omni ic bls verify --public-key @root.hex --signature ace9…b2f7 --message 0d69…6d90",
                    "Verify one IC certificate signature against a key in a file."),
            Example("omni ic bls verify --batch sigs.jsonl --output jsonl", "Verify a file of signatures, one verdict line each."),
        ],
        streaming: .when(batch)
    ) { invocation in
        let tag = Array(try invocation.value(dst).utf8)
        if let input = try invocation.value(batch) {
            return try verifyBatch(input, dst: tag, invocation: invocation)
        }
        guard let key = try invocation.value(publicKey), let sig = try invocation.value(signature),
              let msg = try invocation.value(message) else {
            throw CLIError.usage("give --public-key, --signature and --message (or --batch FILE)", commandPath: invocation.commandPath)
        }
        let verdict = try Verdict.check(publicKey: key.bytes, signature: sig.bytes, message: msg.bytes, dst: tag)
        return .output(verdict, exitCode: verdict.valid ? .ok : .failure)
    }

    /// The outcome for one (key, signature, message): valid, or invalid with a reason. Wrong lengths are thrown
    /// (malformed input); every other decoding failure is a reason, because the bytes were a plausible point.
    struct Verdict: Renderable {
        let valid: Bool
        let reason: String?
        let reasonCode: String?

        init(valid: Bool, reason: String?, reasonCode: String?) {
            self.valid = valid
            self.reason = reason
            self.reasonCode = reasonCode
        }

        static func check(publicKey: [UInt8], signature: [UInt8], message: [UInt8], dst: [UInt8]) throws -> Verdict {
            let result = Result { () throws(BLSError) -> BLSVerification in
                try BLS.verify(signature: signature, publicKey: try decodeKey(publicKey), message: message, dst: dst)
            }
            switch result {
            case .success(let verification): return Verdict(verification)
            case .failure(let error) where isMalformed(error): throw error
            case .failure(let error): return Verdict(error)
            }
        }

        init(_ verification: BLSVerification) {
            switch verification {
            case .valid: self.init(valid: true, reason: nil, reasonCode: nil)
            case .invalid(let why): self.init(valid: false, reason: why.description, reasonCode: why.rawValue)
            }
        }

        init(_ error: BLSError) {
            self.init(valid: false, reason: error.description, reasonCode: "\(error.subject.rawValue)_\(error.kind.rawValue)")
        }

        func text(style: TextStyle) -> String {
            valid ? style.good("valid") : style.bad("invalid") + ": " + (reason ?? "")
        }

        var fields: [(String, JSONValue)] {
            var fields: [(String, JSONValue)] = [("valid", .bool(valid)), ("reason", reason.map { .string($0) } ?? .null)]
            if let reasonCode { fields.append(("reason_code", .string(reasonCode))) }
            return fields
        }

        var json: JSONValue { .object(JSONObject(fields)) }
    }

    /// One line that is usable: its decoded key (shared between lines with the same key bytes) and values.
    private struct Item {
        let index: Int
        let item: BLSBatchItem
    }

    /// Batch mode through the framework's batch loop: `chunkSize` lines at a time, keys decoded once per chunk, the
    /// well-formed items of the chunk checked with one randomised batch verification.
    static func verifyBatch(_ input: InputFile, dst: [UInt8], invocation: Invocation) throws -> CommandResult {
        try BatchRunner.run(invocation, input: input, label: "--batch", chunkSize: chunkSize) { lines in
            var outcomes = [BatchRunner.Outcome?](repeating: nil, count: lines.count)
            var items: [Item] = []
            var keys: [[UInt8]: BLSPublicKey] = [:]
            for (index, line) in lines.enumerated() {
                do {
                    func field(_ name: String) throws -> [UInt8] {
                        guard let text = line.object[name]?.stringValue else {
                            throw CodecError(.malformed, format: "JSON", "missing string field \"\(name)\"")
                        }
                        do throws(CodecError) { return try Hex.decode(text.trimmingWhitespaceAndNewlines(), allowPrefix: true) } catch {
                            throw error.labelled(name)
                        }
                    }
                    let keyBytes = try field("public_key"), sig = try field("signature"), msg = try field("message")
                    guard sig.count == BLS.signatureLength else {
                        throw BLSError(.wrongLength, .signature, detail: "\(sig.count) bytes, expected \(BLS.signatureLength)")
                    }
                    let key: BLSPublicKey
                    if let cached = keys[keyBytes] {
                        key = cached
                    } else {
                        key = try decodeKey(keyBytes)
                        keys[keyBytes] = key
                    }
                    items.append(Item(index: index, item: BLSBatchItem(signature: sig, publicKey: key, message: msg)))
                } catch let error as BLSError where !isMalformed(error) {
                    let verdict = Verdict(error)
                    outcomes[index] = .verdict(fields: verdict.fields, valid: false, text: verdict.text(style: invocation.stdoutStyle))
                } catch let error as BLSError {
                    outcomes[index] = .unusable(error.description)
                } catch let error as CodecError {
                    outcomes[index] = .unusable(error.description)
                }
            }
            for (result, item) in zip(BLS.verifyBatch(items.map(\.item), dst: dst), items) {
                let verdict: Verdict
                switch result {
                case .success(let verification): verdict = Verdict(verification)
                case .failure(let error): verdict = Verdict(error)
                }
                outcomes[item.index] = .verdict(fields: verdict.fields, valid: verdict.valid,
                                                text: verdict.text(style: invocation.stdoutStyle))
            }
            return outcomes.map { $0 ?? .unusable("not judged") }
        }
    }

    static func decodeKey(_ bytes: [UInt8]) throws(BLSError) -> BLSPublicKey {
        bytes.count == BLS.publicKeyLength ? try BLSPublicKey(compressed: bytes) : try BLSPublicKey(der: bytes)
    }

    /// Bytes that cannot be a point at all (wrong length, not the IC DER form) are malformed input, not a verdict.
    static func isMalformed(_ error: BLSError) -> Bool {
        error.kind == .wrongLength || error.kind == .badDERPrefix
    }
}
