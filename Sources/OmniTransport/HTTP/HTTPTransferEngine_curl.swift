internal import CCurl
internal import COmniShims
import Dispatch
internal import OmniSystem

/// Runs transfers on one libcurl multi handle from one dedicated thread.
///
/// Only that thread touches the multi handle and the easy handles in it; other threads hand over work through
/// `pending` (guarded by `condition`) and interrupt `curl_multi_poll` with `curl_multi_wakeup`, which libcurl
/// documents as callable from any thread. The thread starts on the first submission and ends at `shutdown()`.
final class HTTPTransferEngine: @unchecked Sendable {
    /// How often the loop rechecks cancellation flags while transfers are idle on the network.
    private static let pollIntervalMilliseconds: Int32 = 100

    private let multi: UnsafeMutableRawPointer?
    private let maxConcurrentTransfers: Int
    private let trust: HTTPTrustSettings

    private let condition = Condition()
    private var pending: [HTTPTransfer] = []
    private var pendingHead = 0
    private var workerRunning = false
    private var shuttingDown = false
    private var lastQueueSweep: UInt64 = 0

    init(maxConcurrentTransfers: Int, extraCAFile: String?, baseTrustStoreOverride: String?) {
        multi = Libcurl.isInitialized ? omni_curl_multi_init() : nil
        self.maxConcurrentTransfers = maxConcurrentTransfers
        trust = HTTPTrustSettings(extraCAFile: extraCAFile, baseTrustStoreOverride: baseTrustStoreOverride)
    }

    deinit {
        if let multi { omni_curl_multi_cleanup(multi) }
    }

    func submit(_ transfers: [HTTPTransfer]) {
        guard !transfers.isEmpty else { return }
        guard let multi else {
            let error = TransportError(.io, "libcurl could not be initialised" + (Libcurl.unavailableReason.map { ": " + $0 } ?? ""))
            transfers.forEach { $0.finish(error) }
            return
        }
        condition.lock()
        if shuttingDown {
            condition.unlock()
            transfers.forEach { $0.finish(TransportError(.cancelled, "HTTP client shut down", url: $0.settings.url)) }
            return
        }
        pending.append(contentsOf: transfers)
        let mustStartWorker = !workerRunning
        workerRunning = true
        condition.signal()
        condition.unlock()
        if mustStartWorker {
            Threads.start(name: "omni-http") { self.run() }
        } else {
            omni_curl_multi_wakeup(multi)
        }
    }

    func shutdown() {
        condition.lock()
        shuttingDown = true
        condition.signal()
        condition.unlock()
        if let multi { omni_curl_multi_wakeup(multi) }
    }

    /// Waits while there is nothing to do, then takes as many pending transfers as the concurrency cap allows.
    /// Also hands back, at most once per poll interval, queued transfers whose cancellation flag is set, so they
    /// need not wait for a free slot to fail.
    private func takeWork(activeCount: Int) -> (transfers: [HTTPTransfer], stopping: Bool) {
        condition.lock()
        defer { condition.unlock() }
        while activeCount == 0 && pendingHead == pending.count && !shuttingDown {
            condition.wait()
        }
        var cancelledWhileQueued: [HTTPTransfer] = []
        let now = DispatchTime.now().uptimeNanoseconds
        if now &- lastQueueSweep >= UInt64(Self.pollIntervalMilliseconds) * 1_000_000 {
            lastQueueSweep = now
            if pending[pendingHead...].contains(where: { $0.isCancelled }) {
                // One pass, so a flag set meanwhile cannot drop a transfer from both lists.
                var kept: [HTTPTransfer] = []
                for transfer in pending[pendingHead...] {
                    if transfer.isCancelled { cancelledWhileQueued.append(transfer) } else { kept.append(transfer) }
                }
                pending = kept
                pendingHead = 0
            }
        }
        let available = shuttingDown ? pending.count - pendingHead : maxConcurrentTransfers - activeCount
        let take = min(max(0, available), pending.count - pendingHead)
        let taken = Array(pending[pendingHead..<(pendingHead + take)])
        pendingHead += take
        if pendingHead == pending.count {
            pending.removeAll(keepingCapacity: true)
            pendingHead = 0
        }
        if shuttingDown { workerRunning = false }
        // `admit` finishes cancelled transfers at once, without starting them.
        return (cancelledWhileQueued + taken, shuttingDown)
    }

