import Foundation
import OmniCandid
import OmniCodec
import OmniCrypto
import OmniTestSupport
import OmniTransport
import Testing
@testable import OmniIC

/// What a login asks for: provider URLs and origins as the browser compares them, lifetimes, targets, the state token.
@Suite struct IILoginRequestTests {
    @Test func providerURLs() throws {
        let accepted: [(String, origin: String)] = [
            ("https://identity.ic0.app", "https://identity.ic0.app"),
            ("https://identity.internetcomputer.org/", "https://identity.internetcomputer.org"),
            ("HTTPS://Identity.IC0.app:443", "https://identity.ic0.app"),
            ("https://id.example:8443/login?x=1", "https://id.example:8443"),
            ("http://127.0.0.1:4943/?canisterId=rdmx6-jaaaa-aaaaa-aaadq-cai", "http://127.0.0.1:4943"),
            ("http://localhost:8080", "http://localhost:8080"),
            ("http://[::1]:4943/", "http://[::1]:4943"),
            ("http://127.0.0.1:80/", "http://127.0.0.1"),
        ]
        for (text, origin) in accepted {
            let url = try IdentityProviderURL(parsing: text)
            #expect(url.origin.description == origin, "\(text)")
            #expect(url.authorizeURL == text + "#authorize")
        }
        let refused: [(String, because: String)] = [
            ("http://identity.ic0.app", "plain http"),
            ("http://128.0.0.1:4943", "plain http"),
            ("https://identity.ic0.app/#authorize", "fragment"),
            ("ftp://identity.ic0.app", "https://"),
            ("identity.ic0.app", "https://"),
            ("https://user@identity.ic0.app", "user information"),
            ("https://identity.ic0.app:0", "port"),
            ("https://identity.ic0.app:65536", "port"),
            ("https://identity.ic0.app:44x", "port"),
            ("https://", "no host"),
            ("https://iden tity.ic0.app", "space"),
            ("https://identity.ic0.app/\"><script>", "percent-encode"),
            ("https://ident\u{00ED}ty.ic0.app", "non-ASCII"),
            ("https://[::1", "closing"),
            ("https://[zz]:1", "IPv6"),
            ("https://_bad.example", "host name"),
            ("https://" + String(repeating: "a", count: 3000), "longer than"),
        ]
        for (text, because) in refused {
            let error = expectICError(.invalidArgument, text) { _ = try IdentityProviderURL(parsing: text) }
            #expect(error?.message.contains(because) == true, "\(text): \(String(describing: error))")
        }
    }

    @Test func derivationOrigins() throws {
        #expect(try WebOrigin(parsing: "https://abcde-aaaab.icp0.io").description == "https://abcde-aaaab.icp0.io")
        #expect(try WebOrigin(parsing: "https://NNS.ic0.app/").description == "https://nns.ic0.app")
        for text in ["https://nns.ic0.app/path", "https://nns.ic0.app?x", "https://nns.ic0.app#x"] {
            expectICError(.invalidArgument, text) { _ = try WebOrigin(parsing: text) }
        }
        #expect(try WebOrigin(parsing: "http://127.0.0.7:1").isLoopback)
        #expect(try !WebOrigin(parsing: "http://127.0.0.256:1").isLoopback)
        #expect(try !WebOrigin(parsing: "http://127.example:1").isLoopback)
    }

    @Test func lifetimeAndTargets() throws {
        let provider = IdentityProviderURL.mainnet
        let key = try #require(try ICIdentity.generate(.ed25519).publicKeyDER)
        let ledger = try principal("ryjl3-tyaaa-aaaaa-aaaba-cai")
        #expect(try IILoginRequest(provider: provider, sessionPublicKey: key).timeToLive == 8 * DelegatedSession.hour)
        _ = try IILoginRequest(provider: provider, sessionPublicKey: key, timeToLive: 30 * 24 * DelegatedSession.hour)
        for ttl in [0, 30 * 24 * DelegatedSession.hour + 1] {
            expectICError(.invalidArgument, "ttl \(ttl)") { _ = try IILoginRequest(provider: provider, sessionPublicKey: key, timeToLive: UInt64(ttl)) }
        }
        expectICError(.invalidArgument, "empty targets") { _ = try IILoginRequest(provider: provider, sessionPublicKey: key, targets: []) }
        let many = (0..<1001).map { Principal.selfAuthenticating(publicKeyDER: [UInt8($0 & 0xff), UInt8($0 >> 8)]) }
        expectICError(.invalidArgument, "1001 targets") { _ = try IILoginRequest(provider: provider, sessionPublicKey: key, targets: many) }
        #expect(try IILoginRequest(provider: provider, sessionPublicKey: key, targets: [ledger, ledger]).targets == [ledger])
    }

    /// The fields of `authorize-client` as the page reads them: no targets or derivation origin unless asked.
    @Test func pageConfiguration() throws {
        let key = try #require(try ICIdentity.generate(.ed25519).publicKeyDER)
        let ledger = try principal("ryjl3-tyaaa-aaaaa-aaaba-cai")
        let plain = try IILoginRequest(provider: .mainnet, sessionPublicKey: key).pageConfiguration
        #expect(plain["provider_url"] == "https://identity.ic0.app#authorize")
        #expect(plain["provider_origin"] == "https://identity.ic0.app")
        #expect(plain["session_public_key"]?.stringValue == Hex.encode(key))
        #expect(plain["max_time_to_live"] == "28800000000000")
        #expect(plain["targets"] == .null && plain["derivation_origin"] == .null)
        let scoped = try IILoginRequest(provider: .mainnet, sessionPublicKey: key, timeToLive: DelegatedSession.hour,
                                        derivationOrigin: WebOrigin(parsing: "https://abcde.icp0.io"), targets: [ledger]).pageConfiguration
        #expect(scoped["targets"] == ["ryjl3-tyaaa-aaaaa-aaaba-cai"])
        #expect(scoped["derivation_origin"] == "https://abcde.icp0.io")
        #expect(scoped["max_time_to_live"] == "3600000000000")
    }

    @Test func theStateTokenIsAcceptedOnceAndOnlyWhenExact() {
        let token = IILoginStateToken()
        #expect(token.text.count == 64 && token.text.allSatisfy(\.isHexDigit))
        #expect(IILoginStateToken().text != token.text)
        #expect(token.claim(String(token.text.dropLast()) + (token.text.last == "0" ? "1" : "0")) == .wrong)
        #expect(token.claim(String(token.text.dropLast())) == .wrong)
        #expect(token.claim("") == .wrong)
        #expect(!token.isUsed)
        #expect(token.claim(token.text) == .accepted)
        #expect(token.isUsed)
        #expect(token.claim(token.text) == .alreadyUsed)
        #expect(token.claim("00") == .wrong)
    }

    /// Two answers racing with the right token: exactly one is accepted.
    @Test func concurrentClaimsAcceptOne() async {
        let token = IILoginStateToken()
        let verdicts = await withTaskGroup(of: IILoginStateToken.Verdict.self) { group in
            for _ in 0..<16 { group.addTask { token.claim(token.text) } }
            return await group.reduce(into: []) { $0.append($1) }
        }
        #expect(verdicts.filter { $0 == .accepted }.count == 1)
        #expect(verdicts.filter { $0 == .alreadyUsed }.count == 15)
    }
}
