@testable import OmniTruAPI
import Testing

/// `--open`'s launcher page: the one place the tokened host URL goes instead of the opener's argv.
@Suite("TrUAPI browser launcher")
struct BrowserLauncherTests {
    @Test("the launcher replaces itself with the host URL, written as script-safe JSON, and sends no referrer")
    func launcherPage() {
        let page = TruAPIBrowserGlue.launcherPage(hostURL: "http://127.0.0.1:9955/host?t=abc&url=http%3A%2F%2Fx%2F</script>")
        #expect(page.contains(#"location.replace("http://127.0.0.1:9955/host?t=abc\u0026url=http%3A%2F%2Fx%2F\u003c/script\u003e");"#))
        #expect(page.ranges(of: "</script>").count == 1, "the URL cannot end the script element")
        #expect(page.contains(#"<meta name="referrer" content="no-referrer">"#))
    }
}
