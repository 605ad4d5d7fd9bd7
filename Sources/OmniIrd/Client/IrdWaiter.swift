import OmniCodec
import OmniSystem
import OmniTransport

/// How often and how long a poll loop asks: `initial`, doubling up to `maximum`, until `deadline` has passed.
public struct IrdPollSchedule: Sendable, Equatable {
    public var initial: Duration
    public var maximum: Duration
    public var deadline: Duration

    /// The sibling clients' jobs schedule: 1 s doubling to 8 s, 120 s in all.
    public static let standard = IrdPollSchedule(initial: .seconds(1), maximum: .seconds(8), deadline: .seconds(120))

    public init(initial: Duration, maximum: Duration, deadline: Duration) {
        self.initial = initial
        self.maximum = max(maximum, initial)
        self.deadline = deadline
    }

    /// The waits in order: `initial`, doubled each time, never above `maximum`.
    public func interval(after polls: Int) -> Duration {
        var wait = initial
        for _ in 0..<min(polls, 32) where wait < maximum { wait = min(wait * 2, maximum) }
        return wait
    }
}

/// Waiting on queued work: a 202's action (or a job) polled through the operation the document's `links` name,
/// else the reviewed override table, until a final state.
public enum IrdWaiter {
    public enum Outcome: String, Sendable { case succeeded, failed, cancelled }

    public static let succeededStates: Set<String> = ["succeeded", "completed", "complete", "done", "active", "ready", "pinned"]
    public static let failedStates: Set<String> = ["failed", "error", "errored", "rejected", "expired"]
    public static let cancelledStates: Set<String> = ["cancelled", "canceled"]

    /// Reviewed overrides for answers the document gives no link: the enqueue path's shape, the poll path's shape,
    /// and where the answer keeps the id (a JSON pointer).
    public struct Override: Sendable, Equatable {
        public let enqueue: String
        public let poll: String
        public let idPointer: String
    }

    public static let overrides: [Override] = [
        Override(enqueue: "/jobs", poll: "/jobs/{}", idPointer: "#/id"),
        Override(enqueue: "/ipfs/uploads", poll: "/ipfs/uploads/{}", idPointer: "#/upload_id"),
    ]

    /// True when the answer is queued work: a 202, or a success whose documented answer has a link to a poll.
    public static func isQueued(_ operation: Operation) -> Bool {
        operation.success?.status == "202"
    }

    /// The poll operation and its input for an answer: the first link of the answer whose target is a GET (named
    /// `action`, `status` or `upload` first), else the override table.
    public static func poll(for answer: IrdAnswer, of operation: Operation, request: IrdCallInput, in document: OpenAPIDocument)
        throws(IrdError) -> (Operation, IrdCallInput) {
        let documented = operation.responses.first { $0.matches(answer.status) } ?? operation.success
        let links = (documented?.links ?? []).filter { link in link.operationId.flatMap(document.operation(id:))?.method == "GET" }
        let preferred = links.first { ["action", "status", "upload", "poll"].contains($0.name) } ?? links.first
        if let link = preferred { return try IrdLinks.follow(link, from: answer, request: request, in: document) }
        let shape = IrdDomainGate.shape(operation.path)
        guard let entry = overrides.first(where: { $0.enqueue == shape }),
              let target = document.operations.first(where: { $0.method == "GET" && IrdDomainGate.shape($0.path) == entry.poll }),
              let parameter = target.parameters(in: .path).last,
              let id = answer.json.flatMap({ IrdLinks.pointer(entry.idPointer, in: $0) }) else {
            throw IrdError(.invalidDocument, "\(operation.display): the answer links to no operation that polls it, and the override table has none")
        }
        return (target, IrdCallInput(path: [parameter.name: IrdRequestBuilder.text(of: id)]))
    }

    /// The state word of an answer: `state` or `status`, at the top or in `action`/`job`/`upload`.
    public static func state(of value: JSONValue) -> String? {
        for holder in [value, value["action"], value["job"], value["upload"]].compactMap({ $0 }) {
            if let word = holder["state"]?.stringValue ?? holder["status"]?.stringValue { return word.lowercased() }
        }
        return nil
    }

    public static func outcome(of state: String) -> Outcome? {
        if succeededStates.contains(state) { return .succeeded }
        if failedStates.contains(state) { return .failed }
        if cancelledStates.contains(state) { return .cancelled }
        return nil
    }

    /// Polls until a final state; the last answer and how it ended. A deadline that passes is a `timedOut` error
    /// naming the last state seen; `isInterrupted` stops the loop between polls.
    public static func wait(client: IrdClient, poll: Operation, input: IrdCallInput, schedule: IrdPollSchedule,
                            first: IrdAnswer? = nil, cancellation: HTTPCancellation? = nil,
                            progress: (String) -> Void = { _ in }) throws -> (answer: IrdAnswer, outcome: Outcome) {
        let clock = ContinuousClock()
        let start = clock.now
        var polls = 0
        var lastState = first?.json.flatMap(state(of:)) ?? "queued"
        while true {
            let wait = schedule.interval(after: polls)
            if clock.now - start + wait > schedule.deadline {
                throw IrdError(.timedOut, "\(poll.display): still '\(lastState)' after \(describe(schedule.deadline)) (the deadline; "
                               + "--deadline gives more time)", operation: poll.display)
            }
            Threads.sleep(seconds: seconds(wait))
            if cancellation?.isCancelled == true { throw TransportError(.cancelled, "\(poll.display): interrupted while waiting") }
            let answer = try client.call(poll, input, cancellation: cancellation)
            polls += 1
            guard let word = answer.json.flatMap(state(of:)) else {
                throw IrdError(.invalidResponse, "\(poll.display): the answer has no state or status to wait on", operation: poll.display)
            }
            if word != lastState { progress(word) }
            lastState = word
            if let outcome = outcome(of: word) { return (answer, outcome) }
        }
    }

    static func seconds(_ duration: Duration) -> Double {
        let parts = duration.components
        return Double(parts.seconds) + Double(parts.attoseconds) / 1e18
    }

    static func describe(_ duration: Duration) -> String {
        let value = seconds(duration)
        return value == value.rounded() ? "\(Int(value)) s" : "\(value) s"
    }
}
