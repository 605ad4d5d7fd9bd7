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
