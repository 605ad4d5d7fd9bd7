import Testing
import OmniCodec
@testable import OmniIrd

@Suite struct IrdPaginationTests {
    /// Every listing of the test document and how it pages, found from its parameters and answer schema.
    @Test func theTestDocumentsListings() throws {
        let document = try TestDocuments.document()
        var found: [String: IrdPagination] = [:]
        for operation in document.operations {
            if let pagination = IrdPagination.of(operation, in: document) { found[operation.operationId ?? operation.display] = pagination }
        }
        let cursor = IrdPagination.Style.cursor(parameter: "cursor", field: "next_cursor")
        let offset = IrdPagination.Style.offset(parameter: "offset")
        #expect(found.mapValues(\.style) == [
            "listDomains": cursor, "listSupportThreads": cursor, "listPins": cursor, "listRegistrationActions": cursor,
            "listRegistrations": offset, "listCreditLedger": offset, "listDomainPins": offset,
        ])
        #expect(found["listDomains"]?.itemsField == "domains" && found["listRegistrations"]?.itemsField == "items")
        #expect(found["listDomains"]?.maximumPageSize == 100 && found["listDomains"]?.defaultPageSize == 20)
    }
}

@Suite struct IrdWaiterTests {
    @Test func theStandardScheduleDoublesToEightSeconds() {
        let schedule = IrdPollSchedule.standard
        #expect((0..<6).map { schedule.interval(after: $0) } == [.seconds(1), .seconds(2), .seconds(4), .seconds(8), .seconds(8), .seconds(8)])
        #expect(schedule.deadline == .seconds(120))
        let long = IrdPollSchedule(initial: .seconds(10), maximum: .seconds(8), deadline: .seconds(60))
        #expect(long.interval(after: 3) == .seconds(10), "an initial interval above the maximum stays")
    }

    @Test func statesAndOutcomes() throws {
        #expect(IrdWaiter.state(of: try JSONValue.parse(#"{"action": {"state": "Running"}}"#)) == "running")
        #expect(IrdWaiter.state(of: try JSONValue.parse(#"{"status": "completed"}"#)) == "completed")
        #expect(IrdWaiter.outcome(of: "succeeded") == .succeeded && IrdWaiter.outcome(of: "completed") == .succeeded)
        #expect(IrdWaiter.outcome(of: "failed") == .failed && IrdWaiter.outcome(of: "canceled") == .cancelled)
        #expect(IrdWaiter.outcome(of: "queued") == nil && IrdWaiter.outcome(of: "running") == nil)
    }

    @Test func everyQueuedOperationOfTheDocumentHasAPoll() throws {
        let document = try TestDocuments.document()
        let queued = document.operations.filter(IrdWaiter.isQueued).map(\.display)
        #expect(queued == ["POST /registrations", "POST /vps/instances", "POST /jobs"])
    }
}
