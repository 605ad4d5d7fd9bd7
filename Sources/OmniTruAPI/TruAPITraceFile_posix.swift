#if canImport(Glibc)
internal import Glibc
#endif
import OmniSystem

/// An append-only log file written one whole line per `write(2)` (the trace is a stream, not a document, so it is
/// not replaced atomically): created or truncated with mode 0600, since frames may carry product data.
final class TruAPILineFile: @unchecked Sendable {
    private let descriptor: Int32
    private let lock = Lock()
    let path: String

    init(path: String) throws(TruAPIError) {
        let descriptor = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_APPEND | O_CLOEXEC, 0o600)
        guard descriptor >= 0 else {
            throw TruAPIError(.configuration, "cannot open \(path) for writing: \(String(cString: strerror(errno)))")
        }
        self.descriptor = descriptor
        self.path = path
    }

    deinit { close(descriptor) }

    /// Appends `line` and a newline; false when the write failed (the disk is full).
    @discardableResult
    func append(_ line: String) -> Bool {
        var bytes = Array(line.utf8)
        bytes.append(0x0A)
        return lock.withLock {
            bytes.withUnsafeBytes { buffer in
                var offset = 0
                while offset < buffer.count {
                    let written = write(descriptor, buffer.baseAddress! + offset, buffer.count - offset)
                    if written > 0 { offset += written } else if written < 0, errno == EINTR { continue } else { return false }
                }
                return true
            }
        }
    }
}
