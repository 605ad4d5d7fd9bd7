import OmniTransport

/// How an `ICAgent` reaches the network: one blocking HTTP exchange. `HTTPClientTransport` in production;
/// tests may script responses.
public protocol ICTransport: Sendable {
    func perform(_ request: HTTPRequest) throws(TransportError) -> HTTPResponse
}

/// `ICTransport` over omni's libcurl client; `cancellation` (e.g. set from a SIGINT handler) aborts transfers
/// and the agent's waits between polls.
public struct HTTPClientTransport: ICTransport {
    public let client: HTTPClient
    public let cancellation: HTTPCancellation?

    public init(client: HTTPClient, cancellation: HTTPCancellation? = nil) {
        self.client = client
        self.cancellation = cancellation
    }

    public func perform(_ request: HTTPRequest) throws(TransportError) -> HTTPResponse {
        try client.perform(request, cancellation: cancellation)
    }
}
