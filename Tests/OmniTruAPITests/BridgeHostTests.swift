import Foundation
import OmniCodec
import OmniCrypto
import OmniTestSupport
@testable import OmniTruAPI
import Testing

/// The bridge's host answers (reference §6 for a host without a session), called directly.
@Suite("TrUAPI bridge host", .timeLimit(.minutes(1)))
struct BridgeHostTests {
    final class Opened: @unchecked Sendable {
        let lock = NSLock()
        var urls: [String] = []
        func add(_ url: String) { lock.withLock { urls.append(url) } }
        var all: [String] { lock.withLock { urls } }
    }

    struct Fixture {
        let events = BridgeEventLog()
        let state: TruAPIBridgeState
        let context: TruAPIBridgeContext
        let host: TruAPIBridgeHost
        let opened = Opened()

        init(product: String = "myapp.dot", policy: TruAPIPolicy = .promptEverything, prompter: ScriptedPrompter? = nil,
             preimages: String? = nil, openerFails: Bool = false, withOpener: Bool = false, state: TruAPIBridgeState = .ephemeral()) throws {
            self.state = state
            let events = events, opened = opened
            let productID = try TruAPIProductID(product)
            let broker = TruAPIPermissionBroker(productID: productID, policy: policy, state: state, prompter: prompter,
                                                onEvent: { events.record($0) })
            let opener: (@Sendable (String) async -> String?)? = withOpener ? { url in
                opened.add(url)
                return openerFails ? "opener exited with status 3" : nil
            } : nil
            context = TruAPIBridgeContext(productID: productID, chains: .empty, state: state, permissions: broker,
                                          preimagesDirectory: preimages, opener: opener, onEvent: { events.record($0) })
            host = TruAPIBridgeHost(context: context, connectionID: 1)
        }

        func respond(_ name: String, _ request: SCALEValue = .unit) async -> Result<SCALEValue, TruAPICallError> {
            await host.respond(to: TruAPICall(requestID: "p:1", method: method(name), request: request))
        }
    }

    static func url(_ text: String) -> SCALEValue { .record(["url": .string(text)]) }

