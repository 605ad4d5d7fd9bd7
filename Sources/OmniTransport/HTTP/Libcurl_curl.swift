internal import CCurl

/// Process-wide libcurl state.
enum Libcurl {
    /// `curl_global_init` must run once before any other libcurl call. A static stored property is initialised
    /// exactly once, thread-safely, on first use.
    static let isInitialized: Bool = curl_global_init(Int(CURL_GLOBAL_DEFAULT)) == CURLE_OK

    /// CURLVERSION_NOW is a macro alias Swift cannot import; ELEVENTH is its value in the 7.88 headers.
    static var version: String {
        guard let info = curl_version_info(CURLVERSION_ELEVENTH), let version = info.pointee.version else {
            return "unknown"
        }
        return String(cString: version)
    }

    static var description: String {
        guard let text = curl_version() else { return "libcurl/\(version)" }
        return String(cString: text)
    }
}
