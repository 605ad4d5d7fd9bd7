#if canImport(Glibc)
internal import Glibc
#endif

/// Writes files so that readers see either the old content or the new, never a torn mix, and a failed write
/// never destroys the previous file: write a temporary file in the same directory, fsync it, rename it over the
/// target, fsync the directory.
public enum AtomicFile {
    /// - Parameters:
    ///   - mode: permission bits of the new file (e.g. 0o600 for secrets); applied at creation, before any byte
    ///     is written, so a secret is never readable by others even briefly.
    ///   - createDirectories: create missing parent directories with `directoryMode`.
    public static func write(_ bytes: [UInt8], to path: String, mode: UInt32 = 0o644,
                             createDirectories: Bool = false, directoryMode: UInt32 = 0o755) throws(SystemError) {
        let directory = parentDirectory(of: path)
        if createDirectories { try makeDirectories(directory, mode: directoryMode) }
        var template = Array((directory + "/." + baseName(of: path) + ".tmp-XXXXXX").utf8CString)
        let fd = template.withUnsafeMutableBufferPointer { mkstemp($0.baseAddress!) }
        guard fd >= 0 else { throw SystemError(path: path, "cannot create a temporary file: \(errnoText())") }
        let temporary = String(cString: template)
        var committed = false
        defer {
            if !committed { unlink(temporary) }
        }
        guard fchmod(fd, mode_t(mode)) == 0 else {
            close(fd)
            throw SystemError(path: path, "cannot set permissions: \(errnoText())")
        }
        var offset = 0
        while offset < bytes.count {
            let n = bytes.withUnsafeBytes { Glibc.write(fd, $0.baseAddress! + offset, bytes.count - offset) }
            if n < 0 {
                if errno == EINTR { continue }
                let reason = errnoText()
                close(fd)
                throw SystemError(path: path, "write failed: \(reason)")
            }
            offset += n
        }
        guard fsync(fd) == 0 else {
            let reason = errnoText()
            close(fd)
            throw SystemError(path: path, "fsync failed: \(reason)")
        }
        close(fd)
        guard rename(temporary, path) == 0 else {
            throw SystemError(path: path, "cannot replace the file: \(errnoText())")
        }
        committed = true
        let dirFD = open(directory, O_RDONLY | O_DIRECTORY)
        if dirFD >= 0 {
            fsync(dirFD)
            close(dirFD)
        }
    }

    public static func write(_ text: String, to path: String, mode: UInt32 = 0o644,
                             createDirectories: Bool = false, directoryMode: UInt32 = 0o755) throws(SystemError) {
        try write(Array(text.utf8), to: path, mode: mode, createDirectories: createDirectories,
                  directoryMode: directoryMode)
    }

    /// `mkdir -p` with a mode for the directories it creates.
    public static func makeDirectories(_ path: String, mode: UInt32 = 0o755) throws(SystemError) {
        var current = path.hasPrefix("/") ? "" : "."
        for component in path.split(separator: "/") {
            current += "/" + component
            if mkdir(current, mode_t(mode)) != 0 && errno != EEXIST {
                throw SystemError(path: current, "cannot create directory: \(errnoText())")
            }
        }
    }

    static func parentDirectory(of path: String) -> String {
        guard let slash = path.lastIndex(of: "/") else { return "." }
        return slash == path.startIndex ? "/" : String(path[..<slash])
    }

    static func baseName(of path: String) -> String {
        guard let slash = path.lastIndex(of: "/") else { return path }
        return String(path[path.index(after: slash)...])
    }
}

func errnoText(_ code: Int32 = errno) -> String { String(cString: strerror(code)) }
