#if canImport(Glibc)
internal import Glibc
#endif

/// The wall clock, for timestamps written into files (when a document was fetched, when a session was stored).
public enum WallClock {
    /// Whole seconds since the Unix epoch.
    public static func unixSeconds() -> Int64 {
        var now = timespec()
        clock_gettime(CLOCK_REALTIME, &now)
        return Int64(now.tv_sec)
    }
}