    @Test("navigate_to: http(s) needs a granted domain (never asked), hand-off schemes and dotNS pass, the opener opens")
    func navigation() async throws {
        let prompter = ScriptedPrompter([true, true])
        let fixture = try Fixture(policy: try TruAPIPolicy.parse(#"{"domains": {"allowed.com": "allow"}}"#, source: "p"),
                                  prompter: prompter, withOpener: true)
        #expect(await fixture.respond("system_navigate_to", Self.url("https://example.com/x")) == .failure(.domainV1(.unitVariant("PermissionDenied"))))
        #expect(prompter.questions.isEmpty, "navigation checks a grant, it does not ask")
        #expect(await fixture.respond("system_navigate_to", Self.url("https://allowed.com/page")) == .success(.unit))
        #expect(await fixture.respond("system_navigate_to", Self.url("mailto:a@b.c")) == .success(.unit))
        #expect(await fixture.respond("system_navigate_to", Self.url("shop.dot/cart")) == .success(.unit))
        // A domain granted through a remote permission request opens afterwards.
        let remote = SCALEValue.record(["permission": .variant("Remote", .record(["domains": .sequence([.string("Example.com")])]))])
        #expect(await fixture.respond("permissions_request_remote_permission", remote) == .success(.record(["granted": .bool(true)])))
        #expect(await fixture.respond("system_navigate_to", Self.url("https://example.com/x")) == .success(.unit))
        #expect(fixture.opened.all == ["https://allowed.com/page", "mailto:a@b.c", "https://shop.dot/cart", "https://example.com/x"])
        guard case .failure(.domain(let error)) = await fixture.respond("system_navigate_to", Self.url("")) else {
            Issue.record("an empty URL was accepted")
            return
        }
        #expect(error.variantPayload?.variantName == "Unknown")
        #expect(fixture.events.all.contains { $0.name == "navigate" && $0["url"]?.stringValue == "https://example.com/x" && $0["opened"] == .bool(true) })
    }

    @Test("an opener that fails answers Unknown with its reason")
    func failingOpener() async throws {
        let fixture = try Fixture(openerFails: true, withOpener: true)
        #expect(await fixture.respond("system_navigate_to", Self.url("tel:+123")) == .failure(.domainUnknown("opener exited with status 3")))
    }

    @Test("device and remote permissions follow the broker; each kind has its own subject")
    func permissions() async throws {
        let policy = try TruAPIPolicy.parse(#"{"device": {"camera": "allow", "open_url": "deny"}, "remote": {"chain_submit": "allow"}}"#, source: "p")
        let fixture = try Fixture(policy: policy)
        #expect(await fixture.respond("permissions_request_device_permission", .unitVariant("Camera")) == .success(.record(["granted": .bool(true)])))
        #expect(await fixture.respond("permissions_request_device_permission", .unitVariant("OpenUrl")) == .success(.record(["granted": .bool(false)])))
        #expect(await fixture.respond("permissions_request_device_permission", .unitVariant("NFC")) == .success(.record(["granted": .bool(false)])),
                "prompt without a terminal refuses")
        #expect(await fixture.respond("permissions_request_remote_permission", .record(["permission": .unitVariant("ChainSubmit")]))
                == .success(.record(["granted": .bool(true)])))
        #expect(await fixture.respond("permissions_request_remote_permission",
                                      .record(["permission": .variant("Remote", .record(["domains": .sequence([])]))]))
                == .success(.record(["granted": .bool(false)])))
    }

    @Test("local storage under the product's scoped keys: read, write, clear, Full beyond the quota")
    func storage() async throws {
        let fixture = try Fixture(state: .ephemeral(quota: 64))
        let key = SCALEValue.record(["key": .string("k")])
        #expect(await fixture.respond("local_storage_read", key) == .success(.record(["value": .absent])))
        #expect(await fixture.respond("local_storage_write", .record(["key": .string("k"), "value": .bytes([1, 2])])) == .success(.unit))
        #expect(await fixture.respond("local_storage_read", key) == .success(.record(["value": .some(.bytes([1, 2]))])))
        #expect(fixture.state.storageKeys == ["truapi:product-storage:v1:9:myapp.dot:k"])
        #expect(await fixture.respond("local_storage_write", .record(["key": .string("big"), "value": .bytes([UInt8](repeating: 0, count: 64))]))
                == .failure(.domainV1(.unitVariant("Full"))))
        #expect(await fixture.respond("local_storage_clear", key) == .success(.unit))
        #expect(await fixture.respond("local_storage_clear", key) == .success(.unit), "clearing a missing key is fine")
        #expect(await fixture.respond("local_storage_read", key) == .success(.record(["value": .absent])))
    }

    static func notification(_ text: String, at: UInt64? = nil) -> SCALEValue {
        .record(["text": .string(text), "deeplink": .absent, "scheduled_at": .option(at.map { .int($0) })])
    }

    @Test("notifications: ids from 1, delivered now or by their timer, 64 pending at most, cancel is idempotent")
    func notifications() async throws {
        let fixture = try Fixture()
        #expect(await fixture.respond("notifications_send_push_notification", Self.notification("hello")) == .success(.record(["id": .int(1)])))
        try await fixture.events.next(for: "notification") { $0.name == "notification" && $0["text"]?.stringValue == "hello" }
        let soon = truAPIWallClockMilliseconds() + 150
        #expect(await fixture.respond("notifications_send_push_notification", Self.notification("timer", at: soon)) == .success(.record(["id": .int(2)])))
        #expect(fixture.state.pendingNotifications.map(\.id) == [2])
        let delivered = try await fixture.events.next(for: "timer notification") { $0.name == "notification" && $0["id"] == .int(2) }
        #expect(delivered["scheduled_at"]?.stringValue == String(soon))
        #expect(fixture.state.pendingNotifications.isEmpty, "a delivered notification is no longer pending")

        let far = truAPIWallClockMilliseconds() + 3_600_000
        for index in 0..<64 {
            #expect(await fixture.respond("notifications_send_push_notification", Self.notification("n\(index)", at: far))
                    == .success(.record(["id": .int(3 + index)])))
        }
        #expect(await fixture.respond("notifications_send_push_notification", Self.notification("one too many", at: far))
                == .failure(.domainV1(.unitVariant("ScheduleLimitReached"))))
        #expect(await fixture.respond("notifications_send_push_notification", Self.notification("now is fine")) == .success(.record(["id": .int(67)])),
                "only scheduled ones are pending")
        #expect(await fixture.respond("notifications_cancel_push_notification", .record(["id": .int(3)])) == .success(.unit))
        #expect(await fixture.respond("notifications_cancel_push_notification", .record(["id": .int(3)])) == .success(.unit))
        #expect(await fixture.respond("notifications_cancel_push_notification", .record(["id": .int(999)])) == .success(.unit))
        #expect(fixture.state.pendingNotifications.count == 63)
        #expect(fixture.events.all.filter { $0.name == "notification_cancelled" }.map { $0["was_pending"] } == [.bool(true), .bool(false), .bool(false)])
        fixture.context.close()
    }

    @Test("a notification left pending by a previous run is delivered after a restart")
    func resumedNotification() async throws {
        let state = TruAPIBridgeState.ephemeral()
        _ = state.addNotification(text: "overdue", deeplink: nil, scheduledAt: 1, pendingUntilDelivered: true)
        let fixture = try Fixture(state: state)
        fixture.context.resumePendingNotifications()
        try await fixture.events.next(for: "resumed notification") { $0.name == "notification" && $0["text"]?.stringValue == "overdue" }
        #expect(state.pendingNotifications.isEmpty)
    }

    @Test("preimage lookup: a file whose blake2b-256 is the key, None for a mismatch, a missing file or a non-hash key")
    func preimages() async throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let value = Array("the preimage".utf8)
        let key = BLAKE2b.hash256(value)
        try Data(value).write(to: URL(fileURLWithPath: directory.file(Hex.encode(key))))
        let liar = BLAKE2b.hash256(Array("other".utf8))
        try Data("not the preimage of its name".utf8).write(to: URL(fileURLWithPath: directory.file("0x" + Hex.encode(liar))))
        let fixture = try Fixture(preimages: directory.path)
        func first(_ key: [UInt8]) async throws -> SCALEValue? {
            let call = TruAPICall(requestID: "p:1", method: method("preimage_lookup_subscribe"), request: .record(["key": .bytes(key)]))
            guard case .stream(let items) = await fixture.host.subscribe(to: call) else { return nil }
            for await item in items { return item }
            return nil
        }
        #expect(try await first(key) == .record(["value": .some(.bytes(value))]))
        #expect(try await first(liar) == .record(["value": .absent]))
        #expect(try await first(BLAKE2b.hash256([1])) == .record(["value": .absent]))
        #expect(try await first([1, 2, 3]) == .record(["value": .absent]))
        #expect(fixture.events.all.filter { $0.name == "preimage_lookup" }.compactMap { $0["outcome"]?.stringValue }
                == ["found", "hash_mismatch", "not_found", "not_a_blake2b_256_key"])
    }

    @Test("create_account_proof for another product's key is NotAllowlisted; account calls naming another product are logged once")
    func productChecks() async throws {
        let fixture = try Fixture(product: "dotli.dot")
        func proof(_ owner: String) -> SCALEValue {
            let index = SCALEValue.variant("Index", .int(0))
            return .record(["key_handle": .record(["dot_ns_identifier": .string(owner), "derivation_index": index]),
                            "context": .record(["product_id": .string("myapp.dot"), "suffix": index]),
                            "ring_location": .record(["chain_id": .bytes([UInt8](repeating: 0, count: 32)), "junctions": .sequence([])]),
                            "message": .bytes([])])
        }
        #expect(await fixture.respond("account_create_account_proof", proof("peopl.dot")) == .failure(.domainV1(.unitVariant("NotAllowlisted"))))
        #expect(await fixture.respond("account_create_account_proof", proof("DotLi.dot")) == .failure(.unsupported))
        let account = SCALEValue.record(["product_account_id": .record(["dot_ns_identifier": .string("other.dot"),
                                                                        "derivation_index": .variant("Index", .int(0))])])
        #expect(await fixture.respond("account_get_account", account) == .failure(.domainV1(.unitVariant("NotConnected"))))
        _ = await fixture.respond("account_get_account", account)
        #expect(fixture.events.all.filter { $0.name == "product_id_mismatch" }.compactMap { $0["requested"]?.stringValue } == ["peopl.dot", "other.dot"])
        let wildcard = try Fixture(product: "localhost:3000")
        #expect(await wildcard.respond("account_create_account_proof", proof("peopl.dot")) == .failure(.unsupported))
    }

    @Test("theme changes reach open theme subscriptions; connection status is Disconnected")
    func currentValues() async throws {
        let fixture = try Fixture()
        let call = TruAPICall(requestID: "p:1", method: method("theme_subscribe"), request: .unit)
        guard case .stream(let items) = await fixture.host.subscribe(to: call) else {
            Issue.record("no stream")
            return
        }
        var iterator = items.makeAsyncIterator()
        #expect(await iterator.next() == TruAPITheme(dark: true).value)
        fixture.context.setTheme(try #require(TruAPITheme("custom:Solar:light")))
        #expect(await iterator.next() == .record(["name": .variant("Custom", .string("Solar")), "variant": .unitVariant("Light")]))
        #expect(TruAPITheme("custom:") == nil && TruAPITheme("blue") == nil && TruAPITheme(" LIGHT\n") == TruAPITheme(dark: false))
        let status = TruAPICall(requestID: "p:2", method: method("account_connection_status_subscribe"), request: .unit)
        guard case .stream(let statuses) = await fixture.host.subscribe(to: status) else {
            Issue.record("no stream")
            return
        }
        for await item in statuses {
            #expect(item == .unitVariant("Disconnected"))
            break
        }
    }

    @Test("what the host does not handle itself is the default host's answer")
    func defaults() async throws {
        let fixture = try Fixture()
        // Signing and chain methods are the signing host's and the forwarder's (their own suites).
        for name in ["statement_store_submit", "chat_create_room", "coin_payment_create_purse", "account_get_legacy_accounts", "account_request_login",
                     "entropy_derive", "resource_allocation_request"] {
            let call = TruAPICall(requestID: "p:1", method: method(name), request: .unit)
            #expect(await fixture.host.respond(to: call) == TruAPIDefaultHost.defaultAnswer(to: call), "\(name)")
        }
    }
}
