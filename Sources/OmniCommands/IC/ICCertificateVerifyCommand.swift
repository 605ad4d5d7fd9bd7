import OmniCLI
import OmniCandid
import OmniCodec
import OmniIC

/// `omni ic certificate verify`: a certificate checked offline, as an agent checks it before trusting a value.
enum ICCertificateVerifyCommand {
    static let certificate = OptionalArgument<String>(
        "CERTIFICATE", help: "The certificate CBOR, or a read_state response body {certificate: …}, as hex (binary with "
            + "--input-format binary); read from stdin when omitted.",
        source: .content)
    static let inputFormat = DefaultedOption<ICInputEncoding>("input-format", valueName: "FORMAT", help: "How CERTIFICATE is encoded.",
                                                              default: .hex)
    static let canister = Option<Principal>("canister", valueName: "ID",
                                            help: "The effective canister id the certificate must be authoritative for.")
    static let subnet = Option<Principal>("subnet", valueName: "ID",
                                          help: "For subnet read_state certificates: the subnet they must come from.")
    static let at = Option<Instant>("at", valueName: "INSTANT",
                                    help: "Check /time against this instant instead of the clock: RFC 3339 or Unix seconds.",
                                    absentMeans: "now")
    static let timeTolerance = DefaultedOption<Duration>("time-tolerance", valueName: "DURATION",
                                                         help: "How far /time may be from the reference time.", default: .seconds(300))
    static let lookup = RepeatedOption<StatePath>(
        "lookup", valueName: "PATH", help: "Look up a path in the verified tree, e.g. /time or /canister/ID/certified_data.")

    static let command = Command(
        "verify", abstract: "Verify a certificate offline (exit 0 valid, 1 not valid with the reason, 3 malformed).",
        discussion: """
            Checks, as an agent does before trusting anything certified: the hash tree, the BLS signature under \
            the root key or under a subnet key that the root subnet delegated (never a nested delegation), that \
            the delegated subnet's certified canister ranges contain --canister (sharded /canister_ranges/<subnet> \
            or flat /subnet/<subnet>/canister_ranges) or that the delegation is for --subnet, and that /time is \
            within --time-tolerance of --at (default: the clock; old certificates need --at).
            Reasons for exit 1: signature, delegation, range, time, lookup (e.g. no /time).
            Lookup paths are /-separated labels: a principal's text stands for its bytes, 0x… and 64-digit hex \
            labels (request ids) for their bytes, anything else for its UTF-8 text. Each lookup prints found \
            (with the value), absent (the tree proves there is none), unknown (pruned), or error (an inner node).
            """,
        options: [inputFormat, canister, subnet, ICOfflineOptions.rootKey, at, timeTolerance, lookup],
        arguments: [certificate],
        relations: [.exactlyOne(canister, subnet)],
        examples: [
            Example("omni ic certificate verify @cert.hex --canister ryjl3-tyaaa-aaaaa-aaaba-cai --at 2025-11-22T07:35:00Z",
                    "Check an old mainnet certificate at the time it was made."),
            Example("omni ic certificate verify @body.bin --input-format binary --subnet tdb26-jop6k-aogll-7ltgs-eruif-6kk7m-qpktf-gdiqx-mxtrf-vb5e6-eqe "
                    + "--root-key @local-root.hex --lookup /time",
                    "A local replica's subnet read_state response, and its certified time."),
        ]
    ) { invocation in
        let scope: CertificateScope
        if let id = try invocation.value(canister) {
            scope = .canister(id)
        } else if let id = try invocation.value(subnet) {
            scope = .subnet(id)
        } else {
            throw CLIError.usage("give --canister ID or --subnet ID", commandPath: invocation.commandPath)
        }
        let key = try ICOfflineOptions.rootKey(invocation)
        let reference = try invocation.value(at)?.unixNanoseconds ?? IngressExpiry.currentTime()
        let freshness = Freshness.at(reference, tolerance: try invocation.value(timeTolerance).nanosecondsValue)
        let paths = try invocation.value(lookup)
        let raw = try invocation.bytes(of: certificate) ?? invocation.read(.standardInput, label: "CERTIFICATE")
        let bytes = try ICInput.bytes(raw, encoding: try invocation.value(inputFormat), label: "CERTIFICATE")
        let (parsed, source) = try decode(bytes)

        var json = JSONObject()
        json.append("scope", .object(scopeJSON(scope)))
        json.append("root_key", .string(key.isMainnet ? "mainnet" : Hex.encode(key.der)))
        json.append("input", .string(source))
        let verified: VerifiedCertificate
        do {
            verified = try parsed.verify(scope: scope, rootKey: key, freshness: freshness)
        } catch let error as ICError where error.kind == .verificationFailed {
            let reason = error.reason?.rawValue ?? "unknown"
            var verdict = JSONObject([("valid", false), ("reason", .string(reason)), ("message", .string(error.message))])
            if let location = error.location { verdict.append("location", .string(location)) }
            for (key, value) in json { verdict.append(key, value) }
            var report = ICReport(json: .object(verdict))
            report.line("valid", invocation.stdoutStyle.bad("no") + " (\(reason))")
            report.line("reason", error.message)
            return .output(report, exitCode: .failure)
        }
        var verdict = JSONObject([("valid", true)])
        ICTimeFields.add("time", verified.time, to: &verdict)
        ICTimeFields.add("reference_time", reference, to: &verdict)
        verdict.append("subnet", .string(verified.subnetID.text))
        verdict.append("delegated", .bool(verified.isDelegated))
        verdict.append("root_hash", .string(Hex.encode(verified.rootHash)))
        for (key, value) in json { verdict.append(key, value) }
        var report = ICReport(json: .null)
        report.line("valid", invocation.stdoutStyle.good("yes") + " (\(scope), \(key))")
        report.line("time", ICTime.format(verified.time) + " (\(verified.time))")
        report.line("subnet", verified.subnetID.text + (verified.isDelegated ? " (delegated by the root subnet)" : " (the root subnet)"))
        report.line("root hash", Hex.encode(verified.rootHash))
        var lookups: [JSONValue] = []
        for statePath in paths {
            let result = verified.lookup(statePath)
            var item = JSONObject([("path", .string(statePath.description))])
            let text: String
            switch result {
            case .found(let value):
                item.append("result", "found")
                item.append("value", .string(Hex.encode(value)))
                if let readable = readableText(value) { item.append("text", .string(readable)) }
                if let time = naturalIfTime(statePath, value) { ICTimeFields.add("time", time, to: &item) }
                text = "found " + (naturalIfTime(statePath, value).map { ICTime.format($0) } ?? readableText(value).map { "\"\($0)\"" }
                                    ?? (value.isEmpty ? "(empty)" : Hex.encode(value.prefix(64)) + (value.count > 64 ? "… (\(value.count) bytes)" : "")))
            case .absent:
                item.append("result", "absent")
                text = "absent (certified: there is no such path)"
            case .unknown:
                item.append("result", "unknown")
                text = "unknown (pruned from this certificate)"
            case .error:
                item.append("result", "error")
                text = "error (the path ends at an inner node, not a value)"
            }
            lookups.append(.object(item))
            report.trailer.append(invocation.stdoutStyle.dim("lookup ") + statePath.description + ": " + text)
        }
        verdict.append("lookups", .array(lookups))
        report.json = .object(verdict)
        return .output(report)
    }

