import Foundation

/// Reads files named on the command line (`@FILE` values, path options) with one error shape.
public enum FileInput {
    /// Values read this way (and from stdin) are meant for data given on a command line; anything larger is almost
    /// surely a mistake.
    public static let maximumBytes = 256 << 20

    public static func read(_ path: String, label: String) throws -> [UInt8] {
        let url = URL(fileURLWithPath: (path as NSString).expandingTildeInPath)
        var isDirectory: ObjCBool = false
        guard FileManager.default.fileExists(atPath: url.path, isDirectory: &isDirectory) else {
            throw CLIError(.input, "\(label): no such file '\(path)'")
        }
        if isDirectory.boolValue { throw CLIError(.input, "\(label): '\(path)' is a directory") }
        guard let handle = try? FileHandle(forReadingFrom: url) else {
            throw CLIError(.input, "\(label): cannot read '\(path)' (permission denied?)")
        }
        defer { try? handle.close() }
        let data: Data
        do {
            // nil means end of file at once: an empty file.
            data = try handle.read(upToCount: maximumBytes + 1) ?? Data()
        } catch {
            // A failed read is not an empty value: the command would run on input the user never gave.
            let cause = (error as NSError).userInfo[NSUnderlyingErrorKey] as? NSError ?? error as NSError
            throw CLIError(.input, "\(label): cannot read '\(path)': \(cause.localizedDescription)")
        }
        if data.count > maximumBytes {
            throw CLIError(.input, "\(label): '\(path)' is larger than \(maximumBytes >> 20) MiB")
        }
        return [UInt8](data)
    }
}
