#if canImport(Glibc)
internal import Glibc
#endif

/// The file-system side of a bridge's state directory: one bridge at a time (an advisory lock), and the leftovers of
/// a writer that was killed between writing its temporary file and renaming it.
struct StateLockFailure: Error { let message: String }

enum TruAPIStateDirectory {
    /// Takes `directory/lock` exclusively: the descriptor holding it, or the reason it is taken. The lock lasts
    /// until `unlock` or the end of the process (also SIGKILL), and conflicts with every other open of the file.
    static func lock(_ directory: String) -> Result<Int32, StateLockFailure> {
        let path = directory + "/lock"
        let descriptor = open(path, O_RDWR | O_CREAT | O_CLOEXEC, 0o600)
        guard descriptor >= 0 else { return .failure(StateLockFailure(message: "cannot open \(path): \(String(cString: strerror(errno)))")) }
        if flock(descriptor, LOCK_EX | LOCK_NB) != 0 {
            let busy = errno == EWOULDBLOCK
            let reason = String(cString: strerror(errno))
            close(descriptor)
            return .failure(StateLockFailure(message: busy ? "another omni truapi bridge uses \(directory) (it holds \(path))"
                                                            : "cannot lock \(path): \(reason)"))
        }
        return .success(descriptor)
    }

    static func unlock(_ descriptor: Int32) { close(descriptor) }

    /// Removes `.<name>.tmp-XXXXXX` files (AtomicFile's temporaries) that a killed writer left behind; the files
    /// they were meant to replace are intact.
    static func removeStaleTemporaries(in directory: String, names: [String]) {
        guard let stream = opendir(directory) else { return }
        defer { closedir(stream) }
        var stale: [String] = []
        while let entry = readdir(stream) {
            let name = withUnsafePointer(to: entry.pointee.d_name) { pointer in
                pointer.withMemoryRebound(to: CChar.self, capacity: 256) { String(cString: $0) }
            }
            if names.contains(where: { name.hasPrefix("." + $0 + ".tmp-") }) { stale.append(name) }
        }
        for name in stale { unlink(directory + "/" + name) }
    }

    /// True when `path` is a directory.
    static func isDirectory(_ path: String) -> Bool {
        var info = stat()
        return stat(path, &info) == 0 && (info.st_mode & S_IFMT) == S_IFDIR
    }
}

/// Unix time in milliseconds (notifications' `scheduled_at` is wall-clock time).
func truAPIWallClockMilliseconds() -> UInt64 {
    var now = timespec()
    clock_gettime(CLOCK_REALTIME, &now)
    return UInt64(max(0, now.tv_sec)) * 1000 + UInt64(max(0, now.tv_nsec)) / 1_000_000
}
