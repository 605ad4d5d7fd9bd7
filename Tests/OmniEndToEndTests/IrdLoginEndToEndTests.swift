import Foundation
import Testing
import OmniCodec
import OmniTestSupport

/// `omni ird login` on a pseudo-terminal (python's pty drives it: it types the confirmation code when asked), the
/// session stored 0600 and used by later commands; without a terminal login refuses before sending anything.
extension IrdEndToEndTests {
    static let loginDriver = #"""
        import os, pty, select, sys
        omni, code = sys.argv[1], sys.argv[2]
        pid, fd = pty.fork()
        if pid == 0:
            os.execv(omni, [omni, 'ird', 'login', '-o', 'json'])
        seen = b''
        while b'Confirmation code shown in the browser: ' not in seen:
            readable, _, _ = select.select([fd], [], [], 60)
            if not readable:
                raise SystemExit('no prompt; got %r' % seen)
            chunk = os.read(fd, 4096)
            if not chunk:
                raise SystemExit('omni ended before asking; got %r' % seen)
            seen += chunk
        os.write(fd, code.encode() + b'\r')
        rest = b''
        while True:
            try:
                chunk = os.read(fd, 4096)
            except OSError:
                break
            if not chunk:
                break
            rest += chunk
        _, status = os.waitpid(pid, 0)
        sys.stdout.write((seen + rest).decode(errors='replace'))
        sys.exit(os.waitstatus_to_exitcode(status))
        """#

    @Test func loginOnATerminalStoresTheSessionAndNeverSendsTheKey() throws {
        try fetch()
        // IRD_API_KEY is set: the device-login requests must still carry no credential (the peer records it).
        let result = try Subprocess.run("/usr/bin/env", ["python3", "-c", Self.loginDriver, Omni.executable, try peer.string("confirmation_code")],
                                        environment: Omni.environment(environment))
        #expect(result.status == 0, "\(result.stdoutText) \(result.stderrText)")
        #expect(result.stdoutText.contains("WDJB-MJHT") && result.stdoutText.contains("/device?user_code=WDJB-MJHT"), "\(result.stdoutText)")
        #expect(result.stdoutText.contains("\"logged_in\":true"), "\(result.stdoutText)")
        let requests = try operationRequests()
        #expect(requests.map { $0["operation_id"]?.stringValue ?? "" }
                == ["startDeviceLogin", "pollDeviceLogin", "pollDeviceLogin", "pollDeviceLogin", "completeDeviceLogin"])
        #expect(requests.allSatisfy { $0["authorization"] == false }, "no bearer on any device-login call")
        let file = home.appendingPathComponent("config/omni/ird/session.json").path
        let mode = try #require(try FileManager.default.attributesOfItem(atPath: file)[.posixPermissions] as? Int)
        #expect(mode == 0o600)
        #expect(!result.stdoutText.contains("eyJ"), "the token (the peer's start with eyJ) is never printed")

        let status = try ird(["auth", "status", "-o", "json"], removing: ["IRD_API_KEY"])
        #expect(try json(status)["credential"] == "session", "\(status.stderrText)")
        let me = try ird(["auth", "get-me", "-o", "json"], removing: ["IRD_API_KEY"])
        #expect(try json(me)["credential"] == "session", "the stored session is what later commands send: \(me.stderrText)")
        let logout = try ird(["logout", "-o", "json"])
        #expect(try json(logout)["removed"] == true)
        #expect(try ird(["auth", "status"], removing: ["IRD_API_KEY"]).status == 1)
        try expectNoViolations()
    }

    @Test func loginWithoutATerminalRefusesBeforeSending() throws {
        try fetch()
        let refused = try ird(["login"])
        #expect(refused.status == 2 && refused.stderrText.contains("terminal"), "\(refused.stderrText)")
        let noInput = try ird(["login", "--no-input"])
        #expect(noInput.status == 2 && noInput.stderrText.contains("--no-input"), "\(noInput.stderrText)")
        #expect(try operationRequests().isEmpty)
    }
}
