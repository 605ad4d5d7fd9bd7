import FoundationEssentials
#if canImport(Glibc)
internal import Glibc
#endif

// Locks, condition variables and threads on pthreads: what Foundation's NSLock, NSCondition and Thread gave, without
// linking Foundation (and ICU with it) into omni.

/// A mutual-exclusion lock (NSLock's `lock`/`unlock`/`withLock`). Not recursive: locking it twice on one thread
/// deadlocks, as NSLock does.
public final class Lock: @unchecked Sendable {
    // Heap-allocated: a pthread_mutex_t must not move, and a Swift stored property may.
    private let mutex: UnsafeMutablePointer<pthread_mutex_t>

    public init() {
        mutex = .allocate(capacity: 1)
        mutex.initialize(to: pthread_mutex_t())
        precondition(pthread_mutex_init(mutex, nil) == 0, "pthread_mutex_init failed")
    }

    deinit {
        pthread_mutex_destroy(mutex)
        mutex.deallocate()
    }

    public func lock() { pthread_mutex_lock(mutex) }
    public func unlock() { pthread_mutex_unlock(mutex) }

    /// Takes the lock if it is free (NSLock's `try()`); never waits.
    public func tryLock() -> Bool { pthread_mutex_trylock(mutex) == 0 }

    /// Waits for the lock until `deadline` (NSLock's `lock(before:)`). Returns false, not holding the lock, when
    /// the deadline passed first. A deadline further than 68 years away (`.distantFuture`) waits without end
    /// instead of trapping as Foundation on Linux does.
    public func lock(before deadline: Date) -> Bool {
        let seconds = deadline.timeIntervalSince1970
        guard seconds < Double(Int32.max) else {
            lock()
            return true
        }
        let whole = max(0, seconds.rounded(.down))
        var absolute = timespec(tv_sec: time_t(whole), tv_nsec: Int(min(max(0, seconds - whole) * 1e9, 999_999_999)))
        return pthread_mutex_timedlock(mutex, &absolute) == 0
    }

    public func withLock<Result>(_ body: () throws -> Result) rethrows -> Result {
        lock()
        defer { unlock() }
        return try body()
    }
}

/// A lock with a condition variable (NSCondition). Waits are measured on the monotonic clock, so setting the wall
/// clock neither shortens nor stretches them. As with every condition variable, a wait may wake spuriously: wait
/// in a loop on the predicate.
public final class Condition: @unchecked Sendable {
    private let mutex: UnsafeMutablePointer<pthread_mutex_t>
    private let condition: UnsafeMutablePointer<pthread_cond_t>

    public init() {
        mutex = .allocate(capacity: 1)
        mutex.initialize(to: pthread_mutex_t())
        condition = .allocate(capacity: 1)
        condition.initialize(to: pthread_cond_t())
        precondition(pthread_mutex_init(mutex, nil) == 0, "pthread_mutex_init failed")
        var attributes = pthread_condattr_t()
        pthread_condattr_init(&attributes)
        pthread_condattr_setclock(&attributes, CLOCK_MONOTONIC)
        precondition(pthread_cond_init(condition, &attributes) == 0, "pthread_cond_init failed")
        pthread_condattr_destroy(&attributes)
    }

    deinit {
        pthread_cond_destroy(condition)
        pthread_mutex_destroy(mutex)
        condition.deallocate()
        mutex.deallocate()
    }

    public func lock() { pthread_mutex_lock(mutex) }
    public func unlock() { pthread_mutex_unlock(mutex) }

    public func withLock<Result>(_ body: () throws -> Result) rethrows -> Result {
        lock()
        defer { unlock() }
        return try body()
    }

    /// Releases the lock until signalled, then holds it again. Call with the lock held.
    public func wait() { pthread_cond_wait(condition, mutex) }

