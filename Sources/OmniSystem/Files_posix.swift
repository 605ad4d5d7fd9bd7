#if canImport(Glibc)
internal import Glibc
#endif

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

    /// The absolute path with every symbolic link, `.` and `..` resolved (realpath(3)), or nil when it does not exist.
    public static func resolved(_ path: String) -> String? {
        guard let pointer = realpath(path, nil) else { return nil }
        defer { free(pointer) }
        return String(cString: pointer)
    }

    /// The process's working directory.
    public static func currentDirectory() -> String? {
        guard let pointer = getcwd(nil, 0) else { return nil }
        defer { free(pointer) }
        return String(cString: pointer)
    }

    /// True when `path` names a directory (following symbolic links).
    public static func isDirectory(_ path: String) -> Bool {
        var info = stat()
        return stat(path, &info) == 0 && info.st_mode & S_IFMT == S_IFDIR
    }

    /// Joins path components with `/`, dropping `.` and resolving `..` lexically (no file system access); an
    /// absolute `path` stays absolute. `..` above the start of a relative path is kept.
    public static func normalized(_ path: String) -> String {
        let absolute = path.hasPrefix("/")
        var parts: [Substring] = []
        for part in path.split(separator: "/", omittingEmptySubsequences: true) {
            if part == "." { continue }
            if part == "..", let last = parts.last, last != ".." { parts.removeLast(); continue }
            if part == "..", absolute { continue }
            parts.append(part)
        }
        let joined = parts.joined(separator: "/")
        return absolute ? "/" + joined : (joined.isEmpty ? "." : joined)
    }

    /// The directory part of a path (`a/b/c.did` → `a/b`, `c.did` → `.`, `/c` → `/`).
    public static func directory(of path: String) -> String {
        guard let slash = path.lastIndex(of: "/") else { return "." }
        return slash == path.startIndex ? "/" : String(path[..<slash])
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
