import OmniCLI
import OmniCodec
import OmniIrd
import OmniSystem

/// `omni ird auth status|logout`: which credential omni would send, and forgetting the stored session.
enum IrdAuthCommands {
    static let status = Command(
        "status", abstract: "Say which credential omni would use and where it comes from (never the token itself).",
        discussion: """
            The order is --api-key @FILE, then IRD_API_KEY, then the session stored by 'omni ird login' \
            ($XDG_CONFIG_HOME/omni/ird/session.json). Only the kind and the last four characters are shown. Exits 1 \
            when there is no credential. Nothing is sent to the service.
            """,
        options: [IrdOptions.apiKey]
    ) { invocation in
        var output = FieldList()
        guard let credential = try IrdOptions.credential(invocation) else {
            output.add("credential", .null, text: "none: give --api-key @FILE, set IRD_API_KEY, or log in with 'omni ird login'")
            return .output(output, exitCode: .failure)
        }
        output.add("credential", .string(credential.kind.rawValue), text: credential.kind == .apiKey ? "API key" : "account session")
        output.add("token", .string(credential.masked))
        output.add("source", .string(credential.sourceDescription))
        if let expires = credential.expiresAt { output.add("expires_at", .string(expires)) }
        return .output(output)
    }

    static let logout = Command(
        "logout", abstract: "Remove the session stored by 'omni ird login' (an API key in a file or IRD_API_KEY is not touched)."
    ) { invocation in
        let store = IrdSessionStore(directories: Directories(environment: invocation.environment))
        let removed = try store.remove()
        var output = FieldList()
        output.add("removed", .bool(removed), text: removed ? "yes (\(store.path))" : "no: there was no stored session")
        return .output(output)
    }
}
