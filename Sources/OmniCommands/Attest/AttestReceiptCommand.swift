import OmniAttest
import OmniCLI
import OmniCodec
import OmniCrypto

enum AttestReceiptCommand {
    static let receipt = RequiredOption<Base64Bytes>("receipt", valueName: "B64",
                                                     help: "The receipt (base64 CMS), from an attestation or from Apple's refresh endpoint.",
                                                     source: .content)
    static let root = Option<InputFile>("root", valueName: "PEM_FILE",
                                        help: "Trust the root certificate(s) in this PEM file instead, without Apple's receipt pins (tests).",
                                        absentMeans: "Apple Root CA - G3 with the pinned receipt intermediate and signer")

    static let command = Command(
        "receipt", abstract: "Verify an App Attest receipt to Apple's pinned receipt chain and print its fields.",
        discussion: """
            Verifies the CMS signature and the signer chain at --at: Apple Root CA - G3, then exactly the \
            intermediate Apple publishes for receipts (Apple Application Integration CA 5 - G1, pinned by its \
            SHA-256), then a signer whose subject is the documented one; any other certificate under Apple's root \
            is refused. When given, field 2 must be --app-id and the attested certificate in field 3 must hold the \
            key --key-id. Prints type (ATTEST or RECEIPT), environment, creation, not-before and expiration \
            times, risk metric, token and client hash. Exit 0 when it verifies, 1 when it does not.
            """,
        options: [receipt, AttestOptions.appID, AttestOptions.keyID, root, AttestOptions.at],
        examples: [Example("omni attest receipt --receipt @receipt.b64 --app-id 6MURL8TA57.de.vincent-haupert.apple-appattest-poc --at 2020-11-21T22:16:05Z",
                           "The receipt's fields and whether Apple signed it.")]
    ) { invocation in
        let bytes = try invocation.value(receipt).bytes
        let trust = try AttestOptions.customRoots(invocation, root).map(ReceiptTrust.anchored) ?? .apple
        let appraisal = ReceiptAppraiser.appraise(bytes, trust: trust, at: try AttestOptions.time(invocation),
                                                  appID: try invocation.value(AttestOptions.appID)?.text,
                                                  expectedKeyID: try invocation.value(AttestOptions.keyID)?.bytes)
        return .output(ReceiptOutput(appraisal: appraisal), exitCode: appraisal.isValid ? .ok : .failure)
    }
}

struct ReceiptOutput: Renderable {
    let appraisal: ReceiptAppraisal

    var json: JSONValue {
        let fields = appraisal.json
        var object = JSONObject([("type", "receipt")])
        for (key, value) in fields.objectValue ?? JSONObject() where key != "type" { object[key] = value }
        object["receipt_type"] = fields["type"] ?? .null
        return .object(object)
    }

    func text(style: TextStyle) -> String {
        let headline = appraisal.isValid ? style.good("✔ receipt verified") : style.bad("✘ receipt does not verify")
        var list = FieldList()
        for problem in appraisal.problems { list.add("problem", .string(problem)) }
        for (key, value) in appraisal.json.objectValue ?? JSONObject()
        where !["valid", "problems", "signer_chain"].contains(key) && !value.isNull {
            list.add(key, value)
        }
        if !appraisal.signerChain.isEmpty { list.add("signer_chain", .string(appraisal.signerChain.joined(separator: " ← ")), label: "signed by") }
        return headline + "\n" + list.text(style: style)
    }
}
