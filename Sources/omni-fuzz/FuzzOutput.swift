#if canImport(Glibc)
import Glibc
#endif

/// The fuzz tool's only output paths: stdout for results, stderr for diagnostics.
enum FuzzOutput {
    static func line(_ text: String) {
        fputs(text + "\n", stdout)
    }

    static func error(_ text: String) {
        fputs("omni-fuzz: " + text + "\n", stderr)
    }
}
