/// The one error type of the CLI layer. Domain errors are mapped to an `ErrorReport` by the error mapper the
/// executable installs; these are the errors the framework itself raises.
public struct CLIError: Error, Equatable, Sendable, CustomStringConvertible {
    public enum Kind: String, Sendable {
        /// Unknown command/option, missing/invalid value, conflicting options. Exit 2.
        case usage
        /// Bad config file or config value. Exit 7.
        case configuration
        /// A value could not be read (`@FILE` missing, stdin unreadable). Exit 3.
        case input
        /// The command was interrupted. Exit 130.
        case interrupted
    }

    public let kind: Kind
    public let message: String
    /// Words the user might have meant ("did you mean …").
    public let suggestion: String?
    /// The command path the error belongs to, for the "See 'omni help …'" hint.
    public let commandPath: [String]

    public init(_ kind: Kind, _ message: String, suggestion: String? = nil, commandPath: [String] = []) {
        self.kind = kind
        self.message = message
        self.suggestion = suggestion
        self.commandPath = commandPath
    }

    public static func usage(_ message: String, suggestion: String? = nil, commandPath: [String] = []) -> CLIError {
        CLIError(.usage, message, suggestion: suggestion, commandPath: commandPath)
    }

    public var description: String {
        guard let suggestion else { return message }
        return "\(message); did you mean '\(suggestion)'?"
    }
}

/// What the user sees for a failed command: one line of text, or one JSON object in `--output json` mode.
public struct ErrorReport: Sendable {
    /// Stable snake_case kind for scripts (`usage`, `malformed_input`, `verification_failed`, `network`, …).
    public var kind: String
    public var message: String
    public var exitCode: ExitCode
    /// An optional second line for people (never in JSON's `message`).
    public var hint: String?

    public init(kind: String, message: String, exitCode: ExitCode, hint: String? = nil) {
        self.kind = kind
        self.message = message
        self.exitCode = exitCode
        self.hint = hint
    }
}
