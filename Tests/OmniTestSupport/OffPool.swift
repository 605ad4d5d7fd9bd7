import Dispatch
import Foundation
import Testing

/// Runs blocking work (a subprocess, sockets, waits) on a thread of its own and awaits it, so Swift's concurrency
/// pool stays free. Tests run on that pool, which has one thread per core: a test that blocks one for minutes (a
/// compiler run, a package build) starves every async test meanwhile, and their time limits fire.
public func offPool<T: Sendable>(_ body: @escaping @Sendable () throws -> T) async throws -> T {
    try await withCheckedThrowingContinuation { continuation in
        Thread {
            do { continuation.resume(returning: try body()) } catch { continuation.resume(throwing: error) }
        }.start()
    }
}

/// A task executor that never uses the concurrency pool: each job runs on a thread of libdispatch's overcommit pool,
/// which grows when its threads block (a serial queue targets it, and a new queue per job never waits for another).
final class OverflowThreadExecutor: TaskExecutor {
    static let shared = OverflowThreadExecutor()

    func enqueue(_ job: consuming ExecutorJob) {
        let job = UnownedJob(job)
        let executor = asUnownedTaskExecutor()
        DispatchQueue(label: "omni.tests.off-pool").async { job.runSynchronously(on: executor) }
    }
}

/// How many off-pool suites run at once: as many as the concurrency pool has threads, the number of blocking tests
/// that could run at once before, so moving them does not raise the load they put on the machine.
private let offPoolSuiteWidth = max(2, ProcessInfo.processInfo.activeProcessorCount)

/// Admits at most `width` at a time; one waiting for its turn is suspended and holds no thread.
private actor Admission {
    private var free: Int
    private var waiting: [CheckedContinuation<Void, Never>] = []

    init(width: Int) { free = width }

    func enter() async {
        if free > 0 { free -= 1; return }
        await withCheckedContinuation { waiting.append($0) }
    }

    func leave() {
        if waiting.isEmpty { free += 1 } else { waiting.removeFirst().resume() }
    }

    func run<T: Sendable>(_ body: () async throws -> T) async throws -> T {
        await enter()
        do {
            let result = try await body()
            leave()
            return result
        } catch {
            leave()
            throw error
        }
    }
}

private let offPoolAdmission = Admission(width: offPoolSuiteWidth)

/// Runs each test it covers off the concurrency pool, on threads that may block. Synchronous tests run on the thread
/// that calls them, so one that waits on a subprocess, a socket or a peer holds that thread for as long as it waits;
/// on a 2-core machine the pool has two threads, and two such tests on them stall every async test in the process
/// (the bridge's and dispatcher's tasks among them) until their time limits fire. Every suite whose tests block
/// carries this trait, with `.serialized`: such suites take turns, `offPoolSuiteWidth` at a time, and run one test
/// at a time on threads of their own. A suite waits for its turn before its tests start, so the wait never counts
/// against a test's time limit.
public struct OffPoolTrait: TestTrait, SuiteTrait, TestScoping {
    public var isRecursive: Bool { true }

    /// The suite's own scope as well as each test case's: by default a recursive trait scopes only the test cases,
    /// and a test case waiting for its turn would be waiting inside its time limit.
    public func scopeProvider(for test: Test, testCase: Test.Case?) -> Self? {
        test.isSuite || testCase != nil ? self : nil
    }

    /// Set inside an admitted suite (or test), so nested suites and its tests do not queue a second time.
    @TaskLocal private static var admitted = false

    public func provideScope(for test: Test, testCase: Test.Case?, performing function: @Sendable () async throws -> Void)
        async throws
    {
        if Self.admitted { return try await Self.run(function, isTestCase: testCase != nil) }
        try await offPoolAdmission.run {
            try await Self.$admitted.withValue(true) { try await Self.run(function, isTestCase: testCase != nil) }
        }
    }

    private static func run(_ function: @Sendable () async throws -> Void, isTestCase: Bool) async throws {
        guard isTestCase else { return try await function() }
        try await withTaskExecutorPreference(OverflowThreadExecutor.shared) { try await function() }
    }
}

extension Trait where Self == OffPoolTrait {
    /// Runs the suite's tests off Swift's concurrency pool, a few suites at a time: for tests that block.
    public static var offPool: Self { OffPoolTrait() }
}
