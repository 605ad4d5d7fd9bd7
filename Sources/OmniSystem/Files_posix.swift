#if canImport(Glibc)
internal import Glibc
#endif

/// Reading whole files with POSIX calls: what `FileHandle(forReadingFrom:)` and `read(upToCount:)` gave, with
/// the operating system's own reasons in errors.
public enum Files {
    /// The bytes of the file at `path` (not expanded: see `Paths.expandingTilde`). Throws when it cannot be
    /// opened or read, is a directory, or holds more than `maximumBytes` (checked while reading, so a growing
    /// or endless file such as /dev/zero stops there). EINTR is retried.
    public static func read(_ path: String, maximumBytes: Int) throws(SystemError) -> [UInt8] {
        let fd = open(path, O_RDONLY | O_CLOEXEC)
        guard fd >= 0 else { throw SystemError(path: path, errnoText()) }
        defer { close(fd) }
        var status = stat()
        if fstat(fd, &status) == 0 && (status.st_mode & S_IFMT) == S_IFDIR {
            throw SystemError(path: path, errnoText(EISDIR))
        }
        var bytes: [UInt8] = []
        var chunk = [UInt8](repeating: 0, count: 64 * 1024)
        while true {
            let n = chunk.withUnsafeMutableBytes { Glibc.read(fd, $0.baseAddress, $0.count) }
            if n < 0 {
                if errno == EINTR { continue }
                throw SystemError(path: path, errnoText())
            }
            if n == 0 { return bytes }
            guard bytes.count + n <= maximumBytes else {
                throw SystemError(path: path, "larger than \(maximumBytes) bytes")
            }
            bytes.append(contentsOf: chunk[0..<n])
        }
    }
}

/// Path text helpers (the NSString path API, without Foundation).
public enum Paths {
    /// NSString's `expandingTildeInPath` as Foundation on Linux has it: `~` and `~/…` start at the current user's
    /// home directory in the user database (not $HOME), `~name/…` at that user's; trailing slashes are dropped.
    /// Anything else, or an unknown user, is returned unchanged.
    public static func expandingTilde(_ path: String) -> String {
        guard path.hasPrefix("~") else { return path }
        let nameEnd = path.firstIndex(of: "/") ?? path.endIndex
        let name = String(path[path.index(after: path.startIndex)..<nameEnd])
        guard let home = name.isEmpty ? currentUserHome() : home(ofUser: name) else { return path }
        var expanded = home + path[nameEnd...]
        while expanded.count > 1 && expanded.hasSuffix("/") { expanded.removeLast() }
        return expanded
    }

    private static func currentUserHome() -> String? {
        passwdHome { getpwuid_r(getuid(), &$0, $1, $2, &$3) }
    }

    private static func home(ofUser name: String) -> String? {
        passwdHome { getpwnam_r(name, &$0, $1, $2, &$3) }
    }

    /// Runs a reentrant passwd lookup with a buffer that grows on ERANGE.
    private static func passwdHome(
        _ lookup: (inout passwd, UnsafeMutablePointer<CChar>, Int, inout UnsafeMutablePointer<passwd>?) -> Int32
    ) -> String? {
        var size = 1024
        while size <= 1 << 20 {
            var entry = passwd()
            var result: UnsafeMutablePointer<passwd>?
            let buffer = UnsafeMutablePointer<CChar>.allocate(capacity: size)
            defer { buffer.deallocate() }
            let code = lookup(&entry, buffer, size, &result)
            if code == ERANGE {
                size *= 4
                continue
            }
            guard code == 0, result != nil, let directory = entry.pw_dir else { return nil }
            return String(cString: directory)
        }
        return nil
    }
}