    private func run() {
        guard let multi else { return }
        var active: [UnsafeMutableRawPointer: HTTPTransfer] = [:]
        while true {
            let (admitted, stopping) = takeWork(activeCount: active.count)
            if stopping {
                for (easy, transfer) in active {
                    omni_curl_multi_remove_handle(multi, easy)
                    transfer.finish(TransportError(.cancelled, "HTTP client shut down", url: transfer.settings.url))
                }
                admitted.forEach {
                    $0.finish(TransportError(.cancelled, "HTTP client shut down", url: $0.settings.url))
                }
                return
            }
            for transfer in admitted {
                admit(transfer, into: &active, multi: multi)
            }
            guard !active.isEmpty else { continue }

            var running: Int32 = 0
            let performed = omni_curl_multi_perform(multi, &running)
            if performed != CURLM_OK {
                let reason = String(cString: omni_curl_multi_strerror(performed))
                abortAll(&active, multi: multi) { TransportError(.io, "libcurl multi failure: \(reason)", url: $0) }
                continue
            }
            collectFinished(&active, multi: multi)
            for (easy, transfer) in active where transfer.isCancelled {
                omni_curl_multi_remove_handle(multi, easy)
                active[easy] = nil
                transfer.finish(TransportError(.cancelled, "request cancelled", url: transfer.settings.url))
            }
            if !active.isEmpty {
                let polled = omni_curl_multi_poll(multi, nil, 0, Self.pollIntervalMilliseconds, nil)
                if polled != CURLM_OK {
                    let reason = String(cString: omni_curl_multi_strerror(polled))
                    abortAll(&active, multi: multi) { TransportError(.io, "libcurl multi failure: \(reason)", url: $0) }
                }
            }
        }
    }

    private func admit(
        _ transfer: HTTPTransfer, into active: inout [UnsafeMutableRawPointer: HTTPTransfer],
        multi: UnsafeMutableRawPointer
    ) {
        if transfer.isCancelled {
            transfer.finish(TransportError(.cancelled, "request cancelled", url: transfer.settings.url))
            return
        }
        switch transfer.start(trust: trust) {
        case .failure(let error):
            transfer.finish(error)
        case .success(let easy):
            let added = omni_curl_multi_add_handle(multi, easy)
            if added == CURLM_OK {
                active[easy] = transfer
            } else {
                let reason = String(cString: omni_curl_multi_strerror(added))
                let url = transfer.settings.url
                transfer.finish(TransportError(.io, "libcurl refused the transfer: \(reason)", url: url))
            }
        }
    }

    private func collectFinished(
        _ active: inout [UnsafeMutableRawPointer: HTTPTransfer], multi: UnsafeMutableRawPointer
    ) {
        var queued: Int32 = 0
        while let message = omni_curl_multi_info_read(multi, &queued) {
            // The message is invalidated by curl_multi_remove_handle: copy what we need first.
            guard message.pointee.msg == CURLMSG_DONE, let easy = message.pointee.easy_handle else { continue }
            let code = message.pointee.data.result
            omni_curl_multi_remove_handle(multi, easy)
            active.removeValue(forKey: easy)?.finish(code)
        }
    }

    private func abortAll(
        _ active: inout [UnsafeMutableRawPointer: HTTPTransfer], multi: UnsafeMutableRawPointer,
        error: (String) -> TransportError
    ) {
        for (easy, transfer) in active {
            omni_curl_multi_remove_handle(multi, easy)
            transfer.finish(error(transfer.settings.url))
        }
        active.removeAll()
    }
}

/// Trust-store settings shared by all transfers of a client. Owns a C copy of the extra CA path because libcurl
/// reads it (through the SSL context callback) whenever a connection is set up.
final class HTTPTrustSettings: @unchecked Sendable {
    let extraCAFile: String?
    let extraCAFileCString: UnsafeMutablePointer<CChar>?
    let baseTrustStoreOverride: String?

    init(extraCAFile: String?, baseTrustStoreOverride: String?) {
        self.extraCAFile = extraCAFile
        extraCAFileCString = extraCAFile.flatMap { strdup($0) }
        self.baseTrustStoreOverride = baseTrustStoreOverride
    }

    deinit {
        free(extraCAFileCString)
    }
}
