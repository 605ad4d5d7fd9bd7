import OmniCodec

extension Benchmark {
    /// Parses a 1,000-element JSON array of small objects.
    static let jsonParse = Benchmark(name: "json-parse", defaultIterations: 200) {
        let items = (0..<1000).map { "{\"id\":\($0),\"name\":\"item \($0)\",\"ok\":true}" }
        let text = "[" + items.joined(separator: ",") + "]"
        return { _ = try? JSONValue.parse(text) }
    }
}
