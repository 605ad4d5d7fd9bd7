import FoundationEssentials
#if canImport(Glibc)
internal import Glibc
#endif

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

extension SystemError {
    /// Why a file operation of FoundationEssentials (`String(contentsOf:)`, `Data(contentsOf:)`, `FileManager`)
    /// failed, in the operating system's words ("No such file or directory"). It stands in for
    /// `error.localizedDescription`, which only full Foundation has. Other errors give their description.
    public static func reason(for error: any Error) -> String {
        if let error = error as? SystemError { return error.message }
        if let error = error as? POSIXError { return errnoText(error.code.rawValue) }
        guard let error = error as? CocoaError else { return String(describing: error) }
        if let underlying = error.underlying as? POSIXError { return errnoText(underlying.code.rawValue) }
        switch error.code {
        case .fileNoSuchFile, .fileReadNoSuchFile: return errnoText(ENOENT)
        case .fileReadNoPermission, .fileWriteNoPermission: return errnoText(EACCES)
        case .fileReadCorruptFile: return "the file is not in the expected format"
        case .fileReadInapplicableStringEncoding: return "the file is not text in the expected encoding"
        default: return "file error \(error.code.rawValue)"
        }
    }
}
