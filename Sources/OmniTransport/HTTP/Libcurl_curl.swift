internal import CCurl
internal import COmniShims

/// Process-wide libcurl state. libcurl is opened on first use, not at start (COmniShims' omni_curl.h).
enum Libcurl {
    /// Loads libcurl and runs `curl_global_init` once, thread-safely, on first use.
    static var isInitialized: Bool { omni_curl_is_available() != 0 }

    /// Why libcurl is not available, for error messages; nil when it is.
    static var unavailableReason: String? {
        isInitialized ? nil : String(cString: omni_curl_load_error())
    }

    /// CURLVERSION_NOW is a macro alias Swift cannot import; ELEVENTH is its value in the 7.88 headers.
    static var version: String {
        guard let info = omni_curl_version_info(CURLVERSION_ELEVENTH), let version = info.pointee.version else {
            return unavailableReason.map { "unavailable (\($0))" } ?? "unknown"
        }
        return String(cString: version)
    }

    static var description: String {
        guard let text = omni_curl_version() else { return "libcurl/\(version)" }
        return String(cString: text)
    }

    /// Whether `library` could serve as libcurl (opens it and resolves every function omni calls), without
    /// touching the process's own libcurl. nil when it could; else why not.
    static func problem(loading library: String) -> String? {
        var error = [CChar](repeating: 0, count: 512)
        let usable = error.withUnsafeMutableBufferPointer { omni_curl_probe_library(library, $0.baseAddress, $0.count) }
        return usable != 0 ? nil : String(cString: error)
    }
}