    /// A bare certificate, or a read_state response body that wraps one.
    static func decode(_ bytes: [UInt8]) throws -> (ICCertificate, String) {
        if let map = try? CBOR.decode(bytes, options: CBORDecodingOptions(maxDepth: 4, maxItems: 64, stripSelfDescribeTag: true)).map,
           map.contains(where: { $0.key.text == "certificate" }), !map.contains(where: { $0.key.text == "tree" }) {
            return (try ICCertificate(decoding: try ReadStateResponse.certificate(from: bytes)), "read_state_response")
        }
        return (try ICCertificate(decoding: bytes), "certificate")
    }

    static func scopeJSON(_ scope: CertificateScope) -> JSONObject {
        switch scope {
        case .canister(let id): JSONObject([("canister", .string(id.text))])
        case .subnet(let id): JSONObject([("subnet", .string(id.text))])
        }
    }

    /// The value as text when it is printable UTF-8 (status words, reject messages, metadata).
    static func readableText(_ value: [UInt8]) -> String? {
        guard !value.isEmpty, value.count <= 4096, let text = String(validating: value, as: UTF8.self),
              text.unicodeScalars.allSatisfy({ $0.value >= 0x20 && $0.value != 0x7f || $0 == "\n" || $0 == "\t" })
        else { return nil }
        return text
    }

    /// `/time` and `…/time`-like leaves hold LEB128 nanoseconds.
    static func naturalIfTime(_ path: StatePath, _ value: [UInt8]) -> UInt64? {
        guard let last = path.labels.last, last == Array("time".utf8) || last == Array("canister_creation_timestamp".utf8)
            || last == Array("last_install_timestamp".utf8), value.count <= 10 else { return nil }
        var offset = 0
        guard let natural = try? LEB128.decodeUInt64(value, at: &offset), offset == value.count else { return nil }
        return natural
    }
}
