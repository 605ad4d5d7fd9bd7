#if canImport(Glibc)
internal import Glibc
#endif

/// Keeps the identity directory private (0700) even when it existed before with a looser mode.
func restrictPermissions(_ directory: String) throws(ICError) {
    var status = stat()
    guard stat(directory, &status) == 0 else {
        throw ICError(.storage, "cannot inspect the directory: \(String(cString: strerror(errno)))", location: directory)
    }
    if status.st_mode & 0o077 != 0, chmod(directory, 0o700) != 0 {
        throw ICError(.storage, "cannot make the directory private: \(String(cString: strerror(errno)))", location: directory)
    }
}
