import OmniCLI

/// What omni adds to the framework's global options, and the lists its completion scripts ask for at Tab time.
public enum ProgramGlobals {
    /// `--identity NAME` works anywhere on the line, as with dfx.
    public static var options: [any OptionDeclaration] { [ICIdentitySelection.identity] }

    public static var completers: [String: @Sendable (Invocation) throws -> [String]] {
        ["identities": { try ICIdentitySelection.names($0) }, "truapi-sessions": { try TruAPISecretOptions.names($0) }]
    }
}
