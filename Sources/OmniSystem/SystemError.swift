/// The one error type of the system layer (files, directories).
public struct SystemError: Error, Equatable, Sendable, CustomStringConvertible {
    public let path: String
    public let message: String

    public init(path: String, _ message: String) {
        self.path = path
        self.message = message
    }

    public var description: String { "\(path): \(message)" }
}