    /// As `wait()`, until `deadline` at the latest (NSCondition's `wait(until:)`). Returns false when the deadline
    /// passed before a signal. Call with the lock held. The time left is measured on the monotonic clock; a
    /// deadline further than 68 years away (`.distantFuture`) waits without end.
    @discardableResult
    public func wait(until deadline: Date) -> Bool {
        let seconds = deadline.timeIntervalSinceNow
        guard seconds > 0 else { return false }
        guard seconds < Double(Int32.max) else {
            wait()
            return true
        }
        var absolute = timespec()
        clock_gettime(CLOCK_MONOTONIC, &absolute)
        let whole = seconds.rounded(.down)
        var nanoseconds = absolute.tv_nsec + Int((seconds - whole) * 1e9)
        var wholeSeconds = Int(absolute.tv_sec) + Int(whole)
        if nanoseconds >= 1_000_000_000 {
            nanoseconds -= 1_000_000_000
            wholeSeconds += 1
        }
        absolute.tv_sec = time_t(wholeSeconds)
        absolute.tv_nsec = nanoseconds
        return pthread_cond_timedwait(condition, mutex, &absolute) != ETIMEDOUT
    }

    /// Wakes one waiter.
    public func signal() { pthread_cond_signal(condition) }
    /// Wakes every waiter.
    public func broadcast() { pthread_cond_broadcast(condition) }
}

/// Detached threads (Foundation's `Thread { … }.start()`), and sleeping.
public enum Threads {
    /// Starts `body` on a new detached thread. `name` shows in `ps -L`, debuggers and crash reports; Linux keeps
    /// its first 15 bytes. `stackSize` (bytes) is rounded up to what the system accepts; nil keeps the default.
    public static func start(name: String, stackSize: Int? = nil, _ body: @escaping @Sendable () -> Void) {
        var attributes = pthread_attr_t()
        pthread_attr_init(&attributes)
        defer { pthread_attr_destroy(&attributes) }
        pthread_attr_setdetachstate(&attributes, Int32(PTHREAD_CREATE_DETACHED))
        if let stackSize {
            let pageSize = max(sysconf(Int32(_SC_PAGESIZE)), 4096)
            let rounded = (max(stackSize, 64 * 1024) + pageSize - 1) / pageSize * pageSize
            pthread_attr_setstacksize(&attributes, rounded)
        }
        let box = Unmanaged.passRetained(ThreadStart(name: name, body: body)).toOpaque()
        var thread = pthread_t()
        let result = pthread_create(&thread, &attributes, { context in
            let start = Unmanaged<ThreadStart>.fromOpaque(context!).takeRetainedValue()
            start.nameCurrentThread()
            start.body()
            return nil
        }, box)
        // Running out of threads is an environment failure every caller would treat as fatal, as Foundation does.
        guard result == 0 else {
            Unmanaged<ThreadStart>.fromOpaque(box).release()
            fatalError("cannot start thread \(name): \(String(cString: strerror(result)))")
        }
    }

    /// The processors online (at least 1). Affinity masks and container CPU quotas are not read: where they
    /// matter, commands take an explicit count (`--jobs`).
    public static var processorCount: Int { max(1, sysconf(Int32(_SC_NPROCESSORS_ONLN))) }

    /// Sleeps the calling thread for `seconds` (Foundation's `Thread.sleep(forTimeInterval:)`), resuming after
    /// signals that interrupt the sleep. Zero, negative or NaN return at once.
    public static func sleep(seconds: Double) {
        guard seconds > 0 else { return }
        let whole = min(seconds.rounded(.down), Double(Int32.max))
        var request = timespec(tv_sec: time_t(whole), tv_nsec: Int(min((seconds - whole) * 1e9, 999_999_999)))
        var remaining = timespec()
        while nanosleep(&request, &remaining) != 0 && errno == EINTR {
            request = remaining
        }
    }
}

private final class ThreadStart {
    let truncatedName: String
    let body: @Sendable () -> Void

    init(name: String, body: @escaping @Sendable () -> Void) {
        let bytes = Array(name.utf8)
        var cut = min(bytes.count, 15)
        // Never cut a UTF-8 sequence in two: back up to the start of the scalar at the cut.
        while cut > 0 && cut < bytes.count && bytes[cut] & 0xC0 == 0x80 { cut -= 1 }
        truncatedName = String(decoding: bytes[..<cut], as: UTF8.self)
        self.body = body
    }

    /// What pthread_setname_np does on Linux (which Swift's Glibc module does not export): write the thread's
    /// `comm`. Best effort: a thread without a name works the same.
    func nameCurrentThread() {
        let fd = open("/proc/thread-self/comm", O_WRONLY | O_CLOEXEC)
        guard fd >= 0 else { return }
        _ = truncatedName.withCString { write(fd, $0, strlen($0)) }
        close(fd)
    }
}
