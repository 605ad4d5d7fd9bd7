import OmniAttest
import OmniCLI
import OmniCodec
import OmniCrypto

enum AttestReceiptCommand {
    static let receipt = Option<String>("receipt", valueName: "B64", help: "The receipt (base64 CMS), from an attestation or from Apple's refresh endpoint.",
                                        source: .content)
    static let root = Option<String>("root", valueName: "PEM", help: "Trust this root instead of the built-in Apple Root CA - G3 (tests).",
                                     source: .content)

    static let command = Command(
        "receipt", abstract: "Verify an App Attest receipt to Apple Root CA - G3 and print its fields.",
        discussion: """
            Verifies the CMS signature, the signer chain to Apple Root CA - G3 at --at, and (when given) that field 2
            is --app-id and that the attested certificate in field 3 holds the key --key-id. Prints type (ATTEST or
            RECEIPT), environment, creation, not-before and expiration times, risk metric, token and client hash.
            Exit 0 when it verifies, 1 when it does not.
            """,
        options: [receipt, AttestOptions.appID, AttestOptions.keyID, root, AttestOptions.at],
        examples: [Example("omni attest receipt --receipt @receipt.b64 --app-id 6MURL8TA57.de.vincent-haupert.apple-appattest-poc --at 2020-11-21T22:16:05Z",
                           "The receipt's fields and whether Apple signed it.")]
    ) { invocation in
        guard let text = try invocation.value(receipt) else {
            throw CLIError.usage("missing required option --receipt B64", commandPath: invocation.commandPath)
        }
        let bytes = try AttestBase64.argument(text, "--receipt")
        let roots = try AttestOptions.roots(try invocation.value(root), builtIn: AppleRoots.rootCAG3)
        let appID = try invocation.value(AttestOptions.appID).map { text throws(AttestError) in try AttestOptions.checkedAppID(text) }
        let appraisal = ReceiptAppraiser.appraise(bytes, roots: roots, at: try AttestOptions.time(invocation), appID: appID,
                                                  expectedKeyID: try AttestOptions.base64(invocation, AttestOptions.keyID))
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
        let headline = appraisal.isValid ? style.good("✔ receipt verified to Apple Root CA - G3") : style.bad("✘ receipt does not verify")
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
