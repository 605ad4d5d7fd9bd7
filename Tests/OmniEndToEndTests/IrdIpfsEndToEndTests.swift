import Foundation
import Testing
import OmniCodec
import OmniTestSupport

/// `omni ird ipfs add`: a 200 MiB sparse file streamed to the peer's node endpoint with the grant's bearer; the peer
/// hashes what arrives, the test compares it with the file's own hash and omni's peak memory with the file's size.
extension IrdEndToEndTests {
    /// Runs omni, then reports on stderr the child's peak resident set (ru_maxrss, KiB) and the file's SHA-256.
    static let measuringDriver = #"""
        import hashlib, resource, subprocess, sys
        path = sys.argv[1]
        result = subprocess.run(sys.argv[2:])
        digest = hashlib.sha256()
        with open(path, 'rb') as handle:
            for chunk in iter(lambda: handle.read(1 << 20), b''):
                digest.update(chunk)
        print('maxrss_kib=%d sha256=%s' % (resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss, digest.hexdigest()), file=sys.stderr)
        sys.exit(result.returncode)
        """#

    @Test func ipfsAddStreamsALargeFileInConstantMemory() throws {
        try fetch()
        let file = home.appendingPathComponent("big.bin")
        let size = 200 << 20
        #expect(FileManager.default.createFile(atPath: file.path, contents: Data("head of the file".utf8)))
        let handle = try FileHandle(forWritingTo: file)
        try handle.seek(toOffset: UInt64(size - 16))
        try handle.write(contentsOf: Data("tail of the file".utf8))
        try handle.close()

        let arguments = ["python3", "-c", Self.measuringDriver, file.path, Omni.executable, "ird", "ipfs", "add", file.path,
                         "--format", "car", "--poll-interval", "10ms", "-o", "json"]
        let result = try Subprocess.run("/usr/bin/env", arguments, environment: Omni.environment(environment))
        #expect(result.status == 0, "\(result.stderrText)")
        let answer = try JSONValue.parse(result.stdoutText)
        #expect(answer["state"] == "completed" && answer["cid"]?.stringValue?.hasPrefix("bafy") == true, "\(result.stdoutText)")

        let report = try #require(result.stderrText.split(separator: "\n").last { $0.hasPrefix("maxrss_kib=") })
        let fields = Dictionary(uniqueKeysWithValues: report.split(separator: " ").map { pair in
            let parts = pair.split(separator: "=", maxSplits: 1)
            return (String(parts[0]), String(parts[1]))
        })
        let peakKiB = try #require(Int(fields["maxrss_kib"] ?? ""))
        #expect(peakKiB < 64 * 1024, "omni's peak memory \(peakKiB) KiB must stay far under the file's 200 MiB")

        let requests = try control()["requests"]?.arrayValue ?? []
        let node = try #require(requests.first { $0["path"]?.stringValue?.hasPrefix("/node/upload/") == true })
        #expect(node["bytes"] == .int(size) && node["content_length"] == .int(size))
        #expect(node["sha256"]?.stringValue == fields["sha256"], "the node received exactly the file's bytes")
        #expect(node["content_type"] == "application/octet-stream")
        #expect(node["authorization"]?.stringValue?.hasPrefix("Bearer grant-") == true, "the grant's own bearer, not the API key")
        let grant = try #require(try operationRequests().first { $0["operation_id"] == "createUploadGrant" })
        let body = try JSONValue.parse(try #require(grant["body"]?.stringValue))
        #expect(body == ["name": "big.bin", "size": .int(size), "format": "car"])
        try expectNoViolations()
    }

    @Test func ipfsAddRefusesWhatIsNotAFile() throws {
        try fetch()
        let missing = try ird(["ipfs", "add", home.appendingPathComponent("absent").path])
        #expect(missing.status == 7 && missing.stderrText.contains("absent"), "\(missing.stderrText)")
        let directory = try ird(["ipfs", "add", home.path])
        #expect(directory.status == 7 && directory.stderrText.contains("not a regular file"), "\(directory.stderrText)")
        #expect(try operationRequests().isEmpty, "nothing is sent for a file that cannot be read")
    }
}
