import OmniCLI
import OmniCodec
import OmniIrd
import OmniSystem

/// `omni ird login [--open]`: the device login. The code and the URL go to stderr; the browser shows a confirmation
/// code that is typed here; the session is stored 0600 where 'omni ird auth status' and every command find it.
enum IrdLoginCommand {
    static let open = Flag("open", help: "Open the verification page in the browser (xdg-open) as well as printing its URL.")

    static let command = Command(
        "login", abstract: "Log in with the device flow and store the account session (0600) for later commands.",
        discussion: """
            Starts a device login, prints the user code and the verification URL on stderr (--open also opens it with \
            xdg-open), waits until it is approved in the browser (polling at the service's interval, slower when it \
            says so, within --deadline or the code's lifetime), then asks for the confirmation code the browser \
            shows and stores the session in $XDG_CONFIG_HOME/omni/ird/session.json. The confirmation code is typed on \
            a terminal: without one (or with --no-input) login refuses before sending anything. None of these \
            requests carries a credential, whatever is configured. 'omni ird auth logout' forgets the session.
            """,
        options: [open, IrdOptions.baseURL, IrdOptions.requestTimeout, IrdOptions.deadline]
    ) { invocation in
        guard invocation.canPrompt else {
            throw CLIError.usage("omni ird login needs a terminal to type the confirmation code the browser shows"
                                 + (invocation.noInput ? " (--no-input forbids asking)" : "")
                                 + "; without one, use an API key: --api-key @FILE or IRD_API_KEY", commandPath: invocation.commandPath)
        }
        let loaded = try IrdDocumentLoader.require(invocation.environment)
        let flow = try IrdDeviceLogin(document: loaded.document)
        let store = IrdSessionStore(directories: Directories(environment: invocation.environment))
        let client = try IrdOptions.client(invocation, document: loaded, credential: .none)
        let cancellation = IrdOptions.cancellation(invocation)
        let started = try flow.begin(client, cancellation: cancellation)
        let page = started.verificationURIComplete ?? started.verificationURI
        invocation.streams.err(TerminalText.sanitized("To log in, open \(page)\nand check that it shows the code \(started.userCode)\n", styled: false))
        if try invocation.value(open) { BrowserOpener.open(page, invocation: invocation, shownAs: "the ird device login") }
        try flow.waitForApproval(client, started, deadline: try invocation.value(IrdOptions.deadline), cancellation: cancellation)
        invocation.streams.err("Approved. Confirmation code shown in the browser: ")
        guard let code = invocation.streams.readAnswer()?.trimmingWhitespaceAndNewlines(), !code.isEmpty else {
            throw CLIError.usage("no confirmation code was typed; nothing was stored", commandPath: invocation.commandPath)
        }
        let session = try flow.finish(client, started, confirmationCode: code, cancellation: cancellation)
        try store.write(session)
        var output = FieldList()
        output.add("logged_in", .bool(true), text: "yes")
        output.add("session", .string(store.path))
        if let expires = session.expiresAt { output.add("expires_at", .string(expires)) }
        return .output(output)
    }
}
