import OmniBLS
import OmniCLI
import OmniCodec

/// `omni ic bls verify`: one signature, or a JSONL batch, checked with omni's own BLS12-381.
enum ICBLSVerifyCommand {
    static let publicKey = Option<String>(
        "public-key", valueName: "HEX",
        help: "Public key: 96-byte compressed G2 point, or the 133-byte DER form IC certificates carry, as hex.",
        source: .content)
    static let signature = Option<String>("signature", valueName: "HEX",
                                          help: "Signature: 48-byte compressed G1 point, as hex.", source: .content)
    static let message = Option<String>("message", valueName: "HEX", help: "The signed message, as hex.",
                                        source: .content)
    static let dst = Option<String>(
        "dst", valueName: "STRING", help: "Domain separation tag for hashing the message to G1.",
        defaultDescription: "BLS_SIG_BLS12381G1_XMD:SHA-256_SSWU_RO_NUL_ (the IC's)")
    static let batch = Option<String>(
        "batch", valueName: "FILE",
        help: "Verify many: a JSON Lines file (or - for stdin) of {\"public_key\",\"signature\",\"message\"} in hex; "
            + "prints one {\"valid\",\"reason\"} JSON line per input, in order.",
        source: .path)

    static let command = Command(
        "verify", abstract: "Verify a BLS signature (exit 0 valid, 1 invalid with the reason, 3 malformed input).",
        discussion: """
            Checks e(signature, g2) = e(H(message), public key) with the ciphersuite \
            BLS_SIG_BLS12381G1_XMD:SHA-256_SSWU_RO_NUL_. Both points are decoded strictly (compression and \
            infinity flags, canonical coordinates, on the curve, in the prime-order subgroup); the point at \
            infinity is refused. A point that decodes but fails a check is an invalid signature (exit 1) with \
            the reason; bad hex or a wrong length is malformed input (exit 3).
            """,
        options: [publicKey, signature, message, dst, batch],
        examples: [
            Example("omni ic bls verify --public-key @root.hex --signature ace9…b2f7 --message 0d69…6d90",
                    "Verify one IC certificate signature against a key in a file."),
            Example("omni ic bls verify --batch sigs.jsonl", "Verify a file of signatures, one verdict line each."),
        ]
    ) { invocation in
        let tag = try invocation.value(dst).map { Array($0.utf8) } ?? BLS.icDST
        if let path = try invocation.value(batch) {
            if invocation.isGiven(publicKey) || invocation.isGiven(signature) || invocation.isGiven(message) {
                throw CLIError.usage("--batch cannot be combined with --public-key, --signature or --message",
                                     commandPath: invocation.commandPath)
            }
            return try verifyBatch(path: path, dst: tag, invocation: invocation)
        }
        let key = try decodeHex(try invocation.require(publicKey), field: "--public-key")
        let sig = try decodeHex(try invocation.require(signature), field: "--signature")
        let msg = try decodeHex(try invocation.require(message), field: "--message")
        let verdict = try Verdict.check(publicKey: key, signature: sig, message: msg, dst: tag)
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
                let key = publicKey.count == BLS.publicKeyLength
                    ? try BLSPublicKey(compressed: publicKey) : try BLSPublicKey(der: publicKey)
                return try BLS.verify(signature: signature, publicKey: key, message: message, dst: dst)
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

        var json: JSONValue {
            var object = JSONObject()
            object["valid"] = .bool(valid)
            object["reason"] = reason.map { .string($0) } ?? .null
            if let reasonCode { object["reason_code"] = .string(reasonCode) }
            return .object(object)
        }
    }

    /// Batch mode: each line verified independently, keys decoded once each, the well-formed items checked with
    /// one randomised batch verification (falling back to singles to name the failures). Lines that are not
    /// usable are reported in place as invalid with the reason, so output lines always match input lines.
    static func verifyBatch(path: String, dst: [UInt8], invocation: Invocation) throws -> CommandResult {
        let bytes = try ICInput.file(path, label: "--batch", invocation: invocation, maxBytes: FileInput.maximumBytes)
        let lines = String(decoding: bytes, as: UTF8.self).split(separator: "\n", omittingEmptySubsequences: false)
            .map { $0.hasSuffix("\r") ? $0.dropLast() : $0 }
            .filter { !$0.allSatisfy(\.isWhitespace) }
        var verdicts = [Verdict?](repeating: nil, count: lines.count)
        var items: [BLSBatchItem] = []
        var itemLines: [Int] = []
        var keys: [[UInt8]: BLSPublicKey] = [:]
        for (index, line) in lines.enumerated() {
            do {
                let object = try JSONValue.parse(String(line))
                func field(_ name: String) throws -> [UInt8] {
                    guard let text = object[name]?.stringValue else {
                        throw CodecError(.malformed, format: "JSON", "missing string field \"\(name)\"")
                    }
                    return try decodeHex(text, field: name)
                }
                let keyBytes = try field("public_key"), sig = try field("signature"), msg = try field("message")
                guard sig.count == BLS.signatureLength else {
                    throw BLSError(.wrongLength, .signature, detail: "\(sig.count) bytes, expected \(BLS.signatureLength)")
                }
                let key: BLSPublicKey
                if let cached = keys[keyBytes] {
                    key = cached
                } else {
                    key = keyBytes.count == BLS.publicKeyLength
                        ? try BLSPublicKey(compressed: keyBytes) : try BLSPublicKey(der: keyBytes)
                    keys[keyBytes] = key
                }
                items.append(BLSBatchItem(signature: sig, publicKey: key, message: msg))
                itemLines.append(index)
            } catch let error as BLSError {
                verdicts[index] = isMalformed(error)
                    ? Verdict(valid: false, reason: "malformed input: \(error)", reasonCode: "malformed_input")
                    : Verdict(error)
            } catch {
                verdicts[index] = Verdict(valid: false, reason: "malformed input: \(error)", reasonCode: "malformed_input")
            }
        }
        for (result, index) in zip(BLS.verifyBatch(items, dst: dst), itemLines) {
            switch result {
            case .success(let verification): verdicts[index] = Verdict(verification)
            case .failure(let error): verdicts[index] = Verdict(error)
            }
        }
        var allValid = true
        for verdict in verdicts {
            guard let verdict else { continue }
            allValid = allValid && verdict.valid
            // The batch format is JSON Lines in and out, whatever --output says: it is a data pipe.
            invocation.streams.out(verdict.json.serialized() + "\n")
        }
        return CommandResult(exitCode: allValid ? .ok : .failure)
    }

    /// Bytes that cannot be a point at all (wrong length, not the IC DER form) are malformed input, not a verdict.
    static func isMalformed(_ error: BLSError) -> Bool {
        error.kind == .wrongLength || error.kind == .badDERPrefix
    }

    static func decodeHex(_ text: String, field: String) throws -> [UInt8] {
        let trimmed = text.trimmingWhitespaceAndNewlines()
        do {
            return try Hex.decode(trimmed)
        } catch {
            throw error.labelled(field)
        }
    }
}

