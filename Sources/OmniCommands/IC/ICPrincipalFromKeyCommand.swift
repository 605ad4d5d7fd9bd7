import OmniCLI
import OmniCandid
import OmniCodec
import OmniIC

/// `omni ic principal from-key`: the self-authenticating principal of a public key.
enum ICPrincipalFromKeyCommand {
    static let der = Option<String>("der", valueName: "HEX", help: "The DER SubjectPublicKeyInfo, as hex (binary with --input-format binary).",
                                    source: .content)
    static let pem = Option<InputFile>("pem", valueName: "FILE",
                                       help: "A PEM file with a PUBLIC KEY, or a private key (dfx's identity.pem): its public key is used.")
    static let inputFormat = DefaultedOption<ICInputEncoding>("input-format", valueName: "FORMAT", help: "How --der is encoded.",
                                                              default: .hex)

    static let command = Command(
        "from-key", abstract: "The self-authenticating principal of a public key: SHA-224(DER key) then 02.",
        discussion: """
            This is how the IC names users (from their signing key), nodes (from their Ed25519 key) and subnets \
            (from their BLS key). Keys of types the IC does not sign requests with are accepted too (the id is a \
            hash of whatever bytes are given), with a note on stderr. A private key file is read only to derive \
            its public key; nothing secret is printed.
            """,
        options: [der, pem, inputFormat],
        relations: [.exactlyOne(der, pem), .requires(inputFormat, der)],
        examples: [
            Example("omni ic principal from-key --pem ~/.config/dfx/identity/default/identity.pem",
                    "The principal dfx shows for that identity."),
            Example("omni ic principal from-key --der 302a300506032b6570032100…", "The id of an Ed25519 key."),
        ]
    ) { invocation in
        let keyDER: [UInt8]
        if let raw = try invocation.bytes(of: der) {
            keyDER = try ICInput.bytes(raw, encoding: try invocation.value(inputFormat), label: "--der")
        } else if let pemFile = try invocation.value(pem) {
            // Read as a public file: it may hold only a public key. Only the public key is derived and printed.
            let text = try invocation.readText(pemFile, label: "--pem", limit: 1 << 16)
            let file = pemFile.displayName
            if let publicKey = try ICInput.publicKeyDER(pem: text, label: "--pem") {
                keyDER = publicKey
            } else {
                let identity: ICIdentity
                do throws(ICError) { identity = try ICIdentity(pem: text) } catch {
                    throw ICError(error.kind, "--pem \(file): \(error.message) (expected a PUBLIC KEY or a private key block)")
                }
                guard let publicKey = identity.publicKeyDER else { throw ICError(.malformed, "--pem \(file): the key has no public key") }
                keyDER = publicKey
            }
        } else {
            throw CLIError.usage("give the key with --der or --pem", commandPath: invocation.commandPath)
        }
        let principal = Principal.selfAuthenticating(publicKeyDER: keyDER)
        let algorithm = ICPrincipalFacts.keyAlgorithm(der: keyDER)
        if algorithm == nil {
            invocation.note("note: the key is not one omni recognises (Ed25519, ECDSA P-256 or secp256k1, BLS12-381, canister signature); its id is computed anyway")
        }
        var json = ICPrincipalFacts.json(principal)
        json.append("public_key", .string(Hex.encode(keyDER)))
        json.append("key_algorithm", algorithm.map { .string($0) } ?? .null)
        return .output(SimpleOutput(text: principal.text, json: .object(json)))
    }
}
