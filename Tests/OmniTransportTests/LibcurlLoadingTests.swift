import Testing
@testable import OmniTransport

/// libcurl is opened on first use (COmniShims' omni_curl.h); these check the opening itself. That omni starts
/// without it is checked against the binary in OmniEndToEndTests' StartupEndToEndTests.
@Suite struct LibcurlLoadingTests {
    @Test func theSystemLibcurlOpensAndInitialises() {
        #expect(Libcurl.problem(loading: "libcurl.so.4") == nil)
        #expect(Libcurl.isInitialized)
        #expect(Libcurl.unavailableReason == nil)
    }

    @Test func aMissingLibraryIsReportedWithTheLoadersReason() throws {
        let problem = try #require(Libcurl.problem(loading: "libomni-no-such-curl.so.9"))
        #expect(problem.hasPrefix("cannot load libcurl (libomni-no-such-curl.so.9): "), "\(problem)")
        #expect(problem.contains("No such file or directory") || problem.contains("cannot open shared object"), "\(problem)")
    }

    /// A library that opens but is not libcurl fails on the first missing function instead of crashing later.
    @Test func aLibraryWithoutTheFunctionsIsRefused() {
        #expect(Libcurl.problem(loading: "libc.so.6") == "libc.so.6 is not a usable libcurl: it has no curl_global_init")
    }
}
