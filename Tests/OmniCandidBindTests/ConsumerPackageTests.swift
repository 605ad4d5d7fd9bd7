import Foundation
import OmniCandidBind
import OmniCodec
import OmniTestSupport
import Testing

/// Tests/BindingsConsumer, a package that depends on omni by path and generates its client with CandidBindPlugin,
/// builds (into .build/bindings-consumer) and calls the loopback test replica through the generated client: a query,
/// an update, rejects, a reply with an extended record, typed values there and back. One slow test: the first build
/// compiles omni's libraries for the consumer; OMNI_SKIP_SLOW=1 skips it.
@Suite(.serialized, .offPool) struct ConsumerPackageTests {
    static let consumer = Repository.root.appendingPathComponent("Tests/BindingsConsumer")
    static let scratch = Repository.root.appendingPathComponent(".build/bindings-consumer")

    @Test(.enabled(if: ProcessInfo.processInfo.environment["OMNI_SKIP_SLOW"] != "1",
                   "skipped: OMNI_SKIP_SLOW=1 (building Tests/BindingsConsumer takes minutes)"))
    func theConsumerBuildsWithThePluginAndCallsTheReplicaThroughItsClient() async throws {
        // Minutes of building: off the concurrency pool, which the other suites' async tests need meanwhile.
        let build = try await offPool {
            // The consumer depends on omni by path, and SwiftPM's cached build manifest misses a source file added to
            // omni since the last build here (a kept scratch path failed with "cannot find 'PKCS8' in scope").
            try Subprocess.run("/usr/bin/env", ["swift", "build", "--package-path", Self.consumer.path, "--scratch-path", Self.scratch.path,
                                                "--disable-build-manifest-caching"],
                               currentDirectory: Repository.root)
        }
        try #require(build.status == 0, "swift build of the consumer:\n\(build.stdoutText.suffix(8_000))\n\(build.stderrText.suffix(8_000))")

        // The plugin wrote into its work directory, not into the consumer's sources.
        let outputs = Self.scratch.appendingPathComponent("plugins/outputs")
        let generated = try #require(FileManager.default.enumerator(at: outputs, includingPropertiesForKeys: nil)?
            .compactMap { $0 as? URL }.first { $0.lastPathComponent == "ConsumerAppCandidBindings.swift" })
        #expect(generated.path.contains("/CandidBindPlugin/"))
        let sources = try FileManager.default.subpathsOfDirectory(atPath: Self.consumer.appendingPathComponent("Sources").path).sorted()
        #expect(sources == ["ConsumerApp", "ConsumerApp/Candid", "ConsumerApp/Candid/bindings.toml", "ConsumerApp/Candid/demo.did",
                            "ConsumerApp/main.swift"])
        // The tool gives the bytes the library gives here for the same manifest.
        let manifest = Self.consumer.appendingPathComponent("Sources/ConsumerApp/Candid/bindings.toml")
        let expected = try CandidBindings.generate(manifest: [UInt8](try Data(contentsOf: manifest)), manifestPath: manifest.path,
                                                   displayPath: manifest.path, packageRoot: Self.consumer.path, buildInfo: true)
        #expect(String(decoding: try Data(contentsOf: generated), as: UTF8.self) == expected.source)
        #expect(expected.inputs == ["Sources/ConsumerApp/Candid/bindings.toml", "Sources/ConsumerApp/Candid/demo.did"])

        // The replica's canister, configured to match demo.did; profile's reply (encoded by ic-py) has an extra field.
        let work = try TemporaryPackage(files: [:])
        try work.write("canister.json", try Self.canisterConfiguration())
        let replica = try PeerProcess(script: "ic_replica.py", arguments: ["--canister-config", work.url("canister.json").path])
        defer { replica.stop() }
        let run = try Subprocess.run(Self.scratch.appendingPathComponent("debug/ConsumerApp").path,
                                     [try replica.string("url"), try replica.string("root_key"), try replica.string("canister_id")])
        #expect(run.status == 0, "ConsumerApp:\n\(run.stdoutText)\n\(run.stderrText)\nreplica:\n\(replica.stderrText.suffix(4_000))")
        #expect(run.stdoutText.split(separator: "\n").map(String.init) == [
            "query greet: Hello, omni!",
            "update counter: 1 then 2",
            "update reject: 4 CANISTER_REJECT fail: rejected by the canister (certified)",
            "query reject: CANISTER_REJECT fail_query: rejected by the canister",
            "extended record: Ada, 36",
            "echo: same owner, tags [\"a\", \"b\"]",
            "ok",
        ])
    }

    /// ic_replica.py's canister model for demo.did.
    static func canisterConfiguration() throws -> String {
        let profile: [String: Any] = [
            "types": [["k": "record", "fields": [["name", ["k": "text"]], ["age", ["k": "nat"]], ["email", ["k": "text"]]]]],
            "values": [["name": "Ada", "age": "36", "email": "ada@example.org"]], "hex": "4449444c0000",
        ]
        let encoded = try Subprocess.python("candid_icpy.py", stdin: try JSONSerialization.data(withJSONObject: ["cases": [profile]]))
        try #require(encoded.status == 0, "candid_icpy.py: \(encoded.stderrText)")
        let line = try #require(encoded.stdoutText.split(separator: "\n").first)
        let hex = try #require((try JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any])?["encoded"] as? String)
        let methods: [String: [String: Any]] = [
            "greet": ["kind": "query", "behavior": "greet"],
            "counter": ["kind": "update", "behavior": "counter_inc"],
            "get_counter": ["kind": "query", "behavior": "counter_get"],
            "fail": ["kind": "update", "behavior": "reject", "reject_code": 4, "reject_message": "fail: rejected by the canister",
                     "error_code": "IC0406"],
            "fail_query": ["kind": "query", "behavior": "reject", "reject_code": 4,
                           "reject_message": "fail_query: rejected by the canister", "error_code": "IC0406"],
            "profile": ["kind": "query", "behavior": "fixed", "reply_hex": hex],
            "echo_shape": ["kind": "query", "behavior": "echo"],
        ]
        return String(decoding: try JSONSerialization.data(withJSONObject: ["methods": methods], options: [.sortedKeys]), as: UTF8.self)
    }
}
