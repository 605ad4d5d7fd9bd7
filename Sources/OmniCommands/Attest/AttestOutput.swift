import OmniAttest
import OmniCLI
import OmniCodec

/// A verdict as omni prints it: the library's JSON for scripts, aligned fields for people. Every attest command's
/// verdict goes through here, so text and JSON never disagree.
struct VerdictOutput: Renderable {
    let json: JSONValue

    /// `prefix`: extra fields for batch lines (line number, the caller's id), placed first.
    init(json: JSONValue, prefix: [(String, JSONValue)] = []) {
        var object = JSONObject(prefix)
        for (key, value) in json.objectValue ?? JSONObject() { object[key] = value }
        self.json = .object(object)
    }

    var isValid: Bool { json["valid"]?.boolValue == true }

    func text(style: TextStyle) -> String {
        let kind = json["type"]?.stringValue ?? "evidence"
        let reason = json["reason"]?.stringValue ?? "?"
        var headline = isValid ? style.good("✔ valid \(kind)") : style.bad("✘ refused \(kind): \(reason)")
        if let line = json["line"]?.numberText { headline = "line \(line): " + headline }
        if let id = json["id"]?.stringValue { headline += " [\(id)]" }
        var list = FieldList()
        list.add("reason", .string(reason))
        if let message = json["message"]?.stringValue, !message.isEmpty { list.add("detail", .string(message)) }
        for (key, label) in [("key_id", "key id"), ("app_id", "app id"), ("environment", "environment"), ("aaguid", "aaguid"),
                             ("previous_counter", "stored counter"), ("counter", "counter")] {
            if let value = json[key], !value.isNull { list.add(key, value, label: label) }
        }
        if let point = json["public_key"]?["x962"]?.stringValue { list.add("public_key", .string(point), label: "public key") }
        if let certificate = json["certificate"], !certificate.isNull {
            let window = "\(certificate["not_before"]?.stringValue ?? "?") → \(certificate["not_after"]?.stringValue ?? "?")"
            list.add("certificate", .string(window), label: "certificate", text: "\(certificate["subject"]?.stringValue ?? ""), valid \(window)")
        }
        if let extensions = json["extensions"]?.objectValue, !extensions.isEmpty {
            let text = extensions.map { "\($0.key)=\($0.value.stringValue ?? $0.value.serialized())" }.joined(separator: ", ")
            list.add("extensions", .string(text))
        }
        if let receipt = json["receipt"], !receipt.isNull { list.add("receipt", .string(Self.receiptLine(receipt))) }
        if let key = json["stored_key"], !key.isNull {
            list.add("stored", .string("\(key["status"]?.stringValue ?? "?"), counter \(key["counter"]?.numberText ?? "?")"))
        }
        return headline + "\n" + list.text(style: style)
    }

    static func receiptLine(_ receipt: JSONValue) -> String {
        var parts = [receipt["type"]?.stringValue ?? "?", receipt["environment"]?.stringValue ?? "?"]
        if let created = receipt["creation_time"]?.stringValue { parts.append("created \(created)") }
        if let risk = receipt["risk_metric"]?.numberText { parts.append("risk metric \(risk)") }
        if receipt["valid"]?.boolValue == true {
            parts.append("verified to Apple Root CA - G3")
        } else {
            let problems = receipt["problems"]?.arrayValue?.compactMap(\.stringValue) ?? []
            parts.append("NOT verified: " + problems.joined(separator: "; "))
        }
        return parts.joined(separator: ", ")
    }
}

extension CommandResult {
    /// A verdict: exit 0 when valid, 1 when refused.
    static func verdict(_ json: JSONValue) -> CommandResult {
        let output = VerdictOutput(json: json)
        return .output(output, exitCode: output.isValid ? .ok : .failure)
    }
}

/// Warns on stderr about a receipt that does not verify while the verdict does not depend on it.
func warnAboutReceipt(_ receipt: ReceiptAppraisal?, _ invocation: Invocation) {
    guard let receipt, !receipt.isValid else { return }
    invocation.warn("warning: the receipt does not verify (\(receipt.problems.joined(separator: "; "))); pass --require-receipt to refuse such attestations")
}
