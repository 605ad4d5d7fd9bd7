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
