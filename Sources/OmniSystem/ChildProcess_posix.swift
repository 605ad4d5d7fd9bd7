#if canImport(Glibc)
internal import Glibc
#endif

/// Starting helper programs (`xdg-open`, `notify-send`, an `--opener`) without a shell: argv exactly as given, stdin
/// from /dev/null, the child's output discarded or sent to our stderr (stdout is often a JSON stream). One home for
/// posix_spawn and for reading a wait status, which Swift cannot do through the C macros.
public enum ChildProcess {
    /// Where the child's stdout and stderr go.
    public enum Output: Sendable {
        /// /dev/null.
        case discard
        /// Our stderr (for both of the child's streams).
        case stderr
    }

    /// How a child ended.
    public enum Exit: Sendable, Equatable {
        case exited(Int32)
        case killed(Int32)

        /// `nil` for a clean exit, else words for a message ("exited with status 3", "was killed by signal 9").
        public var problem: String? {
            switch self {
            case .exited(0): nil
            case .exited(let status): "exited with status \(status)"
            case .killed(let signal): "was killed by signal \(signal)"
            }
        }
    }

    /// Starts `arguments[0]` (looked up in PATH) with the rest as its arguments; the child's pid, or why not.
    public static func spawn(_ arguments: [String], output: Output = .discard) -> Result<Int32, SystemError> {
        guard let program = arguments.first else { return .failure(SystemError(path: "", "no program given")) }
        var actions = posix_spawn_file_actions_t()
        posix_spawn_file_actions_init(&actions)
        defer { posix_spawn_file_actions_destroy(&actions) }
        posix_spawn_file_actions_addopen(&actions, 0, "/dev/null", O_RDONLY, 0)
        switch output {
        case .discard:
            posix_spawn_file_actions_addopen(&actions, 1, "/dev/null", O_WRONLY, 0)
            posix_spawn_file_actions_addopen(&actions, 2, "/dev/null", O_WRONLY, 0)
        case .stderr:
            posix_spawn_file_actions_adddup2(&actions, 2, 1)
        }
        var argv: [UnsafeMutablePointer<CChar>?] = arguments.map { strdup($0) } + [nil]
        defer { argv.forEach { free($0) } }
        var pid: pid_t = 0
        let status = posix_spawnp(&pid, program, &actions, nil, argv, environ)
        guard status == 0 else { return .failure(SystemError(path: program, String(cString: strerror(status)))) }
        return .success(pid)
    }

    /// Waits for the child to end (blocking; EINTR retried).
    public static func waitForExit(_ pid: Int32) -> Exit {
        var status: Int32 = 0
        while waitpid(pid, &status, 0) < 0 {
            if errno != EINTR { return .exited(-1) }
        }
        // WIFEXITED / WEXITSTATUS / WTERMSIG.
        return status & 0x7F == 0 ? .exited((status >> 8) & 0xFF) : .killed(status & 0x7F)
    }
}
