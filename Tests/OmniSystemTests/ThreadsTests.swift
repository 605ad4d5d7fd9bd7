import Foundation
import OmniTestSupport
import OmniSystem
import Testing

@Suite(.serialized, .offPool) struct ThreadsTests {
    /// Many threads incrementing under the lock lose no update; the last one to finish signals the waiter.
    @Test func lockSerialisesAndThreadsRun() {
        let lock = Lock()
        let done = Condition()
        final class Box: @unchecked Sendable { var count = 0; var finished = 0 }
        let box = Box()
        let threads = 8, increments = 10_000
        for index in 0..<threads {
            Threads.start(name: "omni-test-\(index)") {
                for _ in 0..<increments { lock.withLock { box.count += 1 } }
                done.withLock {
                    box.finished += 1
                    done.broadcast()
                }
            }
        }
        done.withLock { while box.finished < threads { done.wait() } }
        #expect(lock.withLock { box.count } == threads * increments)
    }

    @Test func tryLockAndTimedLockReportAHeldLock() {
        let lock = Lock()
        #expect(lock.tryLock())
        let held = Condition()
        final class Box: @unchecked Sendable { var results: [Bool]? }
        let box = Box()
        Threads.start(name: "omni-test-try") {
            let results = [lock.tryLock(), lock.lock(before: Date(timeIntervalSinceNow: 0.01)), lock.lock(before: .distantPast)]
            held.withLock {
                box.results = results
                held.signal()
            }
        }
        held.withLock { while box.results == nil { held.wait() } }
        #expect(box.results == [false, false, false], "the lock is held by this thread")
        lock.unlock()
        #expect(lock.lock(before: .distantFuture), "a free lock is taken; distantFuture does not trap")
        lock.unlock()
    }

    @Test func conditionWaitTimesOutWithoutSignalAndWakesOnSignal() {
        let condition = Condition()
        condition.lock()
        #expect(condition.wait(until: Date(timeIntervalSinceNow: 0.01)) == false)
        #expect(condition.wait(until: .distantPast) == false, "a passed deadline returns at once")
        condition.unlock()

        final class Box: @unchecked Sendable { var ready = false; var woken = false }
        let box = Box()
        Threads.start(name: "omni-test-signal") {
            condition.withLock {
                box.ready = true
                condition.signal()
                while !box.woken { condition.wait() }
            }
        }
        condition.withLock {
            // distantFuture: waits for the signal instead of trapping or returning at once.
            while !box.ready { #expect(condition.wait(until: .distantFuture)) }
            box.woken = true
            condition.signal()
        }
    }

    /// The name is visible to the OS (what `ps -L` and debuggers show), cut to Linux's 15 bytes on a scalar boundary.
    @Test(arguments: [("omni-http", "omni-http"), ("omni-http-connection", "omni-http-conne"),
                      ("omni-xééééééé", "omni-xéééé")])
    func threadNameReachesTheKernel(name: String, expected: String) throws {
        let done = Condition()
        final class Box: @unchecked Sendable { var name: String? }
        let box = Box()
        Threads.start(name: name, stackSize: 1 << 20) {
            let comm = (try? String(contentsOfFile: "/proc/thread-self/comm", encoding: .utf8)) ?? "unreadable"
            done.withLock {
                box.name = comm.trimmingCharacters(in: .newlines)
                done.signal()
            }
        }
        done.withLock { while box.name == nil { done.wait() } }
        #expect(box.name == expected)
    }

    @Test func sleepReturnsForNonPositiveAndNaN() {
        Threads.sleep(seconds: 0)
        Threads.sleep(seconds: -1)
        Threads.sleep(seconds: .nan)
        Threads.sleep(seconds: 0.001)
    }
}
