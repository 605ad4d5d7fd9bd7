#if canImport(Glibc)
internal import Glibc
#endif

/// Reading local files with POSIX calls (no Foundation): whole files under a size limit, or as a stream of chunks,
/// and whether a file holding a secret is exposed to other users.
public enum LocalFile {
    /// Why a file could not be read, so callers can word it for their users.
    public enum Failure: Error, Sendable, Equatable {
        case notFound
        case isDirectory
        case permissionDenied
        case tooLarge(limit: Int)
        case io(String)
    }

    /// The whole file, refusing anything larger than `limit` bytes (checked while reading, so a growing file or a
    /// FIFO cannot exceed it either).
    public static func read(_ path: String, limit: Int) -> Result<[UInt8], Failure> {
        switch open(path) {
        case .failure(let failure): return .failure(failure)
        case .success(let reader):
            defer { reader.close() }
            var result: [UInt8] = []
            var chunk = [UInt8](repeating: 0, count: 65_536)
            while true {
                switch reader.read(into: &chunk) {
                case .failure(let failure): return .failure(failure)
                case .success(0): return .success(result)
                case .success(let count):
                    guard result.count + count <= limit else { return .failure(.tooLarge(limit: limit)) }
                    result.append(contentsOf: chunk[0..<count])
                }
            }
        }
    }

    /// An open file to read in chunks (for line-by-line batch input).
    public static func open(_ path: String) -> Result<FileReader, Failure> {
        let fd = Glibc.open(path, O_RDONLY | O_CLOEXEC)
        guard fd >= 0 else { return .failure(failure(errno)) }
        var info = stat()
        if fstat(fd, &info) == 0, info.st_mode & S_IFMT == S_IFDIR {
            Glibc.close(fd)
            return .failure(.isDirectory)
        }
        return .success(FileReader(fd: fd, ownsDescriptor: true))
    }

    /// A description of how a secret file is exposed ("is readable by group and others (mode 0644)"), or nil when
    /// only its owner can read or write it — the rule ssh applies to private keys.
    public static func exposure(of path: String) -> String? {
        var info = stat()
        guard stat(path, &info) == 0 else { return nil }
        let mode = UInt32(info.st_mode) & 0o777
        guard mode & 0o077 != 0 else { return nil }
        var who: [String] = []
        if mode & 0o070 != 0 { who.append("group") }
        if mode & 0o007 != 0 { who.append("others") }
        let octal = String(mode, radix: 8)
        return "is accessible by \(who.joined(separator: " and ")) (mode \(String(repeating: "0", count: 4 - octal.count) + octal))"
    }

    /// True when something exists at the path (a file, directory or anything else).
    public static func exists(_ path: String) -> Bool {
        var info = stat()
        return stat(path, &info) == 0
    }

    /// The size of the regular file at `path` (symbolic links followed); nil for anything else or nothing.
    public static func regularFileSize(_ path: String) -> UInt64? {
        var info = stat()
        guard stat(path, &info) == 0, info.st_mode & S_IFMT == S_IFREG else { return nil }
        return UInt64(info.st_size)
    }

    /// True when `path` is a directory (symbolic links followed).
    public static func isDirectory(_ path: String) -> Bool {
        var info = stat()
        return stat(path, &info) == 0 && info.st_mode & S_IFMT == S_IFDIR
    }

    /// The names in `directory` (without `.` and `..`), sorted.
    public static func entries(of directory: String) -> Result<[String], Failure> {
        guard let stream = opendir(directory) else { return .failure(failure(errno)) }
        defer { closedir(stream) }
        var names: [String] = []
        while let entry = readdir(stream) {
            let name = withUnsafePointer(to: entry.pointee.d_name) { pointer in
                pointer.withMemoryRebound(to: CChar.self, capacity: 256) { String(cString: $0) }
            }
            if name != ".", name != ".." { names.append(name) }
        }
        return .success(names.sorted())
    }

    /// Removes `path` and, for a directory, everything below it; symbolic links are removed, never followed.
    /// Nil when it is gone (also when it never existed), else the first failure.
    public static func removeTree(_ path: String) -> Failure? {
        var info = stat()
        guard lstat(path, &info) == 0 else { return errno == ENOENT ? nil : failure(errno) }
        if info.st_mode & S_IFMT == S_IFDIR {
            switch entries(of: path) {
            case .success(let names):
                for name in names { if let problem = removeTree(path + "/" + name) { return problem } }
            case .failure(let problem):
                return problem
            }
            return rmdir(path) == 0 ? nil : failure(errno)
        }
        return unlink(path) == 0 ? nil : failure(errno)
    }

    /// Deletes a file (not a directory); a file already gone is not an error.
    public static func remove(_ path: String) throws(SystemError) {
        if unlink(path) != 0 && errno != ENOENT { throw SystemError(path: path, "cannot remove: \(errnoText())") }
    }

    static func failure(_ code: Int32) -> Failure {
        switch code {
        case ENOENT, ENOTDIR: .notFound
        case EACCES, EPERM: .permissionDenied
        case EISDIR: .isDirectory
        default: .io(String(cString: strerror(code)))
        }
    }
}

/// Something bytes are read from in chunks: a file descriptor, or bytes already in memory.
public protocol ByteSource: AnyObject {
    /// Fills up to `buffer.count` bytes; 0 at the end.
    func read(into buffer: inout [UInt8]) -> Result<Int, LocalFile.Failure>
}

/// Bytes already in memory, read like a file.
public final class MemoryByteSource: ByteSource {
    private let bytes: [UInt8]
    private var offset = 0

    public init(_ bytes: [UInt8]) { self.bytes = bytes }

    public func read(into buffer: inout [UInt8]) -> Result<Int, LocalFile.Failure> {
        let count = min(buffer.count, bytes.count - offset)
        buffer.replaceSubrange(0..<count, with: bytes[offset..<(offset + count)])
        offset += count
        return .success(count)
    }
}

/// A readable file descriptor. Not thread-safe; one reader at a time.
public final class FileReader: ByteSource, @unchecked Sendable {
    private var fd: Int32
    private let ownsDescriptor: Bool

    /// Reads an existing descriptor (stdin is 0); `ownsDescriptor` closes it on `close()`.
    public init(fd: Int32, ownsDescriptor: Bool) {
        self.fd = fd
        self.ownsDescriptor = ownsDescriptor
    }

    deinit { close() }

    /// Fills up to `buffer.count` bytes; 0 at the end of the file.
    public func read(into buffer: inout [UInt8]) -> Result<Int, LocalFile.Failure> {
        while true {
            let count = buffer.withUnsafeMutableBytes { Glibc.read(fd, $0.baseAddress, $0.count) }
            if count >= 0 { return .success(count) }
            if errno == EINTR { continue }
            return .failure(LocalFile.failure(errno))
        }
    }

    public func close() {
        if ownsDescriptor, fd >= 0 { Glibc.close(fd) }
        fd = -1
    }
}
